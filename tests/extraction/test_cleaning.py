"""The one cleaning function (`clean_answer`) and the JSON-LaTeX repair (`repair_json_latex`)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import pytest

from answerx import clean_answer
from answerx.extraction import repair_json_latex


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        pytest.param("The answer is 42", "42", id="the-answer-is"),
        pytest.param("the answer is: 42", "42", id="the-answer-is-colon"),
        pytest.param("THE ANSWER IS 42", "42", id="upper-case"),
        pytest.param("The final answer is 42", "42", id="the-final-answer-is"),
        pytest.param("Answer: 42", "42", id="answer-colon"),
        pytest.param("answer: 42", "42", id="answer-colon-lower"),
        pytest.param("Final Answer: 42", "42", id="final-answer-colon"),
        pytest.param("FINAL ANSWER: 42", "42", id="final-answer-upper"),
        pytest.param("Therefore, 42", "42", id="therefore"),
        pytest.param("Thus, 42", "42", id="thus"),
        pytest.param("So, 42", "42", id="so"),
        pytest.param("Hence, 42", "42", id="hence"),
        pytest.param("hence, 42", "42", id="hence-lower"),
        pytest.param("Therefore, the answer is 42", "42", id="therefore-the-answer-is"),
        pytest.param("So the final answer is: 42", "42", id="so-the-final-answer-is"),
        pytest.param("Answer: Final Answer: 42", "42", id="repeated-prefixes"),
        pytest.param("Thus, the answer is: the answer is 42", "42", id="thrice"),
        pytest.param("Therefore, thus, so, 42", "42", id="connectives-stacked"),
    ],
)
def test_clean_answer_strips_prefixes_repeatedly_any_case(raw: str, clean: str) -> None:
    assert clean_answer(raw) == clean


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        pytest.param("$42$", "42", id="dollars"),
        pytest.param("$$42$$", "42", id="double-dollars"),
        pytest.param(r"\(42\)", "42", id="latex-inline"),
        pytest.param(r"\[42\]", "42", id="latex-display"),
        pytest.param("**42**", "42", id="bold"),
        pytest.param('"Paris"', "Paris", id="double-quotes"),
        pytest.param("'Paris'", "Paris", id="single-quotes"),
        pytest.param("“Paris”", "Paris", id="curly-quotes"),
        pytest.param("Paris.", "Paris", id="trailing-period"),
        pytest.param("3.5.", "3.5", id="decimal-then-period"),
        pytest.param("3.5", "3.5", id="decimal-kept"),
        pytest.param(r"\text{Paris}", "Paris", id="text-wrapper"),
        pytest.param(r"\textbf{B}", "B", id="textbf-wrapper"),
        pytest.param(r"\text{ yes }", "yes", id="text-wrapper-spaces"),
        pytest.param(r"$\text{Paris}$", "Paris", id="dollars-and-text"),
        pytest.param(r"**$\frac{1}{2}$**", r"\frac{1}{2}", id="bold-dollars"),
        pytest.param(r"The answer is $\boxed{4}$.", "4", id="phrase-dollars-box-period"),
        pytest.param(
            r"The final answer is $\frac{3}{4}$. I hope it is correct.",
            r"\frac{3}{4}",
            id="minerva",
        ),
        pytest.param("  **Answer:** 42  ", "42", id="bold-answer-prefix"),
        pytest.param('54"', "54", id="quote-closing-a-json-string"),
        pytest.param('": "2401"', "2401", id="json-key-tail"),
    ],
)
def test_clean_answer_strips_wrappers(raw: str, clean: str) -> None:
    assert clean_answer(raw) == clean


@pytest.mark.parametrize(
    "kept",
    [
        pytest.param("Sodium chloride", id="starts-like-so"),
        pytest.param("Socrates", id="starts-like-so-2"),
        pytest.param("Thessaloniki", id="starts-like-the"),
        pytest.param("Answering machine", id="starts-like-answer"),
        pytest.param("Hence-forward", id="hyphenated"),
        pytest.param("$1$ and $2$", id="two-formulas"),
        pytest.param(r"\frac{1}{2}", id="latex-frac"),
        pytest.param(r"x^2 + 1", id="polynomial"),
        pytest.param("...", id="ellipsis"),
        pytest.param("(B)", id="parenthesised-letter"),
        pytest.param("first line\nsecond line", id="real-newline"),
        pytest.param("name\tvalue", id="real-tab"),
        pytest.param("5'10\"", id="feet-and-inches"),
        pytest.param('"hello" world', id="quoted-word-in-text"),
    ],
)
def test_clean_answer_keeps_what_is_not_a_wrapper(kept: str) -> None:
    assert clean_answer(kept) == kept


@pytest.mark.parametrize(
    "raw",
    [
        "The answer is 42",
        "Therefore, the answer is $\\boxed{\\frac{1}{2}}$.",
        '**Answer:** "Paris".',
        "\\text{(B)}",
        "3.5.",
    ],
)
def test_clean_answer_is_idempotent(raw: str) -> None:
    once = clean_answer(raw)
    assert clean_answer(once) == once


# What a JSON decoder does to unescaped LaTeX: json.loads('"\frac{1}{2}"') == "\x0crac{1}{2}".
def _decoded(latex_as_written: str) -> str:
    return json.loads('{"answer": "' + latex_as_written + '"}')["answer"]


@pytest.mark.parametrize(
    ("written", "control", "latex"),
    [
        pytest.param(r"\frac{1}{2}", "\f", r"\frac{1}{2}", id="frac-form-feed"),
        pytest.param(r"\boxed{7}", "\b", r"\boxed{7}", id="boxed-backspace"),
        pytest.param(r"\text{(B)}", "\t", r"\text{(B)}", id="text-tab"),
        pytest.param(r"x \neq 2", "\n", r"x \neq 2", id="neq-newline"),
        pytest.param(r"\left( x \right)", None, r"\left( x \right)", id="right-carriage-return"),
        pytest.param(r"\theta", "\t", r"\theta", id="theta-tab"),
        pytest.param(r"\beta + \nu", "\b", r"\beta + \nu", id="beta-nu"),
        pytest.param(r"\times 3", "\t", r"\times 3", id="times-tab"),
        pytest.param(r"\nabla f", "\n", r"\nabla f", id="nabla-newline"),
        pytest.param(r"a \rightarrow b", "\r", r"a \rightarrow b", id="rightarrow"),
    ],
)
def test_repair_json_latex_undoes_control_characters(
    written: str, control: str | None, latex: str
) -> None:
    if control is None:  # "\l" is not a JSON escape: write what a lenient decoder would give
        corrupted = written.replace("\\right", "\right")
    else:
        corrupted = _decoded(written)
        assert control in corrupted  # the corruption really happens
    assert repair_json_latex(corrupted) == latex


@pytest.mark.parametrize(
    ("corrupted", "clean"),
    [
        pytest.param("\x0crac{1}{2}", r"\frac{1}{2}", id="frac"),
        pytest.param("\x08oxed{7}", "7", id="boxed-unwrapped"),
        pytest.param("\text{yes}", "yes", id="text-unwrapped"),
        pytest.param("x \neq 2", r"x \neq 2", id="neq"),
        pytest.param("\\left(\\frac{1}{2}\right)", r"\left(\frac{1}{2}\right)", id="right"),
        pytest.param("$\x0crac{3}{4}$.", r"\frac{3}{4}", id="frac-in-dollars"),
    ],
)
def test_clean_answer_repairs_json_corrupted_latex(corrupted: str, clean: str) -> None:
    assert clean_answer(corrupted) == clean


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(r"\frac{1}{2}", id="escaped-latex-unchanged"),
        pytest.param("first line\nsecond line", id="newline-before-word"),
        pytest.param("col1\tcol2", id="tab-before-word"),
        pytest.param("done\r\nnext", id="crlf"),
        pytest.param("Line one\nequals two", id="newline-e-q-word"),
        pytest.param("plain text without control characters", id="plain"),
    ],
)
def test_repair_json_latex_leaves_real_text_alone(text: str) -> None:
    assert repair_json_latex(text) == text


# Every control character (C0, DEL, C1's NEL), the Unicode spaces str.strip() removes, the
# punctuation cleaning looks at, two digits, and the tails of JSON-damaged commands ("\x0c"
# + "rac" is "\frac" after a JSON decoder). Exhaustive, so a CI run checks the same strings
# every time: hypothesis once found clean_answer("0\x0c.") != clean_answer("0\x0c").
_CONTROL = [chr(c) for c in (*range(0x20), 0x7F, 0x85)] + ["\xa0", "\u2028", "\u3000"]
_PUNCTUATION = list(".,;:!?$*_`'\"()[]{}\\-=")
_TOKENS = _CONTROL + _PUNCTUATION + ["0", "7", "rac", "oxed{", "ext", "answer:"]
_SHORT_TOKENS = ["\x0c", "\x08", "\t", "\n", "\x0b", ".", "$", "*", "}", "0", "rac", " "]


def _strings_of(tokens: list[str], max_len: int) -> Iterator[str]:
    for n in range(1, max_len + 1):
        for combo in itertools.product(tokens, repeat=n):
            yield "".join(combo)


@pytest.mark.slow  # 537,756 strings, every one cleaned twice
def test_clean_answer_is_idempotent_on_every_short_control_punctuation_digit_string() -> None:
    failures = []
    strings = itertools.chain(_strings_of(_TOKENS, 3), _strings_of(_SHORT_TOKENS, 5))
    for raw in strings:
        once = clean_answer(raw)
        if clean_answer(once) != once:
            failures.append(f"{raw!r} -> {once!r} -> {clean_answer(once)!r}")
    assert not failures, f"{len(failures)} not idempotent, e.g.:\n" + "\n".join(failures[:20])


def test_a_control_character_before_trailing_punctuation_is_stripped_once_and_for_all() -> None:
    assert clean_answer("0\x0c.") == clean_answer("0\x0c") == "0"
    assert clean_answer("42\x0b;") == "42"


def test_candidates_the_fast_path_returns_as_they_are_are_left_unchanged_by_every_step() -> None:
    # clean_answer returns digits ("42", "٣") and bare choice letters ("(B)", "J)") at once;
    # the full cleaning loop must agree, for every Unicode digit and every form it skips.
    from answerx.extraction.cleaning import _BARE_LETTERS, _clean

    digits = [chr(c) for c in range(0x110000) if chr(c).isdigit()]
    skipped = [*digits, *(a + b for a in digits[:80] for b in digits[:80]), "2873", "0007"]
    skipped += sorted(_BARE_LETTERS)
    changed = [s for s in skipped if _clean(s) != s]
    assert not changed, changed[:20]
    assert all(clean_answer(s) == s for s in skipped)
