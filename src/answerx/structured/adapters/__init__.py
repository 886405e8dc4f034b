"""One adapter per provider SDK, found by name: the ``sdk:`` of a ``providers.yaml`` row.

Each module of this package but :mod:`~answerx.structured.adapters.base` is one SDK's
adapter and exposes it as ``ADAPTER`` (an :class:`SdkAdapter`); adding an SDK is
adding one module here. A provider on an SDK that has an adapter is one row of
``config/providers.yaml`` (see :mod:`answerx.structured.providers`).

>>> get_adapter("openai").takes_seed
True
>>> "cohere" in adapter_names()
True
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from answerx.errors import UnknownName
from answerx.structured.adapters.base import MODES, SdkAdapter

__all__ = ["MODES", "SdkAdapter", "adapter_names", "all_adapters", "get_adapter"]

_NOT_ADAPTERS = frozenset({"base"})


@cache
def adapter_names() -> tuple[str, ...]:
    """The names of every adapter, sorted (read from the package, nothing imported)."""
    return tuple(
        sorted(
            info.name
            for info in pkgutil.iter_modules(__path__)
            if not info.name.startswith("_") and info.name not in _NOT_ADAPTERS
        )
    )


@cache
def get_adapter(name: str) -> SdkAdapter:
    """The adapter of SDK ``name``; an unknown name raises :class:`UnknownName` with the
    closest valid one. Importing an adapter does not import its SDK."""
    if name not in adapter_names():
        raise UnknownName("SDK adapter", name, adapter_names())
    module = importlib.import_module(f"{__name__}.{name}")
    adapter = getattr(module, "ADAPTER", None)
    if not isinstance(adapter, SdkAdapter) or adapter.name != name:
        raise TypeError(f"{module.__name__}.ADAPTER must be an SdkAdapter named {name!r}")
    return adapter


def all_adapters() -> tuple[SdkAdapter, ...]:
    """Every adapter, in name order."""
    return tuple(get_adapter(name) for name in adapter_names())
