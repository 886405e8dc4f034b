"""The link from a test to the seed document it follows (docs/SEEDS.md).

``@seed_example(seed, line, quote)`` says the test feeds that seed's own example: ``quote``
is text of line ``line`` of ``../shared/seeds/<seed>_….txt``. With ``option=`` the test
asserts the seed's behaviour *through that option* (answerx's default differs), and the
test asserts answerx's default as well. ``tests/seeds/test_seeds_table.py`` reads these
decorators from the source (no import), checks each quote against its seed file, and
checks that a row labelled ``same`` names no test with an option, and a row labelled
``differs`` names one whose option its text gives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class SeedExample:
    """One seed example a test feeds: where it is quoted from, and the option used."""

    seed: str
    line: int
    quote: str
    option: str | None = None


def seed_example(
    seed: str, line: int, quote: str, *, option: str | None = None
) -> Callable[[F], F]:
    """Mark a test as feeding ``seed``'s example quoted from ``line`` (see the module)."""

    def mark(test: F) -> F:
        examples = (*getattr(test, "seed_examples", ()), SeedExample(seed, line, quote, option))
        test.seed_examples = examples  # type: ignore[attr-defined]
        return test

    return mark
