"""A search shows where it matched: each listed item with a snippet of its searched text
around the match, the match marked, inside whatever else the list filters by."""

from __future__ import annotations

import html
import re
from pathlib import Path

from fastapi.testclient import TestClient
from page_helpers import matched


def _hits(page: str) -> list[str]:
    return [html.unescape(m) for m in re.findall(r'<mark class="hit">(.*?)</mark>', page)]


def test_each_listed_item_shows_its_match_marked_in_a_snippet(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = client.get(f"/runs/{demo[1]}/items?q=BOXED%7B113").text
    assert matched(page) == 3
    assert _hits(page) == ["boxed{113"] * 3  # the text's own case, where it matched
    snippet = re.search(r'<div class="snippet">(.*?)</div>', page, re.DOTALL)
    assert snippet and "So the answer is \\" in html.unescape(snippet.group(1))


def test_a_search_inside_a_filter_marks_only_the_filtered_items(
    client: TestClient, demo: tuple[Path, str]
) -> None:
    page = client.get(f"/runs/{demo[1]}/items?approach=none&q=mira&in=question").text
    assert matched(page) == 1 and _hits(page) == ["Mira"]


def test_a_long_text_is_cut_around_the_match(client: TestClient, demo: tuple[Path, str]) -> None:
    page = client.get(f"/runs/{demo[1]}/items?q=step+by+step&approach=none&size=25").text
    snippets = re.findall(r'<div class="snippet">(.*?)</div>', page, re.DOTALL)
    assert snippets and all(len(html.unescape(re.sub("<[^>]+>", "", s))) < 260 for s in snippets)
    assert all("…" in s for s in snippets)  # the output goes on past the snippet


def test_without_a_search_no_snippet_is_shown(client: TestClient, demo: tuple[Path, str]) -> None:
    assert 'class="snippet"' not in client.get(f"/runs/{demo[1]}/items?correct=false").text
