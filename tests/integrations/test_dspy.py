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


PLANETS = ["Venus", "Mars", "Jupiter"]


@pytest.mark.parametrize(
    ("field", "gold", "score"),
    [("Mars", "B", 1.0), ("mars", "B", 1.0), ("Venus", "B", 0.0), ("(B) Mars", "B", 1.0),
     ("B", "B", 1.0)],
)  # fmt: skip
def test_a_field_holding_the_bare_option_text_is_graded_as_the_answer(
    field: str, gold: str, score: float
) -> None:
    assert answerx_metric(example(gold, choices=PLANETS), dspy.Prediction(answer=field)) == score


@pytest.mark.parametrize("field", ["18", "$18.00", "x = 18", "18 apples"])
def test_isolated_answers_are_not_told_to_restate_themselves(field: str) -> None:
    result = answerx_feedback_metric(example("18"), dspy.Prediction(answer=field))
    assert result.score == 1.0
    assert "The answer is X" not in result.feedback and "whole_output" in result.feedback


def test_a_wrong_isolated_answer_is_wrong_without_format_advice() -> None:
    result = answerx_feedback_metric(example("B", choices=PLANETS), dspy.Prediction(answer="Venus"))
    assert result.score == 0.0
    assert result.feedback == (
        "Wrong: the answer read was 'A' (rule whole_output, confidence 0.90); "
        "the gold answer is 'B'."
    )


@pytest.mark.parametrize(
    ("field", "isolated"),
    [("18", True), ("$18.00", True), ("x = 18", True),
     ("So the total is $18.00.", False), ("It is 18.", False), ("First add them.\n18", False)],
)  # fmt: skip
def test_a_field_holding_only_the_answer_is_read_whole(field: str, isolated: bool) -> None:
    result = answerx_feedback_metric(example("18"), dspy.Prediction(answer=field))
    assert ("rule whole_output" in result.feedback) is isolated


def test_dspy_evaluate_on_the_scripted_replies_beside_dspys_exact_match() -> None:
    from dspy.evaluate import answer_exact_match
    from dspy.utils import DummyLM
    from scripted import EXPECTED, gold, items, prompt_text, record

    rows = items()
    devset = [
        dspy.Example(question=prompt_text(r), answer=gold(r), **(
            {"choices": r["choices"]} if r.get("choices") else {}
        )).with_inputs("question")
        for r in rows
    ]  # fmt: skip
    scores = {}
    for name, metric in (("answerx", answerx_metric), ("builtin", answer_exact_match)):
        lm = DummyLM([{"answer": r["reply"]} for r in rows])
        with dspy.context(lm=lm):
            result = dspy.Evaluate(
                devset=devset, metric=metric, num_threads=1, display_progress=False
            )(dspy.Predict("question -> answer"))
        scores[name] = result.score / 100
    assert scores["answerx"] == EXPECTED
    record("DSPy Evaluate", scores["answerx"], scores["builtin"], "answer_exact_match")


def test_a_list_of_accepted_answers_is_read_as_the_rewards_read_it() -> None:
    # Today the first accepted answer; grading's alias lists will take them all.
    assert answerx_metric(example(["29", "twenty-nine"]), dspy.Prediction(answer="29")) == 1.0
