"""Property tests for answerx.extraction.queries: any input, no exception, same answer, fast."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from answerx.extraction.queries import SearchQuery, extract_final_information, extract_query

# Fragments that exercise every branch: tags of all formats (well-formed, spaced,
# upper-case, unclosed), mentions, think sections, fences and the info marker.
_FRAGMENTS = [
    "<search>",
    "</search>",
    "< SEARCH >",
    "</ search>",
    "<|begin_search_query|>",
    "<|end_search_query|>",
    "<| begin_search_query |>",
    "<|begin_of_query|>",
    "<|end_of_query|>",
    "<think>",
    "</think>",
    "<answer>",
    "`",
    '"',
    "“",
    "”",
    "**Final Information**",
    "** final information: **",
    "```",
    "\n",
    "\n\n",
    "\t",
    " ",
    "?",
    "？",
    "<",
    "|",
    "query",
    "who founded Acme",
    "tag",
    "and",
]
_agent_text = st.lists(
    st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=12)), max_size=60
).map("".join)


def _check(text: str) -> None:
    for fn in (
        extract_query,
        lambda t: extract_query(t, default="There is no query.", complete_question=True),
        extract_final_information,
    ):
        first: SearchQuery = fn(text)
        assert fn(text) == first  # deterministic
        assert first.raw_output == text
        if first.span is not None:
            c0, c1 = first.span
            assert 0 <= c0 < c1 <= len(text)
            assert first.query is not None and first.query.startswith(text[c0:c1])
            assert text[c0:c1].strip() == text[c0:c1]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_any_text_never_raises_and_is_deterministic(text: str) -> None:
    _check(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_agent_text)
def test_agent_like_text_never_raises_and_is_deterministic(text: str) -> None:
    _check(text)


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=80).filter(lambda s: s.strip() and "<" not in s))
def test_a_closed_search_tag_round_trips_its_query(query: str) -> None:
    q = extract_query(f"reasoning first <search>{query}</search>")
    # Either the query is taken verbatim (stripped, quotes aside) or it was a placeholder.
    if q.found:
        assert q.query is not None and q.query in query
        assert q.complete


_MB = 1_000_000


def _adversarial() -> list[tuple[str, str]]:
    cases = {
        "search_open": "<search>",
        "search_close": "</search>",
        "search_pair": "<search>q</search>",
        "search_spaced": "< search " + " " * 20,
        "o1_open": "<|begin_search_query|>",
        "o1_pair": "<|begin_search_query|>a<|end_search_query|>",
        "r1_open": "<|begin_of_query|>",
        "lt_pipe": "<|",
        "lt": "<",
        "lt_space": "< ",
        "stars": "*",
        "final_info": "**Final Information**",
        "final_info_spaced": "** final   ",
        "backticks": "`",
        "quote_open": '"<search>',
        "think": "<think>",
    }
    out = [(name, (piece * (_MB // len(piece) + 1))[:_MB]) for name, piece in cases.items()]
    out.append(("nested_search", "<search>" * 60_000 + "deep" + "</search>" * 60_000))
    out.append(
        (
            "nested_o1",
            "<|begin_search_query|>" * 20_000 + "deep" + "<|end_search_query|>" * 20_000,
        )
    )
    out.append(("one_open_then_text", "<|begin_of_query|>" + "a" * _MB))
    out.append(("one_open_then_spaces", "<search>" + " " * _MB))
    out.append(("whitespace", " \n\t" * (_MB // 3)))
    out.append(("closed_padded", "<search>" + " " * _MB + "query</search>"))
    out.append(("info_padded", "**Final Information**" + " " * _MB))
    return out


@pytest.mark.parametrize(("name", "text"), _adversarial(), ids=[n for n, _ in _adversarial()])
def test_adversarial_megabyte_inputs_are_fast_and_stable(name: str, text: str) -> None:
    for fn in (
        lambda t: extract_query(t, complete_question=True),
        extract_final_information,
    ):
        # CPU time of this process: other processes of a busy machine do not count.
        start = time.process_time()
        first = fn(text)
        elapsed = time.process_time() - start
        assert elapsed < 1.0, f"{name}: {elapsed:.3f}s for {len(text):,} chars"
        assert fn(text) == first


def test_time_grows_roughly_linearly() -> None:
    piece = "<search>" + " " * 7 + "<|begin_of_query|>`"

    def timed(n: int) -> float:
        text = piece * n
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            extract_query(text)
            extract_final_information(text)
            best = min(best, time.process_time() - start)
        return best

    small, large = timed(5_000), timed(40_000)
    # 8x the input should take far less than 64x the time (quadratic); allow noise.
    assert large < max(small, 1e-3) * 24
