"""How the structured extraction call runs: one settings object, per provider and per call.

The extraction call (:meth:`~answerx.structured.InstructorClientManager.extract_structured`,
and the LLM step of the ``two_stage`` strategy) asks a model to copy the final answer
out of a reasoning text. :class:`ExtractionSettings` holds everything that decides how:

==========================  =========  ==============  =============================================
setting                     answerx    ml-agents spec  meaning
==========================  =========  ==============  =============================================
``temperature``             0.0        0.1             sampling temperature of the extraction call
``max_tokens``              None       500             its output cap; None: the provider's own
``min_confidence``          0.85       (0.85)          ``two_stage``: the rules' answer stands at
                                                       or above this; below it, this call is made
``confidence_threshold``    0.0        0.7             a structured extraction whose own
                                                       ``confidence`` is lower is not accepted
``enable_fallback``         true       true            on a failure another mode can fix, try the
                                                       provider's next structured-output mode
==========================  =========  ==============  =============================================

Why answerx's defaults: the call *copies* an answer, it does not create one, so it runs
at temperature 0 (the same reasoning text always gives the same answer); it echoes the
whole reasoning in ``full_reasoning_text`` before the answer, so a 500-token cap cuts
long reasoning off before the answer is reached (the provider's ``max_tokens`` leaves
room); and a model's self-reported confidence is poorly calibrated, so answerx accepts
any extraction whose answer has the task's shape (the response model checks it) rather
than one above a confidence; the rules' own confidence (0.85, the weakest explicit
marker) decides when the call is made at all. ``ExtractionSettings.from_preset("ml-agents")``
gives the values of the ml-agents Phase-15 parsing configuration (its two-stage
threshold has no counterpart there: answerx's is kept).

Settings are layered: the bundled ``answerx`` defaults, then the provider's row of
``config/providers.yaml`` (``extraction:``), then the manager's ``extraction=``
argument (an experiment config's ``extraction:`` key), then ``extract_structured``'s
``settings=``. Each layer is an :class:`ExtractionOverride`: only the fields it names
change, and ``preset:`` starts from a named preset instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from answerx.errors import ConfigError
from answerx.extraction.rules import RULES

__all__ = [
    "EXTRACTION_PRESETS",
    "MARKER_CONFIDENCE",
    "ExtractionLike",
    "ExtractionOverride",
    "ExtractionSettings",
    "PresetName",
    "resolve_extraction",
]

#: The lowest base confidence of an explicit marker (answer block, boxed, JSON field,
#: "the answer is", ``Output:``). Two-stage extraction asks an LLM only below it:
#: when nothing was found, a task fallback guessed (last number, letter, line scan),
#: or a marker was weakened (inside ``<think>``, an ``<answer>`` block cut off).
MARKER_CONFIDENCE: Final = min(rule.confidence for rule in RULES)

PresetName = Literal["answerx", "ml-agents"]


class ExtractionSettings(BaseModel):
    """How the extraction call runs (see the module docstring for each field, answerx's
    default and the ml-agents spec's value)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float = Field(
        default=0.0, ge=0.0, le=2.0, description="Sampling temperature of the extraction call."
    )
    max_tokens: int | None = Field(
        default=None, ge=1, description="Its output cap; None: the provider's max_tokens."
    )
    min_confidence: float = Field(
        default=MARKER_CONFIDENCE,
        ge=0.0,
        le=1.0,
        description="two_stage: below this confidence of the rules' answer, the extraction "
        "call is made (an approach's own min_confidence setting wins).",
    )
    confidence_threshold: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="A structured extraction whose own confidence is below this is not "
        "accepted: StructuredOutputError (two_stage then keeps the rules' answer).",
    )
    enable_fallback: bool = Field(
        default=True,
        description="Try the provider's next structured-output mode on a failure another "
        "mode can fix; False: the first mode only.",
    )

    @classmethod
    def from_preset(cls, name: PresetName | str) -> ExtractionSettings:
        """The settings named ``name``: ``answerx`` (the defaults) or ``ml-agents``."""
        if name not in EXTRACTION_PRESETS:
            valid = ", ".join(EXTRACTION_PRESETS)
            raise ConfigError(f"unknown extraction preset {name!r}; valid presets: {valid}")
        return EXTRACTION_PRESETS[name]

    def updated(self, override: ExtractionLike) -> ExtractionSettings:
        """These settings with ``override`` applied (see :func:`resolve_extraction`)."""
        return resolve_extraction(self, override)


#: The named settings: answerx's defaults, and the ml-agents Phase-15 parsing configuration.
EXTRACTION_PRESETS: Final[Mapping[str, ExtractionSettings]] = {
    "answerx": ExtractionSettings(),
    "ml-agents": ExtractionSettings(
        temperature=0.1, max_tokens=500, confidence_threshold=0.7, enable_fallback=True
    ),
}
assert set(EXTRACTION_PRESETS) == set(get_args(PresetName))


class ExtractionOverride(ExtractionSettings):
    """Some extraction settings, over others: only the fields given change, and ``preset``
    starts from a named preset. How ``extraction:`` reads in ``providers.yaml`` and in an
    experiment config; a bare preset name (``extraction: ml-agents``) is ``{preset: …}``."""

    preset: PresetName | None = Field(
        default=None, description="Start from this preset (then apply the other fields)."
    )

    @model_validator(mode="before")
    @classmethod
    def _a_name_is_a_preset(cls, data: Any) -> Any:
        return {"preset": data} if isinstance(data, str) else data


ExtractionLike = ExtractionSettings | Mapping[str, Any] | str | None
"""What may override extraction settings: a whole :class:`ExtractionSettings` (it replaces
them), an :class:`ExtractionOverride` or a mapping of some fields (only those change,
``preset`` first), a preset name, or None (no change)."""


def resolve_extraction(base: ExtractionSettings, override: ExtractionLike) -> ExtractionSettings:
    """``base`` with ``override`` applied (see :data:`ExtractionLike`); a bad mapping or
    preset name raises :class:`ConfigError` naming the setting."""
    if override is None:
        return base
    if not isinstance(override, ExtractionOverride):
        if isinstance(override, ExtractionSettings):
            return override
        try:
            override = ExtractionOverride.model_validate(override)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'extraction'}: {e['msg']}" for e in exc.errors()
            )
            raise ConfigError(f"invalid extraction settings: {problems}") from None
    start = base if override.preset is None else ExtractionSettings.from_preset(override.preset)
    changes = {name: getattr(override, name) for name in override.model_fields_set - {"preset"}}
    return start.model_copy(update=changes)
