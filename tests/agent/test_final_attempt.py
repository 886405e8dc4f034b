"""final_attempt / force_answer: one last call at temperature 0, read deterministically."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from answerx.agent import (
    FinalAnswer,
    StepLimitReached,
    Termination,
    afinal_attempt,
    aforce_answer,
    final_attempt,
    force_answer,
    raise_if_unanswered,
)
from answerx.errors import ConfigError
from answerx.extraction import AnswerSpec
from answerx.structured import InstructorClientManager
from answerx.structured.callinfo import Usage
from answerx.structured.providers import get_provider
from answerx.support.resources import prompt_template
from answerx.testing import FakeProviderServer, RecordedRequest, Reply
from fake_managers import FAKEABLE_PROVIDERS

MakeManager = Callable[..., InstructorClientManager]  # the make_manager fixture of conftest.py

CONVERSATION = [
    {"role": "user", "content": "Who wrote Dune? Search, then answer in <answer></answer>."},
    {"role": "assistant", "content": "<search>author of Dune</search>"},
    {
        "role": "user",
        "content": "<information>Dune (1965) is a novel by Frank Herbert.</information>",
    },
]
FINAL_PROMPT = prompt_template("final_attempt").template.strip()
FORCE_PROMPT = (
    "You have now reached the maximum context length you can handle. You should stop making "
    "tool calls and, based on all the information above, think again and provide what you "
    "consider the most likely answer in the following format:<think>your final thinking</think>"
    "\n<answer>your answer</answer>"
)


def sent_temperature(provider: str) -> int | None:
    """The temperature a final call sends: 0, or none where the manager drops it because
    the provider's installed SDK takes no sampling parameters (anthropic 2.x)."""
    if "temperature" in get_provider(provider).adapter.dropped_options():
        return None
    return 0


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)


def last_message(request: RecordedRequest) -> dict[str, Any]:
    return request.messages[-1]  # type: ignore[no-any-return]


@pytest.mark.parametrize("provider", FAKEABLE_PROVIDERS)
def test_final_attempt_sends_its_prompt_last_at_temperature_zero(
    make_manager: MakeManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider)
    fake_provider.enqueue(Reply.text("It is <answer>Frank Herbert</answer>.", usage=(80, 9)))

    final = final_attempt(manager, CONVERSATION, temperature=0.9, max_tokens=64)

    request = fake_provider.last_request
    assert request.json.get("temperature") == sent_temperature(provider)  # never the caller's 0.9
    assert request.json["max_tokens"] == 64  # other settings pass through
    assert last_message(request)["role"] == "user"
    assert text_of(last_message(request)) == FINAL_PROMPT
    assert "Return your best final answer now." in FINAL_PROMPT
    assert (final.prediction, final.termination) == ("Frank Herbert", Termination.ANSWER)
    assert final.extraction.method == "answer_block"
    assert final.info is not None and final.info.usage == Usage(input_tokens=80, output_tokens=9)


def test_final_attempt_does_not_change_the_conversation(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    conversation = [dict(m) for m in CONVERSATION]
    fake_provider.enqueue(Reply.text("<answer>Frank Herbert</answer>"))

    final = final_attempt(manager, conversation)

    assert conversation == CONVERSATION
    sent = fake_provider.last_request.messages
    assert [text_of(m) for m in sent] == [m["content"] for m in CONVERSATION] + [FINAL_PROMPT]
    assert final.messages(conversation)[-2:] == [
        {"role": "user", "content": FINAL_PROMPT},
        {"role": "assistant", "content": "<answer>Frank Herbert</answer>"},
    ]


def test_final_attempt_reads_the_reply_with_every_deterministic_rule(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("Adding them up gives 12, so the answer is $\\boxed{12}$."))

    final = final_attempt(manager, CONVERSATION, task="math")

    assert (final.prediction, final.extraction.method) == ("12", "boxed")
    assert final.termination == Termination.ANSWER


def test_a_final_attempt_reads_the_reply_as_the_items_spec_says(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("The answer is Chloroplast."))
    spec = AnswerSpec.for_item("auto", ["Mitochondrion", "Chloroplast"])

    final = final_attempt(manager, CONVERSATION, spec=spec)

    assert (final.prediction, final.extraction.task) == ("B", "multiple_choice")
    with pytest.raises(ConfigError, match="not both"):
        final_attempt(manager, CONVERSATION, spec=spec, choices=["x", "y"])


@pytest.mark.parametrize("reason", [Termination.EXCEED_CALLS, Termination.TIMEOUT])
def test_a_final_attempt_without_an_answer_keeps_the_limit_as_its_termination(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, reason: Termination
) -> None:
    fake_provider.enqueue(Reply.text("I could not find it."))

    final = final_attempt(manager, CONVERSATION, reason=reason)

    assert final.prediction is None
    assert final.termination == reason
    assert final.text == "I could not find it."
    with pytest.raises(StepLimitReached) as raised:
        raise_if_unanswered(final)
    assert raised.value.termination == reason


def test_raise_if_unanswered_returns_an_answered_final(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("<answer>Frank Herbert</answer>"))
    final = final_attempt(manager, CONVERSATION)

    assert raise_if_unanswered(final) is final


def test_a_failed_final_call_gives_no_prediction_and_no_key(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("openai", transient_retries=0)
    fake_provider.enqueue(Reply.server_error())

    final = final_attempt(manager, CONVERSATION, reason=Termination.TIMEOUT)

    assert (final.prediction, final.text) == (None, "")
    # What the failed call used is kept, so callers that sum usage count it too.
    assert final.info is not None
    assert (final.info.mode, final.info.attempts) == (None, 1)
    assert final.termination == Termination.TIMEOUT
    assert final.error is not None and "0123456789abcdef" not in final.error
    assert final.messages(CONVERSATION)[-1] == {"role": "user", "content": FINAL_PROMPT}
    with pytest.raises(StepLimitReached, match="final call failed"):
        raise_if_unanswered(final)


def test_a_final_attempt_is_only_made_for_a_limit_or_a_missing_answer(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    with pytest.raises(ConfigError, match="not 'answer'"):
        final_attempt(manager, CONVERSATION, reason=Termination.ANSWER)
    assert fake_provider.requests == []


def test_a_user_prompt_directory_overrides_the_final_prompt(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    (tmp_path / "final_attempt.txt").write_text("Answer now, in <answer></answer>. Costs $5.\n")
    fake_provider.enqueue(Reply.text("<answer>Frank Herbert</answer>"))

    final_attempt(manager, CONVERSATION, prompt_dir=tmp_path)

    assert text_of(last_message(fake_provider.last_request)) == (
        "Answer now, in <answer></answer>. Costs $5."
    )


@pytest.mark.parametrize("provider", FAKEABLE_PROVIDERS)
def test_force_answer_takes_the_answer_block_of_the_reply(
    make_manager: MakeManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider)
    fake_provider.enqueue(
        Reply.text("<think>The novel is by Herbert.</think>\n<answer> **Frank Herbert** </answer>")
    )

    final = force_answer(manager, CONVERSATION, temperature=0.7)

    request = fake_provider.last_request
    assert request.json.get("temperature") == sent_temperature(provider)
    assert text_of(last_message(request)) == FORCE_PROMPT  # DeepResearch's wording
    assert final.termination == Termination.TOKEN_LIMIT_ANSWER
    assert final.termination == "generate an answer as token limit reached"
    assert final.prediction == "Frank Herbert"


def test_force_answer_without_a_block_is_a_format_error_with_the_whole_reply(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("  Probably Frank Herbert, judging by the search.\n"))

    final = force_answer(manager, CONVERSATION)

    assert final.termination == "format error: generate an answer as token limit reached"
    assert final.prediction == "Probably Frank Herbert, judging by the search."
    assert raise_if_unanswered(final) is final


def test_force_answer_ignores_a_copied_placeholder_block(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("<think>...</think>\n<answer>your answer</answer>"))

    final = force_answer(manager, CONVERSATION)

    assert final.termination == Termination.TOKEN_LIMIT_FORMAT_ERROR


def test_async_final_attempt_and_forced_answer(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.text("<answer>Frank Herbert</answer>"), Reply.text("No idea, sorry.")
    )

    async def both() -> tuple[FinalAnswer, FinalAnswer]:
        final = await afinal_attempt(manager, CONVERSATION, reason=Termination.TIMEOUT)
        forced = await aforce_answer(manager, CONVERSATION)
        return final, forced

    final, forced = asyncio.run(both())

    assert (final.prediction, final.termination) == ("Frank Herbert", Termination.ANSWER)
    assert (forced.prediction, forced.termination) == (
        "No idea, sorry.",
        Termination.TOKEN_LIMIT_FORMAT_ERROR,
    )
    assert [text_of(r.messages[-1]) for r in fake_provider.requests] == [
        FINAL_PROMPT,
        FORCE_PROMPT,
    ]
    assert all(r.json["temperature"] == 0 for r in fake_provider.requests)
