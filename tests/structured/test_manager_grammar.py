"""Markdown JSON on a server that takes a GBNF grammar (llama.cpp): the request carries one."""

from __future__ import annotations

import pytest

from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer, Reply

pytest.importorskip("llama_cpp", reason="the grammar comes from llama-cpp-python's converter")


def test_markdown_json_on_a_grammar_server_sends_a_fenced_object_grammar(
    fake_provider: FakeProviderServer,
) -> None:
    fake_provider.enqueue(
        Reply.text(
            '```json\n{"full_reasoning_text": "12 * 4 = 48", "answer_value": "48", '
            '"confidence": 0.9}\n```'
        )
    )
    manager = InstructorClientManager(
        "local", base_url=fake_provider.openai_base_url, modes=["md_json"]
    )
    extraction, info = manager.extract_structured("12 * 4 = 48", "none", task="numeric")
    assert extraction.answer_value == "48" and info.mode == "md_json"
    grammar = fake_provider.last_request.body["grammar"]
    assert grammar.startswith('root ::= "```json\\n" json-object "\\n```"')
    assert "answer-value-kv" in grammar


def test_markdown_json_elsewhere_sends_no_grammar(fake_provider: FakeProviderServer) -> None:
    reply = '```json\n{"full_reasoning_text": "", "answer_value": "4", "confidence": 1}\n```'
    fake_provider.enqueue(Reply.text(reply))
    manager = InstructorClientManager(
        "local-openai", base_url=fake_provider.openai_base_url, modes=["md_json"]
    )
    manager.extract_structured("2 + 2 = 4", "none")
    assert "grammar" not in fake_provider.last_request.body
