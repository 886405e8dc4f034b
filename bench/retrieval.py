"""The embedded retriever: index build time, query latency, recall@5.

For 10,000 and 100,000 passages (generated deterministically: seeded random
text over a 30,000-word synthetic vocabulary with a Zipf-like word frequency,
plus the 60 bundled passages), for the FTS5 engine and, when installed, bm25s:

* build time of the index from a JSONL file;
* query latency, p50 and p95 of the wall clock and p50 of the CPU time, over 300
  queries (the 15 bundled questions and synthetic 3-8 word queries over the 5,000
  most frequent words), one at a time;
* recall@5: the share of the bundled questions' supporting passages in the top
  5 of a search with the question itself, among the generated passages.

Targets: a 100,000-passage FTS5 build in 30 s or less, query p50 5 ms or less.

    python bench/retrieval.py [--sizes 10000 100000] [--engines fts5 bm25s]
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from answerx.retrieval import (
    Retriever,
    build_bm25s_index,
    build_index,
    bundled_corpus_path,
    bundled_questions,
    read_corpus,
)

SEED = 20261125
VOCABULARY = 30_000
SYLLABLES = "ka lo ve mi ra tor sen dal qui ber nor fi ul es an gor thi pa wen zu mar ost el rin"
SYLLABLES_LIST = SYLLABLES.split()


def _vocabulary(rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < VOCABULARY:
        words.add("".join(rng.choice(SYLLABLES_LIST) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def generate_corpus(path: Path, size: int) -> None:
    """``size`` passages: the bundled ones, then generated ones (same seed, same file)."""
    rng = random.Random(SEED)
    words = _vocabulary(rng)
    # Zipf-like; cumulative once, or every choices() call would sum 30,000 weights again.
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(words))))
    bundled = list(read_corpus(bundled_corpus_path()))
    with path.open("w", encoding="utf-8") as out:
        for record in bundled:
            out.write(record.model_dump_json() + "\n")
        for n in range(size - len(bundled)):
            title = " ".join(rng.choices(words, cum_weights=cumulative, k=2)).title()
            body = " ".join(rng.choices(words, cum_weights=cumulative, k=rng.randint(40, 90)))
            out.write(json.dumps({"id": f"gen-{n}", "contents": f"{title}\n{body}."}) + "\n")


def queries(count: int) -> list[str]:
    rng = random.Random(SEED + 1)
    words = _vocabulary(random.Random(SEED))
    questions = [q.question for q in bundled_questions()]
    generated = [" ".join(rng.choices(words[:5000], k=rng.randint(3, 8)))
                 for _ in range(count - len(questions))]  # fmt: skip
    return questions + generated


def recall_at_5(index: Retriever) -> float:
    found = total = 0
    for question in bundled_questions():
        top = {p.id for p in index.search(question.question, 5)}
        found += len(top & set(question.supporting))
        total += len(question.supporting)
    return found / total


def latency_ms(index: Retriever, texts: list[str]) -> tuple[float, float, float]:
    """Wall-clock p50 and p95, and the p50 of this thread's CPU time: on a shared machine
    the wall clock also counts the time other processes held the core."""
    for text in texts[:20]:  # warm the page cache and the tokenizer
        index.search(text, 5)
    wall, cpu = [], []
    for text in texts:
        started, started_cpu = time.perf_counter(), time.thread_time()
        index.search(text, 5)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.thread_time() - started_cpu) * 1000)
    wall.sort()
    return statistics.median(wall), wall[int(len(wall) * 0.95)], statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--engines", nargs="+", default=["fts5", "bm25s"])
    args = parser.parse_args()
    engines: dict[str, Callable[[Path, Path], Retriever]] = {
        "fts5": lambda corpus, out: build_index(corpus, out.with_suffix(".db")),
        "bm25s": lambda corpus, out: build_bm25s_index(corpus, out),
    }
    if "bm25s" in args.engines and importlib.util.find_spec("bm25s") is None:
        print("bm25s is not installed (pip install 'answerx[bm25]'): skipped")
        args.engines = [e for e in args.engines if e != "bm25s"]
    texts = queries(300)
    print(f"Python {sys.version.split()[0]}; {len(texts)} queries, k=5")
    print("| passages | engine | build s | query p50 ms | query p95 ms | CPU p50 ms | recall@5 |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            corpus = Path(tmp) / f"corpus-{size}.jsonl"
            generate_corpus(corpus, size)
            for engine in args.engines:
                started = time.perf_counter()
                index = engines[engine](corpus, Path(tmp) / f"{engine}-{size}")
                build_s = time.perf_counter() - started
                p50, p95, cpu50 = latency_ms(index, texts)
                recall = recall_at_5(index)
                print(f"| {size:,} | {engine} | {build_s:.1f} | {p50:.2f} | {p95:.2f} | "
                      f"{cpu50:.2f} | {recall:.2f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
