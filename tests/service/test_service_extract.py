"""The deterministic endpoints over real HTTP: /v1/extract, /v1/extract/batch, metadata."""

from __future__ import annotations

import json
from typing import Any, get_args

import httpx
import pytest

import answerx
from answerx.examples import load_examples
from answerx.extraction import TASKS
from answerx.structured import Approach
from conftest import samples

EXAMPLES = load_examples()


def error_of(response: httpx.Response) -> dict[str, Any]:
    """The ``error`` object every error response carries (and nothing else)."""
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"type", "message"}
    assert response.headers["content-type"] == "application/json"
    return dict(body["error"])


# --------------------------------------------------------------------------- /v1/extract


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_extract_answers_exactly_what_the_library_does(http: httpx.Client, example: Any) -> None:
    request = {"raw_output": example.raw_output, "task": example.task}
    if example.choices:
        request["choices"] = example.choices
    if example.numbers:
        request["numbers"] = example.numbers

    response = http.post("/v1/extract", json=request)

    assert response.status_code == 200
    local = answerx.extract(
        example.raw_output, example.task, choices=example.choices, numbers=example.numbers
    )
    assert response.json() == local.model_dump(mode="json")
    assert response.json()["answer"] == example.expected


def test_extract_maps_an_option_text_to_its_letter(http: httpx.Client) -> None:
    response = http.post(
        "/v1/extract",
        json={"raw_output": "The answer is Jupiter.", "choices": ["Mars", "Jupiter", "Venus"]},
    )

    assert response.status_code == 200
    assert (response.json()["answer"], response.json()["task"]) == ("B", "multiple_choice")


def test_no_answer_is_a_result_not_an_error(http: httpx.Client) -> None:
    response = http.post("/v1/extract", json={"raw_output": "", "task": "numeric"})

    assert response.status_code == 200
    assert (response.json()["answer"], response.json()["method"]) == (None, "none")


def test_an_unknown_task_is_a_422_that_names_it_and_the_valid_ones(http: httpx.Client) -> None:
    response = http.post("/v1/extract", json={"raw_output": "4", "task": "algebra"})

    assert response.status_code == 422
    error = error_of(response)
    assert error["type"] == "validation_error"
    assert "'algebra'" in error["message"] and "task" in error["message"]
    assert all(f"'{task}'" in error["message"] for task in TASKS)


@pytest.mark.parametrize(
    "body",
    [b'{"raw_output": "4"', b"not json at all", b'{"raw_output": "4",}'],
    ids=["truncated", "text", "trailing-comma"],
)
def test_a_body_that_is_not_json_is_a_400(http: httpx.Client, body: bytes) -> None:
    response = http.post("/v1/extract", content=body, headers={"content-type": "application/json"})

    assert response.status_code == 400
    assert error_of(response) == {
        "type": "invalid_json",
        "message": "the request body is not valid JSON",
    }


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({}, "raw_output: Field required"),
        ({"raw_output": 4}, "raw_output: Input should be a valid string"),
        ({"raw_output": "4", "tsk": "math"}, "tsk: Extra inputs are not permitted"),
        (
            {"raw_output": "B", "choices": [str(i) for i in range(27)]},
            "choices: List should have at most 26",
        ),
        ([1, 2], "Input should be a valid dictionary"),
    ],
)
def test_json_of_the_wrong_shape_is_a_422_saying_where(
    http: httpx.Client, body: Any, where: str
) -> None:
    response = http.post("/v1/extract", json=body)

    assert response.status_code == 422
    assert where in error_of(response)["message"]


def test_a_raw_output_is_never_echoed_in_an_error(http: httpx.Client) -> None:
    marker = "PRIVATE-REASONING-" * 10
    response = http.post("/v1/extract", json={"raw_output": marker, "task": marker})

    assert response.status_code == 422
    assert "PRIVATE-REASONING" not in response.text


def test_a_long_unknown_field_name_is_quoted_only_in_part(http: httpx.Client) -> None:
    response = http.post("/v1/extract", json={"raw_output": "4", "k" * 5000: 1})

    assert response.status_code == 422
    assert error_of(response)["message"] == "k" * 37 + "...: Extra inputs are not permitted"


@pytest.mark.parametrize("path", ["/v1/extract", "/v1/extract/batch"])
def test_a_lone_surrogate_is_refused_not_a_500(http: httpx.Client, path: str) -> None:
    # JSON can spell a lone surrogate; it is not text, and no answer could quote it.
    item = b'{"raw_output": "The answer is \\ud800 4"}'
    body = b'{"items": [' + item + b"]}" if path.endswith("batch") else item

    response = http.post(path, content=body, headers={"content-type": "application/json"})

    assert response.status_code in (400, 422)
    assert error_of(response)["type"] in ("invalid_json", "validation_error")


def test_json_nested_too_deep_is_a_400(http: httpx.Client) -> None:
    response = http.post(
        "/v1/extract", content=b"[" * 100_000, headers={"content-type": "application/json"}
    )

    assert response.status_code == 400
    assert error_of(response)["type"] == "invalid_json"


@pytest.mark.parametrize("path", ["/v1/extract", "/v1/extract/batch"])
@pytest.mark.parametrize("content_type", [None, "text/plain"])
def test_a_body_not_sent_as_json_is_a_415(
    http: httpx.Client, path: str, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    body = b'{"items": []}' if path.endswith("batch") else b'{"raw_output": "4"}'

    response = http.post(path, content=body, headers=headers)

    assert response.status_code == 415
    assert error_of(response) == {
        "type": "unsupported_media_type",
        "message": "send the request body as JSON, with Content-Type: application/json",
    }


def test_a_json_media_type_with_parameters_is_json(http: httpx.Client) -> None:
    for content_type in ("application/json; charset=utf-8", "application/vnd.answerx+json"):
        response = http.post(
            "/v1/extract/batch", content=b'{"items": []}', headers={"content-type": content_type}
        )
        assert response.status_code == 200, content_type


# --------------------------------------------------------------------------- /v1/extract/batch


def test_a_batch_answers_every_item_in_order_with_per_item_errors(http: httpx.Client) -> None:
    items = [
        {"raw_output": "So the answer is 72.", "task": "numeric"},
        {"raw_output": "Only B fits.", "task": "algebra"},  # unknown task: this item only
        "a bare string",  # not an object
        {"raw_output": "<answer>Canberra</answer>"},
        {"task": "math"},  # no raw_output
        {"raw_output": "Nothing here"},
    ]

    response = http.post("/v1/extract/batch", json={"items": items})

    assert response.status_code == 200
    body = response.json()
    assert (body["succeeded"], body["failed"]) == (3, 3)
    results = body["results"]
    assert [r["extraction"]["answer"] if r["extraction"] else None for r in results] == [
        "72", None, None, "Canberra", None, None,
    ]  # fmt: skip
    assert [r["error"]["type"] if r["error"] else None for r in results] == [
        None, "validation_error", "validation_error", None, "validation_error", None,
    ]  # fmt: skip
    assert "(got 'algebra')" in results[1]["error"]["message"]
    assert "raw_output: Field required" in results[4]["error"]["message"]
    assert results[5]["extraction"]["method"] == "none"


def test_batch_item_errors_name_the_item_by_its_index(http: httpx.Client) -> None:
    items = [
        {"raw_output": "So the answer is 72."},
        "a bare string",
        {"raw_output": "Only B fits.", "task": "algebra"},
        {"task": "math"},
    ]

    response = http.post("/v1/extract/batch", json={"items": items})

    messages = [r["error"]["message"] if r["error"] else None for r in response.json()["results"]]
    assert messages[0] is None
    assert messages[1] is not None
    assert messages[1].startswith("items[1]: Input should be a valid dictionary")
    assert messages[2] is not None and messages[2].startswith("items[2].task: Input should be")
    assert messages[3] == "items[3].raw_output: Field required"
    assert not any(m and "body" in m for m in messages)


def test_an_empty_batch_is_an_empty_result(http: httpx.Client) -> None:
    response = http.post("/v1/extract/batch", json={"items": []})

    assert response.json() == {"results": [], "succeeded": 0, "failed": 0}


def test_a_batch_over_the_item_limit_is_a_413(start_service: Any) -> None:
    url = start_service(max_batch=3)
    items = [{"raw_output": f"The answer is {i}."} for i in range(4)]

    with httpx.Client(base_url=url) as client:
        too_many = client.post("/v1/extract/batch", json={"items": items})
        at_limit = client.post("/v1/extract/batch", json={"items": items[:3]})

    assert too_many.status_code == 413
    assert error_of(too_many) == {
        "type": "batch_too_large",
        "message": "a batch holds at most 3 items; this one has 4",
    }
    assert at_limit.status_code == 200 and at_limit.json()["succeeded"] == 3


@pytest.mark.parametrize(
    ("body", "status"),
    [(b'{"items": [', 400), (b'{"items": 3}', 422), (b'{"things": []}', 422)],
)
def test_a_batch_envelope_that_is_wrong_fails_as_a_whole(
    http: httpx.Client, body: bytes, status: int
) -> None:
    response = http.post(
        "/v1/extract/batch", content=body, headers={"content-type": "application/json"}
    )

    assert response.status_code == status
    assert error_of(response)["type"] == ("invalid_json" if status == 400 else "validation_error")


# --------------------------------------------------------------------------- metadata


def test_tasks_and_approaches_list_the_library_names(http: httpx.Client) -> None:
    tasks = http.get("/v1/tasks").json()
    approaches = http.get("/v1/approaches").json()

    assert tasks == {"tasks": list(TASKS), "default": "auto"}
    assert approaches["approaches"] == list(get_args(Approach))
    assert approaches["strategies"] == ["structured", "two_stage"]
    assert {"openai", "anthropic", "cohere"} <= set(approaches["providers"])


def test_health_and_readiness(http: httpx.Client) -> None:
    assert http.get("/healthz").json() == {"status": "ok", "version": answerx.__version__}
    assert http.get("/readyz").json() == {
        "status": "ready",
        "llm_calls_in_flight": 0,
        "llm_concurrency": 16,
    }


def test_readiness_fails_when_the_provider_config_is_broken(
    start_service: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "providers.yaml"
    broken.write_text("openai: [not, a, mapping]\n", encoding="utf-8")
    monkeypatch.setenv("ANSWERX_PROVIDERS", str(broken))
    url = start_service()

    response = httpx.get(url + "/readyz")

    assert response.status_code == 503
    assert error_of(response)["type"] == "not_ready"
    assert httpx.get(url + "/healthz").status_code == 200


def test_unknown_paths_and_methods_are_json_errors(http: httpx.Client) -> None:
    missing = http.get("/v2/extract")
    wrong_method = http.get("/v1/extract")

    assert (missing.status_code, error_of(missing)["type"]) == (404, "not_found")
    assert (wrong_method.status_code, error_of(wrong_method)["type"]) == (
        405,
        "method_not_allowed",
    )


# --------------------------------------------------------------------------- metrics


def test_metrics_count_requests_latency_and_extraction_methods(http: httpx.Client) -> None:
    http.post("/v1/extract", json={"raw_output": "\\boxed{4}", "task": "math"})
    http.post("/v1/extract", json={"raw_output": "\\boxed{5}", "task": "math"})
    http.post("/v1/extract", json={"raw_output": "x", "task": "nope"})
    http.post("/v1/extract/batch", json={"items": [{"raw_output": "#### 7", "task": "numeric"}]})
    http.get("/no/such/path")

    response = http.get("/metrics")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    requests = samples(text, "answerx_http_requests_total")
    assert requests['{endpoint="/v1/extract",method="POST",status="200"}'] == 2
    assert requests['{endpoint="/v1/extract",method="POST",status="422"}'] == 1
    assert requests['{endpoint="/v1/extract/batch",method="POST",status="200"}'] == 1
    assert requests['{endpoint="other",method="GET",status="404"}'] == 1
    latency = samples(text, "answerx_http_request_duration_seconds_count")
    assert latency['{endpoint="/v1/extract"}'] == 3
    methods = samples(text, "answerx_extractions_total")
    assert methods['{method="boxed",task="math"}'] == 2
    assert methods['{method="final_answer_phrase",task="numeric"}'] == 1


def test_two_apps_keep_separate_metrics(start_service: Any) -> None:
    first, second = start_service(), start_service()
    httpx.post(first + "/v1/extract", json={"raw_output": "\\boxed{4}"})

    first_count = samples(httpx.get(first + "/metrics").text, "answerx_extractions_total")
    second_count = samples(httpx.get(second + "/metrics").text, "answerx_extractions_total")

    assert sum(first_count.values()) == 1 and second_count == {}


# --------------------------------------------------------------------------- OpenAPI


def test_the_openapi_schema_has_every_endpoint_with_an_example(http: httpx.Client) -> None:
    schema = http.get("/openapi.json").json()

    operations = {
        (method.upper(), path): op
        for path, methods in schema["paths"].items()
        for method, op in methods.items()
    }
    assert set(operations) == {
        ("POST", "/v1/extract"),
        ("POST", "/v1/extract/batch"),
        ("POST", "/v1/extract/structured"),
        ("POST", "/v1/ask"),
        ("POST", "/v1/verify"),
        ("POST", "/v1/verify/batch"),
        ("POST", "/v1/reward"),
        ("GET", "/v1/approaches"),
        ("GET", "/v1/tasks"),
        ("GET", "/healthz"),
        ("GET", "/readyz"),
        ("GET", "/metrics"),
    }
    components = schema["components"]["schemas"]
    for (method, path), op in operations.items():
        content = op["responses"]["200"]["content"]
        (media,) = content.values()
        ref = media.get("schema", {}).get("$ref", "")
        component = components.get(ref.rsplit("/", 1)[-1], {})
        assert "example" in media or "examples" in component, f"{method} {path} has no example"
        if method == "POST":
            body = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            assert components[body.rsplit("/", 1)[-1]]["examples"], f"{path} request example"
    for path in ("/v1/extract/structured", "/v1/ask"):
        for status in ("429", "502", "504"):
            error = schema["paths"][path]["post"]["responses"][status]
            assert error["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ProviderErrorResponse"
            }
    detail = components["ProviderErrorDetail"]["properties"]
    assert {"type", "message", "attempts", "usage"} <= set(detail)
    batch = components["BatchRequest"]
    assert batch["properties"]["items"]["items"]["anyOf"][0] == {
        "$ref": "#/components/schemas/ExtractRequest"
    }
    assert json.dumps(schema).count("securitySchemes") == 0  # no token: no auth in the schema
