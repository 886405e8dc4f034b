"""answerx inside lighteval: ``answerx_metric`` computed on lighteval's own Doc/ModelResponse,
as lighteval's metric tests do, and the ``--custom-tasks`` module loaded by lighteval's
registry."""

from __future__ import annotations

import pytest

# lighteval checks its pinned latex2sympy2_extended at import of its metrics: in an
# environment where answerx's math-verify holds the newer one, lighteval is unusable.
pytest.importorskip("lighteval.metrics.metrics")
pytest.importorskip("answerx.grading")

from lighteval.models.model_output import ModelResponse
from lighteval.tasks.requests import Doc

from answerx.integrations.lighteval import answerx_metric, make_answerx_metric

GSM8K_GOLD = " Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n48+24 = <<48+24=72>>72\n#### 72"


def gsm8k_doc() -> Doc:
    # The shape of lighteval's own gsm8k docs: the whole reference solution is the gold.
    return Doc(query="Question: ...\nAnswer:", choices=[GSM8K_GOLD], gold_index=0)


def test_metric_reads_answer_and_gold_and_records_them_where_extractive_match_does() -> None:
    doc = gsm8k_doc()
    response = ModelResponse(text=["She sold 48 + 24 = 72 clips. The answer is $72.00."])
    assert answerx_metric.compute_sample(doc=doc, model_response=response) == {"answerx": 1.0}
    assert doc.specific["extracted_predictions"] == ["72"]
    assert doc.specific["extracted_golds"] == ["72"]
    assert doc.specific["answerx_methods"] == ["final_answer_phrase"]


def test_a_wrong_or_missing_answer_scores_zero() -> None:
    wrong, missing = gsm8k_doc(), gsm8k_doc()
    assert answerx_metric.compute_sample(
        doc=wrong, model_response=ModelResponse(text=["The answer is 70."])
    ) == {"answerx": 0.0}
    assert answerx_metric.compute_sample(
        doc=missing, model_response=ModelResponse(text=["I cannot solve this."])
    ) == {"answerx": 0.0}
    assert missing.specific["extracted_predictions"] == [""]


def test_math_answers_are_graded_by_equivalence() -> None:
    metric = make_answerx_metric("math")
    doc = Doc(query="...", choices=["ANSWER: so $x=\\boxed{\\frac{1}{2}}$"], gold_index=0)
    response = ModelResponse(text=["Hence $x = 0.5$.\n\nFinal Answer: $0.5$"])
    assert metric.compute_sample(doc=doc, model_response=response) == {"answerx": 1.0}
    assert doc.specific["extracted_golds"] == ["\\frac{1}{2}"]


def test_multiple_choice_reads_letters_and_option_texts() -> None:
    metric = make_answerx_metric("multiple_choice")
    options = ["Paris", "Rome", "Oslo", "Bern"]
    by_letter = Doc(query="...", choices=options, gold_index=2)
    by_text = Doc(query="...", choices=options, gold_index=2)
    assert metric.compute_sample(
        doc=by_letter, model_response=ModelResponse(text=["Thinking... The answer is (C)."])
    ) == {"answerx": 1.0}
    assert metric.compute_sample(
        doc=by_text, model_response=ModelResponse(text=["So the answer is Oslo."])
    ) == {"answerx": 1.0}


def test_the_best_of_several_samples_counts_like_extractive_match() -> None:
    response = ModelResponse(text=["The answer is 70.", "The answer is 72."])
    doc = gsm8k_doc()
    assert answerx_metric.compute_sample(doc=doc, model_response=response) == {"answerx": 1.0}
    assert doc.specific["extracted_predictions"] == ["70", "72"]


def test_custom_tasks_module_loads_through_lighteval_registry() -> None:
    from lighteval.tasks.registry import Registry

    module = Registry.create_custom_tasks_module("answerx.integrations.lighteval")
    configs = Registry._extract_configs(module)
    assert set(configs) == {"gsm8k_answerx", "math_500_answerx", "gpqa_diamond_answerx"}
    for config in configs.values():
        assert [m.metric_name for m in config.metrics] == ["answerx"]


def test_gpqa_prompt_orders_options_the_same_way_every_time() -> None:
    from answerx.integrations.lighteval import gpqa_prompt

    row = {
        "Question": "Which gas is most abundant in air?",
        "Correct Answer": "Nitrogen",
        "Incorrect Answer 1": "Oxygen",
        "Incorrect Answer 2": "Argon",
        "Incorrect Answer 3": "Carbon dioxide",
    }
    first, again = gpqa_prompt(row, "gpqa"), gpqa_prompt(row, "gpqa")
    assert first.choices == again.choices and first.gold_index == again.gold_index
    assert first.choices[first.gold_index] == "Nitrogen"
    letter = "ABCD"[first.gold_index]
    assert f"{letter}) Nitrogen" in first.query
