"""The optional bm25s engine behind the same interface as the FTS5 index."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("bm25s", reason="the 'bm25' extra (bm25s) is not installed")

from answerx.errors import InputError
from answerx.retrieval import (
    Bm25sIndex,
    Retriever,
    build_bm25s_index,
    bundled_corpus_path,
    open_index,
)


@pytest.fixture(scope="module")
def bm25(tmp_path_factory: pytest.TempPathFactory) -> Bm25sIndex:
    return build_bm25s_index(bundled_corpus_path(), tmp_path_factory.mktemp("bm") / "bundled")


def test_bm25s_ranks_the_named_passage_first(bm25: Bm25sIndex) -> None:
    passages = bm25.search("Marrowgate Bank headquarters", k=3)
    assert passages[0].id == "marrowgate-bank"
    assert passages[0].score >= passages[-1].score > 0
    assert isinstance(bm25, Retriever) and len(bm25) == 60


def test_unknown_words_and_empty_queries_find_nothing(bm25: Bm25sIndex) -> None:
    assert bm25.search("zyxxy qwerty") == []
    assert bm25.search('"" AND NEAR(') == []


def test_open_index_tells_the_engines_apart(bm25: Bm25sIndex, tmp_path: Path) -> None:
    reopened = open_index(bm25.path)
    assert isinstance(reopened, Bm25sIndex)
    assert [p.id for p in reopened.search_many(["Sunniva Dahl"], k=1)[0]] == ["sunniva-dahl"]


def test_building_over_a_foreign_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(InputError, match="not a bm25s index"):
        build_bm25s_index(bundled_corpus_path(), tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_ranking_is_bm25s_own_and_ties_go_to_the_earlier_passage(tmp_path: Path) -> None:
    import bm25s

    from answerx.retrieval import CorpusRecord

    records = [
        CorpusRecord(id="a", contents="the harbour of Velm"),
        CorpusRecord(id="b", contents="lighthouse keeper"),
        CorpusRecord(id="c", contents="the harbour of Velm"),  # ties with "a"
        CorpusRecord(id="d", contents="Velm harbour harbour lighthouse"),
    ]
    index = build_bm25s_index(records, tmp_path / "tiny")
    found = index.search("harbour Velm lighthouse", k=4)
    assert [p.id for p in found] == ["d", "a", "c", "b"]
    # the scores are the library's own
    model = bm25s.BM25.load(str(tmp_path / "tiny"), load_corpus=False)
    tokens = bm25s.tokenize("harbour Velm lighthouse", return_ids=False, show_progress=False)[0]
    expected = model.get_scores(tokens)
    assert [p.score for p in found] == pytest.approx([expected[i] for i in (3, 0, 2, 1)])
    assert [p.id for p in index.search("harbour Velm lighthouse", k=2)] == ["d", "a"]
