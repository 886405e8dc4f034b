"""The response cache stores no piece of a configured key (issue 30 leftover): a provider
that echoes the ``Authorization`` header into its reply left the key in ``cache.db``,
which the results store's redaction never saw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerx.callinfo import CallInfo
from answerx.experiments.cache import ResponseCache

KEY = "sk-proj-4fJ9xQ2mW6yZ0aK5hD2gU9iO4pS7tQ1vB8nL3cR"  # shaped like a real key
TAIL = KEY[-23:]  # what pydantic's truncated input_value kept in the probe


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ResponseCache:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return ResponseCache(tmp_path / "cache.db")


def _info(**fields: object) -> CallInfo:
    return CallInfo(provider="openai", model="gpt-test", mode="tools", attempts=1, **fields)  # type: ignore[arg-type]


def test_an_echoed_key_is_not_in_the_cache_file(cache: ResponseCache, tmp_path: Path) -> None:
    text = f"Header was: Bearer {KEY}. Earlier: input_value='…{TAIL}'. The answer is 4."
    cache.put("k1", text, _info(fallback_reason=f"echoed {TAIL}"))
    cache.close()

    stored = b"".join(p.read_bytes() for p in tmp_path.glob("cache.db*"))
    assert KEY[:12].encode() not in stored and TAIL[-12:].encode() not in stored
    again = ResponseCache(tmp_path / "cache.db").get("k1")
    assert again is not None
    assert again.payload == "Header was: Bearer ***. Earlier: input_value='…***'. The answer is 4."
    assert again.info.fallback_reason == "echoed ***"


def test_a_json_reply_stays_valid_json_once_redacted(cache: ResponseCache) -> None:
    reply = json.dumps({"answer": "4", "reasoning": f"my key is {KEY}", "confidence": 0.9})
    cache.put("k2", reply, _info())

    entry = cache.get("k2")

    assert entry is not None
    assert json.loads(entry.payload) == {
        "answer": "4",
        "reasoning": "my key is ***",
        "confidence": 0.9,
    }


def test_a_reply_without_a_key_is_stored_byte_for_byte(cache: ResponseCache) -> None:
    reply = '{"answer":  "4"}'  # spacing kept: nothing was redacted, nothing rewritten

    cache.put("k3", reply, _info())

    entry = cache.get("k3")
    assert entry is not None and entry.payload == reply
