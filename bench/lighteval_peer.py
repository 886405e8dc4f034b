"""lighteval's extractive match on the external corpus: the lighteval column of
``bench/external.py``.

lighteval cannot share answerx's environment (it pins an older latex2sympy2_extended than
answerx's math-verify 0.9), so this script runs in lighteval's own (the Makefile's
``.venv-lighteval``) and imports nothing of answerx. For every item of one half whose task
lighteval ships a metric for, it runs the metric of the closest lighteval task, exactly as
that task configures it, on lighteval's own ``Doc`` and ``ModelResponse``:

* ``numeric`` — ``gsm8k``'s ``Metrics.expr_gold_metric`` (gold: the number);
* ``math`` — ``math_500``'s ``Metrics.pass_at_k_math`` with k = n = 1 (gold: the answer
  in ``$…$``, as math_500's ``ANSWER: <solution>`` gold holds LaTeX);
* ``multiple_choice`` — ``gpqa:diamond`` / ``mmlu_pro``'s ``Metrics.gpqa_instruct_metric``
  (``choices`` the letters, ``gold_index`` the gold letter's).

Yes/no and sentence answers have no lighteval extractive match: those items are left out.
It writes one JSON object, ``{item id: true/false}``, to ``--out`` and prints nothing of
any item (the check halves are read in aggregate only; lighteval's own logging, which
quotes predictions, is turned off). ``bench/external.py`` runs it and counts the verdicts.

    .venv-lighteval/bin/python bench/lighteval_peer.py --half check --out /tmp/le-check.json
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Item = dict[str, Any]
LETTERS = "ABCDEFGHIJ"


def external_dir() -> Path | None:
    """The external corpus folder, found as ``bench/external.py`` finds it."""
    env = os.environ.get("ANSWERX_EXTERNAL")
    here = Path(__file__).resolve().parent.parent
    for candidate in ([Path(env)] if env else []) + [here.parent / "shared" / "data" / "external"]:
        if candidate.is_dir():
            return candidate
    return None


def scorers() -> dict[str, Callable[[Item], bool]]:
    """One scorer per answerx task lighteval has an extractive match for."""
    from lighteval.metrics.metrics import Metrics
    from lighteval.models.model_output import ModelResponse
    from lighteval.tasks.requests import Doc

    numeric = Metrics.expr_gold_metric.value.sample_level_fn
    math = Metrics.pass_at_k_math(sample_params={"k": 1, "n": 1}).sample_level_fn
    choice = Metrics.gpqa_instruct_metric.value.sample_level_fn

    def score(fn: Any, doc: Any, output: str) -> bool:
        try:
            return bool(fn.compute(doc=doc, model_response=ModelResponse(text=[output])))
        except Exception:  # a crash or a timeout inside lighteval: no match, as it scores it
            return False

    def run_numeric(item: Item) -> bool:
        doc = Doc(query="", choices=[str(item["gold"])], gold_index=0)
        return score(numeric, doc, item["output"])

    def run_math(item: Item) -> bool:
        doc = Doc(query="", choices=[f"${item['gold']}$"], gold_index=0)
        return score(math, doc, item["output"])

    def run_choice(item: Item) -> bool:
        letters = list(LETTERS[: len(item.get("choices") or [])])
        gold = str(item["gold"]).strip("() ")
        if gold not in letters:
            return False
        doc = Doc(query="", choices=letters, gold_index=letters.index(gold))
        return score(choice, doc, item["output"])

    return {"numeric": run_numeric, "math": run_math, "multiple_choice": run_choice}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=("tune", "check"), default="check")
    parser.add_argument("--source", help="one source folder only (e.g. theoremqa)")
    parser.add_argument("--out", required=True, help="the JSON file of verdicts to write")
    args = parser.parse_args(argv)
    logging.disable(logging.CRITICAL)  # lighteval's warnings quote the predictions
    folder = external_dir()
    run = scorers()
    verdicts: dict[str, bool] = {}
    for path in sorted(folder.glob(f"*/{args.half}.jsonl")) if folder else []:
        if args.source is not None and path.parent.name != args.source:
            continue
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                item = json.loads(line)
                scorer = run.get(item["task"])
                if scorer is not None:
                    verdicts[item["id"]] = scorer(item)
    Path(args.out).write_text(json.dumps(verdicts), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
