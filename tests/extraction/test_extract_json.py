"""JSON answers: fenced or bare objects with an `answer`/`final_answer` field, and LaTeX in them.

Models write LaTeX inside JSON strings both ways: escaped (`"\\\\frac{1}{2}"`, valid
JSON) and unescaped (`"\\frac{1}{2}"`), which a JSON decoder turns into a control
character plus the rest of the word (`\\f` form feed + `rac`). Both must come out
as the LaTeX the model meant.
"""

from __future__ import annotations

import pytest

from answerx import extract

FENCED = """Let me work through this. Natalia sold 48 clips in April and half as many,
24, in May. Together that is 48 + 24 = 72 clips.

```json
{
  "reasoning": "48 in April plus 48 / 2 = 24 in May gives 72.",
  "answer": "72"
}
```"""

BARE_UNQUOTED = """Natalia sold 48 clips in April and 24 in May.
{"reasoning": "48 + 24 = 72", "answer": 72}"""

FINAL_ANSWER_KEY = """I compared the populations of the three cities in the 2020 census.
{"steps": ["Lyon: 0.52M", "Marseille: 0.87M", "Paris: 2.1M"], "final_answer": "Paris"}"""

SINGLE_QUOTES = """Comparing the four options, only B has the right units.
{'reasoning': 'units of force are newtons', 'answer': 'B'}"""

SEVERAL_OBJECTS = """Draft: {"answer": "12"}
On reflection I miscounted the corner tiles; there are 4 fewer.
{"answer": "8"}"""

DECIMAL_UNQUOTED = """The mean of 2, 3, 4 and 5 is 14 / 4.
{"answer": 3.5, "confidence": 0.9}"""

JSON_BEATS_NUMBERS = """{"answer": "15"}
Check: 3 * 5 = 15, and 15 - 5 = 10 is not needed here."""

STATED_EMPTY = """I could not find the value in the documents provided; the report lists 2019
and 2020 figures only.
{"reasoning": "the 2021 figure is missing", "answer": ""}"""


@pytest.mark.parametrize(
    ("raw", "task", "answer"),
    [
        pytest.param(FENCED, "numeric", "72", id="fenced-quoted"),
        pytest.param(FENCED, "auto", "72", id="fenced-auto"),
        pytest.param(BARE_UNQUOTED, "numeric", "72", id="bare-unquoted-number"),
        pytest.param(FINAL_ANSWER_KEY, "text", "Paris", id="final_answer-key"),
        pytest.param(SINGLE_QUOTES, "multiple_choice", "B", id="python-style-quotes"),
        pytest.param(SEVERAL_OBJECTS, "numeric", "8", id="several-last-wins"),
        pytest.param(DECIMAL_UNQUOTED, "numeric", "3.5", id="unquoted-decimal"),
        pytest.param(JSON_BEATS_NUMBERS, "numeric", "15", id="json-beats-later-numbers"),
    ],
)
def test_json_answer_field_is_taken(raw: str, task: str, answer: str) -> None:
    result = extract(raw, task)
    assert (result.answer, result.method) == (answer, "json_answer")


# (what the model wrote inside the JSON string, the answer we want)
LATEX_CASES = [
    pytest.param(r"\frac{1}{2}", r"\frac{1}{2}", id="frac"),
    pytest.param(r"\boxed{7}", "7", id="boxed"),
    pytest.param(r"\text{Paris}", "Paris", id="text"),
    pytest.param(r"x \neq 2", r"x \neq 2", id="neq"),
    pytest.param(
        r"\left(\frac{1}{2}, \sqrt{3}\right)", r"\left(\frac{1}{2}, \sqrt{3}\right)", id="right"
    ),
    pytest.param(r"\theta = \frac{\pi}{4}", r"\theta = \frac{\pi}{4}", id="theta"),
    pytest.param(r"\beta \times \nu", r"\beta \times \nu", id="beta-times-nu"),
    pytest.param(r"5 \text{ m/s}", r"5 \text{ m/s}", id="text-unit"),
]


def _json_output(value_as_written: str) -> str:
    return (
        "Working through the problem carefully, I obtain the value below.\n"
        "```json\n"
        '{"reasoning": "see above", "answer": "' + value_as_written + '"}\n'
        "```"
    )


@pytest.mark.parametrize(("latex", "answer"), LATEX_CASES)
def test_unescaped_latex_in_json_is_repaired(latex: str, answer: str) -> None:
    raw = _json_output(latex)  # the model wrote "\frac{1}{2}": invalid/ambiguous JSON escapes
    result = extract(raw, "math")
    assert (result.answer, result.method) == (answer, "json_answer")


@pytest.mark.parametrize(("latex", "answer"), LATEX_CASES)
def test_properly_escaped_latex_in_json_is_decoded(latex: str, answer: str) -> None:
    raw = _json_output(latex.replace("\\", "\\\\"))  # the model wrote "\\frac{1}{2}"
    result = extract(raw, "math")
    assert (result.answer, result.method) == (answer, "json_answer")


def test_escaped_letter_choice_in_json() -> None:
    raw = _json_output(r"\\text{(C)}")
    result = extract(raw, "multiple_choice")
    assert (result.answer, result.method) == ("C", "json_answer")


def test_explicitly_empty_json_answer_is_no_answer() -> None:
    # The model said it has no answer: no fallback may guess one from the numbers above.
    result = extract(STATED_EMPTY, "numeric")
    assert (result.answer, result.method, result.confidence) == (None, "none", 0.0)


def test_json_answer_span_points_inside_the_string() -> None:
    result = extract(FENCED, "numeric")
    assert result.span is not None
    start, end = result.span
    assert FENCED[start:end] == "72"
    assert FENCED[start - 1] == '"' and FENCED[end] == '"'


# Pieces a JSON answer key is made of, and near-misses of it.
_KEY_PIECES = ['"answer"', "'answer'", '"final_answer"', "'final answer'", '"', "'", "answer",
               "final_", "final ", ":", " ", "x"]  # fmt: skip


@pytest.mark.parametrize("probes", [1, 2, 64])
def test_json_keys_found_from_the_end_are_exactly_the_key_pattern_matches(
    probes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rule finds its keys with rfind from the end (fast on a long reasoning string),
    # and after `probes` hits leaves the rest to the regex; every string of up to four
    # pieces, whole and in windows, gives the regex's keys either way.
    from itertools import product

    from answerx.extraction import rules
    from answerx.extraction.rules import _JSON_KEY, _MAX_TRIES, _last_json_keys

    monkeypatch.setattr(rules, "_MAX_KEY_PROBES", probes)
    for n in range(1, 5):
        for pieces in product(_KEY_PIECES, repeat=n):
            text = "".join(pieces)
            for lo, hi in ((0, len(text)), (1, len(text)), (0, len(text) - 1)):
                expected = [m.span() for m in _JSON_KEY.finditer(text, lo, hi)]
                assert list(_last_json_keys(text, lo, hi)) == expected[::-1][:_MAX_TRIES], (
                    text,
                    lo,
                    hi,
                )
    many = '{"answer": 1}, the answer, ' * (_MAX_TRIES + 6)  # the last _MAX_TRIES keys count
    expected = [m.span() for m in _JSON_KEY.finditer(many)]
    assert list(_last_json_keys(many, 0, len(many))) == expected[::-1][:_MAX_TRIES]


def test_a_json_key_before_many_answer_words_is_still_found() -> None:
    raw = '{"reasoning": "...", "answer": "42"}\n' + "the answer is unclear. " * 5000
    result = extract(raw, "numeric", fallback="never")
    assert (result.answer, result.method) == ("42", "json_answer")
