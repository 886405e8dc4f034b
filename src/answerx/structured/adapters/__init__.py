"""One adapter per provider SDK, found by name: the ``sdk:`` of a ``providers.yaml`` row.

Each module of this package but :mod:`~answerx.structured.adapters.base` is one SDK's
adapter and exposes it as ``ADAPTER`` (an :class:`SdkAdapter`); adding an SDK is
adding one module here. A provider on an SDK that has an adapter is one row of
``config/providers.yaml`` (see :mod:`answerx.structured.providers`).

An installed package adds an adapter without touching answerx, the way ``llm``
plug-ins add models: an entry point in the :data:`ENTRY_POINT_GROUP` group, named
for the adapter, pointing at the adapter (or at a module exposing ``ADAPTER``)::

    [project.entry-points."answerx.adapters"]
    acme = "acme_answerx:ADAPTER"

A plug-in never replaces a bundled adapter (one of the same name is ignored, with a
warning); one that does not load, is not an :class:`SdkAdapter`, names itself
otherwise, or shares its name with another package's raises :class:`PluginError`
naming the package and the entry point, when that adapter is asked for.

>>> get_adapter("openai").takes_seed
True
>>> "cohere" in adapter_names()
True
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings
from collections import defaultdict
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

from answerx.errors import PluginError, UnknownName
from answerx.structured.adapters.base import MODES, SdkAdapter

__all__ = [
    "ENTRY_POINT_GROUP",
    "MODES",
    "SdkAdapter",
    "adapter_names",
    "all_adapters",
    "get_adapter",
    "rescan_adapters",
]

#: The entry-point group through which installed packages add SDK adapters.
ENTRY_POINT_GROUP = "answerx.adapters"

_NOT_ADAPTERS = frozenset({"base"})


def _bundled() -> frozenset[str]:
    """The adapters of this package (read from its modules, nothing imported; a scan of
    one folder, cached by the functions that call it)."""
    return frozenset(
        info.name
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_") and info.name not in _NOT_ADAPTERS
    )


@cache
def _plugins() -> dict[str, tuple[EntryPoint, ...]]:
    """The installed plug-ins' entry points by adapter name (none of them loaded)."""
    found: dict[str, list[EntryPoint]] = defaultdict(list)
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in _bundled():
            warnings.warn(
                f"{_origin(point)} is ignored: answerx bundles an SDK adapter named "
                f"{point.name!r}, which a plug-in cannot replace",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        found[point.name].append(point)
    return {name: tuple(points) for name, points in found.items()}


@cache
def adapter_names() -> tuple[str, ...]:
    """The names of every adapter, bundled and plugged in, sorted (nothing imported)."""
    return tuple(sorted(_bundled() | set(_plugins())))


@cache
def get_adapter(name: str) -> SdkAdapter:
    """The adapter of SDK ``name``; an unknown name raises :class:`UnknownName` with the
    closest valid one, a broken plug-in :class:`PluginError`. Importing an adapter does
    not import its SDK."""
    if name not in adapter_names():
        raise UnknownName("SDK adapter", name, adapter_names())
    if name not in _bundled():
        return _load_plugin(name, _plugins()[name])
    module = importlib.import_module(f"{__name__}.{name}")
    adapter = getattr(module, "ADAPTER", None)
    if not isinstance(adapter, SdkAdapter) or adapter.name != name:
        raise TypeError(f"{module.__name__}.ADAPTER must be an SdkAdapter named {name!r}")
    return adapter


def all_adapters() -> tuple[SdkAdapter, ...]:
    """Every adapter, in name order."""
    return tuple(get_adapter(name) for name in adapter_names())


def rescan_adapters() -> None:
    """Forget the adapters found so far, so the next call looks again (after a plug-in
    was installed or removed in a running process, a notebook's)."""
    for cached in (_plugins, adapter_names, get_adapter):
        cached.cache_clear()


def _origin(point: EntryPoint) -> str:
    """Where an entry point comes from, for messages: its line and its package."""
    dist = point.dist
    package = f"{dist.name} {dist.version}" if dist is not None else "an unknown package"
    return f"the {ENTRY_POINT_GROUP} entry point '{point.name} = {point.value}' of {package}"


def _load_plugin(name: str, points: tuple[EntryPoint, ...]) -> SdkAdapter:
    if len(points) > 1:
        raise PluginError(
            f"{len(points)} installed packages add an SDK adapter named {name!r}: "
            + "; ".join(_origin(p) for p in points)
            + ". Uninstall all but one",
            entry_point=name,
        )
    (point,) = points
    try:
        loaded = point.load()
    except Exception as exc:  # a plug-in's import may raise anything: say whose it is
        raise PluginError(
            f"cannot load {_origin(point)}: {type(exc).__name__}: {exc}", entry_point=name
        ) from exc
    adapter = getattr(loaded, "ADAPTER", None) if isinstance(loaded, ModuleType) else loaded
    if not isinstance(adapter, SdkAdapter):
        raise PluginError(
            f"{_origin(point)} gives {type(adapter).__name__}, not an SdkAdapter instance "
            "(a subclass of answerx.structured.adapters.base.SdkAdapter, or a module "
            "exposing one as ADAPTER)",
            entry_point=name,
        )
    if adapter.name != name:
        raise PluginError(
            f"{_origin(point)} gives an adapter named {adapter.name!r}: the entry point "
            "must be named for its adapter (that name is the sdk: of providers.yaml rows)",
            entry_point=name,
        )
    return adapter
