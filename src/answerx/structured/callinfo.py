"""What one structured call cost and how it went: :class:`CallInfo` (defined in the bottom
layer, :mod:`answerx.callinfo`). Reading usage and finish reason off a response is its SDK
adapter's (:mod:`answerx.structured.adapters`)."""

from __future__ import annotations

from answerx.callinfo import CallInfo, ModeAttempt, Usage

__all__ = ["CallInfo", "ModeAttempt", "Usage"]
