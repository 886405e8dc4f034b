"""The UltraRAG search-agent helpers of ``answerx.agent.search``."""

from __future__ import annotations

import pytest

from answerx.agent.search import (
    PAD,
    CitationRegistry,
    RunningList,
    SearchO1Lists,
    assign_citation_ids,
    format_passages,
    ircot_first_sentence,
    iter_retgen_query,
    merge_passages,
)
from answerx.extraction.queries import extract_query
from answerx.retrieval import Passage


def _p(pid: str, text: str | None = None) -> Passage:
    return Passage(id=pid, contents=text if text is not None else pid.upper())


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("  Reyl founded Lumen Rail. He was born in 1852.", "Reyl founded Lumen Rail."),
        ("Who built it? The dam.", "Who built it?"),
        ("It works! Then more.", "It works!"),
        ("莱尔创立了铁路公司。他出生于1852年。", "莱尔创立了铁路公司。"),
        ("是谁？不知道", "是谁？"),
        ("真的！好", "真的！"),
        ("  no terminator at all  ", "no terminator at all"),
        ("", ""),
        ("Version 3.5 shipped.", "Version 3."),  # IRCoT's rule: a period ends a sentence
    ],
)
def test_ircot_first_sentence_keeps_its_terminator(text: str, first: str) -> None:
    assert ircot_first_sentence(text) == first


def test_iter_retgen_query_appends_the_previous_generation_as_given() -> None:
    # UltraRAG's f"{q} {ans}": the generation as it is, spaces and all.
    assert iter_retgen_query("Who founded it?", " Tomasz Reyl ") == "Who founded it?  Tomasz Reyl "
    assert iter_retgen_query("Who founded it?", "") == "Who founded it? "
    # None: no previous round yet, so the question alone.
    assert iter_retgen_query("Who founded it?", None) == "Who founded it?"


def test_the_first_real_entry_replaces_the_pad_placeholder_and_later_ones_append() -> None:
    lists = SearchO1Lists()
    assert lists.queries.items == [PAD] and lists.queries.entries == []

    lists.queries.add("")  # not a real entry
    lists.queries.add(PAD)
    assert lists.queries.items == [PAD]

    lists.queries.add("founder of Lumen Rail")
    lists.queries.add("birthplace of Tomasz Reyl")
    assert lists.queries.items == ["founder of Lumen Rail", "birthplace of Tomasz Reyl"]
    assert "founder of Lumen Rail" in lists.queries
    assert lists.reasoning.items == [PAD]  # each list runs on its own


def test_running_lists_are_not_shared_between_instances() -> None:
    a, b = RunningList(), RunningList()
    a.add("x")
    assert b.items == [PAD]


def test_merge_passages_keeps_each_id_once_in_first_seen_order() -> None:
    merged = merge_passages([_p("a"), _p("b")], [_p("b", "other"), _p("c")])
    assert [(p.id, p.contents) for p in merged] == [("a", "A"), ("b", "B"), ("c", "C")]
    assert [p.id for p in merge_passages([_p("a"), _p("b"), _p("c")], limit=2)] == ["a", "b"]


def test_format_passages_puts_the_title_line_in_the_doc_header() -> None:
    text = format_passages([_p("x", "Lumen Rail\nA railway company."), _p("y", "untitled text")])
    assert (
        text
        == "Doc 1(Title: Lumen Rail) A railway company.\nDoc 2(Title: untitled text) untitled text"
    )


def test_assign_citation_ids_numbers_each_question_from_one() -> None:
    assert assign_citation_ids([[_p("a"), "plain"], [_p("c")], []]) == [
        ["[1] A", "[2] plain"],
        ["[1] C"],
        [],
    ]


def test_a_passage_keeps_its_citation_number_across_steps() -> None:
    registry = CitationRegistry()
    assert registry.cite("q7", [_p("a"), _p("b")]) == ["[1] A", "[2] B"]
    assert registry.cite("q7", [_p("c"), _p("a")]) == ["[3] C", "[1] A"]
    assert registry.citations("q7") == {"a": 1, "b": 2, "c": 3}


def test_citation_numbers_follow_the_question_id_not_its_batch_position() -> None:
    registry = CitationRegistry()
    registry.cite("q1", [_p("a")])
    registry.cite("q2", [_p("b"), _p("c")])
    # q1 finished and dropped out of the batch: q2 is now first, its numbers stay.
    assert registry.cite("q2", [_p("c")]) == ["[2] C"]


def test_reset_forgets_one_question_or_all() -> None:
    registry = CitationRegistry()
    registry.cite("q1", [_p("a"), _p("b")])
    registry.cite("q2", [_p("b")])
    registry.reset("q1")
    assert registry.cite("q1", [_p("b")]) == ["[1] B"]
    assert registry.citations("q2") == {"b": 1}
    registry.reset()
    assert registry.citations("q1") == {} and registry.citations("q2") == {}


def test_registries_are_independent_instances() -> None:
    one, two = CitationRegistry(), CitationRegistry()
    one.cite("q", [_p("a")])
    assert two.cite("q", [_p("b")]) == ["[1] B"]


def test_a_closed_r1_searcher_query_does_not_swallow_its_closing_tag() -> None:
    # Upstream's <|begin_of_query|>([^<]*) stops at any '<' and misreads closed tags.
    turn = "Let me look.<|begin_of_query|>Lumen Rail founder<|end_of_query|>"
    found = extract_query(turn, formats=["r1_searcher"])
    assert (found.query, found.complete) == ("Lumen Rail founder", True)
