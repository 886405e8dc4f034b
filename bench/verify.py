"""Verification benchmark over the shared corpus: answerx.verify against the labels and
against math-verify, side by side in one process.

* agreement of ``answerx.verify(raw_output, gold, task)`` with the corpus's
  ``model_correct`` label on every labelled item (math, GSM8K, multiple choice),
  with every disagreement listed;
* agreement with math-verify ``verify(parse(gold), parse(raw_output))`` where both
  find an answer (math and GSM8K), disagreements classified: a different answer
  read from the output, or the same answer judged differently;
* median time per item of ``verify`` against math-verify ``parse`` + ``verify``;
* ``verify_batch`` with 2 worker processes against 1, on items math-verify decides;
* one TRL reward call for a batch of 64 GSM8K completions;
* the same 1,000 items verified from 8 threads against the main thread;
* the symbolic table (issue 29): ``grade`` with its fast symbolic rung against
  math-verify alone (``parse`` + ``verify``, in this process) on the corpus's math
  answers, on the olympiad-style set of ``bench/olympiad_answers.py`` and on the math
  items of both halves of ``../shared/data/external`` (TheoremQA's lists, values and
  expressions; the check half in aggregate only, issue 36): median and mean time per
  verdict, the share that reaches math-verify, verdict differences; and the TRL reward
  for 64 ~2,000-character completions with symbolic answers.

    python bench/verify.py                   # everything (a few minutes on 2 cores)
    python bench/verify.py --quick           # agreement and the thread check only
    python bench/verify.py --symbolic        # the symbolic table and reward only
    python bench/verify.py --short-answers   # the short-answer table alone (issue 24)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from answerx.grading import Verdict, grade, verify, verify_batch, warm_up
from answerx.grading.numeric import exact_number
from answerx.grading.pool import shared_pool
from answerx.integrations.trl import answerx_reward
from corpus import CORPUS_FILES, corpus_dir
from external import external_dir
from external import items as external_items
from olympiad_answers import pairs as olympiad_pairs

AGREEMENT_TARGET = 99.5  # % of labelled items
SPEED_TARGET = 10.0  # verify at least this many times faster than math-verify (median)
WORKERS_TARGET = 1.7  # 2 workers against 1
REWARD_TARGET_MS = 20.0  # one reward call, 64 GSM8K completions
SYMBOLIC_SPEED_TARGET = 10.0  # mean time per verdict against math-verify alone
SYMBOLIC_REACH_TARGET = 2.0  # % of items that still reach math-verify (issue 36)
SYMBOLIC_REWARD_TARGET_MS = 10.0  # one reward call, 64 completions with symbolic answers


@dataclass(frozen=True)
class Item:
    id: str
    task: str
    raw_output: str
    gold: str
    choices: list[str] | None
    model_answer: str | None
    model_correct: bool | None


def load_items(folder: Path) -> dict[str, list[Item]]:
    items: dict[str, list[Item]] = {}
    for name, (filename, task) in CORPUS_FILES.items():
        with (folder / filename).open(encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh]
        items[name] = [
            Item(r["id"], task, r["raw_output"], str(r["gold"]), r.get("choices"),
                 r["model_answer"], r["model_correct"])
            for r in rows
        ]  # fmt: skip
    return items


def judge(item: Item) -> Verdict:
    return verify(item.raw_output, item.gold, item.task, choices=item.choices)


# --------------------------------------------------------------------------- labels
def agreement_with_labels(items: dict[str, list[Item]]) -> float:
    print("## Agreement with model_correct (labelled items)\n")
    print("| file | labelled | agree | agreement % |")
    print("|---|---|---|---|")
    total = agreed = 0
    disagreements: list[tuple[Item, Verdict]] = []
    for name, rows in items.items():
        labelled = [i for i in rows if i.model_correct is not None]
        ok = 0
        for item in labelled:
            verdict = judge(item)
            if verdict.correct == item.model_correct:
                ok += 1
            else:
                disagreements.append((item, verdict))
        total += len(labelled)
        agreed += ok
        print(f"| {name} | {len(labelled)} | {ok} | {100 * ok / len(labelled):.2f} |")
    overall = 100 * agreed / total
    print(f"| **all** | {total} | {agreed} | **{overall:.2f}** |\n")
    print("Every disagreement (label's answer → answerx's answer; gold; label; verdict):\n")
    for item, verdict in disagreements:
        print(f"- `{item.id}`: {item.model_answer!r} → {verdict.answer!r}; gold {item.gold!r}; "
              f"label {item.model_correct}; answerx {verdict.reason} ({verdict.how})")  # fmt: skip
    print()
    return overall


# --------------------------------------------------------------------------- math-verify
def _mv() -> tuple[Callable[..., Any], Callable[..., Any]]:
    from math_verify import parse
    from math_verify import verify as mv_verify

    return parse, mv_verify


def agreement_with_math_verify(items: dict[str, list[Item]]) -> None:
    parse, mv_verify = _mv()
    print("## Agreement with math-verify `verify(parse(gold), parse(output))`\n")
    print(
        "| file | both answered | agree | agreement % | other answer read | judged differently "
        "| label sides with answerx / with math-verify |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in ("math_l5_zeroeval", "gsm8k_mixed"):
        both = agree = 0
        kinds: Counter[str] = Counter()
        examples: list[str] = []
        for item in items[name]:
            parsed = parse(item.raw_output)
            verdict = judge(item)
            if not parsed or verdict.answer is None:
                continue
            both += 1
            theirs = bool(mv_verify(parse(f"${item.gold}$"), parsed))
            if theirs == bool(verdict.correct):
                agree += 1
                continue
            # Same answer judged differently, or math-verify read another answer?
            their_answer = str(parsed[-1])
            same = grade(their_answer, verdict.answer, item.task).correct
            kind = "judged differently" if same else "other answer read"
            kinds[kind] += 1
            if item.model_correct is not None:
                kinds[
                    "label: answerx" if item.model_correct == verdict.correct else "label: mv"
                ] += 1
            if len(examples) < 12:
                examples.append(f"  - `{item.id}` ({kind}): math-verify read {their_answer!r} "
                                f"→ {theirs}; answerx {verdict.answer!r} → {verdict.correct}; "
                                f"gold {item.gold!r}")  # fmt: skip
        print(f"| {name} | {both} | {agree} | {100 * agree / max(both, 1):.2f} | "
              f"{kinds['other answer read']} | {kinds['judged differently']} "
              f"| {kinds['label: answerx']} / {kinds['label: mv']} |")  # fmt: skip
        print("\n".join(examples))
    print()


def speed(items: dict[str, list[Item]]) -> float:
    parse, mv_verify = _mv()
    sample = items["math_l5_zeroeval"] + items["gsm8k_mixed"]
    for item in sample[:20]:  # warm both up (imports, the worker process)
        judge(item)
    ours: list[float] = []
    theirs: list[float] = []
    for item in sample:
        started = time.perf_counter()
        judge(item)
        ours.append(time.perf_counter() - started)
        started = time.perf_counter()
        mv_verify(parse(f"${item.gold}$"), parse(item.raw_output))
        theirs.append(time.perf_counter() - started)
    a, b = statistics.median(ours), statistics.median(theirs)
    print("## Speed (math + GSM8K, 2,000 items)\n")
    print(f"- median `verify`: {a * 1e6:.0f} µs; math-verify parse + verify: {b * 1e6:.0f} µs "
          f"→ **{b / a:.1f}×** (target ≥ {SPEED_TARGET:.0f}×)")  # fmt: skip
    print(f"- p90 `verify`: {statistics.quantiles(ours, n=10)[-1] * 1e6:.0f} µs; "
          f"math-verify {statistics.quantiles(theirs, n=10)[-1] * 1e6:.0f} µs\n")  # fmt: skip
    return b / a


def _batch_seconds(outputs: list[str], golds: list[str], n: int) -> float:
    # Fresh workers each round (their parse caches would favour the second), started before
    # the clock: importing sympy is no part of the work.
    shared_pool().close()
    warm_up(n)
    started = time.perf_counter()
    verify_batch(outputs, golds, task="math", workers=n)
    return time.perf_counter() - started


def workers(items: dict[str, list[Item]]) -> float:
    # Heavy items: math outputs against their gold written so that only a symbolic
    # simplification shows it equal ("12" as "12 + sin^2(x) + cos^2(x) - 1"): tens of
    # milliseconds of sympy each. Light ones: the gold as "12+0" (about 2 ms).
    numeric = [i for i in items["math_l5_zeroeval"] if exact_number(i.gold) is not None]
    heavy = numeric[:300]
    outputs = [i.raw_output for i in heavy]
    print(f"## verify_batch: 2 worker processes against 1 ({len(heavy)} math items)\n")
    ratio = 0.0
    for label, golds in (
        ("heavy (symbolic)", [f"{i.gold} + \\sin^2(x) + \\cos^2(x) - 1" for i in heavy]),
        ("light (+0)", [f"{i.gold}+0" for i in heavy]),
    ):
        one, two = (_batch_seconds(outputs, golds, n) for n in (1, 2))
        if ratio == 0.0:
            ratio = one / two
        print(f"- {label}: 1 worker {one:.2f} s; 2 workers {two:.2f} s → **{one / two:.2f}×**")
    print(f"\nTarget (heavy items): ≥ {WORKERS_TARGET}×\n")
    return ratio


def reward_call(items: dict[str, list[Item]]) -> float:
    batch = items["gsm8k_mixed"][:64]
    completions = [i.raw_output for i in batch]
    solutions = [i.gold for i in batch]
    answerx_reward(completions, solution=solutions)
    runs = []
    for _ in range(30):
        started = time.perf_counter()
        answerx_reward(completions, solution=solutions)
        runs.append(time.perf_counter() - started)
    ms = statistics.median(runs) * 1e3
    print("## TRL reward call (64 GSM8K completions)\n")
    print(f"- median {ms:.2f} ms per call (target ≤ {REWARD_TARGET_MS:.0f} ms)\n")
    return ms


def threads(items: dict[str, list[Item]]) -> bool:
    pool = [i for rows in items.values() for i in rows]
    chosen = pool[::3][:1000]

    def key(item: Item) -> tuple[Any, ...]:
        v = judge(item)
        return (v.correct, v.reason, v.how, v.answer)

    on_main = [key(i) for i in chosen]
    with ThreadPoolExecutor(max_workers=8) as executor:
        off_main = list(executor.map(key, chosen))
    same = on_main == off_main
    mismatches = sum(a != b for a, b in zip(on_main, off_main, strict=True))
    print("## Thread check (1,000 items, 8 threads)\n")
    print(f"- identical to the main thread: **{same}** ({mismatches} differ)\n")
    return same


# --------------------------------------------------------------------------- symbolic
@dataclass(frozen=True)
class Pair:
    answer: str
    gold: str
    truth: bool | None  # the mathematical truth where it is known (the olympiad set)


def corpus_math_pairs(items: dict[str, list[Item]]) -> list[Pair]:
    """The corpus's math items as (extracted answer, gold): what grading compares."""
    from answerx.extraction import extract

    out = []
    for item in items["math_l5_zeroeval"]:
        answer = extract(item.raw_output, "math").answer
        if answer is not None:
            out.append(Pair(answer, item.gold, None))
    return out


#: The name of a set read only in aggregate (no item of it is printed).
CHECK_HALF = "outside math items, check half"


def external_math_pairs() -> dict[str, list[Pair]]:
    """The math items of ``../shared/data/external`` (both halves, none when it is absent)
    as (the answer answerx extracts, the gold): answers written by other model families."""
    from answerx.extraction import extract

    folder = external_dir()
    if folder is None:
        return {}
    sets = {}
    for half, name in (("tune", "outside math items, tune half"), ("check", CHECK_HALF)):
        rows = []
        for _, item in external_items(folder, half, None):
            if item["task"] != "math":
                continue
            answer = extract(item["output"], "math").answer
            if answer is not None:
                rows.append(Pair(answer, str(item["gold"]), None))
        sets[name] = rows
    return sets


def _clear_caches() -> None:
    from answerx.grading import symbolic
    from answerx.grading.mathverify import _parse_cached

    symbolic._shape.cache_clear()
    symbolic._decide.cache_clear()
    _parse_cached.cache_clear()


def _warm_math_verify_here() -> None:
    """Warm math-verify in this process as ``warm_up`` warms the grading worker (the same
    comparisons), so that neither side's timed items pay imports or first-use costs: before
    this, the first set's first items paid importing math-verify (about 0.5 s) and filling
    its parser's tables on the math-verify side only, which inflated its mean."""
    from answerx.grading._worker import _WARM_UP
    from answerx.grading.mathverify import math_equal

    for answer, gold in _WARM_UP:
        math_equal(answer, gold, 5)


def symbolic_table(sets: dict[str, list[Pair]]) -> bool:
    from answerx.extraction import clean_answer
    from answerx.grading.mathverify import math_equal

    print("## Symbolic answers: the fast rung against math-verify alone (issue 29)\n")
    print(
        "`grade(answer, gold, 'math')` (the ladder: cheap predicates, the fast symbolic rung, "
        "math-verify in the worker pool for the rest) against math-verify alone "
        "(`parse` + `verify` in this process), item by item, caches cleared first.\n"
    )
    print(
        "| set | items | answerx median / mean µs | math-verify median / mean µs | mean speed-up "
        "| reach math-verify % | fast rung decides % "
        "| verdicts differ (math-verify wrong / other) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    warm_up(1)
    _warm_math_verify_here()
    ok = True
    for name, rows in sets.items():
        _clear_caches()
        ours: list[float] = []
        verdicts = []
        for pair in rows:
            started = time.perf_counter()
            verdicts.append(grade(pair.answer, pair.gold, "math"))
            ours.append(time.perf_counter() - started)
        theirs: list[float] = []
        results = []
        for pair in rows:
            answer, gold = clean_answer(pair.answer), clean_answer(pair.gold)
            started = time.perf_counter()
            results.append(math_equal(answer, gold, 5) if answer and gold else "different")
            theirs.append(time.perf_counter() - started)
        reach = sum(v.how == "math_verify" for v in verdicts)
        fast = sum(v.how.startswith("symbolic_") for v in verdicts)
        wrong = other = 0
        examples = []
        for pair, verdict, result in zip(rows, verdicts, results, strict=True):
            if result in ("timeout", "unreadable_gold") or verdict.reason == "unreadable_gold":
                continue
            if bool(verdict.correct) == (result == "equal"):
                continue
            if pair.truth is not None and verdict.correct == pair.truth:
                wrong += 1
            else:
                other += 1
                if name == CHECK_HALF:
                    continue  # read in aggregate only
                examples.append(
                    f"  - {pair.answer!r} against {pair.gold!r}: answerx "
                    f"{verdict.correct} ({verdict.how}), math-verify {result}"
                )
        a_mean, b_mean = statistics.mean(ours), statistics.mean(theirs)
        share = 100 * reach / len(rows)
        print(f"| {name} | {len(rows)} | {statistics.median(ours) * 1e6:.0f} / {a_mean * 1e6:.0f} "
              f"| {statistics.median(theirs) * 1e6:.0f} / {b_mean * 1e6:.0f} "
              f"| **{b_mean / a_mean:.1f}×** | **{share:.1f}** | {100 * fast / len(rows):.1f} "
              f"| {wrong} / **{other}** |")  # fmt: skip
        print("\n".join(examples))
        ok &= b_mean / a_mean >= SYMBOLIC_SPEED_TARGET and share <= SYMBOLIC_REACH_TARGET
        ok &= other == 0
    print(f"\nTargets: mean ≥ {SYMBOLIC_SPEED_TARGET:.0f}× math-verify alone, ≤ "
          f"{SYMBOLIC_REACH_TARGET:.0f} % reaching math-verify, 0 differences other than where "
          "math-verify is wrong (the olympiad set's truth column; listed in "
          "tests/grading/test_symbolic_agreement.py).\n")  # fmt: skip
    return ok


_REASONING = (
    "Let us set up the problem carefully. We first collect what is given, rewrite the "
    "condition as an equation, and simplify both sides step by step, checking each "
    "algebraic move against the original statement before going on. "
)


def symbolic_completions(n: int = 64) -> tuple[list[str], list[str]]:
    """``n`` completions of about 2,000 characters, each ending in a boxed symbolic answer
    (half right, half wrong), and their golds, from the olympiad-style set."""
    chosen = [p for p in olympiad_pairs() if "=" not in p[0]][::3][:n]
    body = (_REASONING * 12)[:1900]
    completions = [f"{body}\nTherefore the answer is $\\boxed{{{a}}}$." for a, _, _ in chosen]
    return completions, [g for _, g, _ in chosen]


def symbolic_reward() -> float:
    """Median wall-clock ms of one reward call; CPU time beside it (on a shared machine the
    wall clock also counts other work)."""
    from answerx.grading import symbolic

    completions, golds = symbolic_completions()
    size = statistics.mean(len(c) for c in completions)
    answerx_reward(completions, solution=golds)
    print(f"## TRL reward call (64 completions of {size:.0f} characters, symbolic answers)\n")
    result = 0.0
    for label, fresh in (("answers new to the caches", True), ("answers seen before", False)):
        wall, cpu = [], []
        for _ in range(30):
            if fresh:
                symbolic._shape.cache_clear()
                symbolic._decide.cache_clear()
            started, started_cpu = time.perf_counter(), time.process_time()
            rewards = answerx_reward(completions, solution=golds)
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        ms = statistics.median(wall) * 1e3
        result = max(result, ms)
        print(f"- {label}: median {ms:.2f} ms per call ({statistics.median(cpu) * 1e3:.2f} ms "
              f"of CPU), {sum(r == 1.0 for r in rewards)} of 64 right")  # fmt: skip
    print(f"\nTarget ≤ {SYMBOLIC_REWARD_TARGET_MS:.0f} ms.\n")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="agreement and threads only")
    parser.add_argument("--symbolic", action="store_true", help="the symbolic table only")
    parser.add_argument(
        "--short-answers", action="store_true", help="the short-answer table alone (issue 24)"
    )
    args = parser.parse_args()
    if args.short_answers:
        from short_answers import short_answer_table

        met = short_answer_table()
        print("All targets met." if met else "Some targets missed (see above).")
        return 0
    folder = corpus_dir()
    olympiad = [Pair(a, g, truth) for a, g, truth in olympiad_pairs()]
    if args.symbolic:
        sets = {"olympiad-style (bench/olympiad_answers.py)": olympiad, **external_math_pairs()}
        if folder is not None:
            sets = {"dev corpus, math": corpus_math_pairs(load_items(folder)), **sets}
        ok = symbolic_table(sets)
        ok &= symbolic_reward() <= SYMBOLIC_REWARD_TARGET_MS
        print("All targets met." if ok else "Some targets missed (see above).")
        return 0
    if folder is None:
        print("corpus not found (set ANSWERX_CORPUS or add ../shared/data/corpus): skipped")
        return 0
    items = load_items(folder)
    overall = agreement_with_labels(items)
    ok = overall >= AGREEMENT_TARGET
    if not args.quick:
        agreement_with_math_verify(items)
        ok &= speed(items) >= SPEED_TARGET
        ok &= workers(items) >= WORKERS_TARGET
        ok &= reward_call(items) <= REWARD_TARGET_MS
        ok &= symbolic_table({"dev corpus, math": corpus_math_pairs(items),
                              "olympiad-style (bench/olympiad_answers.py)": olympiad,
                              **external_math_pairs()})  # fmt: skip
        ok &= symbolic_reward() <= SYMBOLIC_REWARD_TARGET_MS
    ok &= threads(items)
    print("All targets met." if ok else "Some targets missed (see above).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
