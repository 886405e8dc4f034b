"""graph_bot's Game-of-24 parsing spec, on its own examples: what ``answerx.extract`` gives by
default, what ``fallback="always"`` gives (the spec's bottom scan, no abstention), and the
spec's marker order (``Output:`` before a later ``Answer:``) through ``extract_game24_spec``."""

from __future__ import annotations

import pytest

from answerx import extract
from answerx.extraction.game24_spec import SPEC_METHODS, extract_game24_spec, spec_method
from seeds.seed_examples import seed_example

NUMBERS = [4, 9, 10, 13]  # "Input: 4 9 10 13": (10 - 4) * (13 - 9) = 24
SOLUTION = "(10 - 4) * (13 - 9)"


@seed_example("003", 67, "(8-5)*(11-2)")
@seed_example("003", 75, "Output: <expression> = 24")
@seed_example(
    "003", 85, "**Answer Block (`<answer>`)**: Look for content within `<answer>...</answer>`"
)
@seed_example("003", 86, "look for the *last* line starting with `Output:`")
@seed_example("003", 87, "scan from bottom to top for the first valid expression line")
@seed_example("003", 96, "If none match, return empty candidate.")
@seed_example("003", 108, "Reject lines containing `=` or an explicit target marker like `-> 24`")
@seed_example("003", 110, "Reject lines containing characters outside")
@pytest.mark.parametrize(
    ("raw_output", "numbers", "answer", "spec_logs"),
    [
        # Format A, the spec's own example (it evaluates to 27: the validator's business).
        ("<answer>\n(8-5)*(11-2)\n</answer>", [8, 5, 11, 2], "(8-5)*(11-2)", "answer_block"),
        # The prompt the spec recommends: reasoning, then the block with "= 24".
        ("You may show steps: 1 + 2 = 3, 3 * 8 = 24.\n<answer>(1 + 2) * 8 = 24</answer>",
         [1, 2, 8, 3], "(1 + 2) * 8", "answer_block"),
        # Format B: "Output: <expression> = 24" and "Output: <expression>".
        (f"Step 1: 10 - 4 = 6\nStep 2: 13 - 9 = 4\nOutput: {SOLUTION} = 24", NUMBERS, SOLUTION,
         "output_line"),
        (f"Output: {SOLUTION}", NUMBERS, SOLUTION, "output_line"),
        # The last Output: line wins.
        (f"Output: 4 * 9 - 10 - 13\nOutput: {SOLUTION} = 24", NUMBERS, SOLUTION, "output_line"),
        # No marker: reasoning followed by the final expression line (bottom-up scan).
        (f"Let us find 24.\n10 - 4 = 6\n13 - 9 = 4\n6 * 4 = 24\n{SOLUTION}", NUMBERS, SOLUTION,
         "fallback_bottom_scan"),
        # "= 24" stripped during the scan; lines with other "=" or prose are skipped.
        (f"Let us find 24.\n10 - 4 = 6\n{SOLUTION} = 24\nThat works.", NUMBERS, SOLUTION,
         "fallback_bottom_scan"),
        # A "-> 24" target marker (ASCII or U+2192) is rejected; nothing else: empty.
        (f"Let us find 24.\n{SOLUTION} -> 24", NUMBERS, None, "empty"),
        (f"Let us find 24.\n{SOLUTION} \u2192 24", NUMBERS, None, "empty"),
        ("I could not find a solution.", NUMBERS, None, "empty"),
    ],
)  # fmt: skip
def test_the_specs_examples_read_the_same_in_both_orders(
    raw_output: str, numbers: list[int], answer: str | None, spec_logs: str
) -> None:
    answerx_reading = extract(raw_output, "game24", numbers=numbers)
    spec_reading = extract_game24_spec(raw_output, numbers)

    assert answerx_reading.answer == spec_reading.answer == answer
    assert spec_method(spec_reading) == spec_logs
    assert spec_reading.raw_output == raw_output  # the spec logs raw_output and candidate


UNFINISHED = f"Let me try.\n{SOLUTION}\nCheck: 6 * 4 is"


@seed_example("003", 94, "The first plausible line becomes `candidate`.")
def test_the_default_withholds_the_bottom_scan_of_an_unfinished_output() -> None:
    withheld = extract(UNFINISHED, "game24", numbers=NUMBERS)

    assert (withheld.answer, withheld.unfinished, withheld.candidate) == (None, True, SOLUTION)


@seed_example(
    "003", 94, "The first plausible line becomes `candidate`.", option='fallback="always"'
)
def test_fallback_always_gives_the_specs_bottom_scan() -> None:
    assert extract(UNFINISHED, "game24", numbers=NUMBERS).answer is None  # answerx's default
    spec = extract(UNFINISHED, "game24", numbers=NUMBERS, fallback="always")

    # The spec scans bottom-up for the first plausible line, finished or not.
    assert (spec.answer, spec.method, spec.unfinished) == (SOLUTION, "bottom_scan", True)
    assert extract_game24_spec(UNFINISHED, NUMBERS).answer == SOLUTION  # its default too
    assert extract_game24_spec(UNFINISHED, NUMBERS, fallback="auto").answer is None


@pytest.mark.parametrize(
    "later",
    ["Answer: (13 - 9) * (10 - 4)", "So \\boxed{(13 - 9) * (10 - 4)}",
     '{"answer": "(13 - 9) * (10 - 4)"}'],
)  # fmt: skip
@seed_example("003", 84, "**Extraction Priority:**", option="extract_game24_spec")
def test_the_specs_order_puts_output_before_a_later_answer(later: str) -> None:
    reply = f"Output: {SOLUTION} = 24\nLet me double-check.\n{later}"

    answerx_reading = extract(reply, "game24", numbers=NUMBERS)
    spec_reading = extract_game24_spec(reply, NUMBERS)

    assert answerx_reading.answer == "(13 - 9) * (10 - 4)"  # answerx: the later statement
    assert (spec_reading.answer, spec_reading.method) == (SOLUTION, "output_line")
    assert spec_reading.span is not None
    start, end = spec_reading.span
    assert reply[start:end] == SOLUTION and spec_reading.valid


@seed_example("003", 85, "This is the most explicit and preferred marker.")
def test_the_answer_block_still_comes_first_in_the_specs_order() -> None:
    reply = f"<answer>(13 - 9) * (10 - 4)</answer>\nOutput: {SOLUTION}"

    assert extract_game24_spec(reply, NUMBERS).answer == "(13 - 9) * (10 - 4)"


@seed_example(
    "003", 122, "extraction method (e.g., `answer_block`, `fallback_bottom_scan`, `empty`)"
)
def test_every_spec_method_name_maps_to_an_answerx_method() -> None:
    assert set(SPEC_METHODS.values()) == {
        "answer_block", "output_line", "fallback_bottom_scan", "empty",
    }  # fmt: skip
