"""``PROVIDER/MODEL`` as the command line and the service name a judge or an LLM extractor."""

from __future__ import annotations

from typing import Any

from answerx.errors import ConfigError
from answerx.structured.manager import InstructorClientManager

__all__ = ["manager_for"]


def manager_for(name: str, **options: Any) -> InstructorClientManager:
    """The manager of ``name``: ``provider/model`` (``openrouter/openai/gpt-4o-mini``: the
    model is everything after the first slash) or ``provider`` alone (its default model).

    Raises :class:`~answerx.errors.UnknownName` for an unknown provider and
    :class:`~answerx.errors.CredentialsMissing` when its key is not set.
    """
    provider, _, model = name.strip().partition("/")
    if not provider:
        raise ConfigError(
            f"{name!r} names no provider: give PROVIDER/MODEL, e.g. openai/gpt-4o-mini"
        )
    return InstructorClientManager(provider, model or None, **options)
