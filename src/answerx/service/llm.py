"""The LLM side of the service: managers per (provider, model), slots, deadline, metrics.

Credentials come only from the server's environment: a request names a
provider of ``config/providers.yaml`` (or ``$ANSWERX_PROVIDERS``) and a model,
never a key or a URL, so a client cannot point the server elsewhere.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

from answerx.errors import AnswerxError, ConfigError, ProviderError, redact
from answerx.extraction.spec import AnswerSpec
from answerx.reasoning.response import StandardResponse
from answerx.service.errors import ApiError
from answerx.service.limits import LLMSlots
from answerx.service.llm_schemas import AskRequest, StructuredRequest, StructuredResponse
from answerx.service.metrics import ServiceMetrics
from answerx.service.settings import ServiceSettings
from answerx.structured import InstructorClientManager, ProviderSpec, load_providers

__all__ = ["LLMGateway"]

log = logging.getLogger("answerx.service")

# Managers hold SDK clients and their connection pools: keep the most recently
# used ones, but not one per model name a client ever sent.
_MAX_MANAGERS: Final = 32


class LLMGateway:
    """Runs the LLM endpoints' calls within the service's limits.

    One per app. Managers are built on first use of a (provider, model) and
    reused, so their SDK clients keep their connections open between requests.
    """

    def __init__(self, settings: ServiceSettings, metrics: ServiceMetrics) -> None:
        self.settings = settings
        self.metrics = metrics
        self.slots = LLMSlots(
            settings.llm_concurrency, settings.llm_timeout_s, settings.retry_after_s
        )
        self._managers: OrderedDict[tuple[str, str], InstructorClientManager] = OrderedDict()

    # ------------------------------------------------------------------ managers
    def provider_names(self) -> list[str]:
        """The providers this server is configured for."""
        return list(self._specs())

    def _specs(self) -> dict[str, ProviderSpec]:
        try:
            return dict(load_providers())
        except ConfigError:
            log.error("the provider configuration does not load (see $ANSWERX_PROVIDERS)")
            raise ApiError(
                502, "provider_not_configured", "the server's provider configuration is invalid"
            ) from None

    def manager(self, provider: str, model: str | None) -> InstructorClientManager:
        """The cached manager for ``provider`` and ``model`` (None: the provider's default)."""
        specs = self._specs()
        spec = specs.get(provider)
        if spec is None:
            raise ApiError(
                422,
                "invalid_request",
                f"unknown provider {provider!r}; valid providers: {', '.join(specs)}",
            )
        key = (provider, model or spec.default_model)
        cached = self._managers.get(key)
        if cached is not None:
            self._managers.move_to_end(key)
            return cached
        if spec.autostart and spec.resolve_base_url() is None:
            # Starting a model server from a request would block every other request.
            raise ApiError(
                502,
                "provider_not_configured",
                f"provider {provider!r} needs a model server already running for this "
                f"service ({spec.base_url_env} on the server)",
            )
        try:
            manager = InstructorClientManager(provider, key[1], timeout=self.settings.llm_timeout_s)
        except ConfigError as exc:  # no key in the server's environment
            log.warning("provider %r is not usable: %s", provider, redact(str(exc)))
            raise ApiError(
                502,
                "provider_not_configured",
                f"provider {provider!r} has no credentials on this server",
            ) from None
        self._managers[key] = manager
        if len(self._managers) > _MAX_MANAGERS:
            self._managers.popitem(last=False)
        return manager

    # ------------------------------------------------------------------ calls
    @asynccontextmanager
    async def _call(self, endpoint: str, provider: str) -> AsyncIterator[None]:
        """A slot and the deadline for one request; its outcome counted."""
        outcome = "ok"
        try:
            async with self.slots.slot():
                self.metrics.llm_in_flight.inc()
                try:
                    yield
                finally:
                    self.metrics.llm_in_flight.dec()
        except ApiError as exc:
            outcome = exc.type
            raise
        except ProviderError as exc:
            outcome = type(exc).__name__
            info = exc.call_info
            if info is not None:  # a failed call's tokens are billed all the same
                self.metrics.count_tokens(info.provider, info.model, info.usage)
            raise
        except AnswerxError as exc:
            outcome = type(exc).__name__
            raise
        finally:
            self.metrics.count_llm_request(endpoint, provider, outcome)

    async def extract_structured(self, request: StructuredRequest) -> StructuredResponse:
        """``POST /v1/extract/structured``: the approach's model filled in by the LLM."""
        manager = self.manager(request.provider, request.model)
        # Choices make it a multiple-choice question, as for /v1/extract.
        task = request.task or ("multiple_choice" if request.choices else None)
        async with self._call("structured", request.provider):
            result, info = await manager.aextract_structured(
                request.raw_output,
                request.approach,
                question=request.question,
                task=task,
                choices=request.choices,
            )
        self.metrics.count_tokens(info.provider, info.model, info.usage)
        self.metrics.extractions.labels("structured_llm", task or "auto").inc()
        return StructuredResponse.model_validate({"extraction": result, "call_info": info})

    async def ask(self, request: AskRequest) -> StandardResponse:
        """``POST /v1/ask``: the approach answers the question through the provider."""
        from answerx.reasoning import get_approach  # the reasoning engine: only when asked

        manager = self.manager(request.provider, request.model)
        approach = get_approach(
            request.approach, manager, strategy=request.strategy, task=request.task
        )
        async with self._call("ask", request.provider):
            spec = AnswerSpec.for_item(request.task, request.choices, request.numbers)
            response = await approach.aexecute(request.question, spec=spec)
        self.metrics.count_tokens(response.provider, response.model, response.usage)
        self.metrics.count_extraction(response.extraction)
        return response
