"""One exception tree: every error answerx raises on purpose is defined in ``answerx/errors.py``
and drawn in its docstring; the packages that raise one re-export it from there."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import answerx.errors as errors
from answerx.errors import AnswerxError

SRC = Path(__file__).parents[2] / "src" / "answerx"

TREE = {
    name: value
    for name, value in vars(errors).items()
    if inspect.isclass(value) and issubclass(value, AnswerxError)
}


def test_every_class_of_the_tree_is_exported_and_drawn_in_the_docstring() -> None:
    assert set(TREE) <= set(errors.__all__)
    drawn = {
        line.split("── ", 1)[1].split()[0]
        for line in (errors.__doc__ or "").splitlines()
        if "── " in line
    }
    assert drawn == set(TREE) - {"AnswerxError"}


def test_no_module_outside_errors_py_defines_an_answerx_error() -> None:
    elsewhere = []
    for path in SRC.rglob("*.py"):
        if path == SRC / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {
                    b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "")
                    for b in node.bases
                }
                if bases & set(TREE):
                    elsewhere.append(f"{path.relative_to(SRC)}: class {node.name}")
    assert elsewhere == []


def test_the_agent_and_the_client_raise_the_tree_s_own_classes() -> None:
    from answerx.agent import StepLimitReached, Termination
    from answerx.client import ServiceError

    assert StepLimitReached is errors.StepLimitReached
    assert ServiceError is errors.ServiceError
    limit = StepLimitReached("no answer within 3 calls", termination=Termination.EXCEED_CALLS)
    assert isinstance(limit, AnswerxError) and limit.termination == "exceed available llm calls"
    refused = ServiceError("bad token", status_code=401, error_type="unauthorized")
    assert str(refused) == "401 unauthorized: bad token" and refused.detail == {}
