"""Prometheus metrics of one app, in a registry of its own (two apps in a process never mix).

- ``answerx_http_requests_total``: requests by endpoint, method and status;
- ``answerx_http_request_duration_seconds``: latency histogram by endpoint;
- ``answerx_extractions_total``: extractions by method and task (the LLM's count
  as ``structured_llm``);
- ``answerx_llm_requests_total``: LLM endpoint requests by endpoint, provider and
  outcome (``ok`` or the error);
- ``answerx_llm_tokens_total``: provider tokens by provider, model and direction
  (``input``/``output``);
- ``answerx_llm_requests_in_flight``: LLM requests running now.

With ``--workers N`` every worker counts its own requests; a scrape reaches one
of them.
"""

from __future__ import annotations

import time
from typing import Any, Final

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.types import ASGIApp, Receive, Scope, Send

from answerx.extraction.models import Extraction
from answerx.service.asgi import WatchedSend
from answerx.structured.callinfo import Usage

__all__ = ["CONTENT_TYPE_LATEST", "MetricsMiddleware", "ServiceMetrics"]

_BUCKETS: Final = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
)  # fmt: skip
_OTHER: Final = "other"
_METHODS: Final = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# Model names come from requests: past this many (provider, model) pairs, new ones
# are counted as "other", so a client cannot grow the registry without bound.
_MAX_MODELS: Final = 64


class ServiceMetrics:
    """The service's counters and histograms, and their text exposition."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "answerx_http_requests",
            "HTTP requests served.",
            ["endpoint", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "answerx_http_request_duration_seconds",
            "Time from the request's arrival to the end of its response.",
            ["endpoint"],
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self.extractions = Counter(
            "answerx_extractions",
            "Extractions made, by the rule that found the answer and the task.",
            ["method", "task"],
            registry=self.registry,
        )
        self.llm_requests = Counter(
            "answerx_llm_requests",
            "Requests of the LLM endpoints, by outcome (ok or the error type).",
            ["endpoint", "provider", "outcome"],
            registry=self.registry,
        )
        self.llm_tokens = Counter(
            "answerx_llm_tokens",
            "Tokens the providers reported, retries and fallbacks included.",
            ["provider", "model", "direction"],
            registry=self.registry,
        )
        self.llm_in_flight = Gauge(
            "answerx_llm_requests_in_flight",
            "LLM endpoint requests running now.",
            registry=self.registry,
        )
        self._models: set[tuple[str, str]] = set()
        # Labelled children, looked up once: ``labels()`` takes a lock and checks its
        # arguments, which would be a tenth of the cost of a /v1/extract request.
        self._request_children: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        self._extraction_children: dict[tuple[str, str], Any] = {}

    def observe_request(self, endpoint: str, method: str, status: int, seconds: float) -> None:
        """Count one HTTP request and its latency."""
        key = (endpoint, method, status)
        children = self._request_children.get(key)
        if children is None:
            children = (
                self.requests.labels(endpoint, method, str(status)),
                self.latency.labels(endpoint),
            )
            self._request_children[key] = children
        children[0].inc()
        children[1].observe(seconds)

    def count_extraction(self, extraction: Extraction) -> None:
        """Count one extraction by its method and task."""
        key = (extraction.method, extraction.task)
        child = self._extraction_children.get(key)
        if child is None:
            child = self._extraction_children[key] = self.extractions.labels(*key)
        child.inc()

    def count_llm_request(self, endpoint: str, provider: str, outcome: str) -> None:
        """Count one request of an LLM endpoint ("ok" or the error type)."""
        self.llm_requests.labels(endpoint, provider, outcome).inc()

    def count_tokens(self, provider: str, model: str, usage: Usage) -> None:
        """Add a call's token usage."""
        if (provider, model) not in self._models:
            if len(self._models) >= _MAX_MODELS:
                model = _OTHER
            else:
                self._models.add((provider, model))
        self.llm_tokens.labels(provider, model, "input").inc(usage.input_tokens)
        self.llm_tokens.labels(provider, model, "output").inc(usage.output_tokens)

    def exposition(self) -> bytes:
        """Everything, in the Prometheus text format."""
        return generate_latest(self.registry)


class MetricsMiddleware:
    """Count every HTTP request and time it (pure ASGI: no per-request objects).

    ``endpoints`` are the app's paths; any other path is counted as ``other``, so
    that scanners probing random URLs cannot grow the label set.
    """

    def __init__(self, app: ASGIApp, metrics: ServiceMetrics, endpoints: frozenset[str]) -> None:
        self.app = app
        self.metrics = metrics
        self.endpoints = endpoints

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        watched = WatchedSend(send)
        try:
            await self.app(scope, receive, watched)
        finally:
            path, method = scope["path"], scope["method"]
            endpoint = path if path in self.endpoints else _OTHER
            method = method if method in _METHODS else _OTHER
            # No status: the app ended without answering, which a client sees as a 500.
            status = watched.status if watched.status is not None else 500
            self.metrics.observe_request(endpoint, method, status, time.perf_counter() - started)
