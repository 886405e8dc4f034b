"""`<answer>…</answer>` blocks: the DeepResearch agent format and its variants."""

from __future__ import annotations

import pytest

from answerx import extract

DEEPRESEARCH = """<think>
The user wants the year the Eiffel Tower was completed. The search results agree:
construction started in January 1887 and the tower was finished in March 1889, in
time for the Exposition Universelle. The opening to the public was on 15 May 1889.
</think>
<answer>1889</answer>"""

SEVERAL_BLOCKS = """From memory, the tower was built for a world's fair, so my first draft is:
<answer>1887</answer>
Wait, 1887 is when construction began, not when it ended. The second search result
says the structure was completed on 31 March 1889.
<answer>1889</answer>
I am confident in this date."""

COMPLETE_THEN_CUT_OFF = """Initial estimate: <answer>41</answer>
Recounting the rows: 6 rows of 7 seats each is 42 seats.
<answer>42</answer>
Let me restate it in the required format: <answer>4"""

CUT_OFF = """<think>
Speed = distance / time = 150 km / 2.5 h = 60 km/h.
</think>
The average speed over the whole trip is therefore
<answer>60"""

CUT_OFF_CLOSED = CUT_OFF + "</answer>"

BLOCK_WITH_BOX = """We need P(two heads in three flips) = C(3,2) / 2^3 = 3/8.
<answer>
$\\boxed{\\frac{3}{8}}$
</answer>"""

BLOCK_BEATS_BOX = """An earlier attempt in my notes gave \\boxed{12}, but it double-counted the
corner squares. Removing the 4 duplicates leaves 8.
<answer>8</answer>"""

# Text that only mentions the tag: never an answer block.
MENTION_INSIDE_TAGS = """I should put my final answer inside <answer> tags once I am sure.
Counting the apples: 3 in the bowl and 4 in the bag, 3 + 4 = 7."""
MENTION_BACKTICKS = """The instructions ask for the result in an `<answer>` element.
Counting the apples: 3 in the bowl and 4 in the bag, 3 + 4 = 7."""
MENTION_PAIR = """The format is <answer> and </answer> around the final number.
Counting the apples: 3 in the bowl and 4 in the bag, 3 + 4 = 7."""
MENTION_QUOTED = """Remember to open the final answer with '<answer>' at the end.
Counting the apples: 3 in the bowl and 4 in the bag, 3 + 4 = 7."""
MENTION_TEMPLATE = """Format: <answer>your answer here</answer>
Counting the apples: 3 in the bowl and 4 in the bag, 3 + 4 = 7."""
MENTION_EMPTY = """I will fill in <answer></answer> when done.
Counting the apples: 3 in the bowl and 4 in the bag, 3 + 4 = 7."""
MENTION_AT_END = """Counting the apples: 3 in the bowl and 4 in the bag, 3 + 4 = 7.
I will now write the final result inside <answer> tags."""


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        pytest.param(DEEPRESEARCH, "1889", id="think-then-answer"),
        pytest.param(SEVERAL_BLOCKS, "1889", id="several-blocks-last-wins"),
        pytest.param(COMPLETE_THEN_CUT_OFF, "42", id="last-complete-beats-later-cut-off"),
        pytest.param(BLOCK_WITH_BOX, "\\frac{3}{8}", id="box-inside-block"),
        pytest.param(BLOCK_BEATS_BOX, "8", id="block-beats-earlier-box"),
        pytest.param("Final:\n<answer>Gustave Eiffel</answer>", "Gustave Eiffel", id="text"),
    ],
)
def test_answer_block_is_taken(raw: str, answer: str) -> None:
    result = extract(raw)
    assert (result.answer, result.method) == (answer, "answer_block")


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("The tower was finished in 1889.\n<Answer>1889</Answer>", id="title-case"),
        pytest.param("The tower was finished in 1889.\n<ANSWER>1889</ANSWER>", id="upper-case"),
        pytest.param("The tower was finished in 1889.\n<aNsWeR>1889</AnSwEr>", id="mixed-case"),
        pytest.param("The tower was finished in 1889.\n< answer >1889</ answer >", id="spaces"),
        pytest.param("The tower was finished in 1889.\n<answer >1889< /answer>", id="spaces-2"),
        pytest.param("The tower was finished in 1889.\n<answer>\n  1889\n</answer>", id="newlines"),
        pytest.param("The tower was finished in 1889.\n<answer>\t1889\t</answer>\n", id="tabs"),
    ],
)
def test_answer_tags_ignore_case_and_whitespace(raw: str) -> None:
    result = extract(raw)
    assert (result.answer, result.method) == ("1889", "answer_block")


def test_unclosed_answer_at_cut_off_is_found_with_lower_confidence() -> None:
    cut = extract(CUT_OFF)
    closed = extract(CUT_OFF_CLOSED)
    assert (cut.answer, cut.method) == ("60", "answer_block")
    assert (closed.answer, closed.method) == ("60", "answer_block")
    assert 0.0 < cut.confidence < closed.confidence


def test_unclosed_answer_with_latex_is_found() -> None:
    raw = "Integrating x from 0 to 1 gives x^2/2 evaluated at 1.\n<answer>\n\\frac{1}{2}"
    result = extract(raw, "math")
    assert (result.answer, result.method) == ("\\frac{1}{2}", "answer_block")


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(MENTION_INSIDE_TAGS, id="inside-tags"),
        pytest.param(MENTION_BACKTICKS, id="backticks"),
        pytest.param(MENTION_PAIR, id="open-and-close-named"),
        pytest.param(MENTION_QUOTED, id="quoted"),
        pytest.param(MENTION_TEMPLATE, id="template-placeholder"),
        pytest.param(MENTION_EMPTY, id="empty-block"),
        pytest.param(MENTION_AT_END, id="mention-at-the-end"),
    ],
)
def test_text_that_only_mentions_the_tag_is_not_an_answer_block(raw: str) -> None:
    result = extract(raw, "numeric")
    assert result.method != "answer_block"
    assert (result.answer, result.method) == ("7", "last_number")


def test_answer_block_span_points_at_the_answer() -> None:
    result = extract(DEEPRESEARCH)
    assert result.span is not None
    assert DEEPRESEARCH[result.span[0] : result.span[1]] == "1889"


def test_answer_block_reasoning_keeps_everything_but_the_block() -> None:
    result = extract(SEVERAL_BLOCKS)
    assert result.reasoning == SEVERAL_BLOCKS.replace("<answer>1889</answer>", "")
    assert "<answer>1887</answer>" in result.reasoning


def test_answer_block_with_option_text_maps_to_letter() -> None:
    raw = (
        "The organelle that produces most of the cell's ATP through oxidative\n"
        "phosphorylation is the mitochondrion.\n<answer>Mitochondrion</answer>"
    )
    choices = ["Nucleus", "Mitochondrion", "Ribosome", "Golgi apparatus"]
    result = extract(raw, "multiple_choice", choices=choices)
    assert (result.answer, result.method) == ("B", "answer_block")
