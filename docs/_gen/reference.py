"""The generated reference pages: every CLI command and option, every setting.

Rendered at build time (``hooks.py``) from the objects the program itself uses — the
typer app, the service's settings model, the experiment config models — so a command,
option or key added to the code appears on the site without anyone editing a page.
``tests/docs/test_site.py`` checks the built pages against the same objects.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

#: Environment variables read outside the settings models, with what each does. The
#: test fails when the source reads an ``ANSWERX_*`` variable that neither this table nor
#: a settings model names, so a new variable cannot stay undocumented.
OTHER_VARIABLES: dict[str, str] = {
    "ANSWERX_HOME": "Where answerx keeps the user's state: the results store "
    "(`answerx.db`), the response cache (`cache.db`), reports. Default: `./runs`.",
    "ANSWERX_PROMPT_DIR": "A folder of prompt templates that override the bundled ones "
    "(`prompts/`), file by file.",
    "ANSWERX_PROVIDERS": "A YAML file of providers merged over the bundled "
    "`config/providers.yaml` (a new OpenAI-compatible server is one entry).",
    "ANSWERX_PRICES": "A YAML file (or folder of them) of model prices merged over the "
    "bundled price table; cost caps need the model's price.",
    "ANSWERX_LOCAL_GGUF": "The GGUF file `answerx model serve` and the `local` provider start "
    "(default: the bundled SmolLM2-135M-Instruct).",
    "ANSWERX_LOCAL_URL": "An already running OpenAI-compatible local server the `local` "
    "provider uses instead of starting one.",
}


def _cell(text: object) -> str:
    """One Markdown table cell: no pipes or newlines to break the row."""
    return " ".join(str(text).split()).replace("|", "\\|")


# typer vendors its own click (typer._click), so commands are read by their attributes.
def _commands(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    if getattr(command, "hidden", False):
        return
    yield path, command
    if hasattr(command, "commands"):
        for name in sorted(command.commands):
            yield from _commands(command.commands[name], (*path, name))


def cli_commands() -> list[tuple[str, Any]]:
    """Every visible command of ``answerx``, as ``("answerx runs list", command)`` pairs."""
    import typer

    from answerx.cli import app

    root = typer.main.get_command(app)
    return [(" ".join(path), command) for path, command in _commands(root, ("answerx",))]


def visible_options(command: Any) -> list[Any]:
    """The parameters ``--help`` shows (hidden ones, deprecated spellings, are left out)."""
    return [p for p in command.params if not getattr(p, "hidden", False)]


def _default(param: Any) -> str:
    show = getattr(param, "show_default", None)
    if isinstance(show, str):
        return show
    default = param.default
    if getattr(param, "is_flag", False):
        return "on" if default is True else ""
    if default is None or callable(default) or default in ((), []) or _unset(default):
        return ""
    return str(default)


def _unset(value: object) -> bool:
    # click >= 8.3 marks "no default" with a sentinel of its own rather than None.
    return type(value).__name__.lower().endswith("unset") or repr(value) == "Sentinel.UNSET"


def render_cli() -> str:
    """The CLI reference: each command's help, usage and a table of its parameters."""
    out: list[str] = []
    for name, command in cli_commands():
        depth = name.count(" ")
        out.append(f"{'#' * min(depth + 1, 4)} `{name}`\n")
        if command.help:
            out.append(_help_text(command.help) + "\n")
        ctx = command.context_class(command, info_name=name)
        pieces = command.collect_usage_pieces(ctx)
        out.append(f"```text\nUsage: {name} {' '.join(pieces)}\n```\n")
        params = visible_options(command)
        if params:
            out.append("| parameter | type | default | help |\n|---|---|---|---|")
            for param in params:
                names = ", ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
                kind = param.display_type(ctx).strip("<>") if hasattr(param, "display_type") else ""
                if getattr(param, "is_flag", False):
                    kind = "flag"
                if param.param_type_name == "argument":
                    kind = f"argument ({kind})" if kind else "argument"
                help_text = getattr(param, "help", None) or ""
                out.append(
                    f"| {names} | {_cell(kind)} | {_cell(_default(param))} | {_cell(help_text)} |"
                )
            out.append("")
    return "\n".join(out)


def _help_text(text: str) -> str:
    # click's \b marks a paragraph it must not rewrap; in Markdown it is a code block.
    paragraphs = []
    for block in text.strip().split("\n\n"):
        if block.startswith("\b"):
            paragraphs.append("```text\n" + block.removeprefix("\b").strip("\n") + "\n```")
        else:
            paragraphs.append(block.strip())
    return "\n\n".join(paragraphs)


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _type_name(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(annotation))
    if origin is typing.Literal:
        return " / ".join(repr(a) for a in typing.get_args(annotation))
    if origin is not None:
        args = ", ".join(_type_name(a) for a in typing.get_args(annotation))
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    if annotation is type(None):
        return "none"
    if annotation is Ellipsis:
        return "..."
    return getattr(annotation, "__name__", str(annotation))


def _field_default(field: FieldInfo) -> str:
    if field.default is not PydanticUndefined:
        return "" if field.default is None else repr(field.default)
    if field.default_factory is not None:
        try:
            value = field.default_factory()  # type: ignore[call-arg]
        except Exception:  # a factory that needs validated data: say so rather than guess
            return "(computed)"
        text = repr(value)
        return text if len(text) <= 40 else "(computed)"
    return "required"


def _nested_models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in typing.get_args(annotation) for m in _nested_models(a)]


def config_keys(
    model: type[BaseModel], prefix: str = ""
) -> Iterator[tuple[str, FieldInfo, type[BaseModel]]]:
    """Every key of an experiment config, nested ones as ``judge.max_calls``."""
    for name, field in model.model_fields.items():
        key = f"{prefix}{field.alias or name}"
        yield key, field, model
        for nested in _nested_models(field.annotation):
            if nested is not model:
                yield from config_keys(nested, f"{key}.")


def render_config() -> str:
    """The configuration reference: environment variables, then experiment config keys."""
    from answerx.experiments.config import ExperimentConfig
    from answerx.service.settings import ENV_VARS, ServiceSettings
    from answerx.service.verify_schemas import REWARD_ENV_VARS, RewardSettings

    out = ["## Environment variables\n", "| variable | what it sets | default |", "|---|---|---|"]
    for where, model, variables in (
        ("`answerx serve`", ServiceSettings, ENV_VARS),
        ("`/v1/reward`", RewardSettings, REWARD_ENV_VARS),
    ):
        for field_name, variable in variables.items():
            field = model.model_fields[field_name]
            out.append(
                f"| `{variable}` | {where}: {_cell(field.description or '')} "
                f"| {_cell(_field_default(field))} |"
            )
    for variable, meaning in OTHER_VARIABLES.items():
        out.append(f"| `{variable}` | {_cell(meaning)} | |")
    out += [
        "\n## Experiment config keys\n",
        "The keys of an experiment config (`answerx run CONFIG.yaml`); nested keys are "
        "written with dots.\n",
        "| key | type | default | meaning |",
        "|---|---|---|---|",
    ]
    seen: set[str] = set()
    for key, field, _owner in config_keys(ExperimentConfig):
        if key in seen:
            continue
        seen.add(key)
        out.append(
            f"| `{key}` | {_cell(_type_name(field.annotation))} "
            f"| {_cell(_field_default(field))} | {_cell(field.description or '')} |"
        )
    return "\n".join(out) + "\n"
