"""No guess from an unfinished output (issue 12, §2), and the argument checks of ``extract``.

An output cut off at the token limit that states no answer gets no answer: the fallback's
guess stays visible in ``candidate``. An explicit marker stated before the cut still counts.
"""

from __future__ import annotations

import pytest

from answerx import extract
from answerx.errors import InputError

REASONING = (
    "First we add the two amounts: 36 + 4 = 40. Then we subtract the 12 that were given away, "
    "which leaves 28 for the rest of the week. Each day uses the same share of what is left, "
)


@pytest.mark.parametrize(
    ("raw", "guess"),
    [
        pytest.param("<think>36 + 4 = 40. Hmm, wait, maybe", "40", id="unclosed-think"),
        pytest.param(
            '{"reasoning": "36 + 4 = 40, and 40 / 2 = 20, so each', "20", id="unclosed-json-string"
        ),
        pytest.param(REASONING * 2 + "so we divide 28 by", "28", id="dangling-word"),
        pytest.param(REASONING * 2 + "so the share is 28 /", "28", id="dangling-operator"),
        pytest.param(REASONING * 2 + "so the share is $\\frac{28}{", "28", id="inside-a-formula"),
        pytest.param(
            REASONING * 3 + "and that is the value we need for each of the", "28", id="mid-sentence"
        ),
        pytest.param("The total is 12 apples. " * 30, "12", id="looping"),
        pytest.param(
            "Let me run it:\n```python\nprint(36 + 4)\nx = 40", "40", id="unclosed-code-block"
        ),
    ],
)
def test_unfinished_output_with_no_marker_gets_no_answer_but_keeps_the_guess(
    raw: str, guess: str
) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.method, result.unfinished) == (None, "none", True)
    assert result.candidate == guess


@pytest.mark.parametrize(
    ("raw", "task"),
    [
        pytest.param(
            "because the two rivers meet below the old mill and the valley widens toward "
            "the coast, where the harbour was built in the late eighteenth century",
            "short_answer",
            id="a-clause",
        ),
        pytest.param(
            "amber basil cobalt dune ember fjord grove harbor islet juniper kelp lantern",
            "text",
            id="a-word-list",
        ),
    ],
)
def test_a_one_line_reply_of_one_clause_is_finished_without_a_full_stop(
    raw: str, task: str
) -> None:
    # What an answer-only prompt gets back: no sentence before it, shorter than a reply's
    # limit. It is the reply, not reasoning cut at the token limit.
    result = extract(raw, task)
    assert (result.answer, result.unfinished) == (raw, False)


def test_a_line_that_finished_a_sentence_before_it_stops_was_cut() -> None:
    raw = "We count the coins in each jar. The first jar holds twelve and the second holds"
    cut = "The first jar holds twelve and the second holds more than the first one does now"
    assert extract(raw, "short_answer").unfinished
    assert extract("We count the coins in each jar. " + cut, "short_answer").unfinished


def test_a_line_about_its_writer_is_reasoning_begun_not_a_reply() -> None:
    assert extract("Let me look at each of the options in turn before", "text").unfinished
    assert extract("To answer this we first need to recall where the treaty", "text").unfinished


def test_finish_reason_length_makes_even_a_tidy_ending_unfinished() -> None:
    raw = "First 36 + 4 = 40. Then 40 - 12 = 28."
    assert extract(raw, "numeric").answer == "28"
    cut = extract(raw, "numeric", finish_reason="length")
    assert (cut.answer, cut.unfinished, cut.candidate) == (None, True, "28")


def test_finish_reason_stop_says_the_output_finished() -> None:
    raw = "<think>36 + 4 = 40. Hmm, wait, maybe"
    result = extract(raw, "numeric", finish_reason="stop")
    assert (result.answer, result.method, result.unfinished) == ("40", "last_number", False)


def test_an_explicit_marker_before_the_cut_still_counts() -> None:
    raw = "The answer is 28.\n\nLet me double-check this by adding 36 + 4 = 40 and then the"
    result = extract(raw, "numeric", finish_reason="length")
    assert (result.answer, result.method, result.unfinished) == ("28", "final_answer_phrase", True)


def test_a_finished_output_stating_the_answer_last_is_not_unfinished() -> None:
    result = extract("Adding up the parts gives 28. The answer is (B)", "multiple_choice")
    assert (result.answer, result.unfinished) == ("B", False)


def test_fallback_always_keeps_the_old_guess_and_never_turns_fallbacks_off() -> None:
    raw = "<think>36 + 4 = 40. Hmm, wait, maybe"
    always = extract(raw, "numeric", fallback="always")
    assert (always.answer, always.method, always.unfinished) == ("40", "last_number", True)
    finished = "We add 36 + 4 = 40."
    assert extract(finished, "numeric").answer == "40"
    never = extract(finished, "numeric", fallback="never")
    assert (never.answer, never.method, never.candidate) == (None, "none", None)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"choices": [1, 2]}, "choices[0] must be a string", id="choices-not-strings"),
        pytest.param({"choices": 5}, "choices must be a list of option texts", id="choices-int"),
        pytest.param({"choices": "ABCD"}, "choices must be a list", id="choices-one-string"),
        pytest.param({"numbers": [None]}, "numbers[0] must be a finite number", id="numbers-none"),
        pytest.param({"numbers": [4, float("nan")]}, "numbers[1] must be a finite", id="nan"),
        pytest.param({"numbers": [True, 2]}, "numbers[0] must be a finite", id="bool"),
        pytest.param({"numbers": 24}, "numbers must be a list of numbers", id="numbers-int"),
        pytest.param({"finish_reason": 3}, "finish_reason must be a string", id="finish-reason"),
        pytest.param({"fallback": "sometimes"}, "fallback must be one of", id="fallback"),
    ],
)
def test_bad_arguments_raise_input_error_with_a_message(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        extract("Answer: 1", "multiple_choice" if "choices" in kwargs else "auto", **kwargs)


def test_tuples_and_floats_are_fine_arguments() -> None:
    assert extract("Answer: B", choices=("x", "y")).answer == "B"
    assert extract("Output: 4 * 6", numbers=(4.0, 6.0)).answer == "4 * 6"
