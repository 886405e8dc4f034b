"""A scripted "model" for the fake provider server: it answers each step of an
approach by what the step's prompt asks, so multi-call conversations can be tested.

Used as the fake server's default responder (see the ``model`` fixture)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from answerx.structured.callinfo import Usage
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

ANSWER_4 = "2 + 2 = 4, so the sum is four.\n<answer>4</answer>"
STRUCTURED_4 = {"full_reasoning_text": "2 + 2 = 4.", "answer_value": "4", "confidence": 0.9}

# Phrases of the bundled step templates, which tell the steps apart.
CRITIQUE = "Review your last answer critically"
REVISE = "Rewrite your solution"
PLAN = "Plan how to verify your answer"
VERIFY = "Answer the following question accurately and briefly"
VERIFIED = "Here are the verification questions"
SKELETON = "write only the skeleton"
EXPAND = "You are expanding one point"
PROPOSE = "Write the next step"
SCORE = "Evaluate a proposed step"
FINAL_ATTEMPT = "Return your best final answer now"
FORCE_ANSWER = "maximum context length"


def last_user_text(request: RecordedRequest) -> str:
    """The text of the request's last user message (the prompt of this step)."""
    for message in reversed(request.messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def is_structured(request: RecordedRequest) -> bool:
    """A structured call: it offers tools, asks for a JSON response format, or (Instructor's
    prompt-based Cohere tools mode) carries the response model's schema in its text."""
    return (
        request.has_tools
        or request.response_format is not None
        or "model_json_schema()" in request.text
    )


Script = str | Callable[[str], str]
"""A reply: a text, or a function of the step's prompt that returns it."""


@dataclass
class _Rule:
    phrase: str
    replies: list[Script]
    delay: float


@dataclass
class ScriptedModel:
    """A model scripted per step. ``on(phrase, *replies)``: a request whose last user
    message contains ``phrase`` gets the next of ``replies`` (the last one repeats);
    the most recently added matching rule wins; no match gets ``default``.
    Structured calls get ``structured`` (a tool call, or JSON text in JSON modes).
    Every reply reports a different usage (11+n in, 3+n out for the n-th request),
    so sums are meaningful. ``reject_tools`` refuses every request offering tools
    (a 400). ``log`` names the rule that answered each request. Thread-safe."""

    default: str = ANSWER_4
    structured: dict[str, Any] = field(default_factory=lambda: dict(STRUCTURED_4))
    reject_tools: bool = False
    log: list[str] = field(default_factory=list)
    _rules: list[_Rule] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def on(self, phrase: str, *replies: Script, delay: float = 0.0) -> ScriptedModel:
        self._rules.insert(0, _Rule(phrase, list(replies), delay))
        return self

    def __call__(self, request: RecordedRequest) -> Reply:
        if self.reject_tools and request.has_tools:
            return Reply.reject_tools()
        prompt = last_user_text(request)
        with self._lock:
            n = len(self.log)
            usage = (11 + n, 3 + n)
            if is_structured(request):
                self.log.append("structured")
                return Reply.tool_call(self.structured, usage=usage)
            rule = next((r for r in self._rules if r.phrase in prompt), None)
            if rule is None:
                self.log.append("default")
                return Reply.text(self.default, usage=usage)
            self.log.append(rule.phrase)
            script = rule.replies.pop(0) if len(rule.replies) > 1 else rule.replies[0]
        text = script(prompt) if callable(script) else script
        return Reply.text(text, usage=usage, delay=rule.delay)


def reported_usage(fake: FakeProviderServer) -> Usage:
    """The usage the fake server reported, summed over every successful chat reply."""
    total = Usage()
    for request in fake.chat_requests:
        reply = request.reply
        if reply is not None and reply.usage is not None and reply.status == 200:
            total = total + Usage(
                input_tokens=reply.usage.input_tokens, output_tokens=reply.usage.output_tokens
            )
    return total
