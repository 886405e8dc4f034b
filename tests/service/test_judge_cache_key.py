"""The judge's cache tells questions apart by their parts, not by the prompt they render.

Issue 35's seventh point: golds were joined into the prompt as "- g" lines, so the
gold lists ``["Paris", "Lyon\\n- Nice"]`` and ``["Paris", "Lyon", "Nice"]`` rendered the
same prompt, and the second question was answered from the cache. Over real HTTP: the
server's judge, with a response cache, talks to the fake provider on 127.0.0.1.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from answerx.testing import FakeProviderServer, Reply
from conftest import StartService

HEDGED = "I'm not sure, perhaps Paris."
RULING = {"stated_answer": "Paris", "reason": "It commits to Paris.", "verdict": "correct",
          "confidence": 0.9}  # fmt: skip


def test_gold_lists_that_render_the_same_prompt_are_different_questions(
    fake_env: FakeProviderServer, start_service: StartService, tmp_path: Path
) -> None:
    fake_env.set_default(Reply.tool_call(RULING))
    url = start_service(judge="openai/judge-model", judge_cache=str(tmp_path / "cache.db"))
    one_gold_with_a_line_break = ["Paris", "Lyon\n- Nice"]
    three_golds = ["Paris", "Lyon", "Nice"]

    with httpx.Client(base_url=url, timeout=30) as http:
        rulings = [
            http.post("/v1/verify", json={"raw_output": HEDGED, "gold": golds}).json()["judge"]
            for golds in (one_gold_with_a_line_break, three_golds, one_gold_with_a_line_break)
        ]

    assert [r["cached"] for r in rulings] == [False, False, True]  # the repeat still is
    assert len(fake_env.chat_requests) == 2
    first, second = fake_env.chat_requests
    assert first.text == second.text  # the same prompt: only the parts tell them apart
