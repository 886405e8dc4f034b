"""``answerx verify --judge`` and ``answerx extract --llm`` against the fake provider server.

The command line's LLM is a real manager (the OpenAI SDK and Instructor over real HTTP)
pointed at the loopback fake server through the SDK's own variables (``fake_provider_env``).
Only the items the rules could not decide reach it; a budget stops it with a message; a
failed call leaves the rules' verdict; a re-run is answered from the response cache.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from answerx.cli import app
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

runner = CliRunner()

JUDGE = "openai/judge-model"
CORRECT = {"stated_answer": "Paris", "reason": "It commits to Paris.", "verdict": "correct",
           "confidence": 0.9}  # fmt: skip
HEDGED = "I'm not sure, perhaps Paris."
CAPITAL = "What is the capital of France?"


@pytest.fixture
def judge_server(fake_provider_env: FakeProviderServer) -> FakeProviderServer:
    fake_provider_env.set_default(Reply.tool_call(CORRECT, usage=(300, 40)))
    return fake_provider_env


def records() -> list[dict[str, Any]]:
    return [
        # the rules are unsure (a hedge fired a guard): the judge is asked
        {"id": 1, "output": HEDGED, "answers": ["Paris", "City of Light"], "question": CAPITAL},
        # decided by the rules: never reaches the judge
        {"id": 2, "output": "The answer is Paris.", "answers": ["Paris"], "question": CAPITAL},
        {"id": 3, "output": "The answer is 42.", "answers": ["42"]},
    ]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def verify_file(src: Path, out: Path, *extra: str) -> Any:
    return runner.invoke(
        app,
        ["verify", "--file", str(src), "--out", str(out), "--field", "output",
         "--gold-field", "answers", "--workers", "1", "--judge", JUDGE, *extra],
    )  # fmt: skip


# --------------------------------------------------------------------------- single text
def test_a_single_text_in_doubt_is_judged_with_its_question(
    judge_server: FakeProviderServer,
) -> None:
    result = runner.invoke(
        app, ["verify", HEDGED, "-g", "Paris", "-g", "City of Light", "--question", CAPITAL,
              "--judge", JUDGE, "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    assert (verdict["correct"], verdict["how"], verdict["doubt"]) == (
        True, "llm_judge", "guard_fired"
    )  # fmt: skip
    assert verdict["judge"]["reason"] == "It commits to Paris."
    assert verdict["judge"]["rules_how"] == "hedged_answer"
    assert (verdict["judge"]["calls"], verdict["judge"]["input_tokens"]) == (1, 300)
    (request,) = judge_server.chat_requests
    assert CAPITAL in request.text and "City of Light" in request.text


def test_a_single_text_the_rules_decide_never_asks_the_judge(
    judge_server: FakeProviderServer,
) -> None:
    result = runner.invoke(
        app, ["verify", "The answer is Paris.", "--gold", '["Paris", "City of Light"]',
              "--judge", JUDGE, "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    assert (verdict["how"], verdict["matched_gold"], verdict["judge"]) == (
        "exact_match", "Paris", None
    )  # fmt: skip
    assert judge_server.chat_requests == []


def test_a_question_lets_a_surname_answer_a_person() -> None:
    args = ["verify", "Curie.", "--gold", "Marie Curie", "-t", "short_answer", "--format", "json"]
    plain = json.loads(runner.invoke(app, args).stdout)
    asked = json.loads(runner.invoke(app, [*args, "--question", "Who discovered radium?"]).stdout)
    assert (plain["correct"], asked["correct"], asked["how"]) == (False, True, "surname_match")


def test_the_table_shows_the_matched_alias_and_the_measures() -> None:
    result = runner.invoke(
        app, ["verify", "<answer>the Fab Four</answer>", "-g", "The Beatles", "-g", "Fab Four",
              "--format", "table"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "matched_gold" in result.stdout and "Fab Four" in result.stdout
    assert "em / f1 / cover" in result.stdout


# --------------------------------------------------------------------------- files
def test_only_the_residue_of_a_file_is_judged_and_the_summary_says_what_it_cost(
    judge_server: FakeProviderServer, tmp_path: Path
) -> None:
    src, out = write_jsonl(tmp_path / "in.jsonl", records()), tmp_path / "out.jsonl"
    result = verify_file(src, out)
    assert result.exit_code == 0, result.output
    rows = read_jsonl(out)
    assert [r["how"] for r in rows] == ["llm_judge", "exact_match", "exact_match"]
    assert [r["judge_verdict"] for r in rows] == ["correct", None, None]
    assert rows[0]["judge_reason"] == "It commits to Paris."
    assert [r["matched_gold"] for r in rows] == [None, "Paris", "42"]
    assert len(judge_server.chat_requests) == 1  # the decided items never reach the judge
    assert CAPITAL in judge_server.chat_requests[0].text  # the record's question field
    assert f"judge {JUDGE}: asked about 1 of 1 items in doubt" in result.stderr
    assert "LLM calls 1 · tokens 300 in, 40 out" in result.stderr
    assert "accuracy 100.0% (3/3" in result.stderr


def test_a_spent_budget_stops_asking_and_says_so(
    judge_server: FakeProviderServer, tmp_path: Path
) -> None:
    rows = [*records(), {"id": 4, "output": "Either Paris or Lyon.", "answers": ["Paris"]}]
    src, out = write_jsonl(tmp_path / "in.jsonl", rows), tmp_path / "out.jsonl"
    result = verify_file(src, out, "--judge-max-calls", "1", "--judge-concurrency", "1")
    assert result.exit_code == 0, result.output
    written = read_jsonl(out)
    assert [r["how"] for r in written] == [
        "llm_judge", "exact_match", "exact_match", "several_candidates"
    ]  # fmt: skip
    assert written[3]["judge_reason"] == "not asked: the judge's budget of 1 calls is spent"
    assert written[3]["correct"] is False  # the rules' verdict stands
    assert len(judge_server.chat_requests) == 1
    assert "stopped asking: the judge's budget of 1 calls is spent" in result.stderr
    assert "asked about 2 of 2 items in doubt; ruled on 1" in result.stderr


def test_a_provider_error_leaves_the_rules_verdict(
    fake_provider_env: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider_env.set_default(Reply.unauthorized())
    src, out = write_jsonl(tmp_path / "in.jsonl", records()), tmp_path / "out.jsonl"
    result = verify_file(src, out)
    assert result.exit_code == 0, result.output
    first = read_jsonl(out)[0]
    assert (first["correct"], first["how"], first["judge_verdict"]) == (
        False, "hedged_answer", None
    )  # fmt: skip
    assert first["judge_reason"].endswith(": ProviderAuthError (HTTP 401)")  # not quoted
    assert "1 not ruled" in result.stderr
    assert "sk-" not in result.stderr + out.read_text()  # the dummy key never shows


def test_a_rerun_is_answered_from_the_response_cache(
    judge_server: FakeProviderServer, tmp_path: Path
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", records())
    first = verify_file(src, tmp_path / "first.jsonl")
    again = verify_file(src, tmp_path / "again.jsonl")
    assert first.exit_code == again.exit_code == 0, again.output
    assert len(judge_server.chat_requests) == 1  # asked once, for both runs
    assert read_jsonl(tmp_path / "first.jsonl") == read_jsonl(tmp_path / "again.jsonl")
    assert "LLM calls 0" in again.stderr and "1 from the cache" in again.stderr
    fresh = verify_file(src, tmp_path / "fresh.jsonl", "--no-cache")
    assert fresh.exit_code == 0 and len(judge_server.chat_requests) == 2


def test_a_cost_cap_needs_a_known_price(judge_server: FakeProviderServer, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", records())
    result = verify_file(src, tmp_path / "out.jsonl", "--judge-max-cost", "0.5")
    assert result.exit_code == 2
    assert "--judge-max-cost needs the price of openai/judge-model" in result.stderr


def test_without_a_judge_the_summary_counts_the_items_in_doubt(tmp_path: Path) -> None:
    src, out = write_jsonl(tmp_path / "in.jsonl", records()), tmp_path / "out.jsonl"
    result = runner.invoke(
        app, ["verify", "--file", str(src), "--out", str(out), "--field", "output",
              "--gold-field", "answers", "--workers", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "judge_verdict" not in read_jsonl(out)[0]
    assert "the rules were unsure of 1 items" in result.stderr
    assert "short answers (3): em 66.7% · f1 77.8% · cover 100.0%" in result.stderr


# --------------------------------------------------------------------------- gold lists
def test_a_csv_field_holding_a_json_list_is_the_accepted_answers(tmp_path: Path) -> None:
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text(
        'output,gold\n"<answer>the Fab Four</answer>","[""The Beatles"", ""Fab Four""]"\n'
        '"The answer is [0, 1].","[0, 1]"\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["verify", "--file", str(src), "--out", str(out),
                                 "--field", "output", "--workers", "1"])  # fmt: skip
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert ",true,equivalent,exact_match,Fab Four," in text.replace('"', "")
    assert "[0, 1]" in text  # an interval, not a list of answers: graded as one answer


def test_a_parquet_list_column_is_the_accepted_answers(tmp_path: Path) -> None:
    src, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    pq.write_table(
        pa.table({"raw_output": ["It was the Fab Four.", "Lyon."],
                  "gold": [["The Beatles", "Fab Four"], ["Paris"]]}),
        src,
    )  # fmt: skip
    result = runner.invoke(app, ["verify", "--file", str(src), "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    table = pq.read_table(out)
    assert table.column("correct").to_pylist() == [True, False]
    assert table.column("matched_gold").to_pylist() == ["Fab Four", None]


# --------------------------------------------------------------------------- extract --llm
def extraction_reply(request: RecordedRequest) -> Reply:
    return Reply.tool_call(
        {"full_reasoning_text": "…", "answer_value": "17", "confidence": 0.8}, usage=(500, 30)
    )


def test_extract_llm_reads_only_what_the_rules_could_not(
    fake_provider_env: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider_env.set_default(extraction_reply)
    rows = [
        {"id": 1, "raw_output": "We add them all up and get seventeen apples in the basket."
         " Then we are done with it.", "task": "numeric", "question": "How many apples?"},
        {"id": 2, "raw_output": "The answer is 12.", "task": "numeric"},
        {"id": 3, "raw_output": "Let me count: 3, 5, and then", "task": "numeric",
         "finish_reason": "length"},
    ]  # fmt: skip
    src, out = write_jsonl(tmp_path / "in.jsonl", rows), tmp_path / "out.jsonl"
    args = ["extract", "--file", str(src), "--out", str(out), "--workers", "1",
            "--llm", "openai/extractor"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    written = read_jsonl(out)
    assert [(r["answer"], r["method"]) for r in written] == [
        ("17", "structured_llm"), ("12", "final_answer_phrase"), (None, "none")
    ]  # fmt: skip
    (request,) = fake_provider_env.chat_requests  # the marked and the cut-off ones: not asked
    assert "How many apples?" in request.text
    assert "LLM extraction openai/extractor: asked about 1 outputs" in result.stderr
    assert "LLM calls 1 · tokens 500 in, 30 out" in result.stderr
    again = runner.invoke(app, [*args[:4], str(tmp_path / "again.jsonl"), *args[5:]])
    assert again.exit_code == 0 and len(fake_provider_env.chat_requests) == 1
    assert "1 from the cache" in again.stderr


def test_extract_llm_on_a_single_text(fake_provider_env: FakeProviderServer) -> None:
    fake_provider_env.set_default(extraction_reply)
    result = runner.invoke(
        app, ["extract", "So it ends up as seventeen, roughly, after all the counting.",
              "--task", "numeric", "--llm", "openai/extractor", "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["method"] == "structured_llm"


def test_llm_options_without_llm_are_a_usage_error() -> None:
    result = runner.invoke(app, ["extract", "x", "--llm-max-calls", "3"])
    assert result.exit_code == 2
    assert "need --llm" in result.stderr
