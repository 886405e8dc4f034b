"""A True/False verdict stated as a sentence's predicate (what prompts asking "The answer
needs to be True/False" get back): read from the last two sentences, "not" turning it
round; a predicate inside a condition or a check, or the pair "True/False" itself, is
not a verdict."""

from __future__ import annotations

import pytest

from answerx import extract, verify


@pytest.mark.parametrize(
    ("output", "answer"),
    [
        ("The kernel is trivial, so the map is injective. Thus the proposition is true.", "yes"),
        ("Both sides differ at n = 3. Hence the identity is false.", "no"),
        ("The series diverges by comparison. So the claim is not correct.", "no"),
        ("So overall the given statement is indeed true. The rank is 3 as computed.", "yes"),
        ('Putting it together, the statement:\n"every bounded sequence converges" is false.', "no"),
        ("The answer is `True'.", "yes"),
    ],
)
def test_a_verdict_stated_as_a_predicate_is_the_boolean_answer(output: str, answer: str) -> None:
    found = extract(output, "boolean")
    assert found.answer == answer


@pytest.mark.parametrize(
    "output",
    [
        # a premise judged earlier in the reasoning, then another conclusion
        "First, the assumption that f is linear is false. So we try a quadratic. "
        "Then the fit improves. Answer: it cannot be determined.",
        # a check, not a verdict
        "Step 4: check if the value is true: 2 + 2 = 5",
        # the pair itself
        "The function is not continuous, and the answer is not True/False.",
        # "it is true that …" states the claim that follows
        "It is true that x exceeds 2, so the area is 5.",
    ],
)
def test_a_predicate_that_is_not_the_conclusion_gives_no_answer(output: str) -> None:
    assert extract(output, "boolean").answer is None


def test_the_predicate_verdict_is_graded_against_a_true_false_gold() -> None:
    output = "The sampling rate exceeds twice the bandwidth. Therefore the statement is true."
    assert verify(output, "True").correct
    assert not verify(output, "False").correct
