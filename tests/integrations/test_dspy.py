"""answerx inside DSPy: the metric and GEPA's feedback form on DSPy's own Example/Prediction."""

from __future__ import annotations

import pytest

dspy = pytest.importorskip("dspy")
pytest.importorskip("answerx.grading")

from answerx.integrations.dspy import (  # noqa: E402
    answerx_feedback_metric,
    answerx_metric,
    make_answerx_metric,
)


def example(answer: str, **fields: object) -> dspy.Example:
    return dspy.Example(question="q", answer=answer, **fields).with_inputs("question")


def test_metric_reads_the_answer_out_of_a_sentence() -> None:
    pred = dspy.Prediction(reasoning="2 x 14.50", answer="So the total is $29.00.")
    assert answerx_metric(example("29"), pred) == 1.0
    assert answerx_metric(example("30"), pred) == 0.0


def test_metric_returns_a_bool_while_bootstrapping() -> None:
    pred = dspy.Prediction(answer="\\boxed{\\frac{1}{2}}")
    assert make_answerx_metric("math")(example("0.5"), pred, trace=[]) is True
    assert make_answerx_metric("math")(example("0.25"), pred, trace=[]) is False


def test_metric_reads_options_from_the_example() -> None:
    options = ["Paris", "Rome", "Oslo"]
    pred = dspy.Prediction(answer="The answer is Oslo.")
    assert answerx_metric(example("C", choices=options), pred) == 1.0


def test_metric_with_other_field_names() -> None:
    metric = make_answerx_metric("numeric", answer_field="result", gold_field="target")
    gold = dspy.Example(question="q", target="1210").with_inputs("question")
    assert metric(gold, dspy.Prediction(result="1,250 - 40 = 1,210 remain")) == 1.0


def test_feedback_form_scores_and_explains_a_right_answer() -> None:
    result = answerx_feedback_metric(example("29"), dspy.Prediction(answer="The answer is 29."))
    assert isinstance(result, dspy.Prediction)
    assert result.score == 1.0
    assert result.feedback.startswith("Correct: the answer read was '29' (rule final_answer_phrase")


def test_feedback_says_what_to_change_when_no_answer_was_given() -> None:
    result = answerx_feedback_metric(
        example("29"), dspy.Prediction(answer="I am not sure."), None, "predict", None
    )
    assert result.score == 0.0
    assert "no final answer" in result.feedback and "clearly marked" in result.feedback


def test_feedback_flags_an_answer_that_was_only_guessed() -> None:
    result = answerx_feedback_metric(example("36"), dspy.Prediction(answer="12 * 3 = 36"))
    assert result.score == 1.0
    assert "not marked explicitly" in result.feedback


def test_an_example_without_the_gold_field_is_an_error() -> None:
    with pytest.raises(KeyError, match="'answer'"):
        answerx_metric(dspy.Example(question="q"), dspy.Prediction(answer="4"))


def test_dspy_evaluate_with_the_metric() -> None:
    from dspy.utils import DummyLM

    lm = DummyLM([{"answer": "So two shirts cost $29.00."}, {"answer": "I am not sure."}])
    devset = [
        dspy.Example(question="Two shirts at $14.50?", answer="29").with_inputs("question"),
        dspy.Example(question="Seven boxes of 8 eggs?", answer="56").with_inputs("question"),
    ]
    with dspy.context(lm=lm):
        result = dspy.Evaluate(
            devset=devset, metric=answerx_metric, num_threads=1, display_progress=False
        )(dspy.Predict("question -> answer"))
    assert [score for _, _, score in result.results] == [1.0, 0.0]
    assert result.score == 50.0


def test_gepa_accepts_the_feedback_form() -> None:
    optimizer = dspy.GEPA(
        metric=answerx_feedback_metric,
        max_metric_calls=10,
        reflection_lm=dspy.LM("openai/fake-model", api_key="sk-fake-not-a-key"),
    )
    assert optimizer.metric_fn is answerx_feedback_metric
