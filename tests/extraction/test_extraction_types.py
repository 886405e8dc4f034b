"""The public types of extraction, pinned: a method or a field added to or dropped from
``Extraction`` is a change of the public API (and of every stored or served result), so it
fails here until this table changes with it."""

from __future__ import annotations

from answerx import Extraction
from answerx.extraction import METHODS
from answerx.extraction.rules import RULES, fallback_rules, rules_for

PINNED_METHODS = (
    "answer_block",
    "boxed",
    "json_answer",
    "final_answer_phrase",
    "output_line",
    "choice_phrase",
    "whole_output",
    "leading_answer",
    "choice_letter",
    "choice_text",
    "last_expression",
    "last_number",
    "number_guess",
    "bottom_scan",
    "truth_predicate",
    "structured_llm",
    "none",
)
PINNED_FIELDS = (
    "answer",
    "method",
    "confidence",
    "task",
    "candidate",
    "span",
    "reasoning",
    "raw_output",
    "valid",
    "problem",
    "unfinished",
    "value_count",
)


def test_the_methods_are_pinned() -> None:
    assert PINNED_METHODS == METHODS


def test_the_extraction_fields_are_pinned() -> None:
    assert tuple(Extraction.model_fields) == PINNED_FIELDS


def test_every_method_but_the_llm_and_none_is_a_rule_of_the_table() -> None:
    from answerx.extraction import TASKS

    names = {rule.name for task in TASKS for rule in rules_for(task)}
    assert names == set(METHODS) - {"structured_llm", "none"}


def test_rules_run_in_tier_order_and_the_fallbacks_need_the_tasks_shape() -> None:
    from answerx.extraction import TASKS

    for task in TASKS:
        tiers = [rule.tier for rule in rules_for(task)]
        assert tiers == sorted(tiers), task
        assert all(rule.strict for rule in fallback_rules(task))


def test_explicit_markers_score_at_least_the_marker_confidence() -> None:
    from answerx.reasoning import MARKER_CONFIDENCE

    assert MARKER_CONFIDENCE == min(rule.confidence for rule in RULES) == 0.85
    from answerx.extraction import TASKS

    for task in TASKS:
        for rule in rules_for(task):
            assert (rule.confidence >= MARKER_CONFIDENCE) is (rule.tier < 800), rule
