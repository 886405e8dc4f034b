"""Build the sources of ``bench/data/external`` from pinned commits of public repositories.

The same record format as ``../shared/data/external`` (see its README and this folder's),
so ``bench/external.py`` reads both. Reads only pinned commits, through git, from bare
clones named ``<owner>+<name>/repo`` under the folder in ``ANSWERX_MIRROR``::

    git clone --bare https://github.com/suzgunmirac/BIG-Bench-Hard \
        mirror/suzgunmirac+BIG-Bench-Hard/repo
    # likewise XuZhao0/tts-knowledge and TIGER-AI-Lab/Program-of-Thoughts
    ANSWERX_MIRROR=mirror python bench/data/external/build.py

Deterministic (seeded sampling and split, files written in id order); prints the counts
and a SHA-256 of the halves. Checks, before writing anything, that its reading of the
source's scorer reproduces the accuracy the source published for every file it uses.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SEED = 20261129

BBH_REPO = "suzgunmirac/BIG-Bench-Hard"
BBH_COMMIT = "9ee07bd481feebf959a6b59d61ea57bdcf30964d"
# Items sampled per task from each prompting mode (27 tasks; 250 questions or fewer each).
BBH_PER_TASK = {"cot": 60, "direct": 20}
# How a user scoring BBH with answerx would call it: the yes/no tasks as booleans, the
# counting and arithmetic ones as numbers, options written "(A) …" as multiple choice with
# their texts, and the rest (a word list, a bracket sequence, valid/invalid) as text.
_BOOLEAN = {
    "boolean_expressions",
    "causal_judgement",
    "navigate",
    "sports_understanding",
    "web_of_lies",
}
_NUMERIC = {"object_counting", "multistep_arithmetic_two"}
_MODES = {"cot": "chain of thought", "direct": "answer only"}
_BBH_LABEL = (
    "the source's scorer (text after 'So the answer is', one final full stop removed, exact "
    "match), reproduced to its published accuracy on every file"
)
_OPTION = re.compile(r"^\(([A-R])\)\s?(.*)$")


def _git(repo: str, *args: str) -> str:
    mirror = Path(os.environ.get("ANSWERX_MIRROR", "mirror")) / repo.replace("/", "+") / "repo"
    return subprocess.run(
        ["git", "-C", str(mirror), *args], capture_output=True, text=True, check=True
    ).stdout


def bbh_scored(prediction: str, target: str) -> tuple[str, bool]:
    """BBH's own scoring (Suzgun et al. 2022): the text after "So the answer is" (the whole
    prediction when absent), one trailing full stop removed, compared exactly."""
    answer = (
        prediction.split("So the answer is ")[1]
        if "So the answer is " in prediction
        else prediction
    )
    answer = answer.strip()
    answer = answer.removesuffix(".")
    return answer, answer == target


def _question(prompt: str) -> str:
    last = prompt.rsplit("\n\nQ: ", 1)[-1]
    return re.sub(r"\nA:( Let's think step by step\.)?$", "", last).strip()


def _choices(question: str) -> list[str] | None:
    if "\nOptions:\n" not in question:
        return None
    lines = question.split("\nOptions:\n", 1)[1].splitlines()
    found = [_OPTION.match(line.strip()) for line in lines]
    if not found or not all(found):
        return None
    letters = [m.group(1) for m in found if m]
    if letters != [chr(65 + i) for i in range(len(letters))]:
        return None
    return [m.group(2).strip() for m in found if m]


def bbh() -> list[dict[str, Any]]:
    """BIG-Bench Hard: code-davinci-002's saved outputs, chain of thought and direct."""
    rng = random.Random(SEED)
    names = _git(
        BBH_REPO, "ls-tree", "-r", "--name-only", BBH_COMMIT, "code-davinci-002-outputs"
    ).split()
    records: list[dict[str, Any]] = []
    for mode, per_task in BBH_PER_TASK.items():
        for name in sorted(n for n in names if n.endswith(".json") and f"-{mode}/" in n):
            task = name.rsplit("/", 1)[1].split("_few_shot")[0]
            rows = json.loads(_git(BBH_REPO, "show", f"{BBH_COMMIT}:{name}"))["outputs"]
            metrics = json.loads(
                _git(
                    BBH_REPO, "show", f"{BBH_COMMIT}:{name.replace('.json', '_eval_metrics.jsonl')}"
                ).splitlines()[0]
            )
            ours = 100 * sum(bbh_scored(r["prediction"], r["target"])[1] for r in rows) / len(rows)
            if abs(ours - metrics["accuracy"]) > 1e-6:
                sys.exit(
                    f"{name}: the scorer gives {ours:.2f} %, the source {metrics['accuracy']:.2f} %"
                )
            for index in sorted(rng.sample(range(len(rows)), min(per_task, len(rows)))):
                row = rows[index]
                question = _question(row["input"])
                target = row["target"]
                answer, correct = bbh_scored(row["prediction"], target)
                choices = _choices(question) if target.startswith("(") else None
                kind = ("multiple_choice" if choices else "boolean" if task in _BOOLEAN
                        else "numeric" if task in _NUMERIC else "text")  # fmt: skip
                records.append({
                    "id": f"bbh_cot:{mode}:{task}:{index}",
                    "source": f"{BBH_REPO}@{BBH_COMMIT}:{name}",
                    "model": f"code-davinci-002 ({_MODES[mode]}, 3-shot)",
                    "task": kind,
                    "output": row["prediction"],
                    "gold": target.strip("()") if choices else target,
                    "choices": choices,
                    "label_correct": correct,
                    "label_answer": answer,
                    "label_kind": _BBH_LABEL,
                    "question": question,
                    "meta": {"bbh_task": task, "mode": mode, "target": target},
                })  # fmt: skip
    return records


TTS_REPO = "XuZhao0/tts-knowledge"
TTS_COMMIT = "9b9674b"  # resolved to the full hash below
TTS_PER_FILE = 40
# A file the repository holds twice under two names (the SimpleQA name holds FRAMES' rows).
_TTS_SKIP = {"outputs/r1-distill-llama-8b/DeepSeek-R1-Distill-Llama-8B_simpleqa_exd0.jsonl"}
_TTS_LABEL = (
    "the authors' grader: gpt-4o-mini with simple-evals' SimpleQA grading prompt, given the "
    "text after the last 'Answer:' (or the whole response); A (correct) is right, B "
    "(incorrect) and C (not attempted) are not"
)


def tts_knowledge() -> list[dict[str, Any]]:
    """SimpleQA and FRAMES answered by twelve reasoning models at several thinking levels."""
    rng = random.Random(SEED)
    commit = _git(TTS_REPO, "rev-parse", TTS_COMMIT).strip()
    listing = _git(TTS_REPO, "ls-tree", "-r", commit, "outputs").splitlines()
    records: list[dict[str, Any]] = []
    for name in sorted(line.split("\t", 1)[1] for line in listing):
        if name in _TTS_SKIP:
            continue
        try:
            text = _git(TTS_REPO, "show", f"{commit}:{name}")
        except subprocess.CalledProcessError:
            continue  # a file the mirror holds no content for (too large to store)
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        stem = name.rsplit("/", 1)[1].removesuffix(".jsonl")
        benchmark = "simpleqa" if "_simpleqa_" in stem else "frames"
        model, setting = stem.split(f"_{benchmark}_", 1)
        for index in sorted(rng.sample(range(len(rows)), min(TTS_PER_FILE, len(rows)))):
            row = rows[index]
            # What the authors' grader read: the response, or the thinking when the
            # response is empty (a distilled model that never closed its thinking).
            output = (row.get("response") or "").strip() or (row.get("thought") or "").strip()
            records.append({
                "id": f"tts_knowledge:{model}:{setting}:{benchmark}-{row['id']}",
                "source": f"{TTS_REPO}@{commit}:{name}",
                "model": f"{model} ({setting.replace('_', ' ')})",
                "task": "short_answer",
                "output": output,
                "gold": [row["answer"]],
                "choices": None,
                "label_correct": row["grading"] == "A",
                "label_answer": None,
                "label_kind": _TTS_LABEL,
                "question": row["problem"],
                "meta": {"benchmark": benchmark, "grading": row["grading"], "setting": setting},
            })  # fmt: skip
    return records


TATQA_REPO = "TIGER-AI-Lab/Program-of-Thoughts"
TATQA_COMMIT = "850399c3eff8c37458a9d642c4a98df287f50f3a"
# The paper's chain-of-thought and answer-only runs on TAT-QA's dev set (1,667 questions
# each), greedy: run name, model, mode, items sampled.
TATQA_RUNS = {
    "outputs/tatqa_cot_s0_e-1_11_11_21_19.jsonl": ("code-davinci-002", "cot", 400),
    "outputs/tatqa_cot_gpt3_s0_e-1_11_13_21_05.jsonl": ("text-davinci-002", "cot", 400),
    "outputs/tatqa_direct_s0_e-1_11_12_11_46.jsonl": ("code-davinci-002", "direct", 100),
    "outputs/tatqa_direct_gpt3_s0_e-1_11_13_18_15.jsonl": ("text-davinci-002", "direct", 100),
}
_TATQA_LABEL = (
    "the source's scorer: TAT-QA's exact match (eval_tatqa.TaTQAEmAndF1, imported from the "
    "pinned commit) on the answer the source's run read (the text after the last 'Answer:' "
    "or 'answer is:'), numbers scaled by their scale word or %, lists compared as sets"
)
_SCALE_SUFFIX = {"": "", "percent": "%", "thousand": " thousand", "million": " million",
                 "billion": " billion"}  # fmt: skip


def _tatqa_scorer() -> Any:
    """The source's own TAT-QA scorer class, imported from the pinned commit (run, not
    copied): the label is what its ``compute_score_tatqa.py`` computes."""
    import importlib
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="tatqa-scorer-"))
    (folder / "eval_tatqa").mkdir()
    for name in ("__init__.py", "tatqa_metric.py", "tatqa_utils.py"):
        text = _git(TATQA_REPO, "show", f"{TATQA_COMMIT}:eval_tatqa/{name}")
        (folder / "eval_tatqa" / name).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(folder))
    return importlib.import_module("eval_tatqa.tatqa_metric").TaTQAEmAndF1


def _scaled(value: str, scale: str) -> str:
    """A TAT-QA answer as a reader writes it: the value with its scale (``-8.1 million``,
    ``-22.95%``), which is what the source's scorer compares."""
    value = str(value).strip()
    if scale == "percent" and value.endswith("%"):
        return value
    return value + _SCALE_SUFFIX[scale]


def tatqa_pot() -> list[dict[str, Any]]:
    """TAT-QA (financial tables and text): Codex and GPT-3, chain of thought and direct."""
    rng = random.Random(SEED)
    scorer = _tatqa_scorer()
    records: list[dict[str, Any]] = []
    for name, (model, mode, per_file) in TATQA_RUNS.items():
        text = _git(TATQA_REPO, "show", f"{TATQA_COMMIT}:{name}")
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        # The file's accuracy, as compute_score_tatqa.py prints it, and each item's verdict.
        metric = scorer()
        for row in rows:
            metric(row, prediction=row["pred_answer"], pred_scale=row["pred_scale"])
        verdicts = [bool(detail["em"]) for detail in metric.get_raw()]
        print(f"{name}: the source's scorer gives {100 * metric.get_overall_metric()[0]:.2f} %")
        # Twelve GPT-3 rows hold no generation (a failed call): there is no output to read.
        usable = [i for i, row in enumerate(rows) if len(row["generated"]) == 1]
        for index in sorted(rng.sample(usable, per_file)):
            row = rows[index]
            kind, scale, answer = row["answer_type"], row["scale"], row["answer"]
            spans = answer if isinstance(answer, list) else [answer]
            gold: str | list[str]
            if kind == "multi-span":
                task, gold = "text", ", ".join(_scaled(s, scale) for s in spans)
            elif kind in ("arithmetic", "count") or _NUMBER_SPAN.match(str(spans[0])):
                task, gold = "numeric", _scaled(spans[0], scale)
            else:
                task, gold = "short_answer", [_scaled(spans[0], scale)]
            predicted = row["pred_answer"]
            records.append({
                "id": f"tatqa_pot:{mode}-{model}:{row['question_id']}",
                "source": f"{TATQA_REPO}@{TATQA_COMMIT}:{name}",
                "model": f"{model} ({_MODES[mode]}, 8-shot)",
                "task": task,
                "output": row["generated"][0],
                "gold": gold,
                "choices": None,
                "label_correct": verdicts[index],
                "label_answer": ", ".join(map(str, predicted)) if isinstance(predicted, list)
                else str(predicted),
                "label_kind": _TATQA_LABEL,
                "question": row["question"],
                "meta": {"answer_type": kind, "scale": scale, "answer": answer, "mode": mode},
            })  # fmt: skip
    return records


# A span that is a number as TAT-QA's tables write it: "$1,496.5", "(134)", "12.5%", "2019".
_NUMBER_SPAN = re.compile(r"^\(?-?\$?\s?\d[\d,]*(?:\.\d+)?\)?%?$")


def _question_key(record_id: str) -> str:
    """What names one question across a source's runs: BBH's task and index, the
    benchmark and question id of tts_knowledge, TAT-QA's question id."""
    if record_id.startswith("tts_"):
        return record_id.rsplit(":", 2)[-1]
    if record_id.startswith("tatqa_"):
        return record_id.rsplit(":", 1)[-1]  # TAT-QA's question id, shared by the four runs
    return record_id.split(":", 2)[2]


def split(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """A seeded 50/50 split by question (task and index): both modes of a question share a half."""
    questions = sorted({_question_key(r["id"]) for r in records})
    random.Random(SEED).shuffle(questions)
    tune = set(questions[: len(questions) // 2])
    halves: dict[str, list[dict[str, Any]]] = {"tune": [], "check": []}
    for r in sorted(records, key=lambda r: r["id"]):
        halves["tune" if _question_key(r["id"]) in tune else "check"].append(r)
    return halves


SOURCES = {"bbh_cot": bbh, "tts_knowledge": tts_knowledge, "tatqa_pot": tatqa_pot}


def main() -> None:
    digest = hashlib.sha256()
    for source, build in SOURCES.items():
        halves = split(build())
        (HERE / source).mkdir(exist_ok=True)
        for half, rows in halves.items():
            text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
            (HERE / source / f"{half}.jsonl").write_text(text, encoding="utf-8")
            digest.update(text.encode())
            tasks: dict[str, int] = {}
            for r in rows:
                tasks[r["task"]] = tasks.get(r["task"], 0) + 1
            print(source, half, len(rows), "correct", sum(r["label_correct"] for r in rows), tasks)
    print("sha256", digest.hexdigest())


if __name__ == "__main__":
    main()
