"""``/v1/reward`` takes at most as many accepted answers per label as ``/v1/verify``.

Issue 35, point 9: a label listing 50,000 aliases took 4 s to grade. Beyond
``MAX_GOLDS`` (256) a label is a 422 naming it, however the aliases are given: a
list, a label object, a verl ``ground_truth`` dict, or a ``metas`` entry beside it.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from answerx.service.verify_schemas import MAX_GOLDS

ALIASES = [f"alias {i}" for i in range(MAX_GOLDS)]


def _reward(http: httpx.Client, label: Any) -> httpx.Response:
    body = {"query": ["The answer is alias 3.", "The answer is 4."], "labels": ["4", label]}
    return http.post("/v1/reward", json=body)


@pytest.mark.parametrize(
    "label",
    [
        [*ALIASES, "one more"],
        {"answer": [*ALIASES, "one more"], "task": "short_answer"},
        {"ground_truth": [*ALIASES, "one more"]},
        [f"x{i}" for i in range(20_000)],
    ],
    ids=["list", "label object", "verl dict", "20,000"],
)
def test_a_label_with_more_aliases_than_verify_takes_is_a_422_naming_it(
    http: httpx.Client, label: Any
) -> None:
    response = _reward(http, label)

    assert response.status_code == 422
    message = response.json()["error"]["message"]
    assert "labels[1]" in message and f"at most {MAX_GOLDS}" in message


def test_a_label_with_as_many_aliases_as_verify_takes_is_graded(http: httpx.Client) -> None:
    response = http.post(
        "/v1/reward", json={"query": ["The answer is alias 3."], "labels": [ALIASES]}
    )

    assert response.status_code == 200
    assert response.json()["rewards"] == [1.0]
    assert http.post("/v1/verify", json={"raw_output": "x", "gold": ALIASES}).status_code == 200
