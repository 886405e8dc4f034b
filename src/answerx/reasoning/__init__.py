"""Reasoning approaches: prompt, call the manager, return a :class:`StandardResponse`."""

from answerx.reasoning.response import ResponseMetadata, StandardResponse

__all__ = ["ResponseMetadata", "StandardResponse"]
