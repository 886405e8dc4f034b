"""Rendering the approach templates of ``prompts/`` for one question.

Every template may use ``$question``, ``$choices_block`` (the options, lettered
A, B, C…, or nothing) and ``$answer_hint`` (the expected answer shape, such as "a
single number in digits"); step templates get their own fields on top (listed in
each approach's docstring). A user directory (``prompt_dir=``, or the
``ANSWERX_PROMPT_DIR`` environment variable) overrides any bundled template.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from answerx.errors import ConfigError
from answerx.extraction.models import OPTION_LETTERS
from answerx.extraction.spec import AnswerSpec
from answerx.support.resources import prompt_template

__all__ = ["PromptBook", "choices_block"]


def choices_block(choices: Sequence[str] | None) -> str:
    """The options as lettered lines (``A. Paris``), framed by blank lines; "" without choices."""
    if not choices:
        return ""
    lines = "\n".join(f"{OPTION_LETTERS[i]}. {choice}" for i, choice in enumerate(choices))
    return f"\nOptions:\n{lines}\n"


@dataclass(frozen=True, slots=True)
class PromptBook:
    """The templates of one question: the common fields filled in once."""

    fields: Mapping[str, str]
    prompt_dir: str | Path | None = None

    @classmethod
    def for_question(
        cls, question: str, spec: AnswerSpec, prompt_dir: str | Path | None = None
    ) -> PromptBook:
        fields = {
            "question": question.strip(),
            "choices_block": choices_block(spec.choices),
            "answer_hint": spec.hint,
        }
        return cls(fields, prompt_dir)

    def render(self, name: str, **extra: object) -> str:
        """Template ``name`` with the common fields and ``extra`` substituted.

        A template that names an unknown field, or holds a lone ``$`` (write ``$$``
        for a dollar sign), raises :class:`ConfigError` naming the fields it may use.
        """
        template = prompt_template(name, self.prompt_dir)
        values = {**self.fields, **{key: str(value) for key, value in extra.items()}}
        try:
            # Trailing newlines of template files are not part of the prompt.
            return template.substitute(values).rstrip()
        except (KeyError, ValueError) as exc:
            raise ConfigError(
                f"prompt template {name!r} cannot be filled in ({exc!s}); it may use "
                + ", ".join(f"${key}" for key in sorted(values))
                + " (write $$ for a literal dollar sign)"
            ) from None

    def user(self, name: str, **extra: object) -> dict[str, str]:
        """Template ``name`` rendered as a user message."""
        return {"role": "user", "content": self.render(name, **extra)}
