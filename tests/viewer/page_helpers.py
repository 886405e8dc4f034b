"""Reading the viewer's HTML in tests with the standard library's parser (no browser)."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

_CELLS = frozenset({"td", "th", "tr", "p", "div", "li", "dt", "dd", "h1", "h2", "h3", "section"})


class _Elements(HTMLParser):
    """The text and links inside the element with a given id (and its descendants)."""

    def __init__(self, wanted: str | None) -> None:
        super().__init__(convert_charrefs=True)
        self.wanted = wanted
        self.depth = 0 if wanted else 1
        self.links: list[tuple[str, str]] = []
        self.text: list[str] = []
        self._href: str | None = None
        self._link_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if self.depth == 0 and values.get("id") == self.wanted:
            self.depth = 1
            return
        if self.depth and tag not in ("br", "input", "img", "meta", "link"):
            self.depth += 1
        if self.depth and tag in _CELLS:
            self.text.append(" ")  # cells and blocks read apart
        if self.depth and tag == "a":
            self._href = values.get("href")
            self._link_text = []

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag == "a" and self._href is not None:
            self.links.append(("".join(self._link_text).strip(), self._href))
            self._href = None
        if self.depth > 0 and self.wanted is not None:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)
            if self._href is not None:
                self._link_text.append(data)


def links(page: str, element_id: str | None = None) -> list[tuple[str, str]]:
    """(text, href) of every link inside the element ``element_id`` (the whole page: None)."""
    parser = _Elements(element_id)
    parser.feed(page)
    return parser.links


def text(page: str, element_id: str) -> str:
    """The text inside the element ``element_id``, whitespace collapsed."""
    parser = _Elements(element_id)
    parser.feed(page)
    return " ".join("".join(parser.text).split())


def matched(page: str) -> int:
    """How many items an items page says match."""
    found = re.search(r"([\d,]+) match", page)
    assert found, "not an items page"
    return int(found.group(1).replace(",", ""))


def marks(page: str) -> list[str]:
    """The texts highlighted as the answer (``<mark class="answer">``), unescaped."""
    return [html.unescape(m) for m in re.findall(r'<mark class="answer"[^>]*>(.*?)</mark>', page)]


def item_rows(page: str) -> list[str]:
    """The item links of an items page, in order."""
    return [href for _, href in links(page, "items") if "/items/" in href]
