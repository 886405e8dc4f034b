"""A run the browser tests add beside the demo: what strains a page's layout.

- ``big/two-megabytes``: a 2 MB raw output whose answer sits in its middle, and whose
  one call's reply is that same output (a page that printed both sent 4 MB);
- an item id holding an unclosed right-to-left override (U+202E), which, not isolated,
  reverses the rest of any heading it is printed in.
"""

from __future__ import annotations

from answerx.experiments.records import CallRecord, ItemRecord, calls_json
from answerx.experiments.store import ResultStore

BIG_ID = "big/two-megabytes"
BIDI_ID = "big/\u202eevil-id"
BIG_ANSWER = "4096"
_FILLER = "Step by step I keep checking the numbers again. "


def big_output() -> tuple[str, tuple[int, int]]:
    """A 2 MB output with ``\\boxed{4096}`` in its middle, and the span of the 4096."""
    half = _FILLER * (1_000_000 // len(_FILLER))
    text = f"{half}So the answer is \\boxed{{{BIG_ANSWER}}}. {half}"
    start = len(half) + len("So the answer is \\boxed{")
    return text, (start, start + len(BIG_ANSWER))


def extra_run(store: ResultStore) -> str:
    """Add the run (named ``strain``) to ``store``; returns its id."""
    run = store.start_run("strain", {}, "2" * 64)
    text, span = big_output()
    call = CallRecord(
        kind="text", messages=[{"role": "user", "content": "What is 2 ** 12?"}], reply=text
    )
    common = {
        "run_id": run.run_id,
        "approach": "none",
        "strategy": "two_stage",
        "provider": "openai",
        "model": "gpt-other",
        "dataset": "big",
        "question": "What is 2 ** 12?",
        "gold": BIG_ANSWER,
        "method": "boxed",
        "calls": 1,
        "correct": True,
        "reason": "equivalent",
    }
    store.add_items(
        [
            ItemRecord(
                **common,
                item_id=BIG_ID,
                raw_output=text,
                extracted_answer=BIG_ANSWER,
                span=span,
                conversation=calls_json([call]),
            ),
            ItemRecord(
                **common,
                item_id=BIDI_ID,
                raw_output=f"\\boxed{{{BIG_ANSWER}}}",
                extracted_answer=BIG_ANSWER,
                span=(7, 11),
            ),
        ]
    )
    store.finish_run(run.run_id)
    return run.run_id


#: The questions the other model gets wrong where the demo model got them right.
OTHER_MISSES = ("arithmetic/arith-01", "multiple_choice/mc-01")
OTHER_MODEL = "gpt-rival"


def other_model_run(store: ResultStore, source: str) -> str:
    """The demo run's items again as a run of another model (``gpt-rival``) that answers
    :data:`OTHER_MISSES` wrong (``999``) and fixes ``arithmetic/arith-02`` everywhere;
    returns its id. Compared with the demo run, no arm has a twin: only arms of
    different models share the questions."""
    run = store.start_run("rival", {}, "3" * 64)
    items = []
    for item in store.items(source):
        changes: dict[str, object] = {"run_id": run.run_id, "model": OTHER_MODEL}
        if item.item_id in OTHER_MISSES:
            text = item.raw_output.replace(f"\\boxed{{{item.extracted_answer}}}", "\\boxed{999}")
            start = text.find("\\boxed{999}") + len("\\boxed{")
            changes |= {
                "raw_output": text,
                "extracted_answer": "999",
                "span": (start, start + 3) if start >= len("\\boxed{") else None,
                "correct": False,
                "reason": "different",
            }
        elif item.item_id == "arithmetic/arith-02" and item.gold is not None:
            text = item.raw_output.replace("\\boxed{113}", f"\\boxed{{{item.gold}}}")
            start = text.find(f"\\boxed{{{item.gold}}}") + len("\\boxed{")
            changes |= {
                "raw_output": text,
                "extracted_answer": item.gold,
                "span": (start, start + len(item.gold)),
                "correct": True,
                "reason": "equivalent",
            }
        items.append(item.model_copy(update=changes))
    store.add_items(items)
    store.finish_run(run.run_id)
    return run.run_id
