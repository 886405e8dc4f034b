"""The optional ``bm25s`` engine (``pip install 'answerx[bm25]'``): BM25 in NumPy.

For a Python whose SQLite lacks FTS5, or to rank as UltraRAG's ``bm25s`` retriever
does. The index is a directory (bm25s's arrays and the corpus); ``bm25s`` is
imported only when this engine is used. English stop words are dropped; no
stemming (PyStemmer is a compiled extra), so "founded" does not match "founder"
as it does in the FTS5 engine.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, Self

from answerx.errors import ConfigError, InputError
from answerx.retrieval.base import CorpusRecord, Passage, read_corpus

__all__ = ["Bm25sIndex", "build_bm25s_index"]

_MARKER: Final = "answerx-bm25s.json"


def _bm25s() -> Any:
    try:
        import bm25s
    except ImportError:
        raise ConfigError(
            "the bm25s engine needs the bm25s package: pip install 'answerx[bm25]'"
        ) from None
    return bm25s


class Bm25sIndex:
    """A BM25 index built with ``bm25s``, with :class:`~answerx.retrieval.Index`'s
    search interface."""

    engine: Final = "bm25s"

    def __init__(self, model: Any, records: list[CorpusRecord], path: str) -> None:
        self._model = model
        self._records = records
        self._lock = threading.Lock()  # bm25s' retrieve is not documented as thread-safe
        self.path = path

    @classmethod
    def open(cls, path: str | Path) -> Self:
        """Open the index directory at ``path``."""
        bm25s = _bm25s()
        folder = Path(path)
        if not (folder / _MARKER).is_file():
            raise InputError(f"no bm25s index at {str(folder)!r}; build one with "
                             "answerx index build --engine bm25s")  # fmt: skip
        model = bm25s.BM25.load(str(folder), load_corpus=False, show_progress=False)
        lines = (folder / "passages.jsonl").read_text(encoding="utf-8").splitlines()
        records = [CorpusRecord.model_validate(json.loads(line)) for line in lines]
        return cls(model, records, str(folder))

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        return f"Bm25sIndex({self.path!r})"

    def search(self, query: str, k: int = 5) -> list[Passage]:
        """The ``k`` passages ranking highest by BM25 for ``query`` (any text)."""
        if k < 1:
            raise ConfigError(f"k must be at least 1, got {k}")
        bm25s = _bm25s()
        tokens = bm25s.tokenize(query, return_ids=False, show_progress=False)[0]
        vocab = self._model.vocab_dict
        tokens = [t for t in tokens if t in vocab]  # bm25s raises on unseen words
        if not tokens or not self._records:
            return []
        with self._lock:
            # get_scores + argpartition rather than bm25s' retrieve: retrieve starts a thread
            # pool and sorts through it on every call (~14 ms at 100k passages, against
            # ~0.5 ms for the same scores and ranking done here).
            scores = self._model.get_scores(tokens)
        top = _top_k(scores, min(k, len(self._records)))
        return [
            Passage(id=self._records[i].id, contents=self._records[i].contents,
                    score=float(scores[i]))
            for i in top
        ]  # fmt: skip

    def search_many(self, queries: Sequence[str], k: int = 5) -> list[list[Passage]]:
        """:meth:`search` for each query, in order."""
        return [self.search(query, k) for query in queries]


def _top_k(scores: Any, k: int) -> list[int]:
    """Indices of the ``k`` highest positive scores, best first; ties go to the earlier
    passage (a passage sharing no term with the query scores 0 and is never a match)."""
    import numpy as np

    if k < len(scores):
        cutoff = scores[np.argpartition(-scores, k - 1)[k - 1]]
        # Every index scoring at least the k-th, so that a tie cut by argpartition goes
        # to the earlier passage, deterministically; zeros are never candidates.
        candidates = np.flatnonzero(scores >= cutoff) if cutoff > 0 else np.flatnonzero(scores)
    else:
        candidates = np.flatnonzero(scores)
    order = np.lexsort((candidates, -scores[candidates]))
    return [int(i) for i in candidates[order][:k]]


def build_bm25s_index(
    corpus_path: str | Path | Iterable[CorpusRecord],
    index_path: str | Path,
    *,
    progress: Callable[[int], None] | None = None,
) -> Bm25sIndex:
    """Index a JSONL corpus (or records) into the directory ``index_path`` with bm25s.

    Written to a temporary directory and moved into place when complete.
    """
    bm25s = _bm25s()
    records = list(read_corpus(corpus_path) if isinstance(corpus_path, str | Path) else corpus_path)
    target = Path(index_path)
    if target.exists() and not (target / _MARKER).is_file():
        raise InputError(f"{str(target)!r} exists and is not a bm25s index; not overwriting it")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        tokens = bm25s.tokenize([r.contents for r in records], show_progress=False)
        model = bm25s.BM25()
        model.index(tokens, show_progress=False)
        model.save(str(tmp), show_progress=False)
        with (tmp / "passages.jsonl").open("w", encoding="utf-8") as out:
            for record in records:
                out.write(record.model_dump_json() + "\n")
        (tmp / _MARKER).write_text(json.dumps({"passages": len(records)}), encoding="utf-8")
        if progress is not None:
            progress(len(records))
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Bm25sIndex.open(target)
