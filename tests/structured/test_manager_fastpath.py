"""The manager's fast first request behaves exactly like Instructor's own ``create``.

Each scenario runs twice against the same script of the fake provider server: once
with the fast path (``answerx.structured.fastpath.FirstTry``), once with
``fast_path=False``, where every attempt goes through Instructor's ``client.create``. The requests
on the wire, the result, the ``CallInfo`` and the error must be the same.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from instructor.core import AsyncInstructor, Instructor

from answerx.errors import ProviderError
from answerx.structured import InstructorClientManager
from answerx.structured.fastpath import options_key
from answerx.structured.models import ReasoningExtraction, get_extraction_model
from answerx.structured.providers import get_provider
from answerx.testing import FakeProviderServer, Reply

GOOD = {"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 0.9}
EMPTY_ANSWER = {**GOOD, "answer_value": "The answer is "}  # empty once cleaned: re-asked
ASK = [{"role": "user", "content": "What is 2 + 2?"}]
WARM_UP = [{"role": "user", "content": "What is 3 + 3?"}]

#: Conversations: plain ones reuse the cached request frame, the others go through
#: Instructor's handler on every call.
CONVERSATIONS: dict[str, list[dict[str, Any]]] = {
    "one user turn": ASK,
    "three turns": [
        {"role": "user", "content": "Compute 2 + 2."},
        {"role": "assistant", "content": "Shall I show the steps?"},
        {"role": "user", "content": "Yes, then give the answer."},
    ],
    "system prompt": [{"role": "system", "content": "Answer briefly."}, *ASK],
    "two user turns": [*ASK, {"role": "user", "content": "Think step by step."}],
    "text blocks": [{"role": "user", "content": [{"type": "text", "text": "What is 2 + 2?"}]}],
}

#: Options each SDK's create() accepts.
OPTIONS: dict[str, dict[str, Any]] = {
    "openai": {"temperature": 0.0, "max_tokens": 77},
    "anthropic": {"stop_sequences": ["</answer>"], "max_tokens": 77},
    "cohere": {"temperature": 0.0, "max_tokens": 77},
}

_IDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{24}")


def good(mode: str) -> Reply:
    """A valid answer as a model in ``mode`` writes it."""
    if mode == "md_json":
        return Reply.text(f"```json\n{json.dumps(GOOD)}\n```", usage=(20, 2))
    return Reply.tool_call(GOOD, usage=(20, 2))


def still_invalid(manager: InstructorClientManager) -> list[Reply]:
    """Invalid output on the first try and on every re-ask of the first mode."""
    return [Reply.invalid_json(usage=(10, 1))] * (manager.max_retries + 1)


#: name -> the replies, in order, given the manager (its chain and max_retries).
SCRIPTS: dict[str, Callable[[InstructorClientManager], list[Reply]]] = {
    "valid at once": lambda m: [good(m.modes[0])],
    "invalid JSON, then valid": lambda m: [Reply.invalid_json(usage=(10, 1)), good(m.modes[0])],
    "validator rejects, then valid": lambda m: [Reply.tool_call(EMPTY_ANSWER), good(m.modes[0])],
    "still invalid, next mode": lambda m: [*still_invalid(m), good(m.modes[1])],
    "tools rejected, next mode": lambda m: [Reply.reject_tools(), good(m.modes[1])],
    "prose instead of a tool call": lambda m: [
        *[Reply.text("I think it is 4.", usage=(9, 3))] * (m.max_retries + 1),
        good(m.modes[1]),
    ],
    # A rate limit during the re-asks restarts the mode from its first request.
    "429 during the re-ask": lambda m: [
        Reply.invalid_json(usage=(10, 1)),
        Reply.rate_limited(retry_after=0.01),
        good(m.modes[0]),
    ],
    "429 then valid": lambda m: [Reply.rate_limited(retry_after=0.01), good(m.modes[0])],
    "truncated output": lambda m: [Reply.text('{"full_reasoning_text": "2 +', truncated=True)],
    "every mode invalid": lambda m: [Reply.invalid_json()] * (len(m.modes) * (m.max_retries + 1)),
    "refused key": lambda m: [Reply.unauthorized()],
}


@dataclass
class Outcome:
    """What one call did: its result or error, its CallInfo and its requests on the wire."""

    result: Any = None
    info: Any = None
    error: tuple[str, str] | None = None
    wire: list[str] = field(default_factory=list)


def _wire(fake: FakeProviderServer) -> list[str]:
    # Tool-call and message ids are random per reply; re-asks quote them.
    return [
        _IDS.sub("<id>", f"{r.path} {json.dumps(r.json, sort_keys=True)}")
        for r in fake.chat_requests
    ]


def _run(
    manager: InstructorClientManager,
    fake: FakeProviderServer,
    replies: list[Reply],
    messages: list[dict[str, Any]],
    *,
    model: type[ReasoningExtraction] = ReasoningExtraction,
    options: dict[str, Any] | None = None,
    is_async: bool = False,
) -> Outcome:
    # A first call with another conversation and no options: the request frame for
    # them is cached, and must not be reused for other options.
    fake.reset()
    fake.enqueue(good(manager.modes[0]))
    manager.create(WARM_UP, model)
    fake.reset()
    fake.enqueue(*replies)
    outcome = Outcome()
    try:
        if is_async:
            result, info = asyncio.run(manager.acreate(messages, model, **(options or {})))
        else:
            result, info = manager.create(messages, model, **(options or {}))
    except ProviderError as exc:
        outcome.error = (type(exc).__name__, str(exc))
    else:
        outcome.result = result.model_dump()
        outcome.info = info.model_dump(exclude={"latency_s"})
    outcome.wire = _wire(fake)
    fake.assert_all_consumed()
    return outcome


def _both(
    make_manager: Any,
    provider: str,
    run: Callable[[InstructorClientManager], Outcome],
    **options: Any,
) -> tuple[Outcome, Outcome]:
    """``run`` with the fast path, then with every attempt through Instructor's create."""
    fast = run(make_manager(provider, **options))
    slow = run(make_manager(provider, fast_path=False, **options))
    return fast, slow


# ----------------------------------------------------------------- same as Instructor


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_every_scenario_sends_and_returns_what_instructor_alone_does(
    make_manager: Any,
    fake_provider: FakeProviderServer,
    provider: str,
    script: str,
) -> None:
    def run(manager: InstructorClientManager) -> Outcome:
        return _run(manager, fake_provider, SCRIPTS[script](manager), ASK)

    fast, slow = _both(make_manager, provider, run)

    assert fast.wire == slow.wire
    assert (fast.result, fast.info, fast.error) == (slow.result, slow.info, slow.error)
    assert fast.wire  # the scenario reached the server


@pytest.mark.parametrize("conversation", list(CONVERSATIONS))
def test_every_conversation_shape_gets_instructors_own_request(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str, conversation: str
) -> None:
    def run(manager: InstructorClientManager) -> Outcome:
        replies = SCRIPTS["invalid JSON, then valid"](manager)
        return _run(manager, fake_provider, replies, CONVERSATIONS[conversation])

    fast, slow = _both(make_manager, provider, run)

    assert fast.wire == slow.wire
    assert len(fast.wire) == 2
    assert (fast.result, fast.info) == (slow.result, slow.info)


@pytest.mark.parametrize(
    ("provider", "mode"),
    [
        pytest.param(provider, mode, id=f"{provider}-{mode}")
        for provider in ("anthropic", "openai", "cohere", "local-openai")
        for mode in sorted(get_provider(provider).adapter.modes)
    ],
)
@pytest.mark.parametrize("conversation", ["three turns", "system prompt", "two user turns"])
def test_each_mode_alone_sends_what_instructor_sends(
    make_manager: Any,
    fake_provider: FakeProviderServer,
    provider: str,
    mode: str,
    conversation: str,
) -> None:
    def run(manager: InstructorClientManager) -> Outcome:
        replies = SCRIPTS["invalid JSON, then valid"](manager)
        return _run(manager, fake_provider, replies, CONVERSATIONS[conversation])

    fast, slow = _both(make_manager, provider, run, modes=[mode])

    assert fast.wire == slow.wire
    assert len(fast.wire) == 2
    assert (fast.result, fast.info) == (slow.result, slow.info)
    assert fast.info is not None and fast.info["mode"] == mode


def test_provider_options_and_task_models_get_instructors_own_request(
    make_manager: Any,
    fake_provider: FakeProviderServer,
    provider: str,
) -> None:
    model = get_extraction_model("chain_of_thought", task="numeric")
    args = {**GOOD, "reasoning_type": "chain_of_thought", "steps": ["2 + 2 = 4"]}

    def run(manager: InstructorClientManager) -> Outcome:
        options = OPTIONS[manager.spec.sdk]
        replies = [Reply.tool_call({**args, "answer_value": "four"}), Reply.tool_call(args)]
        return _run(manager, fake_provider, replies, ASK, model=model, options=options)

    fast, slow = _both(make_manager, provider, run)

    assert fast.wire == slow.wire
    assert len(fast.wire) == 2  # "four" is not a number: re-asked
    assert (fast.result, fast.info) == (slow.result, slow.info)


@pytest.mark.parametrize(
    "script", ["valid at once", "invalid JSON, then valid", "still invalid, next mode"]
)
def test_acreate_sends_and_returns_what_instructor_alone_does(
    make_manager: Any,
    fake_provider: FakeProviderServer,
    provider: str,
    script: str,
) -> None:
    def run(manager: InstructorClientManager) -> Outcome:
        replies = SCRIPTS[script](manager)
        return _run(manager, fake_provider, replies, ASK, is_async=True)

    fast, slow = _both(make_manager, provider, run)

    assert fast.wire == slow.wire
    assert (fast.result, fast.info) == (slow.result, slow.info)


# ----------------------------------------------------------------- the fast path is taken


@pytest.fixture
def no_instructor_create(monkeypatch: pytest.MonkeyPatch) -> None:
    """Instructor's ``create`` (sync and async clients) fails the test if called."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Instructor's create was called")

    monkeypatch.setattr(Instructor, "create", refuse)
    monkeypatch.setattr(AsyncInstructor, "create", refuse)


def test_fast_path_false_sends_every_attempt_through_instructors_create(
    make_manager: Any,
    fake_provider: FakeProviderServer,
    provider: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[type[Any]] = []
    create = Instructor.create

    def spy(self: Instructor, *args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["response_model"])
        return create(self, *args, **kwargs)

    monkeypatch.setattr(Instructor, "create", spy)
    manager = make_manager(provider, fast_path=False)
    fake_provider.enqueue(Reply.invalid_json(), Reply.reject_tools(), good(manager.modes[1]))

    _, info = manager.create(ASK, ReasoningExtraction)

    assert len(calls) == 2  # one create per mode; the re-ask is Instructor's own
    assert info.attempts == 3


def test_a_valid_first_reply_never_goes_through_instructors_create(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    no_instructor_create: None,
) -> None:
    fake_provider.enqueue(Reply.tool_call(GOOD, usage=(30, 5)))

    result, info = manager.create(ASK, ReasoningExtraction)

    assert result.answer_value == "4"
    assert (info.mode, info.attempts, info.usage.total_tokens) == ("tools", 1, 35)


def test_reasks_continue_from_the_failed_reply_without_repeating_the_first_request(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    no_instructor_create: None,
) -> None:
    fake_provider.enqueue(
        Reply.invalid_json(usage=(10, 1)),
        Reply.tool_call(EMPTY_ANSWER, usage=(12, 1)),
        Reply.tool_call(GOOD, usage=(14, 1)),
    )

    result, info = manager.create(ASK, ReasoningExtraction)

    assert (result.answer_value, info.mode, info.attempts) == ("4", "tools", 3)
    assert (info.usage.input_tokens, info.usage.output_tokens) == (36, 3)
    first, second, third = fake_provider.chat_requests
    assert len(first.messages) < len(second.messages) < len(third.messages)
    assert "answer_value is empty" in third.text


def test_acreate_takes_the_fast_path_too(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    no_instructor_create: None,
) -> None:
    fake_provider.set_default(Reply.tool_call(GOOD, usage=(3, 1)))

    async def twenty() -> list[Any]:
        return await asyncio.gather(*(manager.acreate(ASK, ReasoningExtraction) for _ in range(20)))

    answers = asyncio.run(twenty())

    assert [r.answer_value for r, _ in answers] == ["4"] * 20
    assert {(i.attempts, i.usage.total_tokens) for _, i in answers} == {(1, 4)}


def test_options_that_instructor_consumes_or_that_are_not_plain_data_get_no_cached_frame() -> None:
    assert options_key({}) == ()
    assert options_key({"temperature": 0.0}) is not None
    assert options_key({"temperature": 0.0}) != options_key({"temperature": 0})
    assert options_key({"context": {"x": 1}}) is None  # Instructor would template with it
    assert options_key({"timeout": object()}) is None  # not plain data: no cached frame


def test_a_changed_model_name_or_max_tokens_is_sent_on_the_next_call(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.set_default(Reply.tool_call(GOOD))
    manager.create(ASK, ReasoningExtraction)

    manager.model, manager.max_tokens = "another-model", 99
    manager.create(ASK, ReasoningExtraction)

    body = fake_provider.last_request.json
    assert (body["model"], body["max_tokens"]) == ("another-model", 99)
