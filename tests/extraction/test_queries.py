"""Unit tests for answerx.extraction.queries: search-agent queries out of raw turns.

The turns below were written for these tests in the style of each agent's output.
"""

from __future__ import annotations

import pytest

from answerx.errors import ConfigError, InputError
from answerx.extraction.queries import (
    NO_HELPFUL_INFORMATION,
    NO_QUERY,
    QUERY_FORMATS,
    TAG_FORMATS,
    SearchQuery,
    extract_final_information,
    extract_query,
)

# --------------------------------------------------------------------------- realistic turns
SEARCH_R1_TURN = """<think>
The question asks which river flows through the capital of the country that hosted
Expo 2015. Expo 2015 was held in Milan, Italy, so the capital is Rome. I am not sure
of the river's name, so I should look it up.
</think>
<search> river that flows through Rome </search>"""

SEARCH_R1_TRAJECTORY = """<think>I need the director of the film first.</think>
<search> director of the film Nightfall Harbor </search>
<information>Doc 1 (Title: "Nightfall Harbor") Nightfall Harbor is a 1998 drama directed by
Mara Ellison ...</information>
<think>The director is Mara Ellison. Now I need her birthplace.</think>
<search>Mara Ellison birthplace</search>
<information>Doc 1 (Title: "Mara Ellison") Mara Ellison (born 1961 in Tromsø) ...</information>
<think>She was born in Tromsø.</think>
<answer> Tromsø </answer>"""

SEARCH_O1_TURN = """<think>
Okay, so the user wants to know when the composer of "Suite for the Lantern Festival"
was born. First I need to identify the composer. I recall it might be a 20th-century
work, but I'm not certain. Let me search for it.

<|begin_search_query|>Suite for the Lantern Festival composer<|end_search_query|>"""

SEARCH_O1_TWO_QUERIES = """<think>
Alright, first find the composer.
<|begin_search_query|>Suite for the Lantern Festival composer<|end_search_query|>

<|begin_search_result|>The suite was composed by Lin Hao in 1956.<|end_search_result|>

So the composer is Lin Hao. Now his birth year.
<|begin_search_query|>Lin Hao composer birth year<|end_search_query|>"""

R1_SEARCHER_TURN = """To answer this, I need to split the question into sub-questions.
First, who wrote the novel "The Glass Orchard"?
<|begin_of_query|>The Glass Orchard\tnovel\tauthor"""

REASON_IN_DOCUMENTS = """**Analysis**: Web page 1 describes the suite and names its composer.
Web page 3 is about a different festival and is not relevant.

**Final Information**

The "Suite for the Lantern Festival" was composed by Lin Hao in 1956."""


# --------------------------------------------------------------------------- per format
def test_search_r1_query_after_think_is_found() -> None:
    q = extract_query(SEARCH_R1_TURN)
    assert q == SearchQuery(
        query="river that flows through Rome",
        format="search_r1",
        span=q.span,
        reasoning=q.reasoning,
        complete=True,
        raw_output=SEARCH_R1_TURN,
    )
    assert q.span is not None
    assert SEARCH_R1_TURN[q.span[0] : q.span[1]] == "river that flows through Rome"
    assert q.reasoning.startswith("<think>") and q.reasoning.endswith("</think>")
    assert q.found


def test_search_r1_last_query_of_a_trajectory_wins() -> None:
    q = extract_query(SEARCH_R1_TRAJECTORY)
    assert (q.query, q.format, q.complete) == ("Mara Ellison birthplace", "search_r1", True)


def test_search_o1_query_and_reasoning_before_it() -> None:
    q = extract_query(SEARCH_O1_TURN)
    assert (q.query, q.format, q.complete) == (
        "Suite for the Lantern Festival composer",
        "search_o1",
        True,
    )
    assert q.reasoning.startswith("<think>\nOkay, so the user")
    assert q.reasoning.endswith("Let me search for it.")


def test_search_o1_last_of_two_queries_and_reasoning_includes_the_first() -> None:
    q = extract_query(SEARCH_O1_TWO_QUERIES)
    assert q.query == "Lin Hao composer birth year"
    assert "<|begin_search_result|>" in q.reasoning
    assert q.reasoning.endswith("Now his birth year.")


def test_search_o1_cut_at_stop_token_is_incomplete() -> None:
    text = "I should check this.\n<|begin_search_query|>Lin Hao composer birth year"
    q = extract_query(text)
    assert (q.query, q.format, q.complete) == ("Lin Hao composer birth year", "search_o1", False)


def test_r1_searcher_unclosed_query_keeps_tab_separated_keywords() -> None:
    q = extract_query(R1_SEARCHER_TURN)
    assert (q.query, q.format, q.complete) == (
        "The Glass Orchard\tnovel\tauthor",
        "r1_searcher",
        False,
    )
    assert q.reasoning.endswith('"The Glass Orchard"?')


def test_r1_searcher_closed_query_is_complete() -> None:
    text = "Sub-question 1. <|begin_of_query|>Glass Orchard author<|end_of_query|>"
    q = extract_query(text)
    assert (q.query, q.format, q.complete) == ("Glass Orchard author", "r1_searcher", True)


def test_final_information_after_marker() -> None:
    q = extract_final_information(REASON_IN_DOCUMENTS)
    assert q.format == "final_information"
    assert q.query == 'The "Suite for the Lantern Festival" was composed by Lin Hao in 1956.'
    assert q.reasoning.startswith("**Analysis**") and q.reasoning.endswith("not relevant.")
    assert q.span is not None
    assert REASON_IN_DOCUMENTS[q.span[0] : q.span[1]] == q.query


def test_final_information_no_helpful_information_is_returned_as_written() -> None:
    text = "Nothing relevant.\n**Final Information**\n\n" + NO_HELPFUL_INFORMATION
    q = extract_final_information(text)
    assert q.query == NO_HELPFUL_INFORMATION
    assert q.found


# --------------------------------------------------------------------------- last one wins
@pytest.mark.parametrize(
    ("text", "query", "fmt"),
    [
        ("<search>first</search> then <search>second</search>", "second", "search_r1"),
        ("<search>a</search> <|begin_search_query|>b<|end_search_query|>", "b", "search_o1"),
        ("<|begin_search_query|>b<|end_search_query|> <search>a</search>", "a", "search_r1"),
        ("<|begin_of_query|>old<|end_of_query|> x <|begin_of_query|>new", "new", "r1_searcher"),
        ("<search>closed one</search>\n<search>cut off", "cut off", "search_r1"),
    ],
)
def test_last_query_wins_within_and_across_formats(text: str, query: str, fmt: str) -> None:
    q = extract_query(text)
    assert (q.query, q.format) == (query, fmt)


def test_last_final_information_marker_wins() -> None:
    text = "**Final Information**\ndraft\n\nMore pages read.\n**Final Information**\nfinal facts"
    assert extract_final_information(text).query == "final facts"


def test_empty_final_information_falls_back_to_previous_marker() -> None:
    text = "**Final Information**\nreal facts\n**Final Information**\n   \n"
    assert extract_final_information(text).query == "real facts"


# --------------------------------------------------------------------------- leniency
@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("<SEARCH>Upper case tag</SEARCH>", "Upper case tag"),
        ("< search >spaced tag</ search >", "spaced tag"),
        ("<Search>\n  multi-line\n</Search>", "multi-line"),
        ("<| BEGIN_SEARCH_QUERY |> spaced o1 <| End_Search_Query |>", "spaced o1"),
        ("<|Begin_Of_Query|>mixed case r1<|END_OF_QUERY|>", "mixed case r1"),
        ('<search> "quoted query" </search>', "quoted query"),
        ("<search>“curly quotes”</search>", "curly quotes"),
        ("<search>是谁发明了造纸术？</search>", "是谁发明了造纸术？"),
    ],
)
def test_tags_in_any_case_and_whitespace(text: str, query: str) -> None:
    assert extract_query(text).query == query


def test_final_information_marker_variants_and_fence() -> None:
    assert extract_final_information("** final information: **\nfacts").query == "facts"
    assert extract_final_information("**Final Information**:\nfacts").query == "facts"
    fenced = "**Final Information**\n```\nline one\nline two\n```"
    assert extract_final_information(fenced).query == "line one\nline two"


# --------------------------------------------------------------------------- skipped content
@pytest.mark.parametrize(
    "text",
    [
        "<search></search>",
        "<search>   </search>",
        "<|begin_search_query|><|end_search_query|>",
        "<|begin_of_query|>",
        "<|begin_of_query|>   \n",
    ],
)
def test_empty_tags_are_not_queries(text: str) -> None:
    q = extract_query(text)
    assert (q.query, q.format, q.span) == (None, "none", None)


def test_empty_tag_after_real_one_falls_back_to_real_one() -> None:
    assert extract_query("<search>real query</search> <search> </search>").query == "real query"


@pytest.mark.parametrize(
    "text",
    [
        "Use the `<search>` tag to call the search engine.",
        "Write `<search>who is X</search>` to search.",
        "you can call a search engine by <search> query </search> and it returns results",
        "write <|begin_search_query|> your query here <|end_search_query|>.",
        "use <|begin_of_query|>kw1\tkw2<|end_of_query|> to search",
        "Wrap queries in <search> and </search>.",
        "I will now emit the <search> tag, followed by my question.",
        "The tokens are '<|begin_of_query|>' and '<|end_of_query|>'.",
    ],
)
def test_mentions_and_prompt_placeholders_are_not_queries(text: str) -> None:
    assert not extract_query(text).found


def test_mention_after_a_real_query_does_not_hide_it() -> None:
    text = "<search>Mara Ellison birthplace</search>\nNote: I used the `<search>` tag once."
    assert extract_query(text).query == "Mara Ellison birthplace"


def test_unclosed_prose_after_tag_is_not_a_query() -> None:
    text = "I might use <search> later.\n\nBut first, let me reason about it at length."
    assert not extract_query(text).found


def test_unclosed_query_stops_at_the_next_tag() -> None:
    q = extract_query("<search> capital of Peru </answer>")
    assert (q.query, q.complete) == ("capital of Peru", False)


def test_nested_tags_yield_the_inner_query() -> None:
    text = "<search><|begin_search_query|>inner<|end_search_query|></search>"
    q = extract_query(text)
    assert (q.query, q.format) == ("inner", "search_o1")
    assert extract_query("<search><search>deep</search></search>").query == "deep"


def test_final_information_mentioned_in_backticks_is_not_taken() -> None:
    text = "Present the information beginning with `**Final Information**` as shown."
    assert not extract_final_information(text).found


# --------------------------------------------------------------------------- think sections
def test_query_inside_unclosed_think_is_still_a_query() -> None:
    text = "<think>\nHmm, I need the date.\n<search>Treaty of Velmar signing date</search>"
    assert extract_query(text).query == "Treaty of Velmar signing date"


def test_query_inside_closed_think_with_nothing_after_is_a_query() -> None:
    text = "<think>Look it up. <|begin_search_query|>Velmar treaty<|end_search_query|></think>"
    assert extract_query(text).query == "Velmar treaty"


# ----------------------------------------------------------------------- defaults and completion
def test_no_query_returns_none_by_default_and_the_default_when_asked() -> None:
    text = "<think>I know this.</think><answer>Paris</answer>"
    q = extract_query(text)
    assert (q.query, q.format, q.span, q.complete, q.found) == (None, "none", None, False, False)
    assert q.reasoning == text
    assert extract_query(text, default=NO_QUERY).query == "There is no query."
    # The default is never completed with "?".
    assert extract_query(text, default=NO_QUERY, complete_question=True).query == NO_QUERY


def test_final_information_default() -> None:
    q = extract_final_information("The pages were unrelated.", default=NO_HELPFUL_INFORMATION)
    assert (q.query, q.format) == (NO_HELPFUL_INFORMATION, "none")


@pytest.mark.parametrize(
    ("text", "completed"),
    [
        ("<search>capital of Peru</search>", "capital of Peru?"),
        ("<search>What is the capital of Peru?</search>", "What is the capital of Peru?"),
        ("<search>秘鲁的首都是哪里？</search>", "秘鲁的首都是哪里？"),
        ("<|begin_of_query|>Peru capital", "Peru capital?"),
    ],
)
def test_question_mark_completion_only_when_asked(text: str, completed: str) -> None:
    assert extract_query(text, complete_question=True).query == completed
    plain = extract_query(text)
    assert plain.query is not None and plain.span is not None
    assert text[plain.span[0] : plain.span[1]] == plain.query


# --------------------------------------------------------------------------- formats argument
def test_formats_restricts_the_search() -> None:
    text = "<search>r1 style</search> <|begin_of_query|>searcher style<|end_of_query|>"
    assert extract_query(text).format == "r1_searcher"
    only_r1 = extract_query(text, formats=["search_r1"])
    assert (only_r1.query, only_r1.format) == ("r1 style", "search_r1")
    assert extract_query(text, formats="search_r1").format == "search_r1"
    assert not extract_query(text, formats=["search_o1"]).found


def test_unknown_format_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="valid formats: search_r1, search_o1, r1_searcher"):
        extract_query("<search>x y</search>", formats=["search_r2"])


def test_non_string_input_is_an_input_error() -> None:
    with pytest.raises(InputError):
        extract_query(None)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        extract_final_information(b"**Final Information** x")  # type: ignore[arg-type]


def test_public_constants() -> None:
    assert QUERY_FORMATS == ("search_r1", "search_o1", "r1_searcher", "final_information", "none")
    assert TAG_FORMATS == ("search_r1", "search_o1", "r1_searcher")


def test_result_is_frozen() -> None:
    q = extract_query("<search>a query</search>")
    with pytest.raises(ValueError):
        q.query = "other"  # type: ignore[misc]
