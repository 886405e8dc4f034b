"""Schemathesis against the service's own OpenAPI schema: no 5xx, no response off its schema.

Runs in-process through ASGI (no socket), on the endpoints that need no
provider: the extraction endpoints, the metadata and the operations endpoints.
Schemathesis' default checks apply: no server error, status codes, content
types, headers and bodies as documented, and invalid input refused.
"""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings

from answerx.service import ServiceSettings, create_app

schema = schemathesis.openapi.from_asgi(
    "/openapi.json", create_app(ServiceSettings(max_batch=50))
).include(
    path=[
        "/v1/extract",
        "/v1/extract/batch",
        "/v1/approaches",
        "/v1/tasks",
        "/healthz",
        "/readyz",
        "/metrics",
    ]
)


@schema.parametrize()
@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_service_keeps_its_openapi_contract(case: schemathesis.Case) -> None:
    case.call_and_validate()
