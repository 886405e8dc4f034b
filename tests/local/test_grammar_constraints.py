"""Each bound of a response model, checked against the grammar llama.cpp itself builds.

llama.cpp turns the schema of a request into a GBNF grammar (tools, JSON with the
schema in ``response_format``) or takes answerx's own (Markdown JSON). These tests
run llama.cpp's grammar sampler over the tokens of a candidate reply and ask
whether the grammar lets it through: what the model *can* write. The plain schema
shows what the converter drops; the schema answerx sends shows it kept. Only the
bundled model's vocabulary is loaded (a fraction of a second); no server starts.
"""

from __future__ import annotations

import ctypes
import json
from collections.abc import Iterator

import pytest

llama_cpp = pytest.importorskip("llama_cpp", reason="the 'local' extra is not installed")

from llama_cpp.llama_grammar import json_schema_to_gbnf  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from answerx.local import bundled_model_path  # noqa: E402
from answerx.structured.grammar import fenced_json_grammar, grammar_model  # noqa: E402
from answerx.structured.models import (  # noqa: E402
    REASONING_EXTRACTION_MODELS,
    get_extraction_model,
)

DIRECT = REASONING_EXTRACTION_MODELS["none"]


class GrammarChecker:
    """Whether llama.cpp's grammar sampler accepts a text to its end."""

    def __init__(self) -> None:
        self.llm = llama_cpp.Llama(str(bundled_model_path()), vocab_only=True, verbose=False)

    def _allowed(self, sampler: object, token: int) -> bool:
        data = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
        candidates = llama_cpp.llama_token_data_array(data, 1, -1, False)
        llama_cpp.llama_sampler_apply(sampler, ctypes.byref(candidates))
        return bool(data[0].logit != float("-inf"))

    def accepts(self, grammar: str, text: str) -> bool:
        sampler = llama_cpp.llama_sampler_init_grammar(
            self.llm._model.vocab, grammar.encode(), b"root"
        )
        assert sampler, "llama.cpp could not parse the grammar"
        try:
            for token in self.llm.tokenize(text.encode(), add_bos=False, special=False):
                if not self._allowed(sampler, token):
                    return False
                llama_cpp.llama_sampler_accept(sampler, token)
            return self._allowed(sampler, self.llm.token_eos())  # and it may end here
        finally:
            llama_cpp.llama_sampler_free(sampler)


@pytest.fixture(scope="module")
def checker() -> Iterator[GrammarChecker]:
    yield GrammarChecker()


def server_grammar(model: type[BaseModel]) -> str:
    """The grammar llama.cpp's server builds from ``model``'s schema (tools, response_format)."""
    return json_schema_to_gbnf(json.dumps(model.model_json_schema()))


def reply(
    confidence: str = '"0.9"', answer: str = '"42"', reasoning: str = '"17 + 25 = 42"'
) -> str:
    fields = f'"full_reasoning_text": {reasoning}, "answer_value": {answer}'
    return f'{{{fields}, "confidence": {confidence}}}'


@pytest.mark.parametrize("confidence", ['"0"', '"1"', '"0.9"', '"0.05"', '"0.125"', '"1.0"'])
def test_confidence_from_0_to_1_passes_the_grammar(
    checker: GrammarChecker, confidence: str
) -> None:
    assert checker.accepts(server_grammar(grammar_model(DIRECT)), reply(confidence))


@pytest.mark.parametrize("confidence", ['"1.5"', '"3"', '"90"', '"0.1234"', "1.5", "0.9"])
def test_confidence_outside_0_to_1_is_impossible(checker: GrammarChecker, confidence: str) -> None:
    assert not checker.accepts(server_grammar(grammar_model(DIRECT)), reply(confidence))


def test_the_plain_schema_lets_confidence_1_5_through_which_is_why_it_is_rewritten(
    checker: GrammarChecker,
) -> None:
    assert checker.accepts(server_grammar(DIRECT), reply("1.5"))


def test_a_raw_newline_inside_a_string_is_impossible_and_an_escaped_one_allowed(
    checker: GrammarChecker,
) -> None:
    grammar = server_grammar(grammar_model(DIRECT))
    assert not checker.accepts(grammar, reply(reasoning='"17 + 25\n= 42"'))
    assert checker.accepts(grammar, reply(reasoning='"17 + 25\\n= 42 \\"ok\\" café"'))
    assert checker.accepts(server_grammar(DIRECT), reply("0.9", reasoning='"17 + 25\n= 42"'))


def test_an_empty_answer_is_impossible(checker: GrammarChecker) -> None:
    assert not checker.accepts(server_grammar(grammar_model(DIRECT)), reply(answer='""'))


def test_a_max_length_is_kept(checker: GrammarChecker) -> None:
    class Short(BaseModel):
        word: str

        @classmethod
        def model_json_schema(cls, *args: object, **kwargs: object) -> dict[str, object]:
            return {"type": "object", "properties": {"word": {"type": "string", "maxLength": 3}},
                    "required": ["word"]}  # fmt: skip

    grammar = server_grammar(grammar_model(Short))
    assert checker.accepts(grammar, '{"word": "abc"}')
    assert not checker.accepts(grammar, '{"word": "abcd"}')


@pytest.mark.parametrize(
    ("task", "choices", "good", "bad"),
    [("boolean", None, '"yes"', '"maybe"'), ("multiple_choice", ["x", "y", "z"], '"C"', '"D"')],
)
def test_a_closed_answer_set_is_kept_as_an_enum(
    checker: GrammarChecker, task: str, choices: list[str] | None, good: str, bad: str
) -> None:
    model = get_extraction_model("none", task=task, choices=choices)
    grammar = server_grammar(grammar_model(model))
    assert checker.accepts(grammar, reply(answer=good))
    assert not checker.accepts(grammar, reply(answer=bad))


def test_the_reasoning_type_const_is_kept(checker: GrammarChecker) -> None:
    grammar = server_grammar(grammar_model(REASONING_EXTRACTION_MODELS["chain_of_thought"]))
    base = reply()[:-1]
    assert checker.accepts(grammar, base + ', "reasoning_type": "chain_of_thought"}')
    assert not checker.accepts(grammar, base + ', "reasoning_type": "reflection"}')


def test_markdown_json_grammar_holds_the_same_bounds_inside_its_fence(
    checker: GrammarChecker,
) -> None:
    grammar = fenced_json_grammar(grammar_model(DIRECT))
    assert checker.accepts(grammar, "```json\n" + reply('"0.5"') + "\n```")
    assert not checker.accepts(grammar, "```json\n" + reply('"1.5"') + "\n```")
    assert not checker.accepts(grammar, "```json\n" + reply(reasoning='"a\nb"') + "\n```")
