"""The formats table of issue 37 (``tests/data/formats/formats.yaml``, written by
``bench/formats_table.py``): every answer format the public benchmarks ask for, each
task's outputs read through ``answerx.extract`` and ``answerx.verify`` with
``task="auto"`` and with the task the benchmark implies.

A case answerx cannot read yet is a strict xfail naming the mechanism it waits for
(``tests/data/formats/known_failures.yaml``), so a fix announces itself: rerun
``python bench/formats_table.py record`` to drop it.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from answerx.extraction.models import TASKS

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from formats_table import (
    DATA,
    DOC,
    END_TOKENS,
    build_rows,
    cases,
    check,
    find_rules,
    load_known,
    load_rows,
    load_rules,
    render_doc,
    render_yaml,
)

ROWS = load_rows()
KNOWN = load_known()
RULES = load_rules()
MGSM_LANGUAGES = {"bn", "de", "en", "es", "fr", "ja", "ru", "sw", "te", "th", "zh"}
#: The answer word simple-evals' MGSM asks for in each language.
MGSM_ANSWER_WORDS = {
    "en": "Answer", "es": "Respuesta", "fr": "Réponse", "de": "Antwort", "ru": "Ответ",
    "zh": "答案", "ja": "答え", "bn": "উত্তর", "te": "సమాధానం", "th": "คำตอบ", "sw": "Jibu",
}  # fmt: skip
BBH_TASKS = {
    "boolean_expressions", "causal_judgement", "date_understanding", "disambiguation_qa",
    "dyck_languages", "formal_fallacies", "geometric_shapes", "hyperbaton",
    "logical_deduction_five_objects", "logical_deduction_seven_objects",
    "logical_deduction_three_objects", "movie_recommendation", "multistep_arithmetic_two",
    "navigate", "object_counting", "penguins_in_a_table", "reasoning_about_colored_objects",
    "ruin_names", "salient_translation_error_detection", "snarks", "sports_understanding",
    "temporal_sequences", "tracking_shuffled_objects_five_objects",
    "tracking_shuffled_objects_seven_objects", "tracking_shuffled_objects_three_objects",
    "web_of_lies", "word_sorting",
}  # fmt: skip


def test_the_data_file_is_what_the_builder_writes() -> None:
    assert DATA.read_text(encoding="utf-8") == render_yaml(build_rows()), (
        "run: python bench/formats_table.py build"
    )


def test_the_doc_is_rendered_from_the_data_and_the_known_failures() -> None:
    assert DOC.read_text(encoding="utf-8") == render_doc(ROWS, KNOWN, RULES), (
        "run: python bench/formats_table.py build"
    )


def test_the_table_holds_150_tasks_from_8_families() -> None:
    assert len({row["id"] for row in ROWS}) == len(ROWS) >= 150
    assert len({row["family"] for row in ROWS}) >= 8
    assert len({row["harness"] for row in ROWS}) >= 8


def test_every_row_says_how_the_benchmark_asks_and_scores_and_which_answerx_task_reads_it() -> None:
    fields = ("family", "harness", "task", "source", "prompt", "form", "scoring")
    for row in ROWS:
        assert all(isinstance(row[name], str) and row[name].strip() for name in fields), row["id"]
        assert row["answerx_task"] in TASKS and row["answerx_task"] != "auto", row["id"]
        if row["answerx_task"] == "multiple_choice":
            assert len(row["choices"]) >= 2, row["id"]


def test_every_lm_eval_row_names_a_task_file_the_installed_harness_ships() -> None:
    lm_eval = pytest.importorskip("lm_eval")
    root = Path(lm_eval.__file__).resolve().parent.parent
    rows = [row for row in ROWS if row["harness"] == "lm-evaluation-harness"]
    assert len(rows) >= 100
    missing = [row["source"] for row in rows if not (root / row["source"]).is_file()]
    assert missing == []


def test_every_big_bench_hard_task_is_in_the_table() -> None:
    bbh = {row["task"].removeprefix("bbh_cot_fewshot_") for row in ROWS if row["family"] ==
           "BIG-Bench-Hard"}  # fmt: skip
    assert bbh == BBH_TASKS


def test_every_mgsm_language_is_there_with_its_own_answer_word() -> None:
    simple = {row["task"].removeprefix("mgsm_"): row for row in ROWS if row["id"].startswith(
        "simple-evals:mgsm_")}  # fmt: skip
    assert set(simple) == MGSM_LANGUAGES
    for lang, row in simple.items():
        for output in row["outputs"]:
            assert f"{MGSM_ANSWER_WORDS[lang]}:" in output["output"]
    native = {row["task"].removeprefix("mgsm_native_cot_") for row in ROWS if "native_cot" in
              row["task"]}  # fmt: skip
    assert native == MGSM_LANGUAGES


def test_each_row_has_two_styles_and_the_set_right_and_wrong_answers_and_end_tokens() -> None:
    for row in ROWS:
        assert len(row["outputs"]) >= 2, row["id"]
        assert len({output["style"] for output in row["outputs"]}) >= 2, row["id"]
        assert {output["correct"] for output in row["outputs"]} == {True, False}, row["id"]
    outputs = [output["output"] for row in ROWS for output in row["outputs"]]
    families = Counter(output["style"].split("-")[0] for row in ROWS for output in row["outputs"])
    assert len(families) >= 9, families
    for token in END_TOKENS:
        assert any(token in text for text in outputs), token


def test_every_known_failure_names_a_case_of_the_table_and_a_mechanism() -> None:
    ids = {f"{case}/{name}" for case, *_ in cases(ROWS) for name in ("extract", "verify")}
    assert set(KNOWN) <= ids
    assert all(reason and not reason.startswith("other") for reason in KNOWN.values())


def test_the_doc_names_the_rules_that_read_each_row_today() -> None:
    assert find_rules(ROWS) == RULES, "run: python bench/formats_table.py record"


def _params() -> list[Any]:
    params = []
    for case, row, output, task in cases(ROWS):
        marks = [
            pytest.mark.xfail(reason=KNOWN[f"{case}/{name}"], strict=True)
            for name in ("extract", "verify")
            if f"{case}/{name}" in KNOWN
        ]
        params.append(pytest.param(row, output, task, id=case, marks=marks[:1]))
    return params


@pytest.mark.parametrize(("row", "output", "task"), _params())
def test_answerx_reads_the_stated_answer_and_grades_it(
    row: dict[str, Any], output: dict[str, Any], task: str
) -> None:
    assert check(row, output, task) == {}
