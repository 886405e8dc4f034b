"""What a run stores to audit an item: every call's messages and reply, and where in the raw
output the answer was read (the span a run viewer highlights)."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_helpers import GoldModel, request_text, write_config

from answerx.experiments.config import load_config
from answerx.experiments.records import calls_of
from answerx.experiments.runner import run_experiment, span_in
from answerx.experiments.store import ResultStore
from answerx.extraction import extract
from answerx.testing import FakeProviderServer, RecordedRequest, Reply


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-audit-key")
    monkeypatch.delenv("ANSWERX_PROMPT_DIR", raising=False)


def _run(fake_provider: FakeProviderServer, tmp_path: Path, **overrides: object) -> list:  # type: ignore[type-arg]
    config = load_config(
        write_config(tmp_path / "run.yaml", fake_provider.openai_base_url, **overrides)
    )
    summary = run_experiment(config)
    with ResultStore(config.output.db) as store:
        return list(store.items(summary.run_id))


def test_a_two_stage_item_keeps_its_call_and_the_span_of_its_answer(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(GoldModel())
    items = _run(fake_provider, tmp_path, approaches=["none"], strategies=["two_stage"])
    one = next(i for i in items if i.item_id == "arithmetic/arith-01")
    assert one.extracted_answer == "26" and one.method == "answer_block"
    assert one.span is not None
    start, end = one.span
    assert one.raw_output[start:end] == one.candidate == "26"
    [call] = calls_of(one.conversation) or []
    assert call.kind == "text" and call.reply == one.raw_output
    assert "A baker fills 7 trays" in call.messages[-1]["content"]
    assert call.info is not None and call.info.usage.output_tokens == 10
    assert not call.cached and call.error is None


def test_a_structured_item_keeps_the_mode_of_its_call_and_no_span(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(GoldModel())
    items = _run(fake_provider, tmp_path, approaches=["chain_of_thought"])
    one = items[0]
    assert one.span is None  # read from a structured reply, not from text
    [call] = calls_of(one.conversation) or []
    assert call.kind == "structured" and call.response_model
    assert call.info is not None and call.info.mode == "tools"
    assert call.reply is not None and '"answer_value"' in call.reply


def test_a_multi_call_item_keeps_every_call_and_the_span_lands_in_its_last_reply(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    model = GoldModel()

    def critic(request: RecordedRequest) -> Reply:
        # reflection: a draft, a critique asking for a revision, a revision; every
        # reply states the answer.
        answer = model.answer_for(request_text(request))
        return Reply.text(
            f"  Checking again.\nThe answer is <answer>{answer}</answer>\n"
            "<verdict>revise</verdict>\n"
        )

    fake_provider.set_default(critic)
    items = _run(
        fake_provider,
        tmp_path,
        approaches=["reflection"],
        strategies=["two_stage"],
        approach_settings={"reflection": {"multi_call": True, "rounds": 1}},
    )
    one = next(i for i in items if i.item_id == "arithmetic/arith-01")
    calls = calls_of(one.conversation) or []
    assert len(calls) == one.calls >= 2
    assert all(c.reply and "<answer>" in c.reply for c in calls)
    assert one.span is not None
    start, end = one.span
    assert one.raw_output[start:end] == "26"
    # The last reply's answer, not the first one's.
    assert start > one.raw_output.index("26")


def test_a_failed_call_is_kept_with_its_error(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(Reply.error(400, "bad request for this item"))
    items = _run(fake_provider, tmp_path, approaches=["none"], strategies=["two_stage"])
    calls = calls_of(items[0].conversation) or []
    assert calls and calls[0].reply is None
    assert calls[0].error is not None and "bad request" in calls[0].error


def test_a_cached_call_is_kept_as_cached(fake_provider: FakeProviderServer, tmp_path: Path) -> None:
    fake_provider.set_default(GoldModel())
    _run(fake_provider, tmp_path, approaches=["none"], strategies=["two_stage"])
    again = _run(fake_provider, tmp_path, approaches=["none"], strategies=["two_stage"])
    calls = calls_of(again[0].conversation) or []
    assert calls and all(c.cached for c in calls)


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("The answer is \\boxed{12}.", "The answer is \\boxed{12}."),
        ("[draft]\nSo 12.\n\n[revise]\nFinal: \\boxed{12}", "  Final: \\boxed{12}\n"),
    ],
)
def test_the_span_is_mapped_into_the_stored_text_and_checked(text: str, reply: str) -> None:
    found = extract(reply, "numeric")
    span = span_in(text, found)
    assert span is not None and text[span[0] : span[1]] == found.candidate == "12"


def test_no_span_when_the_reply_is_not_in_the_stored_text() -> None:
    found = extract("The answer is \\boxed{12}.", "numeric")
    assert span_in("a structured reply as JSON", found) is None
