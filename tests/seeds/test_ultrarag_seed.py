"""UltraRAG's extraction tools and SurveyCPM (seed 002), tool by tool, on what each tool's
description says it does."""

from __future__ import annotations

import inspect
import json

import pytest

from answerx import extract
from answerx.agent.search import (
    PAD,
    CitationRegistry,
    SearchO1Lists,
    assign_citation_ids,
    ircot_first_sentence,
    iter_retgen_query,
    merge_passages,
    search_r1_query_extract,
)
from answerx.agent.survey import (
    MAX_EXTEND_STEP,
    MAX_STEP,
    SurveyRun,
    format_survey,
    interleave_passages,
    parse_response,
    transition,
    validate_action,
    write_survey,
)
from answerx.extraction.queries import (
    NO_QUERY,
    extract_final_information,
    extract_query,
)
from answerx.reasoning.search_loops import IterRetGenSettings, SearchR1Settings
from answerx.retrieval import Passage
from seeds.seed_examples import seed_example

# ----------------------------------------------------------------------- Search-R1 and co.


def _search_r1(turn: str) -> str | None:
    return extract_query(
        turn, formats=["search_r1"], default=NO_QUERY, complete_question=True
    ).query


@seed_example("002", 10, 'Uses regex r"<search>([^<]*)" to extract the content inside the last')
@seed_example("002", 10, "if the query does not end with ?, it is automatically completed",
              option="search_r1_query_extract")  # fmt: skip
def test_search_r1_query_extract_takes_the_last_search_and_completes_the_question() -> None:
    turn = "<search>Tarn Valley Railway</search> no. <search> who founded Lumen Rail </search>"
    # The same in both readings: the last query, "?" added; none → "There is no query."
    for read in (_search_r1, search_r1_query_extract):
        assert read(turn) == "who founded Lumen Rail?"
        assert read("no tags") == read("<SEARCH>x</SEARCH>") == "There is no query."

    # Where [^<]* reads otherwise, answerx keeps the query whole and skips an empty tag;
    # search_r1_query_extract reads as the tool.
    cases = {
        "<search>rivers with length < 100 km</search>": (
            "rivers with length < 100 km?", "rivers with length?"),
        "<search>a</search><search></search>": ("a?", "?"),
    }  # fmt: skip
    for turn, (answerx_query, tool_query) in cases.items():
        assert (_search_r1(turn), search_r1_query_extract(turn)) == (answerx_query, tool_query)


@seed_example("002", 10, "If not found, returns “There is no query.”")
def test_the_search_r1_loop_asks_for_the_question_mark_and_there_is_no_query() -> None:
    # The loop does what the tool does (tests/reasoning/test_search_loops.py drives it).
    assert SearchR1Settings().no_query == "search"


@seed_example("002", 17, "to extract the last tag content")
def test_r1_searcher_query_extract_takes_the_last_query_tag() -> None:
    turn = "<|begin_of_query|>Tarn Valley<|end_of_query|> then <|begin_of_query|>Lumen Rail\tReyl"

    assert extract_query(turn, formats=["r1_searcher"]).query == "Lumen Rail\tReyl"


@seed_example("002", 26, 'next_query = f"{q} {ans}"')
def test_iterretgen_nextquery_joins_the_question_and_the_generation() -> None:
    generation = "The railway is run by Lumen Rail."

    assert iter_retgen_query("Who founded it?", generation) == f"Who founded it? {generation}"
    # Any value, written as the f-string writes it; an empty one keeps the space.
    assert iter_retgen_query("Who founded it?", 42) == "Who founded it? 42"
    assert iter_retgen_query("Who founded it?", "") == "Who founded it? "
    assert IterRetGenSettings().next_query == "generation"


@seed_example("002", 32, "up to period or question/exclamation mark")
def test_ircot_get_first_sent_ends_at_a_period_question_or_exclamation_mark() -> None:
    assert ircot_first_sentence("Lumen Rail runs it. Reyl founded it!") == "Lumen Rail runs it."
    assert ircot_first_sentence("Who runs it? Lumen Rail.") == "Who runs it?"


@seed_example("002", 39, "Matches content after so the answer is [...]")
def test_ircot_extract_ans_reads_what_follows_so_the_answer_is() -> None:
    reasoning = "Lumen Rail runs the railway. Reyl founded it. So the answer is Tomasz Reyl."

    assert extract(reasoning, "text").answer == "Tomasz Reyl"


# ----------------------------------------------------------------------- Search-o1


@seed_example("002", 47, "initially filled with <PAD>")
@seed_example("002", 53, "Appends the extracted Query and Reasoning of the current step")
def test_search_o1_lists_start_as_pad_and_the_steps_are_appended() -> None:
    lists = SearchO1Lists()
    assert lists.queries.items == lists.reasoning.items == lists.information.items == [PAD]

    for query, reasoning in [("q1", "r1"), ("q2", "r2")]:
        lists.queries.add(query)
        lists.reasoning.add(reasoning)

    assert (lists.queries.entries, lists.reasoning.entries) == (["q1", "q2"], ["r1", "r2"])


@seed_example("002", 59, "Extracts content between <|begin_search_query|>...<|end_search_query|>")
@seed_example("002", 65, "Extracts all text before <|begin_search_query|> as the reasoning")
def test_search_o1_query_and_reasoning_extract() -> None:
    turn = "I need the founder.\n<|begin_search_query|>Lumen Rail founder<|end_search_query|>"

    found = extract_query(turn, formats=["search_o1"])

    assert (found.query, found.reasoning) == ("Lumen Rail founder", "I need the founder.")


@seed_example("002", 71, "Extracts content after **Final Information** marker.")
def test_search_o1_extract_final_information_takes_what_follows_the_marker() -> None:
    text = "Page 2 names him.\n**Final Information**\nLumen Rail was founded by Tomasz Reyl."

    assert extract_final_information(text).query == "Lumen Rail was founded by Tomasz Reyl."


# ----------------------------------------------------------------------- utilities


@seed_example("002", 79, "Supports nested bracket handling and format cleaning.")
def test_output_extract_from_boxed_handles_nested_braces() -> None:
    assert extract("So the result is \\boxed{\\frac{1}{2}}.", "math").answer == "\\frac{1}{2}"


@seed_example("002", 91, "Extracts answer from <answer>...</answer> tags.")
def test_evisrag_output_extract_from_special_reads_the_answer_tags() -> None:
    assert extract("Looking at page 3.<answer>Lumen Rail</answer>", "text").answer == "Lumen Rail"


def _p(pid: str) -> Passage:
    return Passage(id=pid, contents=pid.upper())


@seed_example("002", 85, "Appends temp_psg list to ret_psg list.", option="dedupe=False")
def test_merge_passages_appends_the_new_passages() -> None:
    old, new = [_p("a"), _p("b")], [_p("c"), _p("b")]

    # Appended in order; answerx's default keeps each passage once.
    assert [p.id for p in merge_passages(old, new)] == ["a", "b", "c"]
    # The tool's plain append, repeats included.
    assert [p.id for p in merge_passages(old, new, dedupe=False)] == ["a", "b", "c", "b"]


@seed_example("002", 95, "Assigns citation IDs in the form of [1], [2] to retrieved passages.")
def test_assign_citation_ids_numbers_passages_from_one() -> None:
    assert assign_citation_ids([[_p("a"), _p("b")]]) == [["[1] A", "[2] B"]]


@seed_example("002", 96, "maintain global citation IDs (cross-step deduplication)")
@seed_example("002", 97, "init_citation_registry: Resets global citation registry.")
def test_the_stateful_citation_registry_keeps_numbers_across_steps_and_resets() -> None:
    registry = CitationRegistry()
    assert registry.cite("q1", [_p("a"), _p("b")]) == ["[1] A", "[2] B"]
    assert registry.cite("q1", [_p("b"), _p("c")]) == ["[2] B", "[3] C"]

    registry.reset()

    assert registry.cite("q1", [_p("c")]) == ["[1] C"]


# ----------------------------------------------------------------------- SurveyCPM


@seed_example("002", 106, 'Initial State: state="search", cursor="outline", step=0.')
def test_surveycpm_state_init_starts_at_search_on_the_outline() -> None:
    run = SurveyRun(instruction="A survey of Ostrand")

    assert (run.state, run.cursor, run.step, run.extend_time) == ("search", "outline", 0, 0)


@pytest.mark.parametrize(
    "reply",
    [
        '<thought>Look up.</thought><action>{"name": "search", "keywords": ["Lumen Rail"]}'
        "</action>",
        "<thought>Look up.</thought><action><name>search</name>"
        "<keywords><keyword>Lumen Rail</keyword></keywords></action>",
    ],
)
@seed_example("002", 112, "Parses search instructions (JSON or XML format) generated by the model")
def test_surveycpm_parse_search_response_reads_json_or_xml(reply: str) -> None:
    parsed = parse_response(reply, ["search"])

    assert (parsed.ok, parsed.action["keywords"]) == (True, ["Lumen Rail"])


@seed_example("002", 118, "deduplicates, limits quantity (Top-K), and concatenates into string")
def test_surveycpm_process_passages_deduplicates_interleaves_and_keeps_top_k() -> None:
    per_keyword = [[_p("a"), _p("b"), _p("c")], [_p("b"), _p("d"), _p("e")]]

    chosen = interleave_passages(per_keyword, 4, {})

    assert [p.id for _, p in chosen] == ["a", "b", "d", "c"]


@seed_example("002", 126, "Keeps original state for retry if failed.")
def test_surveycpm_after_write_keeps_the_state_when_the_reply_fails() -> None:
    extend = {"name": "extend-plan", "position": "section-1", "subsections": []}

    parsed = parse_response(f"<action>{json.dumps(extend)}</action>", ["write"])

    assert not parsed.ok and parsed.action["name"] == "extend-plan"  # not taken as content
    assert transition("write", parsed=False, cursor="section-1", step=3, extend_time=0) == (
        "write",
        0,
    )


@seed_example("002", 134, "search -> analyst-init_plan (cursor=“outline”)")
@seed_example("002", 138, "Exceeds max steps -> done")
def test_surveycpm_update_state_moves_through_the_machine_and_stops_at_max_step() -> None:
    assert transition("search", parsed=True, cursor="outline", step=0, extend_time=0) == (
        "analyst-init_plan",
        0,
    )
    assert transition("write", parsed=True, cursor=None, step=9, extend_time=0) == (
        "analyst-extend_plan",
        1,
    )
    assert transition("write", parsed=True, cursor="section-2", step=140, extend_time=0) == (
        "done",
        0,
    )


@seed_example("002", 145, "citation formatting (\\cite{...} to [1])")
def test_surveycpm_format_output_numbers_headings_and_citations() -> None:
    survey = {"title": "Ostrand", "sections": [
        {"title": "1. Rail", "plan": "", "content": "Lumen Rail \\cite{textid2, textid1}."},
    ]}  # fmt: skip

    assert format_survey(survey) == "# Ostrand\n\n## 1 Rail\n\nLumen Rail [1][2]."


@seed_example("002", 150, "surveycpm_hard_mode: false")
@seed_example("002", 151, "surveycpm_max_step: 140")
@seed_example("002", 152, "surveycpm_max_extend_step: 12")
def test_surveycpm_configuration_defaults() -> None:
    defaults = inspect.signature(write_survey).parameters

    assert defaults["hard_mode"].default is False  # surveycpm_hard_mode: false
    assert (MAX_STEP, MAX_EXTEND_STEP) == (140, 12)  # surveycpm_max_step, _max_extend_step
    assert defaults["max_step"].default == 140 and defaults["max_extend_step"].default == 12


WRITE = "<thought>Write it.</thought><action>{}</action>"


@seed_example("002", 122, "Parses Agent response for different stages (initialize outline, write")
@seed_example("002", 125, "Updates survey_ls (outline structure) and cursor_ls")
@pytest.mark.parametrize(
    "content",
    ["Search-R1 models wrap each query in <search> tags \\cite{textid1}.",
     "An agent that has nothing to add answers <nop/> and waits \\cite{textid1}.",
     'A search action reads {"name": "search", \u2026} in SurveyCPM \\cite{textid1}.',
     "Agents call <name>search</name> as an XML action \\cite{textid1}."],
)  # fmt: skip
def test_surveycpm_writes_section_text_that_mentions_an_action(content: str) -> None:
    parsed = parse_response(WRITE.format(content), ["write"])

    assert (parsed.ok, parsed.action) == (True, {"name": "write", "content": content})


@seed_example("002", 126, "Keeps original state for retry if failed.")
@pytest.mark.parametrize(
    "action",
    ['{"name": "search", "keywords": ["Lumen Rail"]}', "<nop/>",
     "<search><keywords><keyword>Lumen Rail</keyword></keywords></search>",
     "<name>nop</name>"],
)  # fmt: skip
def test_surveycpm_still_rejects_a_write_reply_that_is_another_action(action: str) -> None:
    parsed = parse_response(WRITE.format(action), ["write"])

    assert not parsed.ok and parsed.action["name"] in ("search", "nop")
    assert "not one of write" in (parsed.problem or "")


@seed_example("002", 154, "strict parsing mode (validate JSON field integrity)")
def test_hard_mode_validates_the_fields_of_an_action() -> None:
    incomplete = {"name": "init-plan", "title": "Ostrand"}  # no sections

    assert validate_action(incomplete, ["init-plan"], hard_mode=True) is not None
    assert validate_action({"name": "search", "keywords": ["a"] * 6}, ["search"], hard_mode=True)
