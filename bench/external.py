"""answerx on real outputs of other model families, beside simple baselines and the peers.

Reads every source of ``../shared/data/external`` (``ANSWERX_EXTERNAL`` overrides the
folder; see its README: real saved outputs of public benchmarks, labelled by their own
authors) and those this repository adds in ``bench/data/external`` (saved outputs of
BIG-Bench Hard, SimpleQA/FRAMES and TAT-QA; see its README), and prints, per source and
task, how often each method's verdict agrees with the source's label (``label_correct``),
with false accepts (says right, label wrong) and false rejects (says wrong, label right):

* ``answerx``      — ``answerx.verify(output, gold, task=…, choices=…, question=…)``;
* simple baselines, each on every item — ``last-letter`` (the last option letter, for
  multiple choice), ``last-number`` (the last number, within 1e-6), ``last-yes-no`` (the
  last yes/no/true/false), ``contains`` (a gold in the last 300 characters); ``simple``
  is the one a user would write per task (as ``../shared/tools/external_check.py``);
* ``math-verify``  — ``verify(parse(gold), parse(output))`` (math-verify 0.9; letters
  through its string extraction); not for yes/no or sentence golds;
* the peers, run from the installed lm-evaluation-harness: for numbers, ``gsm8k_cot``'s
  ``strict-match`` and ``flexible-extract`` filters with its ``exact_match`` settings; for
  multiple choice, ``mmlu_flan_cot_zeroshot``'s ``flexible-extract``
  (``MultiChoiceRegexFilter``); for yes/no, ``bbh`` boolean_expressions' flexible filter;
  for TruthfulQA, ``truthfulqa_gen``'s ``bleu_acc`` (it also reads the incorrect answers,
  which the others are not given);
* ``lighteval``    — lighteval's extractive match with the settings of its closest task
  (gsm8k, math_500, gpqa), for numbers, math and multiple choice: lighteval cannot share
  the project's environment (it pins an older latex2sympy2_extended than answerx's
  math-verify 0.9), so ``bench/lighteval_peer.py`` runs in the Python of ``--lighteval``
  (default: the Makefile's ``.venv-lighteval``, when it is built) and hands back only its
  verdicts; without it the column is left out and the report says so.

``--half tune`` (default ``check``): tune on ``tune``; ``check`` is read only in aggregate —
this script prints no item of it. ``--show N`` prints N disagreements of answerx (tune only).

    python bench/external.py --half check
    python bench/external.py --half check --lighteval /path/to/.venv-lighteval/bin/python
    python bench/external.py --half tune --source theoremqa --show 20
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import answerx

Item = dict[str, Any]
Method = Callable[[Item], bool | None]  # None: the method does not apply to the item

_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")
_LETTER = re.compile(r"(?<![A-Za-z])\(?([A-J])\)?(?![A-Za-z])")
_YES_NO = re.compile(r"\b(yes|no|true|false)\b", re.IGNORECASE)


def external_dir() -> Path | None:
    """The external corpus folder (``ANSWERX_EXTERNAL`` or ``../shared/data/external``)."""
    env = os.environ.get("ANSWERX_EXTERNAL")
    here = Path(__file__).resolve().parent.parent
    for candidate in ([Path(env)] if env else []) + [here.parent / "shared" / "data" / "external"]:
        if candidate.is_dir():
            return candidate
    return None


#: Sources this repository adds to the shared corpus, in its format (their README says
#: where each comes from, its licence and its label noise).
OWN_SOURCES = Path(__file__).resolve().parent / "data" / "external"


def items(folder: Path, half: str, source: str | None) -> Iterator[tuple[str, Item]]:
    """(source, item) of one half of every source (or of ``source``): the shared
    corpus's, then this repository's own (:data:`OWN_SOURCES`)."""
    paths = sorted(folder.glob(f"*/{half}.jsonl")) + sorted(OWN_SOURCES.glob(f"*/{half}.jsonl"))
    for path in paths:
        name = path.parent.name
        if source is None or name == source:
            with path.open(encoding="utf-8") as lines:
                for line in lines:
                    yield name, json.loads(line)


def _number(text: object) -> float | None:
    try:
        return float(str(text).replace(",", "").strip().strip("$"))
    except (TypeError, ValueError):
        return None


def _golds(item: Item) -> list[str]:
    gold = item["gold"]
    return [str(g) for g in gold] if isinstance(gold, list) else [str(gold)]


# --------------------------------------------------------------------------- answerx
def run_answerx(item: Item) -> bool | None:
    """answerx's verdict: right (True) or not (False; "cannot tell" counts as not right)."""
    try:
        verdict = answerx.verify(
            item["output"],
            item["gold"],
            task=item["task"],
            choices=item.get("choices"),
            question=item.get("question"),
        )
    except Exception:  # a crash is a wrong verdict here, and counted as one
        return False
    return verdict.correct is True


# --------------------------------------------------------------------------- baselines
def last_letter(item: Item) -> bool | None:
    if item["task"] != "multiple_choice":
        return None
    n = len(item.get("choices") or [])
    letters = [x for x in _LETTER.findall(item["output"]) if ord(x) - 65 < n]
    return bool(letters) and letters[-1] == str(item["gold"]).strip("() ")


def last_number(item: Item) -> bool | None:
    gold = _number(item["gold"]) if not isinstance(item["gold"], list) else None
    if gold is None:
        return None
    numbers = _NUMBER.findall(item["output"])
    got = _number(numbers[-1]) if numbers else None
    return got is not None and abs(got - gold) <= 1e-6 * max(1.0, abs(gold))


def _yes_no(text: str) -> bool | None:
    word = text.strip().lower()
    return True if word in ("yes", "true") else False if word in ("no", "false") else None


def last_yes_no(item: Item) -> bool | None:
    gold = _yes_no(str(item["gold"]))
    if gold is None:
        return None
    said = _YES_NO.findall(item["output"])
    return bool(said) and _yes_no(said[-1]) == gold


def contains(item: Item) -> bool | None:
    tail = item["output"][-300:].lower()
    return any(g.strip().lower() and g.strip().lower() in tail for g in _golds(item))


def simple(item: Item) -> bool | None:
    """The baseline a user writes per task (``../shared/tools/external_check.py``)."""
    if item["task"] == "multiple_choice":
        return last_letter(item)
    got = last_number(item) if item["task"] in ("numeric", "math") else None
    return contains(item) if got is None else got


# --------------------------------------------------------------------------- math-verify
def _math_verify() -> Method | None:
    try:
        from math_verify import StringExtractionConfig, parse, verify
    except ImportError:
        return None

    def run(item: Item) -> bool | None:
        if item["task"] in ("boolean", "short_answer", "text"):
            return None
        try:
            if item["task"] == "multiple_choice":
                letters = tuple("ABCDEFGHIJ"[: len(item.get("choices") or [])])
                config = [StringExtractionConfig(strings=letters)]
                return bool(verify(parse(str(item["gold"]), config), parse(item["output"], config)))
            return bool(verify(parse(f"${item['gold']}$"), parse(item["output"])))
        except Exception:  # math-verify raises on odd input: no match
            return False

    return run


# --------------------------------------------------------------------------- lm-eval
def _lm_eval(every: list[Item]) -> dict[str, Method]:
    """lm-eval's filters and metric for the closest task of each answer kind (``every``:
    all items, for the multiple-choice filter, which is run once on them all: it builds a
    table of every Unicode punctuation character per call)."""
    try:
        from lm_eval.filters.extraction import MultiChoiceRegexFilter, RegexFilter
    except ImportError:
        return {}
    # gsm8k_cot (lm_eval/tasks/gsm8k/gsm8k-cot.yaml): its filters and exact_match settings.
    strict = RegexFilter(regex_pattern=r"The answer is (\-?[0-9\.\,]+).", group_select=0)
    flexible = RegexFilter(regex_pattern=r"(-?[$0-9.,]{2,})|(-?[0-9]+)", group_select=-1)
    ignore = [",", r"\$", "(?s).*#### ", r"\.$"]

    def exact(prediction: str, gold: str) -> bool:
        for pattern in ignore:
            prediction, gold = re.sub(pattern, "", prediction), re.sub(pattern, "", gold)
        return prediction.strip().lower() == gold.strip().lower()

    def numbers(filt: RegexFilter) -> Method:
        def run(item: Item) -> bool | None:
            if item["task"] not in ("numeric", "math"):
                return None
            got = next(iter(filt.apply([[item["output"]]], [{}])))[0]
            return any(exact(got, g) for g in _golds(item))

        return run

    # mmlu_flan_cot_zeroshot's flexible-extract (multi_choice_regex, group_select -1).
    choice = MultiChoiceRegexFilter(
        regex_pattern=r"(\([A-Z]\))", group_select=-1, ignore_case=True, ignore_punctuation=True
    )

    asked = [item for item in every if item["task"] == "multiple_choice"]
    docs = [{"choices": item.get("choices") or []} for item in asked]
    read = choice.apply([[item["output"]] for item in asked], docs) if asked else []
    letters = {item["id"]: got[0] for item, got in zip(asked, read, strict=True)}

    def multiple_choice(item: Item) -> bool | None:
        if item["task"] != "multiple_choice":
            return None
        return bool(str(letters[item["id"]]).strip("() ") == str(item["gold"]).strip("() "))

    # bbh boolean_expressions' flexible-extract: the last True/False.
    boolean = RegexFilter(
        regex_pattern=r"\b(True|False|true|false|Yes|No|yes|no)\b", group_select=-1
    )

    def yes_no(item: Item) -> bool | None:
        gold = _yes_no(str(item["gold"]))
        if item["task"] != "boolean" or gold is None:
            return None
        got = next(iter(boolean.apply([[item["output"]]], [{}])))[0]
        return _yes_no(got) == gold

    methods: dict[str, Method] = {
        "lm-eval strict": numbers(strict),
        "lm-eval flexible": numbers(flexible),
        "lm-eval choice": multiple_choice,
        "lm-eval yes-no": yes_no,
    }
    try:
        from lm_eval.tasks.truthfulqa.utils import process_results_gen
    except ImportError:
        return methods

    def truthful(item: Item) -> bool | None:
        incorrect = (item.get("meta") or {}).get("incorrect_answers")
        if item["task"] != "short_answer" or not incorrect:
            return None
        doc = {"correct_answers": _golds(item), "incorrect_answers": incorrect}
        return bool(process_results_gen(doc, [item["output"]])["bleu_acc"])

    methods["lm-eval truthfulqa bleu_acc"] = truthful
    return methods


# --------------------------------------------------------------------------- lighteval
_ROOT = Path(__file__).resolve().parent.parent
_OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
}


def _lighteval(python: str, half: str, source: str | None) -> Method | str:
    """lighteval's verdicts, from ``bench/lighteval_peer.py`` run by ``python`` (lighteval
    has an environment of its own); or why there are none."""
    if not Path(python).is_file():
        return f"no lighteval environment at {python}: make .venv-lighteval/.installed"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "verdicts.json"
        command = [python, str(_ROOT / "bench" / "lighteval_peer.py"), "--half", half]
        command += ["--out", str(out)] + (["--source", source] if source else [])
        # Its output is dropped unread: lighteval may print what it fails on. Offline: any
        # download lighteval tries at import fails at once (as in make test-integrations).
        done = subprocess.run(command, capture_output=True, check=False, env=os.environ | _OFFLINE)
        if done.returncode != 0 or not out.is_file():
            return f"bench/lighteval_peer.py exited with {done.returncode}"
        verdicts: dict[str, bool] = json.loads(out.read_text(encoding="utf-8"))

    def run(item: Item) -> bool | None:
        return verdicts.get(item["id"])

    return run


# --------------------------------------------------------------------------- report
class Tally:
    """Agreement with the label, false accepts and false rejects of one method."""

    def __init__(self) -> None:
        self.n = self.agree = self.false_accepts = self.false_rejects = 0

    def add(self, said: bool, label: bool) -> None:
        self.n += 1
        self.agree += said == label
        self.false_accepts += said and not label
        self.false_rejects += label and not said

    def pct(self) -> float:
        return 100.0 * self.agree / self.n if self.n else float("nan")


_SIMPLE = ("simple", "last-letter", "last-number", "last-yes-no", "contains")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=("tune", "check"), default="check")
    parser.add_argument("--source", help="one source folder only (e.g. theoremqa)")
    parser.add_argument("--show", type=int, default=0, help="print N answerx disagreements (tune)")
    parser.add_argument(
        "--lighteval",
        metavar="PYTHON",
        default=str(_ROOT / ".venv-lighteval" / "bin" / "python"),
        help="the Python of an environment with lighteval 0.13 (default: .venv-lighteval's)",
    )
    args = parser.parse_args(argv)
    # math-verify and lm-eval log the text they fail on ("Timeout during parsing: <output>"):
    # the check halves are read in aggregate only, so no library may print an item.
    logging.disable(logging.CRITICAL)
    folder = external_dir()
    if folder is None:
        print("external corpus not found (../shared/data/external): nothing to benchmark")
        return 0
    if args.show and args.half != "tune":
        parser.error("--show prints items: only for --half tune")
    methods: dict[str, Method] = {
        "answerx": run_answerx,
        "simple": simple,
        "last-letter": last_letter,
        "last-number": last_number,
        "last-yes-no": last_yes_no,
        "contains": contains,
    }
    mv = _math_verify()
    if mv is not None:
        methods["math-verify"] = mv
    every = list(items(folder, args.half, args.source))
    methods.update(_lm_eval([item for _, item in every]))
    lighteval = _lighteval(args.lighteval, args.half, args.source)
    if isinstance(lighteval, str):
        print(f"lighteval: not run ({lighteval})\n")
    else:
        methods["lighteval extractive-match"] = lighteval

    tallies: dict[tuple[str, str], dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    shown = 0
    started = time.perf_counter()
    for source, item in every:
        label = bool(item["label_correct"])
        for name, method in methods.items():
            said = method(item)
            if said is None:
                continue
            for key in ((source, item["task"]), (source, "all")):
                tallies[key][name].add(said, label)
            if name == "answerx" and said != label and shown < args.show:
                shown += 1
                print(f"--- {item['id']} task={item['task']} gold={item['gold']!r} label={label}")
                print(item["output"][-400:])
    elapsed = time.perf_counter() - started

    print(f"External sources, {args.half} halves: agreement with the source's label %")
    print("(FA false accepts, FR false rejects; a method is counted on the items it applies to)")
    for (source, task), by_method in sorted(
        tallies.items(), key=lambda kv: (kv[0][0], kv[0][1] != "all", kv[0][1])
    ):
        ours = by_method["answerx"]
        print(f"\n{source} / {task}  n={ours.n}")
        for name, tally in by_method.items():
            note = "" if tally.n == ours.n else f"  (on {tally.n})"
            print(
                f"  {name:28s} {tally.pct():6.2f}  FA {tally.false_accepts:4d}  "
                f"FR {tally.false_rejects:4d}{note}"
            )
        best_simple = max(
            (by_method[n].pct() for n in _SIMPLE if by_method[n].n == ours.n), default=0.0
        )
        peers = [n for n in by_method if n.startswith(("math-verify", "lm-eval", "lighteval"))]
        full_peers = [by_method[n].pct() for n in peers if by_method[n].n == ours.n]
        best_peer = max(full_peers, default=0.0)
        flags = []
        if ours.pct() < best_simple:
            flags.append(f"below the best simple baseline ({best_simple:.2f})")
        if ours.pct() < best_peer:
            flags.append(f"below the best peer ({best_peer:.2f})")
        print(
            "  -> "
            + ("; ".join(flags) if flags else "answerx >= best simple baseline and best peer")
        )
    print(f"\n{elapsed:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
