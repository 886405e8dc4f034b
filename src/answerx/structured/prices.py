"""What a call costs: a price table per (provider, model), in USD per million tokens.

The bundled table is ``config/prices.yaml``; a YAML file of the same shape in
``$ANSWERX_PRICES`` (or passed to :func:`load_prices`) is merged over it model
by model. A model with no price has an *unknown* cost, ``None``, never zero:
a report that summed unknown costs as 0 would make an expensive run look free.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from answerx.errors import ConfigError
from answerx.support.resources import data_file
from answerx.support.yamlerrors import format_validation_error, read_yaml

__all__ = ["PRICES_ENV", "Price", "PriceTable", "cost", "load_prices", "price_of"]

PRICES_ENV = "ANSWERX_PRICES"

# A dated snapshot id ("gpt-4o-mini-2024-07-18", "claude-haiku-4-5-20251001") is priced
# as its undated model name when it has no row of its own.
_DATE_SUFFIX = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8})$")
_ANY_MODEL = "*"


class Price(BaseModel):
    """USD per million input and output tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for this many tokens."""
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


class _PriceFile(RootModel[dict[str, dict[str, Price]]]):
    pass


#: provider -> model -> price ("*" as the model: every model of that provider).
PriceTable = Mapping[str, Mapping[str, Price]]


def _read(path: Path) -> dict[str, dict[str, Price]]:
    data, lines = read_yaml(path)
    try:
        return _PriceFile.model_validate(data or {}).root
    except ValidationError as exc:
        detail = format_validation_error(exc, source=str(path), lines=lines, model=_PriceFile)
        raise ConfigError(f"invalid price table:\n{detail}") from None


@lru_cache(maxsize=8)
def _load(bundled: Path, override: Path | None) -> PriceTable:
    table = _read(bundled)
    if override is not None:
        for provider, models in _read(override).items():
            table[provider] = {**table.get(provider, {}), **models}
    return MappingProxyType({p: MappingProxyType(m) for p, m in table.items()})


def load_prices(path: str | Path | None = None) -> PriceTable:
    """The price table: the bundled one, with ``path`` (or ``$ANSWERX_PRICES``) merged over it."""
    override = path or os.environ.get(PRICES_ENV)
    return _load(data_file("config/prices.yaml"), Path(override) if override else None)


def price_of(provider: str, model: str, *, prices: PriceTable | None = None) -> Price | None:
    """The price of ``model`` at ``provider``: its own row, else its undated name's,
    else the provider's ``"*"`` row; None when the table has none of them."""
    models = (prices if prices is not None else load_prices()).get(provider, {})
    for name in (model, _DATE_SUFFIX.sub("", model), _ANY_MODEL):
        if name in models:
            return models[name]
    return None


def cost(
    provider: str,
    model: str,
    input_tokens: int,
    output_tokens: int,
    *,
    prices: PriceTable | None = None,
) -> float | None:
    """USD for one call's (or one item's) tokens; None when the model has no price.

    >>> cost("openai", "gpt-4o-mini", 1_000_000, 0, prices={"openai": {"gpt-4o-mini":
    ...     Price(input=0.15, output=0.6)}})
    0.15
    """
    price = price_of(provider, model, prices=prices)
    return None if price is None else price.cost(input_tokens, output_tokens)
