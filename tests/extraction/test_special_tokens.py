"""End-of-turn and special tokens of chat templates (issue 37 §3): removed before the
output is read, they never make an answer invalid nor an output unfinished, and a
run-on past an end-of-sequence token is not where the answer is."""

from __future__ import annotations

import pytest

from answerx import extract, verify
from answerx.extraction.special_tokens import (
    SPECIAL_TOKENS,
    blank_special_tokens,
    end_of_sequence,
    ended_by_token,
)

_END_TOKENS = [t.text for t in SPECIAL_TOKENS if t.ends_sequence]


@pytest.mark.parametrize("token", _END_TOKENS)
def test_an_answer_followed_by_any_end_token_is_read_and_finished(token: str) -> None:
    result = extract(f"Adding the two costs gives 17 dollars.\nThe answer is 17{token}", "numeric")
    assert (result.answer, result.valid, result.unfinished) == ("17", True, False)


@pytest.mark.parametrize("token", [t.text for t in SPECIAL_TOKENS])
def test_every_token_of_the_table_is_blanked_to_the_same_length(token: str) -> None:
    text = f"x{token}y"
    blanked = blank_special_tokens(text)
    assert len(blanked) == len(text)
    assert token not in blanked and blanked.strip(" \n") == "x\n" + " " * (len(token) - 1) + "y"


def test_every_token_names_the_tokenizer_family_that_defines_it() -> None:
    assert all(t.family for t in SPECIAL_TOKENS)
    assert len({t.text for t in SPECIAL_TOKENS}) == len(SPECIAL_TOKENS)


def test_a_last_number_before_a_trailing_token_is_not_a_cut_output() -> None:
    result = extract("She buys 3 packs of 4, so she has 12 pens.<|im_end|>", "numeric")
    assert (result.answer, result.method, result.unfinished) == ("12", "last_number", False)


def test_spans_still_point_into_the_raw_output() -> None:
    raw = "<|begin_of_text|>Working it out: the answer is (C).<|eot_id|>"
    result = extract(raw, "multiple_choice", choices=["1", "2", "3", "4"])
    assert result.answer == "C"
    assert result.span is not None and raw[result.span[0] : result.span[1]] == "(C)"
    assert result.raw_output == raw


def test_a_run_on_past_the_end_of_sequence_token_is_not_read_first() -> None:
    raw = (
        "The two trains meet after 3 hours. The answer is 3.</s><s>### Instruction:\n"
        "How far is it? The answer is 240."
    )
    assert end_of_sequence(raw) == raw.index("</s>")
    assert extract(raw, "numeric").answer == "3"


def test_a_trailing_token_alone_is_no_run_on() -> None:
    assert end_of_sequence("The answer is 3.</s>") is None
    assert end_of_sequence("<s>The answer is 3.") is None


def test_a_token_between_explanation_and_answer_separates_them() -> None:
    raw = "解析：两数之和为 240，故填 240。<eoe>\n【答案】240<eoa>"
    result = extract(raw, "math")
    assert (result.answer, result.unfinished) == ("240", False)
    assert verify(raw, "240", task="math").correct is True


def test_a_text_without_tokens_is_returned_unchanged() -> None:
    text = "if a < b and c > d then <e> is <s t>"
    assert blank_special_tokens(text) is text or blank_special_tokens(text) == text


@pytest.mark.parametrize("token", ["</s><s>", "<|endoftext|>", "<end_of_turn>", "<|eot_id|>"])
def test_an_output_ended_by_its_end_token_was_not_cut(token: str) -> None:
    # Without the token this prose line would read as cut mid-sentence.
    result = extract(f"### Response:\nAngle of inclination = 60 degrees{token}", "numeric")
    assert (result.answer, result.unfinished) == ("60", False)
    assert extract("### Response:\nAngle of inclination = 60 degrees", "numeric").unfinished


def test_ended_by_token_looks_past_trailing_tokens_that_end_nothing() -> None:
    assert ended_by_token("The answer is 4.</s><s>")
    assert not ended_by_token("The answer is 4.<s>")
    assert not ended_by_token("The answer is 4.")
