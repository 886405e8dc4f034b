"""The default retriever: SQLite FTS5 over a JSONL corpus."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from answerx.errors import InputError
from answerx.retrieval import (
    Index,
    Passage,
    Retriever,
    build_index,
    bundled_corpus_path,
    bundled_questions,
    fts_query,
    read_corpus,
)


def _corpus(path: Path, *records: object) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_search_ranks_the_passage_naming_the_query_terms_first(index: Index) -> None:
    passages = index.search("Who founded Lumen Rail?", k=3)

    assert [p.id for p in passages][:2] == ["lumen-rail", "tomasz-reyl"]
    assert passages[0].title == "Lumen Rail"
    assert passages[0].score >= passages[1].score >= passages[2].score > 0


def test_porter_stemming_matches_other_forms_of_a_word(index: Index) -> None:
    # "founders" and "railways" appear nowhere; "founded" and "railway" do.
    assert index.search("railways founders Reyl", k=1)[0].id in {"lumen-rail", "tomasz-reyl"}


def test_search_many_answers_each_query_in_order(index: Index) -> None:
    results = index.search_many(["Marrowgate Bank", "Sunniva Dahl novel"], k=1)
    assert [[p.id for p in r] for r in results] == [["marrowgate-bank"], ["sunniva-dahl"]]


def test_k_limits_the_number_of_passages(index: Index) -> None:
    assert len(index.search("Velmora", k=2)) == 2
    assert len(index) == 60


def test_a_query_without_words_finds_nothing(index: Index) -> None:
    assert index.search("?!  ... --", k=5) == []


@pytest.mark.parametrize(
    "query",
    ['"unbalanced', "NEAR(a b", "AND OR NOT", "contents:Velmora", "Velm*", "a - b ^c", "()"],
)
def test_fts_syntax_in_a_model_query_is_read_as_words(index: Index, query: str) -> None:
    index.search(query)  # no sqlite3.OperationalError


@given(query=st.text(max_size=300))
def test_no_text_makes_a_search_raise(index: Index, query: str) -> None:
    # Model-written queries hold anything: FTS5 syntax, NULs, lone surrogates, emoji.
    results = index.search(query, k=3)
    assert all(isinstance(p, Passage) for p in results)


def test_fts_query_quotes_every_token_and_drops_function_words() -> None:
    assert fts_query('Who founded "Acme" NEAR the x') == '"founded" OR "Acme" OR "NEAR" OR "x"'
    assert fts_query("Who is the one?") == '"one"'
    assert fts_query("Who is it?") == '"Who" OR "is" OR "it"'  # nothing else: kept
    assert fts_query("") is None


def test_the_index_is_a_retriever(index: Index) -> None:
    assert isinstance(index, Retriever)


def test_an_index_reopens_from_its_file(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c.jsonl", {"id": "a", "contents": "Alpha\nThe first letter."},
                     {"id": 7, "contents": "Seven is a number."})  # fmt: skip
    build_index(corpus, tmp_path / "i.db").close()

    with Index.open(tmp_path / "i.db") as reopened:
        assert [p.id for p in reopened.search("number")] == ["7"]
        assert reopened.get("a") == Passage(id="a", contents="Alpha\nThe first letter.")
        assert reopened.get("missing") is None


def test_a_bad_corpus_line_names_its_line_and_keeps_the_old_index(tmp_path: Path) -> None:
    good = _corpus(tmp_path / "good.jsonl", {"id": "a", "contents": "kept"})
    build_index(good, tmp_path / "i.db").close()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "contents": "x"}\n{"id": "b"}\n', encoding="utf-8")

    with pytest.raises(InputError, match=r"line 2: .*'contents' must be a non-empty string"):
        build_index(bad, tmp_path / "i.db")

    with Index.open(tmp_path / "i.db") as old:
        assert [p.id for p in old.search("kept")] == ["a"]
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".part"] == []


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"id": "", "contents": "x"}', "'id' must be a non-empty string"),
        ('{"id": "a", "contents": 3}', "'contents' must be a non-empty string"),
    ],
)
def test_malformed_corpus_lines_are_refused(tmp_path: Path, line: str, problem: str) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=problem):
        list(read_corpus(path))


def test_a_repeated_id_is_refused(tmp_path: Path) -> None:
    path = _corpus(tmp_path / "c.jsonl", {"id": "a", "contents": "x"}, {"id": "a", "contents": "y"})
    with pytest.raises(InputError, match=r"line 2: .*duplicate passage id 'a'"):
        list(read_corpus(path))


def test_opening_a_file_that_is_not_an_index_says_so(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(InputError, match="not an answerx index"):
        Index.open(other)
    garbage = tmp_path / "notes.txt"
    garbage.write_text("just some notes, not a database at all" * 50, encoding="utf-8")
    with pytest.raises(InputError, match="not an answerx index"):
        Index.open(garbage)
    with pytest.raises(InputError, match="no index at"):
        Index.open(tmp_path / "missing.db")


def test_build_reports_progress(tmp_path: Path) -> None:
    seen: list[int] = []
    build_index(bundled_corpus_path(), tmp_path / "i.db", progress=seen.append).close()
    assert seen[-1] == 60


def test_the_bundled_questions_name_passages_of_the_bundled_corpus() -> None:
    ids = {r.id for r in read_corpus(bundled_corpus_path())}
    questions = bundled_questions()
    assert len(ids) == 60 and len(questions) == 15
    for question in questions:
        assert len(question.supporting) >= 2 and set(question.supporting) <= ids
