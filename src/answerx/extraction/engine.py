"""``extract()``: run the rule table over a raw output and report what was found."""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from answerx.errors import InputError
from answerx.extraction.finish import unfinished_reason
from answerx.extraction.models import FALLBACKS, OPTION_LETTERS, TASKS, Extraction, Fallback, Task
from answerx.extraction.regions import answer_regions
from answerx.extraction.rules import FALLBACK_TIER, Found, Rule, marker_rules, rules_for
from answerx.extraction.special_tokens import (
    blank_special_tokens,
    end_of_sequence,
    ended_by_token,
)
from answerx.extraction.tasks import Acceptor, item_task, make_acceptors
from answerx.extraction.values import count_values

__all__ = ["extract"]

log = logging.getLogger("answerx.extraction")
_GAME24_INPUT = re.compile(r"^[ \t]*Input:[ \t]*(\d+(?:[ \t]+\d+){3})[ \t]*$", re.MULTILINE)
_RULES_FOR = {task: rules_for(task) for task in TASKS}
_MARKERS_FOR = {task: marker_rules(task) for task in TASKS}
# Every result is built by the model's own validator from a dict: the same validation
# and the same model as ``Extraction(**fields)``, without ``BaseModel.__init__``'s
# keyword packing and Python frame (about 0.6 µs of a typical call's 20).
_build: Callable[[dict[str, Any]], Extraction] = Extraction.__pydantic_validator__.validate_python


def extract(
    raw_output: str,
    task: Task | str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    finish_reason: str | None = None,
    fallback: Fallback = "auto",
) -> Extraction:
    """Get the final answer out of ``raw_output`` without calling any LLM.

    Explicit markers are tried first (``<answer>`` block; then ``\\boxed{}`` and
    JSON ``"answer"`` fields; then "the answer is"/"Final Answer:"/``####``
    phrases and ``Output:`` lines), then the task's fallback (last expression,
    last number, choice letter, bottom-up line scan). The result always names the
    rule that found the answer; when nothing is found ``method`` is ``"none"``.

    What a marker states is the answer even when it is wrong or malformed;
    ``valid``/``problem`` judge its shape. ``finish_reason`` is the provider's
    (``"length"`` makes the output certainly unfinished, ``"stop"`` certainly
    finished); on an unfinished output a fallback rule does not answer unless
    ``fallback="always"`` (its guess is kept in ``candidate``); ``fallback="never"``
    turns the fallback rules off.

    >>> extract("The final answer to 'What is 2+2?' is 4.").answer
    '4'
    >>> cut = extract("<think>36 + 4 = 40. Hmm, wait, maybe")
    >>> cut.answer, cut.unfinished, cut.candidate
    (None, True, '40')
    """
    if not isinstance(raw_output, str):
        raise InputError(f"raw_output must be a string, not {type(raw_output).__name__}")
    task = item_task(task)  # checked first: a bad name fails before the inputs are read
    if choices is not None:
        choices = _checked_choices(choices)
    if numbers is not None:
        numbers = _checked_numbers(numbers)
    if finish_reason is not None and not isinstance(finish_reason, str):
        raise InputError(
            f"finish_reason must be a string or None, not {type(finish_reason).__name__}"
        )
    if fallback not in FALLBACKS:
        raise InputError(f"fallback must be one of {', '.join(FALLBACKS)}, not {fallback!r}")
    if task == "auto" and (choices or numbers):
        task = item_task(task, choices, numbers)  # (checked once above: only auto resolves)
    if task == "auto" and "Input:" in raw_output:
        # A Game-of-24 transcript states its numbers: "Input: 4 9 10 13".
        given = _GAME24_INPUT.search(raw_output)
        if given:
            task, numbers = "game24", [int(n) for n in given.group(1).split()]
    stated, strict = make_acceptors(task, choices, numbers)
    rules = _MARKERS_FOR[task] if fallback == "never" else _RULES_FOR[task]

    # The rules read the output without its chat-template tokens (blanked in place, so
    # every span still points into raw_output); a run-on past an end-of-sequence token
    # is searched last.
    text = blank_special_tokens(raw_output)
    stop = None
    if text is not raw_output:  # the usual output has no token: the same string back
        stop = end_of_sequence(raw_output)
        if finish_reason is None and ended_by_token(raw_output):
            finish_reason = "stop"  # an end-of-sequence token: the model stopped by itself
    lower = ascii_lower(text)
    for region in answer_regions(text, lower, stop):
        found, rule = _run(text, lower, region.lo, region.hi, rules, stated, strict)
        if found is None or rule is None:
            continue
        # A base model that answered and went on with a new question: what matters
        # is whether its own part ended, not the new question it started.
        upto, low = (text[: region.hi], lower[: region.hi]) if region.cut else (text, lower)
        if region.hi == stop and finish_reason is None:
            finish_reason = "stop"  # the model's own part ended with its end token
        if found.stated_empty:
            why = unfinished_reason(upto, low, finish_reason, answer_end=found.marker_end)
            return _nothing(raw_output, task, found, unfinished=why is not None)
        if rule.tier >= FALLBACK_TIER:
            why = unfinished_reason(upto, low, finish_reason, choices=choices)
            if why is not None and fallback == "auto":
                log.debug("unfinished output (%s): fallback %s not used", why, rule.name)
                return _nothing(raw_output, task, found, unfinished=True, guess=True)
        else:
            why = unfinished_reason(upto, low, finish_reason, answer_end=found.marker_end)
        confidence = rule.confidence * region.factor * (0.65 if found.weak else 1.0)
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "extracted %r via %s from candidate %r", found.answer, rule.name, found.candidate
            )
        result = _build(
            {
                "answer": found.answer,
                "method": rule.name,
                "confidence": round(confidence, 4),
                "task": found.task,
                "candidate": found.candidate,
                "span": (found.start, found.end),
                "reasoning": raw_output[: found.marker_start] + raw_output[found.marker_end :],
                "raw_output": raw_output,
                "valid": True,
            }
        )
        answer = found.answer
        # Several values need a separator: most answers ("42", "B") have none, and skip the count.
        count = count_values(answer, found.task) if " " in answer or "," in answer else 1
        if found.problem is None and why is None and count == 1:
            # The usual case: problem, unfinished and value_count keep their defaults (a
            # default costs nothing, a passed value is validated).
            return result
        verdict = {
            "valid": found.problem is None,
            "problem": found.problem,
            "unfinished": why is not None,
            "value_count": count,
        }
        return result.model_copy(update=verdict)  # our own values: nothing to revalidate
    why = unfinished_reason(text, lower, finish_reason, choices=choices)
    return _nothing(raw_output, task, None, unfinished=why is not None)


def _nothing(
    raw_output: str, task: Task, found: Found | None, *, unfinished: bool, guess: bool = False
) -> Extraction:
    """No answer: nothing found, an explicitly empty answer, or (``guess``) a fallback's
    guess on an unfinished output, kept in ``candidate``."""
    return _build(
        {
            "answer": None,
            "method": "none",
            "confidence": 0.0,
            "task": task,
            "candidate": None if found is None else (found.answer if guess else found.candidate),
            "span": None if found is None else (found.start, found.end),
            "reasoning": raw_output,
            "raw_output": raw_output,
            "unfinished": unfinished,
            "value_count": 0,
        }
    )


def _checked_choices(choices: object) -> Sequence[str] | None:
    """``choices`` as given when it is a sequence of strings (or None); else InputError."""
    if choices is None:
        return None
    if type(choices) is list and len(choices) <= len(OPTION_LETTERS):
        # The usual case, checked fast: str.join type-checks every item in C (a loop of
        # isinstance calls cost more than the rest of the setup); its TypeError falls
        # through to the checks below, which name the bad option.
        try:
            "".join(choices)
        except TypeError:
            pass
        else:
            return choices
    if isinstance(choices, str | bytes) or not isinstance(choices, Sequence):
        raise InputError(
            f"choices must be a list of option texts (strings), not {type(choices).__name__}"
        )
    for i, option in enumerate(choices):
        if not isinstance(option, str):
            raise InputError(
                f"choices[{i}] must be a string (an option's text), "
                f"not {type(option).__name__}: {option!r}"
            )
    if len(choices) > len(OPTION_LETTERS):
        raise InputError(f"at most {len(OPTION_LETTERS)} choices (A-Z), got {len(choices)}")
    return choices


def _checked_numbers(numbers: object) -> Sequence[int | float] | None:
    """``numbers`` as given when it is a sequence of finite numbers (or None); else InputError."""
    if numbers is None:
        return None
    if type(numbers) is list and set(map(type, numbers)) <= {int}:
        return numbers  # the usual case, checked fast
    if isinstance(numbers, str | bytes) or not isinstance(numbers, Sequence):
        raise InputError(
            f"numbers must be a list of numbers (e.g. [4, 9, 10, 13]), not {type(numbers).__name__}"
        )
    for i, n in enumerate(numbers):
        if isinstance(n, bool) or not isinstance(n, int | float) or not math.isfinite(n):
            raise InputError(f"numbers[{i}] must be a finite number, not {n!r}")
    return numbers


def ascii_lower(text: str) -> str:
    """``text`` with A-Z lowercased and every index unchanged.

    ``str.lower`` may change the length of non-ASCII text ("İ" becomes two code
    points), which would shift every span, so it is only used on ASCII text.
    """
    lower = text.lower()
    # Lowercasing never shortens a character, so equal lengths mean every index
    # still lines up; only text that grew needs the (slow) ASCII-only mapping.
    return lower if len(lower) == len(text) else text.translate(_ASCII_LOWER)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _run(
    text: str,
    lower: str,
    lo: int,
    hi: int,
    rules: tuple[Rule, ...],
    stated: Acceptor,
    strict: Acceptor,
) -> tuple[Found | None, Rule | None]:
    """The best candidate of the first tier that has one. Explicit markers take what
    they state (``stated``); fallbacks need the task's shape (``strict``)."""
    best: Found | None = None
    best_rule: Rule | None = None
    tier = rules[0].tier
    for rule in rules:
        if rule.tier != tier:
            if best is not None:
                return best, best_rule
            tier = rule.tier
        found = rule.find(text, lower, lo, hi, strict if rule.strict else stated)
        # Inside a tier the later statement wins; on a tie (a box inside a phrase)
        # the rule listed first keeps it.
        if found is not None and (best is None or found.end > best.end):
            best, best_rule = found, rule
    return best, best_rule
