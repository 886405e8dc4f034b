"""Schemas a grammar server can hold a model to: what llama.cpp keeps, and what answerx adds.

A llama.cpp server turns the JSON schema of a request into a GBNF grammar, so
the model *cannot* write anything else, in every mode answerx runs there:
``tools`` (the forced tool's parameters), ``json_with_schema`` (the schema in
``response_format``) and ``md_json`` (the grammar answerx sends itself). Its
converter (llama-cpp-python's ``llama_grammar.json_schema_to_gbnf``, a port of
llama.cpp's ``json_schema_to_grammar.py``) keeps:

- ``enum`` and ``const`` (the answer letters of a multiple-choice task, ``yes``/``no``,
  ``reasoning_type``), object properties and ``required``, arrays with
  ``minItems``/``maxItems``;
- ``minLength``/``maxLength`` of a string, and a string's ``pattern`` (``^…$``);

and drops:

- ``minimum``/``maximum`` of a number ("TODO" in its source): ``confidence`` 1.5
  or 3 passes the grammar;
- the control characters of a string: its ``char`` rule is ``[^"\\\\]``, so a raw
  newline inside a string is allowed, and Pydantic's JSON parser rejects the object.

:func:`grammar_schema` rewrites a schema so that the converter keeps both: a
number bounded to [0, 1] becomes a string whose ``pattern`` admits only ``0``,
``1``, ``0.d``–``0.ddd`` and ``1.0``–``1.000`` (the response models read the
string back as a number), and every free string gets a ``pattern`` of JSON string
content without raw control characters, its length bounds folded in. A string or
list with no bound of its own gets one (:data:`TOP_STRING_CHARS`,
:data:`ITEM_STRING_CHARS`, :data:`MAX_ITEMS`), so that a whole object always fits
in the reply: a small model otherwise writes one string until the token limit and
the object is cut off.
:func:`grammar_model` is a response model whose schema is rewritten so, for
Instructor to send; it parses and validates exactly like the model it extends.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from dataclasses import dataclass
from typing import Any, cast

from pydantic import BaseModel

from answerx.errors import ConfigError

__all__ = [
    "CHARS_PER_TOKEN",
    "CONFIDENCE_PATTERN",
    "ITEM_STRING_CHARS",
    "JSON_STRING_CHAR",
    "MAX_ITEMS",
    "TOP_STRING_CHARS",
    "Caps",
    "caps_for",
    "fenced_json_grammar",
    "grammar_model",
    "grammar_schema",
    "string_pattern",
]

#: A number in [0, 1], at most three decimals, as the *text* of a JSON string.
#: ``[.]`` rather than ``\\.``: llama.cpp's GBNF parser knows no ``\\.`` escape.
CONFIDENCE_PATTERN = "^(0|1|0[.][0-9]{1,3}|1[.]0{1,3})$"
#: One character of JSON string content: anything but a quote, a backslash or a raw
#: control character, or a short escape sequence. No ``\\uXXXX``: any other character
#: can be written as itself, and six characters for one would undo the length caps.
JSON_STRING_CHAR = '([^"\\\\\\x00-\\x1f]|\\\\["\\\\/bfnrt])'


def string_pattern(min_length: int = 0, max_length: int | None = None) -> str:
    """The ``pattern`` of JSON string content with no raw control character, holding
    ``min_length`` to ``max_length`` characters (an escape sequence counts as one)."""
    if max_length is not None:
        quantifier = f"{{{min_length},{max_length}}}"
    elif min_length == 0:
        quantifier = "*"
    elif min_length == 1:
        quantifier = "+"
    else:
        quantifier = f"{{{min_length},}}"
    return f"^{JSON_STRING_CHAR}{quantifier}$"


#: Caps for a string or list whose schema sets none, so that a whole object fits in
#: the reply (``max_tokens``) instead of being cut off mid-string: a 135M model can
#: write one string until the token limit. At most: a top-level string
#: ``TOP_STRING_CHARS``, any other (list items, nested objects) ``ITEM_STRING_CHARS``,
#: a list ``MAX_ITEMS`` items; smaller when the longest object they allow would not
#: fit in ``CHARS_PER_TOKEN`` × ``max_tokens`` characters (:func:`caps_for`).
#: (llama.cpp also refuses grammars with repetitions much larger than these.)
TOP_STRING_CHARS = 500
ITEM_STRING_CHARS = 200
MAX_ITEMS = 5
#: Characters per token assumed for the budget: below what English and JSON take
#: (3-4), so the longest object allowed fits with room to spare.
CHARS_PER_TOKEN = 2.5


@dataclass(frozen=True, slots=True)
class Caps:
    """Bounds given to strings and lists whose schema sets none."""

    top: int = TOP_STRING_CHARS
    item: int = ITEM_STRING_CHARS
    items: int = MAX_ITEMS

    @classmethod
    def scaled(cls, factor: float) -> Caps:
        """The default caps times ``factor`` (at least 8 characters and one item)."""
        return cls(max(8, round(TOP_STRING_CHARS * factor)),
                   max(8, round(ITEM_STRING_CHARS * factor)),
                   max(1, round(MAX_ITEMS * factor)))  # fmt: skip


def _is_unit_interval(schema: dict[str, Any]) -> bool:
    return (
        schema.get("type") in ("number", "integer")
        and schema.get("minimum") == 0
        and schema.get("maximum") == 1
    )


def _longest(node: Any, defs: dict[str, Any], chars: int, caps: Caps, depth: int = 0) -> int:
    """The most characters a JSON value of ``node`` can take under ``caps`` (about)."""
    if not isinstance(node, dict) or depth > 8:
        return 20
    if "$ref" in node:
        return _longest(defs.get(node["$ref"].rsplit("/", 1)[-1]), defs, chars, caps, depth + 1)
    for key in ("anyOf", "oneOf"):
        if key in node:
            return max(_longest(n, defs, chars, caps, depth + 1) for n in node[key])
    if "enum" in node:
        return max(len(json.dumps(v)) for v in node["enum"])
    if "const" in node:
        return len(json.dumps(node["const"]))
    kind = node.get("type")
    if kind == "string":
        return int(node.get("maxLength", chars)) + 2
    if kind == "array":
        count = int(node.get("maxItems", caps.items))
        return 2 + count * (_longest(node.get("items"), defs, caps.item, caps, depth + 1) + 2)
    if kind == "object" or "properties" in node:
        return 2 + sum(
            len(name) + 6 + _longest(prop, defs, caps.item, caps, depth + 1)
            for name, prop in (node.get("properties") or {}).items()
        )
    return 7 if _is_unit_interval(node) else 20


def caps_for(schema: dict[str, Any], max_tokens: int | None) -> Caps:
    """The largest :class:`Caps` (down from the defaults) under which the longest object
    ``schema`` allows fits in ``max_tokens`` (the defaults when None)."""
    caps = Caps()
    if max_tokens is None:
        return caps
    budget = CHARS_PER_TOKEN * max_tokens
    defs = schema.get("$defs") or {}
    props = schema.get("properties") or {}
    for step in range(1, 30):  # each step shrinks the caps by a fifth
        longest = 2 + sum(
            len(name) + 6 + _longest(prop, defs, caps.top, caps) for name, prop in props.items()
        )
        if longest <= budget:
            break
        caps = Caps.scaled(0.8**step)
    return caps


def _rewrite(node: Any, chars: int, caps: Caps) -> Any:
    if isinstance(node, list):
        return [_rewrite(item, chars, caps) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _rewrite(value, caps.item, caps) for key, value in node.items()}
    if _is_unit_interval(node):
        rewritten = {k: v for k, v in node.items() if k not in ("type", "minimum", "maximum")}
        return {**rewritten, "type": "string", "pattern": CONFIDENCE_PATTERN}
    free_string = node.get("type") == "string" and not (
        {"enum", "const", "pattern", "format"} & node.keys()
    )
    if free_string:
        pattern = string_pattern(node.get("minLength", 0), node.get("maxLength", chars))
        return {**node, "pattern": pattern}
    if node.get("type") == "array" and "maxItems" not in node:
        return {**node, "maxItems": caps.items}
    return node


def grammar_schema(schema: dict[str, Any], max_tokens: int | None = None) -> dict[str, Any]:
    """``schema`` rewritten so llama.cpp's converter keeps its bounds (a copy; the
    argument is left unchanged). Strings and lists without bounds get the caps of
    :func:`caps_for` for a reply of ``max_tokens``: a top-level property the larger
    string cap, everything else the smaller one."""
    caps = caps_for(schema, max_tokens)
    rewritten = cast(dict[str, Any], _rewrite(copy.deepcopy(schema), caps.item, caps))
    properties = schema.get("properties")
    if isinstance(properties, dict):
        rewritten["properties"] = {
            name: _rewrite(copy.deepcopy(prop), caps.top, caps) for name, prop in properties.items()
        }
    return rewritten


@functools.lru_cache(maxsize=512)
def grammar_model(model: type[BaseModel], max_tokens: int | None = None) -> type[BaseModel]:
    """``model`` with its JSON schema rewritten by :func:`grammar_schema` for a reply of
    ``max_tokens`` (cached).

    The same name (so the same tool name) and the same validation: only what is
    sent differs. Instructor builds tools, ``response_format`` and prompts from
    ``model_json_schema``.
    """

    plain_schema = model.model_json_schema.__func__  # type: ignore[attr-defined]

    def model_json_schema(cls: type[BaseModel], *args: Any, **kwargs: Any) -> dict[str, Any]:
        return grammar_schema(plain_schema(cls, *args, **kwargs), max_tokens)

    # Built through the model's own metaclass so that Pydantic sees the name (the
    # schema's title, hence the tool name) and the docstring (the tool description).
    namespace = {
        "model_json_schema": classmethod(model_json_schema),
        "__module__": model.__module__,
        "__qualname__": model.__qualname__,
        "__doc__": model.__doc__,
    }
    metaclass: Any = type(model)
    return cast(type[BaseModel], metaclass(model.__name__, (model,), namespace))


@functools.lru_cache(maxsize=256)
def fenced_json_grammar(model: type[BaseModel]) -> str:
    """A GBNF grammar (llama.cpp) for a ```json fenced block holding an object of
    ``model``'s schema, bounds kept as :func:`grammar_schema` keeps them: what
    Markdown-JSON mode asks for, made the only thing the server can write."""
    try:
        from llama_cpp.llama_grammar import json_schema_to_gbnf
    except ImportError as exc:  # pragma: no cover - grammar_field is set for llama.cpp servers
        raise ConfigError(
            "grammar_field needs llama-cpp-python: pip install 'answerx[local]'"
        ) from exc
    # A grammar_model's schema is rewritten already (rewriting is idempotent).
    grammar = json_schema_to_gbnf(json.dumps(grammar_schema(model.model_json_schema())))
    # The converter names its start rule "root"; wrap it in the code fence.
    body = re.sub(r"^root ::=", "json-object ::=", grammar, count=1, flags=re.MULTILINE)
    return 'root ::= "```json\\n" json-object "\\n```"\n' + body
