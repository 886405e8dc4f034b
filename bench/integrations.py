"""Answer extraction inside the evaluation harnesses, on the shared corpus.

For each harness that is installed, each corpus file (math, GSM8K, multiple choice) runs
through the harness's own built-in extraction and through the answerx plug-in *inside
that harness* (the same objects the harness calls: lm-eval filters, inspect-ai scorers,
lighteval sample metrics), and the table shows per extractor

* ``agree``   — agreement with the answer the model itself stated (``model_answer``;
  normalised match, then math-verify ``verify``, as ``bench/extraction.py``), in % of
  the labelled items, on the raw labels and on the audited labels (multiple choice:
  the labels ``bench/mmlu_pro_label_audit.jsonl`` excludes, each with its reason, are
  left out; math and GSM8K labels are not audited, so both columns are equal);
* ``cover``   — % of items with an answer at all;
* ``=extract`` — for the answerx plug-ins: % of items where the plug-in's answer is
  exactly ``answerx.extract``'s (the integration loses nothing when this is 100 %);
* ``µs/item`` — the extractor's time per item (mean over the batch; inspect-ai scorers
  include their async call, and answerx_scorer its grading).

    python bench/integrations.py                    # every installed harness, every item
    python bench/integrations.py --every 5          # every 5th item of each file
    python bench/integrations.py --harness lm-eval --harness inspect
    python bench/integrations.py --misses multiple_choice_mmlupro   # every disagreement
    python bench/integrations.py --rewards --compare /work/base/src  # reward time per batch

``--rewards`` times the RL reward functions on one batch of 64 completions of about
2,000 characters (reasoning, then a marked final answer): answers the rules decide
(numbers) and answers only math-verify can (``\\frac{1}{\\sqrt{2}}`` against
``\\frac{\\sqrt{2}}{2}``), as the median ms per batch of several passes. With
``--compare SRC`` the answerx under ``SRC`` (today's) is timed beside this one, passes
alternating, in the same process.

lm-eval and inspect-ai are optional (``answerx[lm-eval]``, ``answerx[inspect]``); lighteval
cannot share an environment with answerx's math-verify (see the README), so its rows come
from a separate environment (``make test-integrations`` builds ``.venv-lighteval``). A
harness that is not installed is skipped with a note.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import importlib.util
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from answerx import extract
from corpus import CORPUS_FILES, CorpusItem, agrees, audited_label, corpus_dir, label_audit, load
from extraction import _mv_verify, score

Extractor = Callable[[list[CorpusItem]], list[str | None]]
LETTERS = "ABCDEFGHIJ"


def _task(item: CorpusItem) -> str:
    return item.task


def _choices(item: CorpusItem) -> list[str] | None:
    return item.choices if item.task == "multiple_choice" else None


# --- lm-evaluation-harness -------------------------------------------------------------


_MINERVA_NAMES = {
    "get_unnormalized_answer",
    "normalize_final_answer",
    "SUBSTITUTIONS",
    "REMOVED_EXPRESSIONS",
}


def minerva_extraction() -> Callable[[str], str | None]:
    """lm-eval's ``minerva_math`` answer extraction: ``normalize_final_answer`` of
    ``get_unnormalized_answer``, as its ``process_results`` calls them.

    ``minerva_math/utils.py`` refuses to import unless antlr4-python3-runtime is 4.11 (for
    ``is_equiv``'s ``parse_latex``), while answerx's math-verify needs 4.13. Extraction
    needs neither, so the module's own source is parsed and only the two functions and
    the constants they read are run, unchanged.
    """
    spec = importlib.util.find_spec("lm_eval.tasks.minerva_math.utils")
    if spec is None or spec.origin is None:
        raise ImportError("lm_eval.tasks.minerva_math.utils not found")
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"), spec.origin)
    keep = [
        node
        for node in tree.body
        if (isinstance(node, ast.FunctionDef) and node.name in _MINERVA_NAMES)
        or (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id in _MINERVA_NAMES for t in node.targets)
        )
    ]
    namespace: dict[str, Any] = {"re": re}
    exec(compile(ast.Module(body=keep, type_ignores=[]), spec.origin, "exec"), namespace)
    missing = _MINERVA_NAMES - namespace.keys()
    if missing:
        raise ImportError(f"lm-eval's minerva_math utils lack {sorted(missing)}")
    unnormalized, normalize = (
        namespace["get_unnormalized_answer"],
        namespace["normalize_final_answer"],
    )

    def answer(text: str) -> str | None:
        found = unnormalized(text)
        return None if found == "[invalidanswer]" else normalize(found)

    return answer


def lm_eval_extractors(corpus: str) -> dict[str, Extractor]:
    from lm_eval.api.registry import get_filter
    from lm_eval.tasks.hendrycks_math import utils as hendrycks

    from answerx.integrations.lm_eval import NO_ANSWER, AnswerxFilter

    def via_filter(make: Callable[[], Any]) -> Extractor:
        def run(items: list[CorpusItem]) -> list[str | None]:
            docs = [{"options": it.choices} if it.choices else {} for it in items]
            out = make().apply([[it.raw_output] for it in items], docs)
            return [None if a[0] in (NO_ANSWER, "") else a[0] for a in out]

        return run

    def per_item(fn: Callable[[str], str | None]) -> Extractor:
        return lambda items: [fn(it.raw_output) for it in items]

    def hendrycks_answer(text: str) -> str | None:
        boxed = hendrycks.last_boxed_only_string(text)
        return hendrycks.remove_boxed(boxed) if boxed else None

    regex = get_filter("regex")
    task = CORPUS_FILES[corpus][1]
    field = "options" if task == "multiple_choice" else None
    answerx = via_filter(lambda: AnswerxFilter(task=task, choices_field=field))
    if corpus == "gsm8k_mixed":
        return {
            "gsm8k strict-match": via_filter(
                lambda: regex(regex_pattern="The answer is (\\-?[0-9\\.\\,]+).")
            ),
            "gsm8k flexible-extract": via_filter(
                lambda: regex(regex_pattern="(-?[$0-9.,]{2,})|(-?[0-9]+)", group_select=-1)
            ),
            "answerx filter": answerx,
        }
    if corpus == "math_l5_zeroeval":
        return {
            "hendrycks_math (last boxed)": per_item(hendrycks_answer),
            "minerva_math (Final Answer + normalize)": per_item(minerva_extraction()),
            "answerx filter": answerx,
        }
    return {
        "mmlu_pro custom-extract": via_filter(
            lambda: regex(regex_pattern=r"answer is \(?([ABCDEFGHIJ])\)?")
        ),
        "answerx filter": answerx,
    }


# --- inspect-ai ------------------------------------------------------------------------


def inspect_extractors(corpus: str) -> dict[str, Extractor]:
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import Target, answer, choice, match, math
    from inspect_ai.solver import TaskState

    # The multiple_choice solver's own parsing step (it marks state.choices before the
    # choice() scorer reads them); private in inspect-ai, so imported from its module.
    from inspect_ai.solver._multiple_choice import (
        parse_answers,
        set_choices_based_on_generated_response,
    )

    from answerx.integrations.inspect_ai import answerx_scorer

    def state(item: CorpusItem) -> TaskState:
        return TaskState(
            model="mockllm/model",
            sample_id=item.id,
            epoch=0,
            input="",
            messages=[],
            choices=item.choices,
            output=ModelOutput.from_content("mockllm/model", item.raw_output),
        )

    def via_scorer(make: Callable[[], Any], *, mark_choices: bool = False) -> Extractor:
        def run(items: list[CorpusItem]) -> list[str | None]:
            scorer = make()

            async def all_items() -> list[str | None]:
                answers = []
                for item in items:
                    st = state(item)
                    if mark_choices:
                        set_choices_based_on_generated_response(st, parse_answers(st, False))
                    try:
                        result = await scorer(st, Target(item.gold))
                    except Exception as exc:  # inspect's math() raises on some outputs
                        failures.append(f"{item.id}: {type(exc).__name__}: {exc}")
                        answers.append(None)
                        continue
                    answers.append(result.answer or None)
                return answers

            failures: list[str] = []
            answers = asyncio.run(all_items())
            if failures:
                print(f"  ({len(failures)} items raised, counted as no answer: {failures[0]} ...)")
            return answers

        return run

    task = CORPUS_FILES[corpus][1]
    ours = {"answerx_scorer": via_scorer(lambda: answerx_scorer(task=task))}
    if corpus == "multiple_choice_mmlupro":
        return {
            "choice()": via_scorer(choice, mark_choices=True),
            'answer("letter")': via_scorer(lambda: answer("letter")),
            "match()": via_scorer(match),
            **ours,
        }
    return {
        'answer("line")': via_scorer(lambda: answer("line")),
        "match(numeric=True)": via_scorer(lambda: match(numeric=True)),
        "math()": via_scorer(math),
        **ours,
    }


# --- lighteval -------------------------------------------------------------------------


def lighteval_extractors(corpus: str) -> dict[str, Extractor]:
    from lighteval.metrics.dynamic_metrics import MultilingualExtractiveMatchMetric
    from lighteval.metrics.metrics import Metrics
    from lighteval.metrics.utils.extractive_match_utils import (
        ExprExtractionConfig,
        LatexExtractionConfig,
    )
    from lighteval.models.model_output import ModelResponse
    from lighteval.tasks.requests import Doc

    from answerx.integrations.lighteval import make_answerx_metric

    def doc(item: CorpusItem) -> Doc:
        if item.choices:
            letters = list(LETTERS[: len(item.choices)])
            gold = item.gold.strip().strip("()")
            return Doc(query="", choices=letters, gold_index=max(letters.index(gold), 0))
        return Doc(query="", choices=[item.gold], gold_index=0)

    def via_metric(computation: Any) -> Extractor:
        def run(items: list[CorpusItem]) -> list[str | None]:
            answers = []
            for item in items:
                d = doc(item)
                computation.compute(doc=d, model_response=ModelResponse(text=[item.raw_output]))
                found = (d.specific or {}).get("extracted_predictions") or [""]
                answers.append(found[0] or None)
            return answers

        return run

    task = CORPUS_FILES[corpus][1]
    ours = {"answerx_metric": via_metric(make_answerx_metric(task).sample_level_fn)}
    if corpus == "gsm8k_mixed":
        builtin = {"extractive match (gsm8k)": Metrics.expr_gold_metric.value.sample_level_fn}
    elif corpus == "math_l5_zeroeval":
        # math_500's pass@k scores with this extractive match (expressions and LaTeX).
        targets = [ExprExtractionConfig(), LatexExtractionConfig()]
        builtin = {
            "extractive match (math_500)": MultilingualExtractiveMatchMetric(
                gold_extraction_target=targets, pred_extraction_target=targets, precision=6
            )
        }
    else:
        builtin = {"extractive match (gpqa)": Metrics.gpqa_instruct_metric.value.sample_level_fn}
    return {name: via_metric(fn) for name, fn in builtin.items()} | ours


HARNESSES: dict[str, tuple[str, Callable[[str], dict[str, Extractor]]]] = {
    "lm-eval": ("lm_eval", lm_eval_extractors),
    "inspect": ("inspect_ai", inspect_extractors),
    "lighteval": ("lighteval", lighteval_extractors),
}


def answerx_answers(items: list[CorpusItem]) -> list[str | None]:
    return [extract(it.raw_output, it.task, choices=_choices(it)).answer for it in items]


def audited_agreement(
    items: list[CorpusItem],
    answers: list[str | None],
    verify: Callable[[str, str], bool] | None,
) -> float:
    """% agreement on the labelled items whose label the audit keeps."""
    audit = label_audit()
    kept = [
        (it, a)
        for it, a in zip(items, answers, strict=True)
        if it.model_answer is not None and audited_label(it, audit)
    ]
    ok = sum(agrees(it.task, a, it.model_answer, verify) for it, a in kept)
    return 100.0 * ok / max(len(kept), 1)


def print_misses(
    items: list[CorpusItem],
    answers: list[str | None],
    verify: Callable[[str, str], bool] | None,
) -> None:
    """One line per labelled item the extractor disagrees with, with the audit's verdict."""
    audit = label_audit()
    for it, a in zip(items, answers, strict=True):
        if it.model_answer is None or agrees(it.task, a, it.model_answer, verify):
            continue
        row = audit.get(it.id)
        note = f"audit: {row.verdict} ({row.source}): {row.text_states}" if row else "not audited"
        print(f"    miss {it.id}: label {it.model_answer!r}, answer {a!r}; {note}")


def timed(extractor: Extractor, items: list[CorpusItem]) -> tuple[list[str | None], float]:
    started = time.perf_counter()
    answers = extractor(items)
    return answers, 1e6 * (time.perf_counter() - started) / max(len(items), 1)


# --- rewards: one batch of 64 long completions ------------------------------------------

_FILLER = (
    "Let me work through this carefully. First I restate what is given and what is asked, "
    "then I check each intermediate quantity before moving on. "
)


def reward_batch(kind: str, n: int = 64, batch: int = 0) -> tuple[list[str], list[str]]:
    """``n`` completions of about 2,000 characters and their golds: ``rules`` (a number,
    decided without math-verify) or ``math-verify`` (equal only symbolically). Each
    ``batch`` number gives new texts, as each training step brings new completions (a
    reused string is faster to scan again: per-object caches)."""
    completions, golds = [], []
    for i in range(n):
        body = (f"Batch {batch}. " + _FILLER * 14)[: 1900 - 40]
        body += f" Step {i}: 6 * 7 = 42 and 42 + {i} = {42 + i}. "
        if kind == "rules":
            completions.append(body + f"The answer is {42 + i}.")
            golds.append(str(42 + i))
        else:
            completions.append(body + "So the answer is $\\boxed{\\frac{1}{\\sqrt{2}}}$.")
            golds.append("\\frac{\\sqrt{2}}{2}")
    return completions, golds


def _load_reward(src: str) -> Callable[..., Any]:
    """``answerx_reward`` of the answerx under ``src``, loaded beside this one (the modules
    are swapped out of ``sys.modules`` and back), its math-verify worker started: a worker
    importing sympy while the other is timed would take a core from it."""
    mine = {k: sys.modules.pop(k) for k in list(sys.modules) if k.split(".")[0] == "answerx"}
    sys.path.insert(0, src)
    try:
        other: Callable[..., Any] = importlib.import_module(
            "answerx.integrations.trl"
        ).answerx_reward
        importlib.import_module("answerx.grading").warm_up()
    finally:
        sys.path.remove(src)
        for k in [k for k in sys.modules if k.split(".")[0] == "answerx"]:
            del sys.modules[k]
        sys.modules.update(mine)
    return other


def time_rewards(compare: str | None, passes: int = 11) -> None:
    """Median ms per batch of 64 for each reward function (see the module docstring)."""
    from answerx.grading import warm_up
    from answerx.integrations.openrlhf import rewards
    from answerx.integrations.trl import answerx_reward
    from answerx.integrations.verl import compute_score_batch

    warm_up()  # math-verify's worker started before any timing
    functions: dict[str, Callable[[list[str], list[str]], Any]] = {
        "TRL answerx_reward": lambda c, g: answerx_reward(c, solution=g),
        "verl compute_score_batch": lambda c, g: compute_score_batch(["data"] * len(c), c, g),
        "OpenRLHF rewards": lambda c, g: rewards(c, None, g),
    }
    if compare:
        before = _load_reward(compare)
        functions = {
            "TRL answerx_reward (before)": lambda c, g: before(c, solution=g),
            **functions,
        }
    # CPU time beside wall time: on a shared machine another process may hold the core a
    # call waits for, which wall time counts and CPU time does not.
    print("| reward | batch | ms per 64, wall (median) | ms per 64, CPU (median) |")
    print("|---|---|---:|---:|")
    for kind in ("rules", "math-verify"):
        times: dict[str, list[float]] = {name: [] for name in functions}
        cpu: dict[str, list[float]] = {name: [] for name in functions}
        batch = 0
        for _ in range(passes):  # alternating, so a busy moment costs every function alike
            for name, function in functions.items():
                batch += 1
                completions, golds = reward_batch(kind, batch=batch)
                started, started_cpu = time.perf_counter(), time.process_time()
                results = function(completions, golds)
                times[name].append(1e3 * (time.perf_counter() - started))
                cpu[name].append(1e3 * (time.process_time() - started_cpu))
                assert len(results["rewards"] if isinstance(results, dict) else results) == 64
        for name, values in times.items():
            middle = len(values) // 2
            print(
                f"| {name} | {kind} | {sorted(values)[middle]:.1f} "
                f"| {sorted(cpu[name])[middle]:.1f} |"
            )


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--every", type=int, default=1, help="take every n-th item of each file")
    ap.add_argument(
        "--harness", action="append", choices=sorted(HARNESSES), help="(default: all installed)"
    )
    ap.add_argument(
        "--misses",
        action="append",
        choices=sorted(CORPUS_FILES),
        default=[],
        help="print every item of this corpus file where an extractor disagrees with the label",
    )
    ap.add_argument("--rewards", action="store_true", help="time the RL rewards (no corpus)")
    ap.add_argument("--compare", help="with --rewards: the src folder of the answerx to compare")
    args = ap.parse_args()
    if args.rewards:
        time_rewards(args.compare)
        return 0
    if corpus_dir() is None:
        print("corpus not found (../shared/data/corpus): nothing to benchmark")
        return 0
    try:
        verify: Callable[[str, str], bool] | None = _mv_verify()
    except ImportError:
        # lighteval pins latex2sympy2_extended 1.0.6, which math-verify 0.9 cannot import:
        # in lighteval's environment every extractor is judged by normalised match alone.
        verify = None
        print("(math-verify unusable here: agreement by normalised match only)")
    for harness in args.harness or list(HARNESSES):
        module, extractors_for = HARNESSES[harness]
        if importlib.util.find_spec(module) is None:
            print(f"\n{harness}: not installed (pip install 'answerx[{harness}]'), skipped")
            continue
        print(f"\n## {harness}\n")
        print(
            "| corpus | extractor | agree % | agree % (audited) | cover % "
            "| =extract % | µs/item |\n|---|---|---:|---:|---:|---:|---:|"
        )
        for corpus in CORPUS_FILES:
            items = load(corpus)[:: args.every]
            reference = answerx_answers(items)
            for name, extractor in extractors_for(corpus).items():
                answers, us = timed(extractor, items)
                s = score(items, answers, verify)
                agree_extract = sum(a == r for a, r in zip(answers, reference, strict=True))
                same = f"{100.0 * agree_extract / len(items):.1f}" if "answerx" in name else ""
                print(
                    f"| {corpus} ({len(items)}) | {name} | {s['agree']:.1f} "
                    f"| {audited_agreement(items, answers, verify):.1f} | {s['coverage']:.1f} "
                    f"| {same} | {us:,.0f} |",
                    flush=True,
                )
                if corpus in args.misses:
                    print_misses(items, answers, verify)
    return 0


if __name__ == "__main__":
    sys.exit(main())
