"""What the service adds to the OpenAPI schema FastAPI generates from its routes.

- :func:`example_response`: a route's 200 example, for routes that return a
  ready-serialised :class:`Response` (FastAPI then has no model instance to show);
- the batch request body, which the route parses by hand (see ``extract_api``);
- the bearer scheme on every path that needs the token, when one is set;
- tuples of one type as fixed-length arrays (see :func:`_plain_tuples`).
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from answerx.service.asgi import JSON
from answerx.service.auth import OPEN_PATHS
from answerx.service.schemas import BatchRequest
from answerx.service.settings import ServiceSettings

__all__ = ["BATCH_REQUEST_REF", "build_openapi", "example_response"]

#: Where the schema defines the batch body.
BATCH_REQUEST_REF: Final = "#/components/schemas/BatchRequest"


def example_response(value: Any, media_type: str = JSON) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` entry: ``value`` as the example of the 200 answer."""
    return {200: {"content": {media_type: {"example": value}}}}


def build_openapi(app: FastAPI, settings: ServiceSettings) -> dict[str, Any]:
    """FastAPI's schema of ``app``, completed as the module docstring says."""
    schema = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
        tags=app.openapi_tags,
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    batch = BatchRequest.model_json_schema(ref_template="#/components/schemas/{model}")
    for name, definition in batch.pop("$defs", {}).items():
        components.setdefault(name, definition)
    components[BATCH_REQUEST_REF.rsplit("/", 1)[-1]] = batch
    _plain_tuples(schema)
    if settings.api_token is not None:
        schema["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        for path, operations in schema["paths"].items():
            if path not in OPEN_PATHS:
                for operation in operations.values():
                    operation["security"] = [{"bearer": []}]
    return schema


def _plain_tuples(node: Any) -> None:
    """Write a tuple of one type (``span``: two integers) as an array of that type with a
    fixed length instead of ``prefixItems``: the same constraint, which OpenAPI 3.0
    tools and schemathesis' response validation (its 4.x releases) read correctly."""
    if isinstance(node, dict):
        items = node.get("prefixItems")
        if isinstance(items, list) and items and all(item == items[0] for item in items):
            del node["prefixItems"]
            node.update(items=items[0], minItems=len(items), maxItems=len(items))
        for value in node.values():
            _plain_tuples(value)
    elif isinstance(node, list):
        for value in node:
            _plain_tuples(value)
