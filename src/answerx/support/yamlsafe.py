"""Reading YAML that may be hostile: one loader for every YAML file answerx reads.

Experiment configs, ``providers.yaml``, price tables and ``--set`` values all
come through :func:`read_yaml_file` or :func:`load_yaml_text`. PyYAML's
``safe_load`` builds no objects but does nothing against a document that is
small on disk and huge in memory. The limits here:

- **Size**: at most :data:`MAX_YAML_BYTES` (256 KiB) per file, read with a cap,
  so ``/dev/zero`` or a multi-gigabyte file is refused, not read. The bundled
  configs are a few KB; 256 KiB of YAML takes about a second to parse.
- **Aliases**: an alias (``*name``) re-uses its anchor's whole subtree, so
  aliases of aliases grow exponentially (the "billion laughs": ten lines, 10^9
  strings). Aliases stay allowed, for the honest use of sharing a block of
  settings, but each use is counted at the size of what it expands to, while
  the document is composed: past :data:`MAX_ALIAS_NODES` (10,000) expanded
  nodes the file is refused at the alias that crossed the budget. Counting
  happens before anything is built, so a bomb costs microseconds, not gigabytes.
- **Recursion**: an alias inside its own anchor (``a: &a [*a]``) is refused
  (a structure that contains itself cannot be a config), and nesting deeper
  than :data:`MAX_DEPTH` levels is refused rather than exhausting the stack.
- **Scalars**: a value the constructor cannot build (an integer of 5,000
  digits, a bad timestamp) is an error at its line.

Every refusal is a :class:`~answerx.errors.ConfigError` that names the file and
the line: ``exp.yaml:4: alias *b expands past 10,000 nodes …``; never a
traceback, never a hang.

Hand-written on top of PyYAML's own composer because no maintained YAML
library for Python bounds alias expansion (ruamel.yaml neither); the pure-Python
loader is used since the C one's composer cannot be extended.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from answerx.errors import ConfigError

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "MAX_YAML_BYTES",
    "load_yaml_text",
    "read_yaml_file",
]

#: The largest YAML file answerx reads, in bytes.
MAX_YAML_BYTES = 256 * 1024
#: How many nodes all the aliases of one document may expand to, together.
MAX_ALIAS_NODES = 10_000
#: How deeply sequences and mappings may nest.
MAX_DEPTH = 64


class _Refused(yaml.MarkedYAMLError):
    """A limit of this module, raised at the mark where the document crossed it."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem=problem, problem_mark=mark)


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, counting what aliases expand to while it composes.

    ``_sizes`` holds each composed node's expanded size (itself and everything
    under it, aliases counted in full), so an alias costs its target's size in
    one lookup, however deep the target's own aliases go.
    """

    def __init__(self, stream: str, *, max_alias_nodes: int) -> None:
        super().__init__(stream)
        self._max_alias_nodes = max_alias_nodes
        self._alias_nodes = 0
        self._open: set[str] = set()  # anchors whose node is still being composed
        self._sizes: dict[int, int] = {}
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            name = str(event.anchor)
            if name in self._open:
                raise _Refused(
                    f"alias *{name} is inside its own anchor &{name}: "
                    "a structure that contains itself is not allowed",
                    event.start_mark,
                )
            target = self.anchors.get(name)
            if target is not None:  # an undefined alias is PyYAML's own error below
                self._alias_nodes += self._sizes.get(id(target), 1)
                if self._alias_nodes > self._max_alias_nodes:
                    raise _Refused(
                        f"alias *{name} takes the aliases of this file past "
                        f"{self._max_alias_nodes:,} expanded nodes (an alias bomb?); "
                        "write the values out instead of nesting aliases",
                        event.start_mark,
                    )
            return super().compose_node(parent, index)
        anchor = getattr(event, "anchor", None)
        nests = isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent)
        if nests:
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise _Refused(f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
        if anchor is not None:
            self._open.add(str(anchor))
        try:
            node = super().compose_node(parent, index)
        finally:
            if anchor is not None:
                self._open.discard(str(anchor))
            if nests:
                self._depth -= 1
        if node is not None:
            self._sizes[id(node)] = 1 + sum(
                self._sizes.get(id(child), 1) for child in _children(node)
            )
        return node

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as exc:  # int("1" * 5000), a bad date, ...
            if isinstance(exc, yaml.YAMLError):
                raise
            raise _Refused(f"cannot read this value: {exc}", node.start_mark) from None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def load_yaml_text(
    text: str, *, source: str, max_alias_nodes: int = MAX_ALIAS_NODES
) -> tuple[Any, yaml.Node | None]:
    """The data of one YAML document, and its composed node (for line numbers).

    ``source`` names the text in errors (a file name, ``--set budget``). Any
    problem raises :class:`ConfigError` as ``source:line: invalid YAML: …``.

    >>> load_yaml_text("a: &x [1, 2]\\nb: *x", source="demo")[0]
    {'a': [1, 2], 'b': [1, 2]}
    """
    loader = _BoundedLoader(text, max_alias_nodes=max_alias_nodes)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}: invalid YAML: {problem}") from None
    except RecursionError:  # a stack smaller than MAX_DEPTH needs (a thread's)
        raise ConfigError(f"{source}: invalid YAML: nested too deeply") from None
    finally:
        loader.dispose()
    return data, node


def read_yaml_file(
    path: str | Path,
    *,
    max_bytes: int = MAX_YAML_BYTES,
    max_alias_nodes: int = MAX_ALIAS_NODES,
) -> tuple[Any, yaml.Node | None]:
    """The data and composed node of a YAML file, within the limits of this module.

    A file that cannot be read, is larger than ``max_bytes``, is not UTF-8 or
    breaks a limit raises :class:`ConfigError` naming it (and the line).
    """
    source = Path(path)
    try:
        with source.open("rb") as f:
            raw = f.read(max_bytes + 1)  # a cap, so /dev/zero or a huge file is not read whole
    except OSError as exc:
        raise ConfigError(f"cannot read {source}: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise ConfigError(
            f"{source}: larger than {max_bytes // 1024} KiB, the most answerx reads from a "
            "YAML file: is it the right file?"
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{source}:{line}: not valid UTF-8 (byte {exc.start + 1}); save the file as UTF-8"
        ) from None
    return load_yaml_text(text, source=str(source), max_alias_nodes=max_alias_nodes)
