"""Finding answerx's data files: ``config/`` and ``prompts/`` (user prompt overrides too).

In a wheel they are packaged under ``answerx/_data/``; in a source checkout
(an editable install, the tests) they are the repository's own top-level
folders. One function hides the difference.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from string import Template

from answerx.errors import ConfigError

__all__ = ["PROMPT_DIR_ENV", "data_file", "prompt_template"]

_PACKAGE_DATA = Path(__file__).resolve().parents[1] / "_data"
_CHECKOUT = Path(__file__).resolve().parents[3]


def data_file(relative: str) -> Path:
    """The path of a bundled data file such as ``"config/providers.yaml"``."""
    for root in (_PACKAGE_DATA, _CHECKOUT):
        path = root / relative
        if path.is_file():
            return path
    raise ConfigError(f"bundled file {relative!r} not found (broken installation?)")


PROMPT_DIR_ENV = "ANSWERX_PROMPT_DIR"


def prompt_template(name: str, prompt_dir: str | Path | None = None) -> Template:
    """The prompt template ``name`` (``prompts/<name>.txt``) as a :class:`string.Template`.

    A user directory of templates overrides any bundled one: ``prompt_dir``, else
    the ``ANSWERX_PROMPT_DIR`` environment variable. ``string.Template`` rather
    than Jinja or ``str.format`` because prompts quote LaTeX, whose braces those
    would take for placeholders.
    """
    override = prompt_dir if prompt_dir is not None else os.environ.get(PROMPT_DIR_ENV)
    if override:
        folder = Path(override)
        if not folder.is_dir():
            raise ConfigError(f"prompt directory {str(folder)!r} does not exist")
        candidate = folder / f"{name}.txt"
        if candidate.is_file():
            return _read_template(candidate, candidate.stat().st_mtime_ns)
    try:
        path = data_file(f"prompts/{name}.txt")
    except ConfigError:
        raise ConfigError(f"no prompt template named {name!r}") from None
    return _read_template(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _read_template(path: Path, mtime_ns: int) -> Template:
    # Keyed by modification time: an edited template is read again, an unchanged one
    # costs a stat() instead of a read per call (runs render prompts thousands of times).
    return Template(path.read_text(encoding="utf-8"))
