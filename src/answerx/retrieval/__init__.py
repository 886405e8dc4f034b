"""Retrievers for the search agents: an embedded BM25 index, and the protocol to plug in others.

>>> from answerx.retrieval import build_index, Index            # doctest: +SKIP
>>> index = build_index("corpus.jsonl", "corpus.db")             # doctest: +SKIP
>>> [p.id for p in Index.open("corpus.db").search("founder of Brightwater", k=2)]  # doctest: +SKIP
['brightwater-instruments', 'mira-castellane']

The default engine is SQLite FTS5 (:mod:`answerx.retrieval.fts`, one file, no
extra package); :mod:`answerx.retrieval.bm25` is the optional ``bm25s`` engine.
Any object with ``search(query, k)`` and ``search_many(queries, k)`` returning
:class:`Passage` lists is a :class:`Retriever` the agents accept.
"""

from answerx.retrieval.base import CorpusRecord, Passage, Retriever, read_corpus
from answerx.retrieval.bm25 import Bm25sIndex, build_bm25s_index
from answerx.retrieval.bundled import (
    BundledQuestion,
    bundled_corpus_path,
    bundled_index,
    bundled_questions,
)
from answerx.retrieval.fts import Index, build_index, build_index_from, fts_query, require_fts5

__all__ = [
    "Bm25sIndex",
    "BundledQuestion",
    "CorpusRecord",
    "Index",
    "Passage",
    "Retriever",
    "build_bm25s_index",
    "build_index",
    "build_index_from",
    "bundled_corpus_path",
    "bundled_index",
    "bundled_questions",
    "fts_query",
    "open_index",
    "read_corpus",
    "require_fts5",
]


def open_index(path: str) -> Index | Bm25sIndex:
    """Open an index of either engine: a directory is a bm25s index, a file an FTS5 one."""
    from pathlib import Path

    return Bm25sIndex.open(path) if Path(path).is_dir() else Index.open(path)
