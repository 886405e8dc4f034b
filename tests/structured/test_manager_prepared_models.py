"""Response models are wrapped for Instructor once, not on every call (bench/manager.py)."""

from pydantic import BaseModel

from answerx.structured.manager import _prepared
from answerx.structured.models import get_extraction_model


class Answer(BaseModel):
    answer: str


def test_a_response_model_is_wrapped_once_and_stays_a_subclass_of_itself() -> None:
    wrapped = _prepared(Answer)
    assert wrapped is _prepared(Answer)
    assert issubclass(wrapped, Answer)
    assert wrapped.model_json_schema()["properties"] == Answer.model_json_schema()["properties"]


def test_task_bound_extraction_models_are_wrapped_once_too() -> None:
    bound = get_extraction_model("chain_of_thought", task="numeric")
    assert _prepared(bound) is _prepared(get_extraction_model("chain_of_thought", task="numeric"))
