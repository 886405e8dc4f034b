"""A JSON ``NaN`` or ``±Infinity`` gold is a 422 (a batch item's own error), never compared
as the text "nan" (issue 30 §10). JSON has neither, but Python's parser reads both, so the
bodies here are written by hand as a client's ``json.dumps`` writes them."""

from __future__ import annotations

import httpx
import pytest

JSON = {"Content-Type": "application/json"}


def post(http: httpx.Client, path: str, body: str) -> httpx.Response:
    return http.post(path, content=body, headers=JSON)


@pytest.mark.parametrize("gold", ["NaN", "Infinity", "-Infinity"])
def test_verify_answers_422_for_a_gold_that_is_not_finite(http: httpx.Client, gold: str) -> None:
    response = post(http, "/v1/verify", f'{{"raw_output": "The answer is nan.", "gold": {gold}}}')

    assert response.status_code == 422
    error = response.json()["error"]
    assert error["type"] == "invalid_request"
    assert error["message"].startswith(f"the gold answer is {gold}: a gold answer must be")


def test_a_batch_item_with_a_nan_gold_gets_its_own_error(http: httpx.Client) -> None:
    body = (
        '{"items": [{"raw_output": "The answer is nan.", "gold": NaN},'
        ' {"raw_output": "The answer is 4.", "gold": 4}]}'
    )

    answer = post(http, "/v1/verify/batch", body).json()

    assert (answer["succeeded"], answer["failed"]) == (1, 1)
    assert "is NaN" in answer["results"][0]["error"]["message"]
    assert answer["results"][1]["verdict"]["correct"] is True


@pytest.mark.parametrize("label", ["NaN", '{"answer": -Infinity}'])
def test_reward_answers_422_naming_the_label(http: httpx.Client, label: str) -> None:
    body = f'{{"query": ["The answer is 4.", "The answer is nan."], "labels": ["4", {label}]}}'

    response = post(http, "/v1/reward", body)

    assert response.status_code == 422
    assert response.json()["error"]["message"].startswith("labels[1] is ")


def test_the_client_names_a_nan_it_cannot_send(service: str) -> None:
    # JSON has no NaN: httpx would refuse it with a bare ValueError.
    from answerx.client import Client
    from answerx.errors import InputError

    with Client(service) as client:
        with pytest.raises(InputError, match=r"^gold is NaN, which JSON cannot carry"):
            client.verify("The answer is nan.", float("nan"))
        with pytest.raises(InputError, match=r"^items\[1\]\.gold is -Infinity"):
            client.verify_batch([("It is 4.", "4"), ("It is nan.", float("-inf"))])
        with pytest.raises(InputError, match=r"^labels\[0\]\.answer is NaN"):
            client.reward(["It is 4."], [{"answer": float("nan")}])


@pytest.mark.parametrize("gold", ["(nan)", "[NaN]", "\\\\mathrm{NaN}", "-inf"])
def test_verify_answers_422_for_a_gold_text_spelling_one_unless_the_task_takes_words(
    http: httpx.Client, gold: str
) -> None:
    # issue 35 §6: the library's one check reaches the service too
    body = f'{{"raw_output": "The answer is nan.", "gold": "{gold}", "task": "math"}}'
    refused = post(http, "/v1/verify", body)
    words = post(http, "/v1/verify", body.replace('"math"', '"text"'))

    assert refused.status_code == 422
    assert "for the word itself, task text or short_answer" in refused.json()["error"]["message"]
    assert words.status_code == 200
