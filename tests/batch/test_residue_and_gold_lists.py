"""Gold lists, questions and the residue in Arrow tables and file runs.

A judge here is a test double (any object with ``judge(request)``): what is tested is
which records reach it, how its rulings land in every output format, and what a stop
while it is being asked leaves behind. The LLM judge itself over HTTP is tested in
tests/judge and tests/cli.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from answerx.batch import VERIFY_COLUMNS, run_file, verify_table
from answerx.batch.tables import gold_value
from answerx.grading.judgement import JudgeRequest, JudgeRuling

HEDGED = "I'm not sure, perhaps Paris."


class CountingJudge:
    """Rules every item correct, remembering what it was asked; thread-safe."""

    name = "test/double"

    def __init__(self, on_ask: Any = None) -> None:
        self.asked: list[JudgeRequest] = []
        self._lock = threading.Lock()
        self._on_ask = on_ask

    def judge(self, request: JudgeRequest) -> JudgeRuling:
        with self._lock:
            self.asked.append(request)
        if self._on_ask is not None:
            self._on_ask()
        return JudgeRuling(
            verdict="correct", reason=f"asked for {request.doubt}", judge=self.name, calls=1,
            input_tokens=100, output_tokens=10, cost_usd=0.25,
        )  # fmt: skip


def qa_table() -> pa.Table:
    return pa.table(
        {
            "raw_output": [HEDGED, "The answer is Paris.", "Curie.", None],
            "gold": [["Paris", "City of Light"], ["Paris"], ["Marie Curie"], ["x"]],
            "question": ["Capital of France?", None, "Who discovered radium?", None],
        }
    )


def test_a_list_column_holds_the_accepted_answers() -> None:
    out = verify_table(qa_table(), question="question")
    assert out.column("correct").to_pylist() == [False, True, True, None]
    assert out.column("how").to_pylist() == [
        "hedged_answer", "exact_match", "surname_match", None
    ]  # fmt: skip
    assert out.column("matched_gold").to_pylist() == [None, "Paris", "Marie Curie", None]
    assert out.column("doubt").to_pylist() == ["guard_fired", None, None, None]
    assert out.column("em").to_pylist()[1] == 1.0


def test_the_added_columns_are_the_documented_ones() -> None:
    out = verify_table(qa_table())
    assert out.column_names[3:] == [name for name, _ in VERIFY_COLUMNS] + ["error"]
    assert "judge_verdict" not in out.column_names


def test_json_text_of_a_list_is_a_list_but_an_interval_is_one_answer() -> None:
    assert gold_value('["Paris", "City of Light"]') == ["Paris", "City of Light"]
    assert gold_value('[1989, "nineteen eighty-nine"]') == [1989, "nineteen eighty-nine"]
    assert gold_value("[0, 1]") == "[0, 1]"
    assert gold_value("[Paris") == "[Paris"
    table = pa.table(
        {"raw_output": ["It is the City of Light."], "gold": ['["Paris", "City of Light"]']}
    )
    assert verify_table(table).column("matched_gold").to_pylist() == ["City of Light"]


def test_a_judge_is_asked_only_about_rows_in_doubt() -> None:
    judge = CountingJudge()
    out = verify_table(qa_table(), question="question", judge=judge)
    assert [r.doubt for r in judge.asked] == ["guard_fired"]
    assert judge.asked[0].question == "Capital of France?"
    assert judge.asked[0].golds == ("Paris", "City of Light")
    assert out.column("how").to_pylist()[0] == "llm_judge"
    assert out.column("judge_verdict").to_pylist() == ["correct", None, None, None]


def test_a_missing_question_column_is_named() -> None:
    with pytest.raises(Exception, match="no column 'asked'"):
        verify_table(qa_table(), question="asked")


# --------------------------------------------------------------------------- file runs
RECORDS = [
    {"raw_output": HEDGED, "gold": ["Paris", "City of Light"], "question": "Capital of France?"},
    {"raw_output": "The answer is Paris.", "gold": ["Paris"], "question": "Capital of France?"},
    {"raw_output": "Either Paris or Lyon.", "gold": ["Paris"], "question": "Capital of France?"},
    {"raw_output": "The answer is 42.", "gold": ["42"], "question": "6 times 7?"},
]


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv", ".parquet"])
@pytest.mark.parametrize("batch_size", [1, 1024])
def test_rulings_land_in_every_output_format(
    src: Path, tmp_path: Path, suffix: str, batch_size: int
) -> None:
    judge = CountingJudge()
    out = tmp_path / f"out{suffix}"
    summary = run_file(
        src, out, mode="verify", judge=judge, workers=1, batch_size=batch_size, prefix="v_"
    )
    rows = _read(out)
    assert [r["v_how"] for r in rows] == ["llm_judge", "exact_match", "llm_judge", "exact_match"]
    assert [r["v_judge_verdict"] for r in rows] == ["correct", None, "correct", None]
    assert len(judge.asked) == 2
    assert (summary.correct, summary.judged, summary.doubtful) == (4, 4, 2)
    assert summary.by_reason == {"equivalent": 4}
    assert summary.llm is not None
    assert (summary.llm.asked, summary.llm.ruled, summary.llm.changed) == (2, 2, 2)
    assert (summary.llm.calls, summary.llm.input_tokens, summary.llm.cost_usd) == (2, 200, 0.5)


def test_a_stop_while_the_judge_is_asked_leaves_that_batch_for_continue(
    src: Path, tmp_path: Path
) -> None:
    stop = threading.Event()
    decided_first = [RECORDS[1], RECORDS[3], RECORDS[0], RECORDS[2]]
    src.write_text("".join(json.dumps(r) + "\n" for r in decided_first), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    # Two batches; the second holds two items in doubt, asked one at a time, and Ctrl-C
    # comes during the first of them.
    options: dict[str, Any] = {"mode": "verify", "workers": 1, "batch_size": 2}
    first = run_file(src, out, judge=CountingJudge(on_ask=stop.set), llm_concurrency=1,
                     stop=stop.is_set, **options)  # fmt: skip
    assert first.interrupted and first.written == 2  # the second batch not written half-judged
    judge = CountingJudge()
    rest = run_file(src, out, judge=judge, resume=True, **options)
    assert not rest.interrupted and rest.written == 4
    assert len(judge.asked) == 2  # the stopped batch asked again (an LLM judge: from its cache)
    assert [r["how"] for r in _read(out)] == [
        "exact_match", "exact_match", "llm_judge", "llm_judge"
    ]  # fmt: skip


def test_without_a_judge_the_residue_is_only_counted(src: Path, tmp_path: Path) -> None:
    summary = run_file(src, tmp_path / "out.jsonl", mode="verify", workers=1)
    assert (summary.doubtful, summary.llm) == (2, None)
    means = summary.short_answer_means()
    assert means is not None and means.items == 4
    assert "judge_verdict" not in _read(tmp_path / "out.jsonl")[0]


def test_a_judge_needs_verify_mode(src: Path, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="mode='verify'"):
        run_file(src, tmp_path / "o.jsonl", judge=CountingJudge())


def _read(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pylist()
    if path.suffix == ".csv":
        import csv

        with path.open(encoding="utf-8") as f:
            return [{k: (v or None) for k, v in row.items()} for row in csv.DictReader(f)]
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return list(json.loads(text))
    return [json.loads(line) for line in text.splitlines()]
