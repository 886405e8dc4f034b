"""``/v1/verify``, ``/v1/verify/batch``, ``/v1/reward`` over HTTP, and the client's mirrors."""

from __future__ import annotations

import asyncio

import httpx

import answerx
from answerx.client import AsyncClient, Client
from answerx.service.verify_schemas import VerifyRequest
from conftest import StartService, samples

OUTPUT = "Each box holds 12 eggs, so 3 boxes hold 36. The answer is 36."
PROMPT = "<|im_start|>user\nHow many eggs?<|im_end|>\n<|im_start|>assistant\n"


def test_verify_answers_the_librarys_verdict(http: httpx.Client) -> None:
    response = http.post("/v1/verify", json={"raw_output": OUTPUT, "gold": 36})
    assert response.status_code == 200
    verdict = answerx.Verdict.model_validate_json(response.content)
    expected = answerx.verify(OUTPUT, 36)
    assert verdict.model_dump(exclude={"elapsed_s"}) == expected.model_dump(exclude={"elapsed_s"})


def test_a_malformed_verify_request_is_a_422_naming_the_field(http: httpx.Client) -> None:
    response = http.post("/v1/verify", json={"raw_output": OUTPUT, "task": "algebra"})
    assert response.status_code == 422
    assert response.json()["error"]["type"] == "validation_error"
    assert "gold" in response.json()["error"]["message"]


def test_a_batch_judges_each_item_and_reports_bad_ones_in_place(http: httpx.Client) -> None:
    items = [
        {"raw_output": OUTPUT, "gold": "36"},
        {"raw_output": OUTPUT},  # no gold field
        {"raw_output": "The answer is (C).", "gold": "B", "choices": ["x", "y", "z"]},
    ]
    body = http.post("/v1/verify/batch", json={"items": items}).json()
    assert (body["succeeded"], body["failed"]) == (2, 1)
    assert body["results"][0]["verdict"]["reason"] == "equivalent"
    assert body["results"][1]["error"]["type"] == "validation_error"
    assert body["results"][2]["verdict"]["reason"] == "different"


def test_a_batch_over_the_limit_is_refused(start_service: StartService) -> None:
    url = start_service(max_batch=2)
    items = [{"raw_output": OUTPUT, "gold": "36"}] * 3
    response = httpx.post(f"{url}/v1/verify/batch", json={"items": items})
    assert response.status_code == 413
    assert response.json()["error"]["type"] == "batch_too_large"


def test_openrlhfs_remote_reward_protocol(http: httpx.Client) -> None:
    # What OpenRLHF's remote_rm_fn posts: query (prompt + response), prompts, labels.
    body = {
        "query": [PROMPT + OUTPUT + "<|im_end|>", PROMPT + "Maybe 35.<|im_end|>"],
        "prompts": [PROMPT, PROMPT],
        "labels": ["36", "36"],
    }
    response = http.post("/v1/reward", json=body)
    assert response.status_code == 200
    result = response.json()
    assert result["rewards"] == result["scores"] == [1.0, 0.0]
    assert result["extra_logs"]["answerx_extraction_rate"] == 1.0


def test_reward_lists_of_different_lengths_are_a_422(http: httpx.Client) -> None:
    response = http.post("/v1/reward", json={"query": ["a", "b"], "labels": ["1"]})
    assert response.status_code == 422
    assert "one entry per rollout" in response.json()["error"]["message"]


def test_verdicts_are_counted_by_reason(http: httpx.Client) -> None:
    http.post("/v1/verify", json={"raw_output": OUTPUT, "gold": "36"})
    http.post("/v1/verify", json={"raw_output": "No idea.", "gold": "36", "task": "numeric"})
    metrics = samples(http.get("/metrics").text, "answerx_verdicts_total")
    assert metrics['{endpoint="/v1/verify",reason="equivalent"}'] == 1.0
    assert metrics['{endpoint="/v1/verify",reason="no_answer"}'] == 1.0


def test_the_client_mirrors_the_verify_endpoints(service: str) -> None:
    with Client(service) as client:
        verdict = client.verify(OUTPUT, "36", task="numeric")
        batch = client.verify_batch(
            [(OUTPUT, "36"), {"raw_output": "The answer is 3.", "gold": "4"},
             VerifyRequest(raw_output="x = 2", gold="2", task="math")]
        )  # fmt: skip
        reward = client.reward([PROMPT + OUTPUT], ["36"], prompts=[PROMPT])
    assert verdict.correct is True and verdict.how == "exact"
    assert [r.verdict.reason for r in batch.results if r.verdict] == [
        "equivalent", "different", "equivalent"
    ]  # fmt: skip
    assert reward.rewards == [1.0]


def test_the_async_client_mirrors_them_too(service: str) -> None:
    async def run() -> answerx.Verdict:
        async with AsyncClient(service) as client:
            return await client.verify("The answer is $\\frac{1}{2}$.", "0.5")

    assert asyncio.run(run()).reason == "equivalent"
