"""Answer phrases: "the answer is", "Final Answer: …", "Answer:", IRCoT, GSM8K `####`,
and final "A:" lines."""

from __future__ import annotations

import pytest

from answerx import extract

THE_ANSWER_IS = """Each box holds 6 eggs and there are 7 boxes, so there are 6 * 7 = 42 eggs.
None of them are broken, so the answer is 42."""

THE_FINAL_ANSWER_IS = """First, 17 students take French and 12 take Spanish; 5 take both.
By inclusion-exclusion, 17 + 12 - 5 = 24 students take at least one language.
The final answer is 24."""

MINERVA = r"""The slope between (1, 2) and (5, 5) is (5 - 2) / (5 - 1) = 3/4.
Final Answer: The final answer is $\frac{3}{4}$. I hope it is correct."""

ANSWER_COLON = """The train covers 180 km in 3 hours.
Average speed = 180 / 3 = 60 km/h.
Answer: 60"""

ANSWER_COLON_BOLD = """The train covers 180 km in 3 hours.
Average speed = 180 / 3 = 60 km/h.
**Answer:** 60"""

IRCOT = """Wilhelm Conrad Röntgen was born in Lennep. Lennep is a part of Remscheid,
which is in the state of North Rhine-Westphalia. So the answer is: North Rhine-Westphalia."""

GSM8K = """Natalia sold 48/2 = <<48/2=24>>24 clips in May.
Natalia sold 48+24 = <<48+24=72>>72 clips altogether in April and May.
#### 72"""

FINAL_A_LINE = """Let's think step by step.
She bakes 3 batches of 12 cookies, which is 36 cookies, and gives 10 to her neighbour.
36 - 10 = 26 cookies are left.
A: 26"""

LAST_WINS = """At first glance the answer is 12, since there are 12 edges on a cube.
But the question asks for edges AND vertices: 12 + 8 = 20.
So the answer is 20."""

ANSWER_NEXT_LINE = r"""Putting everything together, the final answer is:

\[ 5 \]"""

BOLD_VALUE = """Adding the three invoices gives $120 + $85 + $45 = $250.
The answer is **250**."""


@pytest.mark.parametrize(
    ("raw", "task", "answer"),
    [
        pytest.param(THE_ANSWER_IS, "numeric", "42", id="the-answer-is"),
        pytest.param(THE_FINAL_ANSWER_IS, "numeric", "24", id="the-final-answer-is"),
        pytest.param(MINERVA, "math", "\\frac{3}{4}", id="minerva-final-answer"),
        pytest.param(ANSWER_COLON, "numeric", "60", id="answer-colon"),
        pytest.param(ANSWER_COLON_BOLD, "numeric", "60", id="bold-answer-colon"),
        pytest.param(IRCOT, "text", "North Rhine-Westphalia", id="ircot-so-the-answer-is"),
        pytest.param(GSM8K, "numeric", "72", id="gsm8k-hashes"),
        pytest.param(FINAL_A_LINE, "numeric", "26", id="final-A-line"),
        pytest.param(LAST_WINS, "numeric", "20", id="last-occurrence-wins"),
        pytest.param(ANSWER_NEXT_LINE, "numeric", "5", id="answer-on-next-line"),
        pytest.param(BOLD_VALUE, "numeric", "250", id="bold-value"),
        pytest.param(THE_ANSWER_IS, "auto", "42", id="the-answer-is-auto"),
        pytest.param(GSM8K, "auto", "72", id="gsm8k-auto"),
        pytest.param(IRCOT, "auto", "North Rhine-Westphalia", id="ircot-auto"),
    ],
)
def test_answer_phrase_is_taken(raw: str, task: str, answer: str) -> None:
    result = extract(raw, task)
    assert (result.answer, result.method) == (answer, "final_answer_phrase")


# The answer ends at the end of its sentence: never inside a decimal, LaTeX or
# parentheses; the "Let me double-check: …" that follows is not part of it.
@pytest.mark.parametrize(
    ("raw", "task", "answer"),
    [
        pytest.param(
            "Half of 7 is 3.5, so the answer is 3.5. Let me double-check: 7 / 2 = 3.5.",
            "numeric",
            "3.5",
            id="decimal-then-period",
        ),
        pytest.param(
            "Dividing the 7 litres between 2 jugs, the answer is 3.5.",
            "math",
            "3.5",
            id="decimal-at-end",
        ),
        pytest.param(
            "The average of -2 and -5 is -3.5, so the answer is -3.5. Let me double-check: yes.",
            "math",
            "-3.5",
            id="negative-decimal",
        ),
        pytest.param(
            r"Completing the square, the answer is $f(x) = x^2 - 2.5x + 1$. "
            "Let me double-check: f(0) = 1, which matches.",
            "math",
            "f(x) = x^2 - 2.5x + 1",
            id="latex-with-decimal",
        ),
        pytest.param(
            r"The answer is $\{0.5, 1.5\}$. Let me double-check: both roots satisfy it.",
            "math",
            r"\{0.5, 1.5\}",
            id="latex-set",
        ),
        pytest.param(
            r"The answer is \(\sqrt{2}\). Let me double-check: squaring gives 2.",
            "math",
            r"\sqrt{2}",
            id="latex-parens",
        ),
        pytest.param(
            "Solving both equations, the answer is (3, -1.5). Let me double-check: "
            "3 + 2(-1.5) = 0. Yes.",
            "math",
            "(3, -1.5)",
            id="parenthesised-pair",
        ),
        pytest.param(
            "So the answer is Paris. Let me double-check: Paris has been the capital since 987.",
            "text",
            "Paris",
            id="double-check-after-word",
        ),
        pytest.param(
            "Therefore the answer is 1,250. Let me double-check: 25 * 50 = 1,250.",
            "numeric",
            "1250",
            id="thousands-then-double-check",
        ),
        pytest.param(
            "The answer is 42!\nLet me double-check: 6 * 7 = 42.",
            "numeric",
            "42",
            id="exclamation",
        ),
    ],
)
def test_phrase_answer_ends_at_its_sentence(raw: str, task: str, answer: str) -> None:
    result = extract(raw, task)
    assert (result.answer, result.method) == (answer, "final_answer_phrase")
    assert "double-check" not in (result.candidate or "")


def test_phrase_beats_later_numbers() -> None:
    raw = "The answer is 42. Let me double-check: 6 * 7 = 42, and 42 / 2 = 21."
    result = extract(raw, "numeric")
    assert (result.answer, result.method) == ("42", "final_answer_phrase")


def test_phrase_span_and_reasoning() -> None:
    raw = "6 * 7 = 42.\nThe answer is 42."
    result = extract(raw, "numeric")
    assert result.span == (raw.rindex("42"), raw.rindex("42") + 2)
    assert result.reasoning.startswith("6 * 7 = 42.\n")
    assert "The answer is" not in result.reasoning


def test_hope_it_is_correct_is_not_part_of_the_answer() -> None:
    raw = (
        "Adding the fractions gives 5/6.\n"
        "Final Answer: The final answer is 5/6. I hope it is correct."
    )
    result = extract(raw, "math")
    assert (result.answer, result.method) == ("5/6", "final_answer_phrase")


def test_the_answer_is_a_word_answer() -> None:
    raw = "Mercury is the planet closest to the Sun, so the answer is Mercury."
    result = extract(raw, "text")
    assert (result.answer, result.method) == ("Mercury", "final_answer_phrase")


# A phrase that does not state an answer is not one: a negation or a question.
@pytest.mark.parametrize(
    ("raw", "answer", "method"),
    [
        pytest.param(
            "So the answer is not 12. Recounting the rows: 7 + 7 = 14.",
            "14",
            "last_number",
            id="negated",
        ),
        pytest.param(
            "Maybe the answer is 12? No: 3 rows of 5 chairs is 3 * 5 = 15.",
            "15",
            "last_number",
            id="question",
        ),
        pytest.param(
            "Is the answer 12? No: 3 rows of 5 chairs is 3 * 5 = 15.",
            "15",
            "last_number",
            id="is-the-answer-question",
        ),
        pytest.param(
            "The answer isn't 12. It is 3 rows of 5 chairs, 3 * 5 = 15.",
            "15",
            "last_number",
            id="isnt",
        ),
    ],
)
def test_phrase_that_states_no_answer_is_skipped(raw: str, answer: str, method: str) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.method) == (answer, method)


_MARKER_PIECES = ("the answer is 4. ", "Answer: 5\n", "answer ", "#### 6\n", "x ", "final ")


@pytest.mark.parametrize("limit", [1, 2, 24])
def test_phrase_markers_read_lazily_from_the_end_are_the_last_markers_of_the_text(
    limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The markers are found from the end and read one at a time (the usual last marker
    # states the answer): they must be the last markers of the text, "####" lines and
    # "answer" phrases merged, last first, as many as the limit allows.
    from itertools import product

    from answerx.extraction import rules

    monkeypatch.setattr(rules, "_MAX_TRIES", limit)

    def expected(text: str) -> list[tuple[int, int]]:
        hashes = [m.span() for m in rules._GSM8K_MARK.finditer(text)]
        phrases = []
        for at in range(len(text)):
            tail = rules._PHRASE_TAIL.match(text, at + 6) if text.startswith("answer", at) else None
            if tail is not None:
                phrases.append((at, tail.end()))
        phrases = phrases[::-1][: max(0, 2 * limit - len(hashes))]
        return sorted(hashes + phrases, reverse=True)[:limit]

    for n in range(1, 5):
        for pieces in product(_MARKER_PIECES, repeat=n):
            text = "".join(pieces)
            assert list(rules._phrase_markers(text, text.lower(), 0, len(text))) == expected(
                text.lower()
            ), text
