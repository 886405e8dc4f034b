"""The default retriever: SQLite FTS5 (BM25 ranking, porter stemming) in one file.

SQLite ships with Python, so an index needs no server, no download and no extra
package; one ``.db`` file holds the passages and their full-text index. BM25 is
what UltraRAG's sparse retrievers rank by, and it is strong on the entity-heavy
multi-hop questions search agents ask.

Queries come from models, so they may hold anything FTS5 reads as syntax
(``AND``, ``NEAR(``, ``"``, ``*``, ``col:``). :func:`fts_query` turns a query
into its word tokens, each quoted as a string literal, joined with ``OR``: BM25
then ranks passages by how many query terms they hold and how rare they are, and
no query can raise a syntax error.
"""

from __future__ import annotations

import os
import re
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Final, Self

from answerx.errors import ConfigError, InputError
from answerx.retrieval.base import CorpusRecord, Passage, read_corpus

__all__ = ["FORMAT_VERSION", "STOP_WORDS", "Index", "build_index", "fts_query", "require_fts5"]

#: Stored in the index file; an index of another version is refused with a clear error.
FORMAT_VERSION: Final = "1"
_MAX_QUERY_TOKENS: Final = 64  # a whole pasted paragraph would only slow the search down
_BATCH: Final = 2000  # rows per executemany while building
# unicode61 (FTS5's tokenizer, under porter) splits on everything but letters, digits
# and private-use characters; matching its idea of a token keeps quoted tokens non-empty.
_TOKEN = re.compile(r"[^\W_]+")
# English function words dropped from queries (not from the index): in a real corpus each
# matches nearly every passage, so an OR over them scores the whole index for little
# ranking value. A query of nothing else keeps them. Written out rather than taken from
# a package: thirty-odd words do not justify a dependency.
STOP_WORDS: Final = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "had",
    "has", "have", "how", "in", "into", "is", "it", "its", "of", "on", "or", "that", "the",
    "their", "there", "these", "this", "to", "was", "were", "what", "when", "where", "which",
    "who", "whom", "whose", "why", "will", "with"
})  # fmt: skip

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE passages (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, contents TEXT NOT NULL);
CREATE VIRTUAL TABLE passages_fts USING fts5(
    contents, content='passages', content_rowid='rowid', tokenize='porter unicode61'
);
"""
# The best k rowids first (FTS5's rank column is bm25()), and only then their contents:
# joining before the LIMIT would read the contents of every matching passage.
_SEARCH = """
SELECT p.id, p.contents, hits.rank FROM (
    SELECT rowid, rank FROM passages_fts WHERE passages_fts MATCH ? ORDER BY rank LIMIT ?
) AS hits JOIN passages AS p ON p.rowid = hits.rowid ORDER BY hits.rank
"""


@cache
def require_fts5() -> None:
    """Check once that this Python's SQLite has FTS5; :class:`ConfigError` if not."""
    try:
        with sqlite3.connect(":memory:") as probe:
            probe.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    except sqlite3.OperationalError as exc:
        raise ConfigError(
            f"this Python's SQLite ({sqlite3.sqlite_version}) has no FTS5 ({exc}); "
            "install the bm25s engine instead: pip install 'answerx[bm25]' and build "
            "with engine='bm25s' (answerx index build --engine bm25s)"
        ) from None


def fts_query(query: str) -> str | None:
    """``query`` as an FTS5 expression that cannot raise: its word tokens less
    :data:`STOP_WORDS`, each a quoted string, joined with ``OR``; None when it holds
    no word at all.

    >>> fts_query('who founded "Acme" AND NEAR(x')
    '"founded" OR "Acme" OR "NEAR" OR "x"'
    """
    tokens = _TOKEN.findall(query)
    if not tokens:
        return None
    content = [t for t in tokens if t.lower() not in STOP_WORDS]
    tokens = (content or tokens)[:_MAX_QUERY_TOKENS]
    # The tokens hold no '"', but double any anyway: a quoted string is a literal.
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)


class Index:
    """A BM25 index of passages in one SQLite file (FTS5).

    Build one with :func:`build_index`, open an existing one with :meth:`open`.
    Safe to share between threads (searches are serialised on one connection;
    each takes a few milliseconds).

    >>> index = build_index("corpus.jsonl", "corpus.db")  # doctest: +SKIP
    >>> [p.id for p in index.search("who founded Brightwater Instruments", k=2)]  # doctest: +SKIP
    ['brightwater-instruments', 'mira-castellane']
    """

    engine: Final = "fts5"

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self._db = connection
        self._lock = threading.Lock()
        self.path = path

    @classmethod
    def open(cls, path: str | Path) -> Self:
        """Open the index at ``path`` read-only."""
        require_fts5()
        path = Path(path)
        if not path.is_file():
            raise InputError(f"no index at {str(path)!r}; build one with: answerx index build")
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                             check_same_thread=False)  # fmt: skip
        try:
            # Memory-mapped reads: a search touches pages all over the index, and a read()
            # per page costs a system call each (the OS shares the mapping's pages).
            db.execute("PRAGMA mmap_size = 1073741824")
            version = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise InputError(f"{str(path)!r} is not an answerx index") from None
        if version is None or version[0] != FORMAT_VERSION:
            db.close()
            raise InputError(
                f"{str(path)!r} is an index of format {version and version[0]!r}, this answerx "
                f"reads format {FORMAT_VERSION!r}: build it again with answerx index build"
            )
        return cls(db, str(path))

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT count(*) FROM passages").fetchone()
        return int(count)

    def __repr__(self) -> str:
        return f"Index({self.path!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file (searching afterwards raises)."""
        self._db.close()

    def get(self, passage_id: str) -> Passage | None:
        """The passage with ``passage_id`` (score 0), or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, contents FROM passages WHERE id = ?", (passage_id,)
            ).fetchone()
        return None if row is None else Passage(id=row[0], contents=row[1])

    def search(self, query: str, k: int = 5) -> list[Passage]:
        """The ``k`` passages ranking highest by BM25 for ``query``; any text is a valid
        query (see :func:`fts_query`); one without a single word finds nothing."""
        if k < 1:
            raise ConfigError(f"k must be at least 1, got {k}")
        expression = fts_query(query)
        if expression is None:
            return []
        with self._lock:
            rows = self._db.execute(_SEARCH, (expression, k)).fetchall()
        # bm25() is lower-is-better; a score is friendlier higher-is-better.
        return [Passage(id=i, contents=c, score=-rank) for i, c, rank in rows]

    def search_many(self, queries: Sequence[str], k: int = 5) -> list[list[Passage]]:
        """:meth:`search` for each query, in order."""
        return [self.search(query, k) for query in queries]


def build_index(
    corpus_path: str | Path,
    index_path: str | Path,
    *,
    progress: Callable[[int], None] | None = None,
) -> Index:
    """Index the JSONL corpus at ``corpus_path`` into the SQLite file ``index_path``.

    The index is written to a temporary file beside ``index_path`` and moved into
    place only when complete, so a bad corpus line (an :class:`InputError` naming
    it) or an interruption leaves any existing index untouched. ``progress`` is
    called with the number of passages indexed so far, after each batch.
    """
    return build_index_from(read_corpus(corpus_path), index_path, progress=progress)


def build_index_from(
    records: Iterable[CorpusRecord],
    index_path: str | Path,
    *,
    progress: Callable[[int], None] | None = None,
) -> Index:
    """:func:`build_index` from records already read (generated corpora, tests)."""
    require_fts5()
    target = Path(index_path)
    if target.is_dir():
        raise InputError(f"{str(target)!r} is a directory; give the index file's path")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    try:
        db = sqlite3.connect(tmp)
        try:
            _fill(db, records, progress)
        finally:
            db.close()
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Index.open(target)


def _fill(
    db: sqlite3.Connection,
    records: Iterable[CorpusRecord],
    progress: Callable[[int], None] | None,
) -> None:
    # A temporary file until complete: durability settings would only slow the build.
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    db.executescript(_SCHEMA)
    db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT_VERSION,))
    count, batch, seen = 0, [], set()
    for record in records:
        if record.id in seen:
            raise InputError(f"duplicate passage id {record.id!r}")
        seen.add(record.id)
        batch.append((record.id, record.contents))
        if len(batch) >= _BATCH:
            count += _insert(db, batch)
            batch = []
            if progress is not None:
                progress(count)
    count += _insert(db, batch)
    if progress is not None:
        progress(count)
    # The FTS index is filled in one pass at the end: faster than row by row.
    db.execute("INSERT INTO passages_fts(passages_fts) VALUES ('rebuild')")
    db.execute("INSERT INTO passages_fts(passages_fts) VALUES ('optimize')")
    db.commit()


def _insert(db: sqlite3.Connection, rows: list[tuple[str, str]]) -> int:
    db.executemany("INSERT INTO passages (id, contents) VALUES (?, ?)", rows)
    return len(rows)
