"""``LLMExtractor`` over real HTTP: the structured extraction call, only for what the rules
cannot read, within its budget, from its cache on a second asking."""

from __future__ import annotations

import pytest

from answerx import extract
from answerx.experiments.cache import ResponseCache
from answerx.judge import LLMExtractor, MemoryJudgeCache
from answerx.testing import FakeProviderServer, Reply
from fake_managers import MakeManager

GUESSED = "We add them all up and get seventeen apples. Then 3 more fell off the cart, maybe."
READING = {"full_reasoning_text": "…", "answer_value": "17", "confidence": 0.8}


@pytest.mark.parametrize(
    ("output", "asked"),
    [
        (GUESSED, True),  # the last number, guessed out of prose
        ("Nothing I can say about it.", True),  # finished, no answer
        ("The answer is 12.", False),  # a marked answer
        ("12", False),  # the output is the answer alone
        ("Let me count: 3, 5, and then", False),  # cut off: nothing more to read
    ],
)
def test_only_outputs_the_rules_cannot_read_are_asked_about(
    make_manager: MakeManager, output: str, asked: bool
) -> None:
    assert LLMExtractor(make_manager()).needs(extract(output, "numeric")) is asked


def test_the_extraction_call_reads_the_answer_in_tools_mode(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    llm = LLMExtractor(make_manager())
    fake_provider.enqueue(Reply.tool_call(READING, usage=(400, 25)))
    result = llm.extract(extract(GUESSED, "numeric"), question="How many apples?")
    assert result.used and not result.cached
    assert (result.extraction.answer, result.extraction.method) == ("17", "structured_llm")
    assert (result.calls, result.input_tokens, result.output_tokens) == (1, 400, 25)
    (request,) = fake_provider.chat_requests
    assert request.has_tools and "How many apples?" in request.text and GUESSED in request.text


def test_a_provider_that_rejects_tools_is_asked_in_a_json_mode(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    llm = LLMExtractor(make_manager())
    fake_provider.enqueue(Reply.reject_tools(), Reply.json(READING))
    assert llm.extract(extract(GUESSED, "numeric")).extraction.answer == "17"
    assert [r.has_tools for r in fake_provider.chat_requests] == [True, False]


def test_a_failed_call_leaves_the_rules_reading(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    llm = LLMExtractor(make_manager())
    fake_provider.enqueue(Reply.server_error(503), Reply.server_error(503))
    found = extract(GUESSED, "numeric")
    result = llm.extract(found)
    assert not result.used and result.extraction == found
    assert result.reason.endswith(": ProviderUnavailable (HTTP 503)")  # summarised, not quoted
    assert llm.summary.failed == 1


def test_a_rejected_key_stops_every_later_call(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    llm = LLMExtractor(make_manager())
    fake_provider.enqueue(Reply.unauthorized())
    llm.extract(extract(GUESSED, "numeric"))
    later = llm.extract(extract("Nothing I can say about it.", "numeric"))
    assert later.reason.startswith("not asked: the provider refused the key")
    assert len(fake_provider.chat_requests) == 1
    assert llm.summary.stopped is not None


def test_the_budget_stops_asking(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    llm = LLMExtractor(make_manager(), max_calls=1)
    fake_provider.set_default(Reply.tool_call(READING))
    first = llm.extract(extract(GUESSED, "numeric"))
    second = llm.extract(extract("Nothing I can say about it.", "numeric"))
    assert first.used and not second.used
    assert second.reason == "not asked: the extractor's budget of 1 calls is spent"


@pytest.mark.parametrize("persistent", [False, True], ids=["memory", "response_cache"])
def test_a_second_asking_is_answered_from_the_cache(
    make_manager: MakeManager, fake_provider: FakeProviderServer, tmp_path: object, persistent: bool
) -> None:
    cache = ResponseCache(f"{tmp_path}/cache.db") if persistent else MemoryJudgeCache()
    fake_provider.set_default(Reply.tool_call(READING, usage=(400, 25)))
    found = extract(GUESSED, "numeric")
    first = LLMExtractor(make_manager(), cache=cache).extract(found)
    again = LLMExtractor(make_manager(), cache=cache).extract(found)
    assert len(fake_provider.chat_requests) == 1
    assert again.cached and again.calls == 0 and again.extraction == first.extraction
