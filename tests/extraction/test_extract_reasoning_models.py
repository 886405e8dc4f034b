"""Reasoning models: a `<think>…</think>` section is never the answer source when text follows
it; an unclosed `<think>` (a cut-off output) is read only because nothing follows it."""

from __future__ import annotations

import pytest

from answerx import extract

THINK_THEN_ANSWER = """<think>
The question asks for 3 * 5. Hmm, is the answer 12? No wait, 3 * 4 = 12, and 3 * 5 = 15.
</think>

**Answer:** 15"""

THINK_BOX_THEN_PLAIN = r"""<think>
First attempt: 3 * 5 = \boxed{12}. That is wrong, 3 * 4 = 12.
</think>

After checking, the product of 3 and 5 is 15."""

THINK_BOX_THEN_BOX = r"""<think>
Quick guess: the answer is \boxed{12}. Let me verify: 3 * 5 = 15, not 12.
</think>
The product is $\boxed{15}$."""

THINK_ONLY_CLOSED = """<think>
3 * 5 means three groups of five: 5 + 5 + 5 = 15. The answer is 15.
</think>"""

THINK_UNCLOSED = """<think>
3 * 5 means three groups of five: 5 + 5 + 5 = 15. So the answer is 15. But let me
double check by counting: 1, 2, 3, ..."""

THINK_UNCLOSED_WITH_ANSWER_OUTSIDE = """<think>
3 * 5 means three groups of five: 5 + 5 + 5 = 15.
</think>
The answer is 15."""

TEMPLATE_OPENED_THINK = r"""Okay, so I need 3 * 5. Is the answer \boxed{12}? No, that is 3 * 4.
</think>

The answer is \boxed{15}."""

THINK_MC_NOTHING_AFTER_MARKER = """<think>
Mitochondria make ATP, so the answer is (B).
</think>

I am not confident about this one."""

THINK_UPPER_CASE = """<THINK>The answer is 12. No wait: 3 * 5 is 15.</THINK>
After checking, the product of 3 and 5 is 15."""

THINK_SPACED_TAGS = """< think >The answer is (A)? Mitochondria make ATP.</ think >
The answer is (B)."""


@pytest.mark.parametrize(
    ("raw", "task", "answer", "method"),
    [
        pytest.param(
            THINK_THEN_ANSWER, "numeric", "15", "final_answer_phrase", id="think-then-answer"
        ),
        pytest.param(
            THINK_BOX_THEN_PLAIN, "numeric", "15", "last_number", id="box-in-think-ignored"
        ),
        pytest.param(THINK_BOX_THEN_BOX, "numeric", "15", "boxed", id="box-after-think"),
        pytest.param(
            TEMPLATE_OPENED_THINK, "numeric", "15", "boxed", id="closing-tag-only-template-opened"
        ),
        pytest.param(THINK_UPPER_CASE, "numeric", "15", "last_number", id="upper-case-tags"),
        pytest.param(
            THINK_SPACED_TAGS, "multiple_choice", "B", "final_answer_phrase", id="spaced-tags"
        ),
    ],
)
def test_text_after_think_is_the_source(raw: str, task: str, answer: str, method: str) -> None:
    result = extract(raw, task)
    assert (result.answer, result.method) == (answer, method)
    close = raw.lower().rindex("think >" if "</ think >" in raw else "think>")
    assert result.span is not None and result.span[0] > close


def test_think_section_is_never_the_source_when_text_follows() -> None:
    result = extract(THINK_MC_NOTHING_AFTER_MARKER, "multiple_choice")
    assert (result.answer, result.method, result.confidence) == (None, "none", 0.0)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(THINK_ONLY_CLOSED, id="closed-nothing-after"),
        pytest.param(THINK_ONLY_CLOSED + "\n\n  \n", id="closed-whitespace-after"),
        pytest.param(THINK_UNCLOSED, id="unclosed-cut-off"),
    ],
)
def test_inside_of_think_is_used_when_nothing_follows(raw: str) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.method) == ("15", "final_answer_phrase")


def test_answer_from_inside_think_has_lower_confidence() -> None:
    inside = extract(THINK_UNCLOSED, "numeric")
    outside = extract(THINK_UNCLOSED_WITH_ANSWER_OUTSIDE, "numeric")
    assert inside.method == outside.method == "final_answer_phrase"
    assert 0.0 < inside.confidence < outside.confidence


def test_deepresearch_answer_block_after_think() -> None:
    raw = (
        "<think>\nThe search results say the novel was published in 1925, though one\n"
        "blog claims <answer>1924</answer> as a draft date.\n</think>\n<answer>1925</answer>"
    )
    result = extract(raw)
    assert (result.answer, result.method) == ("1925", "answer_block")


def test_reasoning_keeps_the_think_section() -> None:
    result = extract(THINK_THEN_ANSWER, "numeric")
    assert result.reasoning.startswith(THINK_THEN_ANSWER[: THINK_THEN_ANSWER.index("</think>")])
    assert result.raw_output == THINK_THEN_ANSWER
