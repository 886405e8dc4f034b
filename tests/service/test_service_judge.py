"""``/v1/verify`` with gold lists, a question, and the server's LLM judge over real HTTP.

The judge is the server's (``ServiceSettings.judge``, ``answerx serve --judge``): its
provider SDK talks to the loopback fake provider server. A request may decline the
judge; it can never name one.
"""

from __future__ import annotations

import httpx
import pytest
from typer.testing import CliRunner

from answerx.cli import app
from answerx.client import Client
from answerx.service.settings import ENV_VARS
from answerx.testing import FakeProviderServer, Reply
from conftest import SECRET_KEY, StartService, samples

HEDGED = "I'm not sure, perhaps Paris."
CAPITAL = "What is the capital of France?"
CORRECT = {"stated_answer": "Paris", "reason": "It commits to Paris.", "verdict": "correct",
           "confidence": 0.9}  # fmt: skip
ALIASES = ["Paris", "City of Light"]


@pytest.fixture
def judged(start_service: StartService, fake_env: FakeProviderServer) -> str:
    """A service whose judge is openai/judge-model on the fake server (no cache)."""
    fake_env.set_default(Reply.tool_call(CORRECT, usage=(200, 30)))
    return start_service(judge="openai/judge-model", judge_cache="off", judge_max_calls=3)


def test_a_gold_list_and_a_question_reach_grading(http: httpx.Client) -> None:
    verdict = http.post(
        "/v1/verify",
        json={"raw_output": "Curie.", "gold": ["Marie Curie", "Maria Skłodowska-Curie"],
              "question": "Who discovered radium?"},
    ).json()  # fmt: skip
    assert (verdict["correct"], verdict["how"], verdict["matched_gold"]) == (
        True, "surname_match", "Marie Curie"
    )  # fmt: skip
    assert verdict["scores"] is not None and verdict["judge"] is None  # no judge configured


def test_a_gold_list_too_long_is_a_422(http: httpx.Client) -> None:
    response = http.post("/v1/verify", json={"raw_output": "x", "gold": ["a"] * 257})
    assert response.status_code == 422


def test_the_openapi_schema_documents_gold_lists_and_the_question(http: httpx.Client) -> None:
    schema = http.get("/openapi.json").json()["components"]["schemas"]["VerifyRequest"]
    gold_types = {str(option.get("type")) for option in schema["properties"]["gold"]["anyOf"]}
    assert "array" in gold_types
    assert {"question", "judge"} <= set(schema["properties"])
    assert schema["properties"]["judge"]["type"] == "boolean"


def test_the_servers_judge_rules_on_an_item_in_doubt(
    judged: str, fake_env: FakeProviderServer
) -> None:
    with httpx.Client(base_url=judged, timeout=30) as http:
        verdict = http.post(
            "/v1/verify", json={"raw_output": HEDGED, "gold": ALIASES, "question": CAPITAL}
        ).json()
        metrics = http.get("/metrics").text
    assert (verdict["correct"], verdict["how"], verdict["doubt"]) == (
        True, "llm_judge", "guard_fired"
    )  # fmt: skip
    ruling = verdict["judge"]
    assert (ruling["verdict"], ruling["judge"], ruling["calls"]) == (
        "correct", "openai/judge-model", 1
    )  # fmt: skip
    (request,) = fake_env.chat_requests
    assert CAPITAL in request.text
    assert SECRET_KEY not in str(verdict)
    tokens = samples(metrics, "answerx_llm_tokens_total")
    assert tokens['{direction="input",model="judge-model",provider="openai"}'] == 200


def test_decided_items_and_declining_requests_never_reach_the_judge(
    judged: str, fake_env: FakeProviderServer
) -> None:
    with httpx.Client(base_url=judged, timeout=30) as http:
        decided = http.post("/v1/verify", json={"raw_output": "It is Paris.", "gold": ALIASES})
        declined = http.post(
            "/v1/verify", json={"raw_output": HEDGED, "gold": ALIASES, "judge": False}
        )
        named = http.post(
            "/v1/verify", json={"raw_output": HEDGED, "gold": ALIASES, "judge": "openai/gpt-4o"}
        )
    assert decided.json()["how"] == "cover_match"
    assert (declined.json()["how"], declined.json()["judge"]) == ("hedged_answer", None)
    assert named.status_code == 422  # a request cannot choose the judge
    assert fake_env.chat_requests == []


def test_a_batch_judges_its_residue_and_sums_what_the_judge_cost(
    judged: str, fake_env: FakeProviderServer
) -> None:
    items = [
        {"raw_output": HEDGED, "gold": ALIASES},
        {"raw_output": "The answer is Paris.", "gold": ALIASES},
        {"raw_output": "Either Paris or Lyon.", "gold": ["Paris"]},
        {"raw_output": "x"},  # no gold: its own error
    ]
    with httpx.Client(base_url=judged, timeout=30) as http:
        body = http.post("/v1/verify/batch", json={"items": items}).json()
    hows = [r["verdict"]["how"] if r["verdict"] else None for r in body["results"]]
    assert hows == ["llm_judge", "exact_match", "llm_judge", None]
    totals = body["judge"]
    assert (totals["items"], totals["doubtful"], totals["asked"], totals["judged"]) == (3, 2, 2, 2)
    assert (totals["calls"], totals["input_tokens"]) == (2, 400)
    assert len(fake_env.chat_requests) == 2


def test_the_servers_budget_stops_the_judge(judged: str, fake_env: FakeProviderServer) -> None:
    with Client(judged) as client:
        rulings = [client.verify(HEDGED, ALIASES).judge for _ in range(4)]
    assert [r.verdict if r else None for r in rulings] == ["correct"] * 3 + [None]
    assert rulings[3] is not None
    assert rulings[3].reason == "not asked: the judge's budget of 3 calls is spent"
    assert len(fake_env.chat_requests) == 3


def test_the_client_sends_the_question_and_may_decline_the_judge(
    judged: str, fake_env: FakeProviderServer
) -> None:
    with Client(judged) as client:
        surname = client.verify("Curie.", ("Marie Curie",), question="Who discovered radium?")
        declined = client.verify(HEDGED, ALIASES, judge=False)
    assert surname.how == "surname_match"
    assert declined.judge is None and fake_env.chat_requests == []


def test_serve_with_a_judge_without_its_key_fails_before_starting(
    clean_provider_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ENV_VARS.values():  # serve sets the judge's variables: unset again after
        if name.startswith("ANSWERX_JUDGE"):
            monkeypatch.setenv(name, "")  # empty is unset; monkeypatch removes it after
    result = CliRunner().invoke(app, ["serve", "--judge", "openai/gpt-4o-mini", "--port", "1"])
    assert result.exit_code == 5
    assert "OPENAI_API_KEY" in result.stderr


def test_reward_labels_may_list_accepted_answers(http: httpx.Client) -> None:
    body = http.post(
        "/v1/reward",
        json={"query": ["<|im_start|>user\nWho discovered radium?<|im_end|>\n"
                        "<|im_start|>assistant\nCurie.<|im_end|>", "It was Fab Four."],
              "prompts": ["<|im_start|>user\nWho discovered radium?<|im_end|>\n", ""],
              "labels": [["Marie Curie"], {"answer": ["The Beatles", "Fab Four"]}]},
    ).json()  # fmt: skip
    assert body["rewards"] == [1.0, 1.0]
