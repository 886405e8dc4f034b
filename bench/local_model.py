"""Local-model benchmark: the bundled SmolLM2-135M-Instruct behind llama.cpp's server.

Everything goes through answerx's own pieces (``LocalModelServer`` and
``InstructorClientManager("local", base_url=…)``) on 127.0.0.1, no network:

1. **Cold start.** (a) In this process, ``LocalModelServer().start()`` from the
   process launch to ``/v1/models`` answering, then to the first structured
   answer (one ``extract_structured`` call), then ``stop()``; repeated
   ``--cold-runs`` times. (b) A fresh Python process using the *autostart* path
   (``ensure_local_server()`` then ``InstructorClientManager("local")`` with no
   URL), timed from the interpreter launch: what a user waits for on a first call.

2. **Throughput.** Plain generation (``complete_text``, ``max_tokens=128``,
   temperature 0) over several prompts: output tokens / wall time of the call.
   Prompt processing: prompts of about 1,000 and 3,000 tokens with
   ``max_tokens=1``: input tokens / wall time. Each long prompt starts with a
   unique line, so llama.cpp cannot reuse the previous prompt's KV cache.

3. **Valid objects per mode** over a fixed, seeded sample of corpus outputs,
   stratified across the three files (``--limit``, default 50): each mode forced
   alone (``tools``, ``json_with_schema``, ``md_json``) and the provider's full
   chain. Per configuration: share of valid objects, mean HTTP requests, mean
   input/output tokens (all items, failures included, counted on the wire),
   median seconds per item, and — informational, not a target — how often the
   structured answer agrees with ``answerx.extract`` on the same text
   (normalised equality, ``bench.corpus.agrees`` without ``verify``). Items run
   one after another with the four configurations in rotating order, and a
   one-token request in between so that no configuration inherits another's
   KV cache. Outputs that would not fit the 4,096-token context with room for the
   reply are cut to their last ~6,000 characters (counted in a footnote).

4. **Every approach model.** Each of the eight approaches' response models (the
   ``get_extraction_model`` of ``none``, ``chain_of_thought``, …) × ``--approach-inputs``
   realistic inputs (short hand-written outputs like the call of issue 18 first, then
   corpus outputs of at most 1,800 characters), each mode alone and the full chain: share of
   valid objects, agreement of ``answer_value`` with ``answerx.extract``, and the
   share of calls that needed a repair (``CallInfo.repairs``) or a re-ask. With the
   full chain alone, its first mode is also read on its own ("tools (1st of chain)":
   the same requests as tools forced alone). ``--approach-workers N`` spreads the calls
   over N servers, ``--approaches`` picks models, ``--approach-log`` keeps the raw
   replies of every call in which some mode failed; Ctrl-C prints the tables so far.

``--gguf PATH`` serves another GGUF file to compare models side by side (with
``--server-args "--chat_format gemma"`` for a GGUF without a chat template).

Prints tables and exits 0: a measurement, not a test. The corpus lives in
``../shared/data/corpus`` (or ``$ANSWERX_CORPUS``); without it part 3 is skipped.

    python bench/local_model.py              # everything (~15-25 minutes on 2 cores)
    python bench/local_model.py --limit 5    # smoke test
    python bench/local_model.py --skip-cold --skip-throughput --skip-modes \\
        --approach-inputs 3 --approach-configs tools,"full chain"   # part 4, small
    python bench/local_model.py --skip-cold --skip-throughput --skip-modes \\
        --approach-configs "full chain" --approach-workers 2 --threads 1 --wait-idle 0
        # part 4 as measured for issue 18 (8 x 25 calls)
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import importlib.util
import itertools
import json
import os
import platform
import random
import re
import shlex
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from answerx import extract
from answerx.errors import AnswerxError, StructuredOutputError
from answerx.structured import InstructorClientManager
from answerx.structured.models import extraction_prompt_fields
from answerx.support.resources import data_file
from corpus import CORPUS_FILES, CorpusItem, agrees, corpus_dir, load

N_CTX = 4096
MAX_TOKENS = 512  # the local provider's max_tokens (config/providers.yaml)
# Room kept beside the extraction prompt for the chat template and, in the JSON
# modes, the schema Instructor writes into the system message.
SCHEMA_ALLOWANCE = 700
TRUNCATE_TO_CHARS = 6000
CONFIGS: dict[str, list[str] | None] = {
    "tools": ["tools"],
    "json_with_schema": ["json_with_schema"],
    "md_json": ["md_json"],
    "full chain": None,  # the provider's own chain: tools, json_with_schema, md_json
}
SHORT = {"math_l5_zeroeval": "math", "gsm8k_mixed": "gsm8k", "multiple_choice_mmlupro": "mmlu-pro"}
COLD_RAW = "Let me compute. 12 * 4 = 48, then 48 - 6 = 42. So the answer is 42."
GEN_PROMPTS = (
    "Write a short story about a lighthouse keeper who finds a message in a bottle.",
    "Explain how a refrigerator keeps food cold, step by step.",
    "Describe a walk through a busy market in the morning.",
    "List ten tips for learning to play the guitar, with a sentence on each.",
    "Write a letter to a friend about a trip to the mountains.",
)
_WORDS = (
    "river", "stone", "market", "ladder", "window", "garden", "number", "engine", "silver",
    "morning", "paper", "winter", "orchard", "signal", "copper", "harbour", "lantern", "meadow",
    "thunder", "pencil", "valley", "bridge", "candle", "forest", "mirror", "rocket", "saddle",
    "tunnel", "violet", "wagon",
)  # fmt: skip


# --------------------------------------------------------------------------- helpers


def _llama_server_version() -> str:
    try:
        return importlib.metadata.version("llama_cpp_python")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def _rss_mb(process: Any) -> str:
    try:
        status = Path(f"/proc/{process.pid}/status").read_text()
    except (OSError, AttributeError):
        return "n/a"
    kb = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")), 0)
    return f"{kb / 1024:.0f} MB"


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def _mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else float("nan")


def _root(base_url: str) -> str:
    return base_url.rstrip("/").removesuffix("/v1")


def _count_tokens(base_url: str, text: str) -> int:
    """Tokens of ``text`` for the served model (llama-cpp-python's /extras endpoint)."""
    r = httpx.post(f"{_root(base_url)}/extras/tokenize/count", json={"input": text}, timeout=60)
    r.raise_for_status()
    return int(r.json()["count"])


def _flush_cache(base_url: str) -> None:
    """A one-token request with another prompt: the next request reuses no KV cache."""
    httpx.post(
        f"{base_url}/chat/completions",
        json={"messages": [{"role": "user", "content": "ok"}], "max_tokens": 1},
        timeout=60,
    ).raise_for_status()


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class Neighbours:
    """CPU used by *other* processes on this machine while we measure (a test run, say).

    llama.cpp's threads wait for each other at every operation; with as many
    threads as cores, any other busy process makes a generation many times slower
    (on 2 cores: ~2.5 s calls took 100+ s). So each measurement first waits (up to
    ``wait_s``) until other processes use less than ``threshold`` cores, and one
    during which they used more is marked ``busy``. Other processes' CPU = the
    machine's busy time (``/proc/stat``) minus this process and its children
    (servers included). Linux only; elsewhere nothing is measured.
    """

    def __init__(self, wait_s: float, threshold: float = 0.25) -> None:
        self.wait_s = wait_s
        self.threshold = threshold
        self.busy_marks = 0

    @staticmethod
    def _machine_busy() -> int | None:
        try:
            cpu = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]
        except OSError:
            return None
        ticks = [int(x) for x in cpu]
        return sum(ticks) - ticks[3] - ticks[4]  # all but idle and iowait

    @staticmethod
    def _ours() -> int:
        """CPU ticks of this process, its reaped children, and its living descendants."""
        t = os.times()
        total = round((t.user + t.system + t.children_user + t.children_system) * _TICK)
        parent: dict[int, int] = {}
        ticks: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                f = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            pid = int(entry.name)
            parent[pid] = int(f[1])
            ticks[pid] = sum(int(x) for x in f[11:15])  # utime stime cutime cstime
        me = os.getpid()
        for pid in ticks:
            p, hops = parent.get(pid), 0
            while p is not None and p > 1 and p != me and hops < 8:
                p, hops = parent.get(p), hops + 1
            if p == me and pid != me:
                total += ticks[pid]
        return total

    def sample(self) -> tuple[float, int] | None:
        busy = self._machine_busy()
        return None if busy is None else (time.monotonic(), busy - self._ours())

    @staticmethod
    def cores(a: tuple[float, int] | None, b: tuple[float, int] | None) -> float:
        """Cores used by other processes between two samples."""
        if a is None or b is None or b[0] <= a[0]:
            return 0.0
        return max(0.0, (b[1] - a[1]) / _TICK / (b[0] - a[0]))

    def now(self, seconds: float = 1.0) -> float:
        first = self.sample()
        time.sleep(seconds)
        return self.cores(first, self.sample())

    def wait_idle(self) -> None:
        if self.wait_s <= 0:  # --wait-idle 0: measure whatever else runs (marked busy)
            return
        deadline = time.monotonic() + self.wait_s
        told = False
        while (load := self.now()) > self.threshold and time.monotonic() < deadline:
            if not told:
                print(f"  (other processes use {load:.1f} cores: waiting up to "
                      f"{self.wait_s:g} s for the machine to be quiet)",
                      file=sys.stderr, flush=True)  # fmt: skip
                told = True

    def watch(self) -> tuple[float, int] | None:
        """Start a measurement (pass the result to :meth:`mark`)."""
        return self.sample()

    def mark(self, start: tuple[float, int] | None) -> str:
        """'busy N.N' when other processes used more than ``threshold`` cores since
        ``start``, else ''; counts the busy ones."""
        load = self.cores(start, self.sample())
        if load <= self.threshold:
            return ""
        self.busy_marks += 1
        return f"busy {load:.1f}"


class WireCounter:
    """HTTP requests and usage seen on an SDK client, failed calls included.

    ``CallInfo`` exists only for calls that succeed; this counts every request,
    also one that timed out, and the usage of every response (through httpx event
    hooks on the OpenAI SDK's HTTP client).
    """

    def __init__(self, sdk: Any) -> None:
        self.requests = 0
        self.input_tokens = 0
        self.output_tokens = 0
        http = getattr(sdk, "_client", None)  # the OpenAI SDK's httpx.Client
        self.available = http is not None and hasattr(http, "event_hooks")
        if self.available:
            http.event_hooks["request"].append(self._on_request)
            http.event_hooks["response"].append(self._on_response)

    def _on_request(self, request: httpx.Request) -> None:
        if request.url.path.endswith("/chat/completions"):
            self.requests += 1

    def _on_response(self, response: httpx.Response) -> None:
        if not response.request.url.path.endswith("/chat/completions"):
            return
        response.read()
        try:
            usage = response.json().get("usage") or {}
        except ValueError:
            return
        self.input_tokens += int(usage.get("prompt_tokens") or 0)
        self.output_tokens += int(usage.get("completion_tokens") or 0)

    def snapshot(self) -> tuple[int, int, int]:
        return self.requests, self.input_tokens, self.output_tokens


# --------------------------------------------------------------------------- 1. cold start


_CHILD = """
import json, sys, time
t = [time.time()]
from answerx.local import ensure_local_server
from answerx.structured import InstructorClientManager
t.append(time.time())
ensure_local_server()
t.append(time.time())
m = InstructorClientManager("local")
x, info = m.extract_structured(sys.argv[1], "none", task="numeric", temperature=0)
t.append(time.time())
print(json.dumps({"t": t, "mode": info.mode, "answer": x.answer_value}))
"""


def make_server(threads: int | None, extra: list[str]) -> Any:
    """A ``LocalModelServer``, with ``extra`` arguments for llama_cpp.server (experiments)."""
    from answerx.local import LocalModelServer

    class Server(LocalModelServer):
        def command(self) -> list[str]:
            return [*super().command(), *extra]

    return Server(n_threads=threads)  # the model: $ANSWERX_LOCAL_GGUF, else the bundled one


def cold_start(runs: int, nb: Neighbours, threads: int | None, extra: list[str]) -> None:
    print("\n== 1. Cold start")
    print(f"(a) in this process: LocalModelServer().start(), {runs} runs, stopped in between")
    print(f"{'run':<5}{'→ /v1/models s':>16}{'→ 1st answer s':>16}{'1st call s':>12}"
          f"{'requests':>9}{'mode':>18}{'answer':>8}{'stop s':>8}")  # fmt: skip
    to_models: list[float] = []
    to_answer: list[float] = []
    for run in range(1, runs + 1):
        nb.wait_idle()
        seen = nb.watch()
        t0 = time.perf_counter()
        with make_server(threads, extra) as server:
            t1 = time.perf_counter()
            manager = InstructorClientManager("local", base_url=server.base_url)
            x, info = manager.extract_structured(COLD_RAW, "none", task="numeric", temperature=0)
            t2 = time.perf_counter()
        t3 = time.perf_counter()
        to_models.append(t1 - t0)
        to_answer.append(t2 - t0)
        busy = nb.mark(seen)
        print(f"{run:<5}{t1 - t0:>16.2f}{t2 - t0:>16.2f}{t2 - t1:>12.2f}{info.attempts:>9}"
              f"{info.mode or '-':>18}{x.answer_value:>8}{t3 - t2:>8.2f} {busy}")  # fmt: skip
    print(f"median: {_median(to_models):.2f} s to /v1/models, "
          f"{_median(to_answer):.2f} s to the first structured answer")  # fmt: skip

    print(f"\n(b) fresh `python -c` with the autostart path, {runs} runs "
          "(times from the interpreter launch)")  # fmt: skip
    print(f"{'run':<5}{'imports s':>11}{'→ /v1/models s':>16}{'→ 1st answer s':>16}"
          f"{'exit s':>8}{'mode':>18}")  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "ANSWERX_LOCAL_URL"}
    totals: list[float] = []
    for run in range(1, runs + 1):
        nb.wait_idle()
        seen = nb.watch()
        launch = time.time()
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, COLD_RAW],
            capture_output=True, text=True, env=env, timeout=600, check=False,
        )  # fmt: skip
        ended = time.time()
        if proc.returncode != 0:
            print(f"{run:<5}failed (rc {proc.returncode}): {proc.stderr.strip()[-300:]}")
            continue
        data = json.loads(proc.stdout.strip().splitlines()[-1])
        t = data["t"]
        totals.append(t[3] - launch)
        print(f"{run:<5}{t[1] - launch:>11.2f}{t[2] - launch:>16.2f}{t[3] - launch:>16.2f}"
              f"{ended - t[3]:>8.2f}{data['mode'] or '-':>18} {nb.mark(seen)}")  # fmt: skip
    if totals:
        print(f"median: {_median(totals):.2f} s from `python` launch to the first structured "
              "answer (exit includes stopping the server at interpreter exit)")  # fmt: skip


# --------------------------------------------------------------------------- 2. throughput


def _filler(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def throughput(base_url: str, nb: Neighbours) -> None:
    manager = InstructorClientManager("local", base_url=base_url)
    print("\n== 2. Throughput")
    nb.wait_idle()
    manager.complete_text([{"role": "user", "content": "Say hi."}], max_tokens=8, temperature=0)
    print("(a) generation: complete_text, max_tokens=128, temperature=0 (after one warm-up call)")
    print(f"{'prompt':<52}{'in tok':>7}{'out tok':>8}{'s':>7}{'out tok/s':>11}")
    outs, secs = 0, 0.0
    rates: list[float] = []
    for prompt in GEN_PROMPTS:
        _flush_cache(base_url)
        seen = nb.watch()
        _, info = manager.complete_text(
            [{"role": "user", "content": prompt}], max_tokens=128, temperature=0
        )
        u = info.usage
        rate = u.output_tokens / info.latency_s
        rates.append(rate)
        outs += u.output_tokens
        secs += info.latency_s
        print(f"{prompt[:50]:<52}{u.input_tokens:>7}{u.output_tokens:>8}{info.latency_s:>7.2f}"
              f"{rate:>11.1f} {nb.mark(seen)}")  # fmt: skip
    print(f"all: {outs} tokens in {secs:.2f} s = {outs / secs:.1f} tokens/s (median per "
          f"prompt {_median(rates):.1f}); wall time includes the short prompt")  # fmt: skip

    print("\n(b) prompt processing: max_tokens=1, unique first line (no KV-cache reuse)")
    print(f"{'words':<10}{'run':>4}{'in tok':>8}{'s':>7}{'in tok/s':>10}")
    rng = random.Random(1)
    for words in (700, 2200):  # ~1,000 and ~3,000 tokens
        rates = []
        for run in range(1, 4):
            text = f"Note {rng.randrange(10**9)}.\n" + _filler(rng, words)
            prompt = f"{text}\n\nSummarise the text above in one word."
            seen = nb.watch()
            _, info = manager.complete_text(
                [{"role": "user", "content": prompt}], max_tokens=1, temperature=0
            )
            rate = info.usage.input_tokens / info.latency_s
            rates.append(rate)
            print(f"{words:<10}{run:>4}"
                  f"{info.usage.input_tokens:>8}{info.latency_s:>7.2f}{rate:>10.0f}"
                  f" {nb.mark(seen)}")  # fmt: skip
        print(f"  median {_median(rates):,.0f} input tokens/s")


# --------------------------------------------------------------------------- 3. valid objects


@dataclass
class Sample:
    item: CorpusItem
    corpus: str
    text: str  # what the model sees (the raw output, or its tail)
    truncated: bool
    raw_tokens: int
    deterministic: str | None


@dataclass
class Outcome:
    ok: bool
    seconds: float
    requests: int
    input_tokens: int
    output_tokens: int
    mode: str | None = None
    answer: str | None = None
    agrees: bool = False
    reason: str | None = None
    callinfo_matches: bool | None = None


@dataclass
class Tally:
    outcomes: list[Outcome] = field(default_factory=list)
    by_corpus: dict[str, list[bool]] = field(default_factory=dict)


def stratified_sample(n: int, seed: int) -> list[tuple[str, CorpusItem]]:
    """``n`` items, as even as possible across the corpus files, interleaved; seeded."""
    names = list(CORPUS_FILES)
    per = [n // len(names) + (i < n % len(names)) for i in range(len(names))]
    rng = random.Random(seed)
    picks = [
        [(name, it) for it in rng.sample(load(name), k)] for name, k in zip(names, per, strict=True)
    ]
    out: list[tuple[str, CorpusItem]] = []
    for i in range(max(per)):
        out.extend(p[i] for p in picks if i < len(p))
    return out


def _prompt_tokens_without_output(base_url: str, item: CorpusItem) -> int:
    template = Template(data_file("prompts/extraction.txt").read_text(encoding="utf-8"))
    fields = extraction_prompt_fields("", task=item.task, choices=item.choices)
    return _count_tokens(base_url, template.substitute(fields))


def prepare(base_url: str, picked: list[tuple[str, CorpusItem]]) -> list[Sample]:
    samples = []
    for corpus, item in picked:
        raw = item.raw_output
        raw_tokens = _count_tokens(base_url, raw)
        overhead = _prompt_tokens_without_output(base_url, item)
        budget = N_CTX - MAX_TOKENS - SCHEMA_ALLOWANCE - overhead
        text, truncated = raw, False
        if raw_tokens > budget:
            text, truncated = raw[-TRUNCATE_TO_CHARS:], True
            while _count_tokens(base_url, text) > budget:  # dense LaTeX: cut a little more
                text = text[len(text) // 10 :]
        det = extract(text, item.task, choices=item.choices).answer
        samples.append(Sample(item, corpus, text, truncated, raw_tokens, det))
    return samples


_FIELD_ERROR = re.compile(r"validation errors? for \S+ (\w+) (?:Value error, )?([^\[]{0,60})")


def _why(text: str) -> str:
    """A short, groupable reason from a failure message."""
    msg = " ".join(text.split())
    if "cut off at max_tokens" in msg:
        return f"reply cut off at max_tokens ({MAX_TOKENS})"
    if "exceed context window" in msg:
        return f"prompt over n_ctx ({N_CTX})"
    if "control character" in msg:
        return "invalid JSON: raw control character in a string"
    if "Invalid JSON" in msg or "json_invalid" in msg:
        return "invalid JSON"
    m = _FIELD_ERROR.search(msg)
    if m:
        return f"{m.group(1)}: {m.group(2).strip()}"
    return msg[:70]


def _reason(exc: BaseException) -> str:
    if isinstance(exc, StructuredOutputError):  # every mode re-asked and still invalid
        return "; ".join(f"{mode}: {_why(r)}" for mode, r in exc.failures)
    return f"{type(exc).__name__}: {_why(str(exc))}"


def run_one(manager: InstructorClientManager, wire: WireCounter, s: Sample) -> Outcome:
    before = wire.snapshot()
    t0 = time.perf_counter()
    try:
        x, info = manager.extract_structured(
            s.text, "none", task=s.item.task, choices=s.item.choices, temperature=0
        )
    except AnswerxError as exc:
        seconds = time.perf_counter() - t0
        req, tin, tout = (a - b for a, b in zip(wire.snapshot(), before, strict=True))
        return Outcome(False, seconds, req, tin, tout, reason=_reason(exc))
    seconds = time.perf_counter() - t0
    req, tin, tout = (a - b for a, b in zip(wire.snapshot(), before, strict=True))
    matches = (info.attempts, info.usage.input_tokens, info.usage.output_tokens) == (req, tin, tout)
    answer = x.answer_value
    return Outcome(
        True, seconds, req, tin, tout, mode=info.mode, answer=answer,
        agrees=agrees(s.item.task, answer, s.deterministic), callinfo_matches=matches,
    )  # fmt: skip


def valid_objects(
    base_url: str, limit: int, seed: int, nb: Neighbours, details: bool = False
) -> None:
    print(f"\n== 3. Valid objects per mode ({limit} corpus outputs, seed {seed})")
    if corpus_dir() is None:
        print("corpus not found (../shared/data/corpus or $ANSWERX_CORPUS): part 3 skipped")
        return
    samples = prepare(base_url, stratified_sample(limit, seed))
    counts = Counter(s.corpus for s in samples)
    print("sample: " + ", ".join(f"{n} {name}" for name, n in counts.items())
          + f"; raw output tokens median {_median([s.raw_tokens for s in samples]):.0f}, "
          f"max {max(s.raw_tokens for s in samples)}")  # fmt: skip
    managers = {
        name: InstructorClientManager("local", base_url=base_url, modes=modes)  # type: ignore[arg-type]
        for name, modes in CONFIGS.items()
    }
    wires = {name: WireCounter(m.sdk_client()) for name, m in managers.items()}
    tallies = {name: Tally() for name in CONFIGS}
    order = list(CONFIGS)
    started = time.perf_counter()
    quiet: list[bool] = []
    for i, s in enumerate(samples):
        rotated = order[i % len(order) :] + order[: i % len(order)]
        line = []
        nb.wait_idle()
        seen = nb.watch()
        for name in rotated:
            _flush_cache(base_url)
            out = run_one(managers[name], wires[name], s)
            tallies[name].outcomes.append(out)
            tallies[name].by_corpus.setdefault(s.corpus, []).append(out.ok)
            line.append(f"{name}={'ok' if out.ok else 'FAIL'}/{out.seconds:.1f}s")
        busy = nb.mark(seen)
        quiet.append(not busy)
        print(f"  [{i + 1}/{len(samples)} {time.perf_counter() - started:6.0f}s] "
              f"{s.item.id[:48]:<48} " + " ".join(line) + f" {busy}",
              file=sys.stderr, flush=True)  # fmt: skip

    print(f"\n{'configuration':<18}{'valid %':>8}{'mean req':>9}{'mean in tok':>12}"
          f"{'mean out tok':>13}{'median s':>9}{'quiet':>7}{'out tok/s':>10}"
          f"{'agree %':>9}")  # fmt: skip
    for name, t in tallies.items():
        o = t.outcomes
        valid = [x for x in o if x.ok]
        secs = sum(x.seconds for x in o)
        tin, tout = _mean([x.input_tokens for x in o]), _mean([x.output_tokens for x in o])
        print(
            f"{name:<18}{100 * len(valid) / len(o):>8.1f}{_mean([x.requests for x in o]):>9.2f}"
            f"{tin:>12.0f}{tout:>13.0f}"
            f"{_median([x.seconds for x in o]):>9.2f}"
            f"{_median([x.seconds for x, q in zip(o, quiet, strict=True) if q]):>7.2f}"
            f"{sum(x.output_tokens for x in o) / secs:>10.1f}"
            f"{100 * sum(x.agrees for x in o) / len(o):>9.1f}"
        )
    n_trunc = sum(s.truncated for s in samples)
    print(
        "  mean req / tokens: HTTP requests and usage per item counted on the wire, failed\n"
        "  items included; median s: wall time per item (quiet: items not marked busy);\n"
        "  out tok/s: all output tokens / all time (prompt processing and re-asks included);\n"
        "  agree %: structured answer == answerx.extract on the same text (normalised), over all\n"
        "  items (a failure counts as no agreement); informational, not a target.\n"
        f"  {n_trunc} of {len(samples)} outputs would not fit n_ctx {N_CTX} with room for the reply"
        f" ({MAX_TOKENS}) and the schema: cut to their last ~{TRUNCATE_TO_CHARS:,} characters.\n"
        f"  {quiet.count(False)} of {len(samples)} items ran while other processes used more than "
        f"{nb.threshold:g} cores (their timings are unreliable)."
    )

    print(f"\n{'valid % by file':<18}" + "".join(f"{SHORT[c]:>24}" for c in counts))
    for name, t in tallies.items():
        cells = ""
        for c in counts:
            oks = t.by_corpus[c]
            cells += f"{100 * sum(oks) / len(oks):>19.1f} ({len(oks):>2})"
        print(f"{name:<18}{cells}")

    print(f"\n{'agree % of valid':<18}{'agree %':>8}{'valid':>7}")
    for name, t in tallies.items():
        valid = [x for x in t.outcomes if x.ok]
        pct = 100 * sum(x.agrees for x in valid) / len(valid) if valid else float("nan")
        print(f"{name:<18}{pct:>8.1f}{len(valid):>7}")

    chain = tallies["full chain"]
    modes = Counter(x.mode for x in chain.outcomes if x.ok)
    if details:
        print(f"\n{'item':<50}{'extract':>12}" + "".join(f"{n[:12]:>13}" for n in CONFIGS))
        for k, s in enumerate(samples):
            cells = ""
            for t in tallies.values():
                o = t.outcomes[k]
                cells += f"{(o.answer or '')[:12] if o.ok else 'FAIL':>13}"
            cut = "*" if s.truncated else ""
            print(f"{s.item.id[:48] + cut:<50}{(s.deterministic or '-')[:12]:>12}{cells}")

    print("\nfull chain, mode that produced the object: "
          + (", ".join(f"{m} {n}" for m, n in modes.most_common()) or "none"))  # fmt: skip
    print("\nfailures by reason:")
    for name, t in tallies.items():
        reasons = Counter(x.reason for x in t.outcomes if not x.ok)
        for reason, n in reasons.most_common():
            print(f"  {name:<18}{n:>3}  {reason}")
        if not reasons:
            print(f"  {name:<18}  0")
    checked = [x.callinfo_matches for t in tallies.values() for x in t.outcomes if x.ok]
    if all(w.available for w in wires.values()):
        print(f"\nCallInfo (attempts, tokens) equals the wire count for "
              f"{sum(bool(c) for c in checked)} of {len(checked)} valid objects")  # fmt: skip


# --------------------------------------------------------------------------- 4. every approach


#: Short hand-written outputs like the call in issue 18, beside the corpus ones.
HANDWRITTEN: tuple[tuple[str, str, list[str] | None], ...] = (
    ("17 + 25 = 42. Therefore, the answer is 42.", "numeric", None),
    ("Let me compute. 12 * 4 = 48, then 48 - 6 = 42. So the answer is 42.", "numeric", None),
    ("She had 3 apples and bought 5 more: 8. She gave 2 away, leaving 6. The answer is 6.",
     "numeric", None),
    ("15% of 80 is 12, and 80 - 12 = 68.\nFinal answer: 68", "numeric", None),
    ("The train goes 60 km/h for 2.5 hours: 60 * 2.5 = 150 km.\n#### 150", "numeric", None),
    ("We have x^2 = 9 and x > 0, so x = 3. The answer is $\\boxed{3}$.", "math", None),
    ("Paris is the capital of France, so the answer is (B).", "multiple_choice",
     ["London", "Paris", "Rome"]),
    ("91 = 7 * 13, so 91 is not prime. No.", "boolean", None),
)  # fmt: skip
APPROACH_CONFIGS = ("tools", "json_with_schema", "md_json", "full chain")
_APPROACH_NAMES = (
    "none", "chain_of_thought", "tree_of_thought", "program_of_thought",
    "reasoning_as_planning", "reflection", "chain_of_verification", "skeleton_of_thought",
)  # fmt: skip


@dataclass
class ApproachInput:
    text: str
    task: str
    choices: list[str] | None
    deterministic: str | None
    source: str


def approach_inputs(base_url: str, n: int, seed: int) -> list[ApproachInput]:
    """The hand-written outputs, then corpus outputs short enough to read in seconds
    (at most 1,800 characters, ~600 tokens), up to ``n`` in all; seeded."""
    picked = [
        ApproachInput(text, task, choices, extract(text, task, choices=choices).answer, "hand")
        for text, task, choices in HANDWRITTEN
    ][:n]
    if len(picked) < n and corpus_dir() is not None:
        for corpus, item in stratified_sample(20 * n, seed):
            if len(picked) >= n:
                break
            # Characters, not the served model's tokens: the same inputs for every model.
            if len(item.raw_output) > 1800:
                continue
            det = extract(item.raw_output, item.task, choices=item.choices).answer
            picked.append(ApproachInput(item.raw_output, item.task, item.choices, det, corpus))
    return picked


@dataclass
class ApproachOutcome:
    ok: bool
    agrees: bool
    repaired: bool
    reasked: bool
    seconds: float
    reason: str | None = None
    #: The full chain only: the chain's modes in order (whether each produced the
    #: object, its requests, its repairs), so its first mode can be read as "tools alone".
    modes: tuple[tuple[str, bool, int, bool], ...] = ()
    output_tokens: int = 0  # every request of the call, re-asks included


class ReplyLog:
    """The raw replies of one worker's calls (tool arguments or message content, and
    the finish reason), kept for the calls where some mode failed: the evidence for
    *why* a mode fails, written as JSON lines to ``--approach-log``."""

    def __init__(self, sdk: Any) -> None:
        self.replies: list[dict[str, Any]] = []
        http = getattr(sdk, "_client", None)
        if http is not None and hasattr(http, "event_hooks"):
            http.event_hooks["response"].append(self._on_response)

    def _on_response(self, response: httpx.Response) -> None:
        if not response.request.url.path.endswith("/chat/completions"):
            return
        response.read()
        try:
            choice = response.json()["choices"][0]
        except (ValueError, KeyError, IndexError):
            self.replies.append({"status": response.status_code, "body": response.text[:500]})
            return
        message = choice.get("message") or {}
        calls = message.get("tool_calls") or []
        self.replies.append({
            "finish_reason": choice.get("finish_reason"),
            "content": message.get("content"),
            "arguments": calls[0]["function"]["arguments"] if calls else None,
        })  # fmt: skip


def _approach_call(
    manager: InstructorClientManager, approach: str, item: ApproachInput, temperature: float
) -> tuple[ApproachOutcome, Any]:
    """One structured call; its outcome and its CallInfo (None when none came back)."""
    t0 = time.perf_counter()
    try:
        x, info = manager.extract_structured(
            item.text, approach, task=item.task, choices=item.choices, temperature=temperature
        )
    except AnswerxError as exc:
        info = getattr(exc, "call_info", None)
        outcome = ApproachOutcome(
            False, False, bool(info and info.repairs), True, time.perf_counter() - t0,
            _reason(exc), _modes_of(info), info.usage.output_tokens if info else 0,
        )  # fmt: skip
        return outcome, info
    used = info.modes_tried[-1]
    return ApproachOutcome(
        True, agrees(item.task, x.answer_value, item.deterministic), bool(info.repairs),
        info.fell_back or used.requests > 1, time.perf_counter() - t0, None, _modes_of(info),
        info.usage.output_tokens,
    ), info  # fmt: skip


def _modes_of(info: Any) -> tuple[tuple[str, bool, int, bool], ...]:
    if info is None:
        return ()
    return tuple(
        (m.mode, m.ok, m.requests, any(r.startswith(f"{m.mode}:") for r in info.repairs))
        for m in info.modes_tried
    )


def _first_mode(o: ApproachOutcome) -> ApproachOutcome:
    """The chain's first mode read on its own: the same requests as that mode forced
    alone (the chain starts with it), so at temperature 0 the same outcome."""
    if not o.modes:
        return ApproachOutcome(False, False, False, True, o.seconds, o.reason)
    _, ok, requests, repaired = o.modes[0]
    return ApproachOutcome(ok, ok and o.agrees, repaired, not ok or requests > 1, o.seconds)


def every_approach(
    servers: list[Any], n: int, seed: int, nb: Neighbours, configs: list[str],
    temperature: float, log_path: str | None, approaches: list[str],
) -> None:  # fmt: skip
    """Part 4: every approach's response model x ``n`` inputs x each configuration,
    spread over ``servers`` (one worker thread each)."""
    from concurrent.futures import ThreadPoolExecutor
    from queue import Queue

    inputs = approach_inputs(servers[0].base_url, n, seed)
    sources = Counter(i.source for i in inputs)
    print(
        f"\n== 4. Every approach model: {len(approaches)} models x {len(inputs)} inputs "
        f"({', '.join(f'{k} {v}' for k, v in sources.items())}), temperature {temperature:g}, "
        f"{len(servers)} server(s) of {servers[0].n_threads} thread(s)"
    )
    workers: Queue[tuple[dict[str, InstructorClientManager], dict[str, ReplyLog]]] = Queue()
    for server in servers:
        managers = {
            name: InstructorClientManager("local", base_url=server.base_url, modes=CONFIGS[name])  # type: ignore[arg-type]
            for name in configs
        }
        workers.put((managers, {name: ReplyLog(m.sdk_client()) for name, m in managers.items()}))
    log = open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115
    results: dict[tuple[str, str], list[ApproachOutcome | None]] = {
        (a, c): [None] * len(inputs) for a in approaches for c in configs
    }
    started = time.perf_counter()
    # Input-major: a run stopped early (Ctrl-C) has seen every approach on the same inputs.
    jobs = [(a, c, k) for k in range(len(inputs)) for a in approaches for c in configs]
    counter = itertools.count(1)  # next() is atomic: the workers share it

    def run(job: tuple[str, str, int]) -> None:
        approach, name, k = job
        managers, replies = workers.get()
        try:
            nb.wait_idle()
            replies[name].replies.clear()
            outcome, info = _approach_call(managers[name], approach, inputs[k], temperature)
            results[(approach, name)][k] = outcome
            if log is not None and (not outcome.ok or any(not m[1] for m in outcome.modes)):
                log.write(json.dumps({
                    "approach": approach, "configuration": name, "input": k,
                    "task": inputs[k].task, "source": inputs[k].source, "ok": outcome.ok,
                    "reason": outcome.reason,
                    "modes": info.model_dump(include={"modes_tried", "repairs"}) if info else None,
                    "replies": replies[name].replies,
                }) + "\n")  # fmt: skip
                log.flush()
        finally:
            workers.put((managers, replies))
        first = outcome.modes[0] if outcome.modes else None
        print(f"  [{time.perf_counter() - started:6.0f}s] call {next(counter)}/{len(jobs)}: "
              f"{approach} / {name} / input {k}: {'ok' if outcome.ok else 'FAIL'}"
              f"{' agrees' if outcome.agrees else ''}"
              f"{f' ({first[0]} failed)' if first and not first[1] else ''}"
              f" {outcome.seconds:.0f}s", file=sys.stderr, flush=True)  # fmt: skip
        done = results[(approach, name)]
        if all(o is not None for o in done):
            ok = sum(o.ok for o in done if o is not None)
            print(f"  [{time.perf_counter() - started:6.0f}s] {approach:<22}{name:<18}"
                  f"valid {ok}/{len(done)}", file=sys.stderr, flush=True)  # fmt: skip

    pool = ThreadPoolExecutor(len(servers))
    try:
        list(pool.map(run, jobs))
    except KeyboardInterrupt:  # stopped early: summarise the calls that finished
        print("\n  (stopped: the tables cover the calls that finished)", flush=True)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if log is not None:
            log.close()

    table = {key: [o for o in xs if o is not None] for key, xs in results.items()}
    if not any(table.values()):
        return
    if "full chain" in configs and "tools" not in configs:
        for approach in approaches:
            table[(approach, "tools (1st of chain)")] = [
                _first_mode(o) for o in table[(approach, "full chain")]
            ]
        configs = [*configs, "tools (1st of chain)"]
    print(f"\n{'approach':<24}{'configuration':<22}{'valid %':>8}{'agree %':>8}"
          f"{'repaired %':>11}{'re-asked %':>11}{'median s':>9}{'calls':>7}")  # fmt: skip
    for approach in approaches:
        for name in configs:
            o = table[(approach, name)]
            if not o:
                continue
            print(f"{approach:<24}{name:<22}{100 * sum(x.ok for x in o) / len(o):>8.1f}"
                  f"{100 * sum(x.agrees for x in o) / len(o):>8.1f}"
                  f"{100 * sum(x.repaired for x in o) / len(o):>11.1f}"
                  f"{100 * sum(x.reasked for x in o) / len(o):>11.1f}"
                  f"{_median([x.seconds for x in o]):>9.2f}{len(o):>7}")  # fmt: skip
    print(f"\n{'all approaches':<24}{'configuration':<22}{'valid %':>8}{'agree %':>8}"
          f"{'repaired %':>11}{'re-asked %':>11}{'calls':>7}{'out tok/s':>10}")  # fmt: skip
    for name in configs:
        o = [x for (a, c), xs in table.items() if c == name for x in xs]
        if not o:
            continue
        print(f"{'':<24}{name:<22}{100 * sum(x.ok for x in o) / len(o):>8.1f}"
              f"{100 * sum(x.agrees for x in o) / len(o):>8.1f}"
              f"{100 * sum(x.repaired for x in o) / len(o):>11.1f}"
              f"{100 * sum(x.reasked for x in o) / len(o):>11.1f}{len(o):>7}"
              + (f"{sum(x.output_tokens for x in o) / sum(x.seconds for x in o):>10.1f}"
                 if any(x.output_tokens for x in o) else f"{'-':>10}"))  # fmt: skip
    chain = [x for (a, c), xs in table.items() if c == "full chain" for x in xs]
    if chain:
        producers = Counter(next((m[0] for m in x.modes if m[1]), "none") for x in chain)
        print("  full chain, mode that produced the object: "
              + ", ".join(f"{m} {k}" for m, k in producers.most_common()))  # fmt: skip
    print(
        "  valid %: a validated object came back; agree %: its answer_value equals\n"
        "  answerx.extract's on the same text (normalised), failures counted as no agreement;\n"
        "  repaired %: CallInfo.repairs is not empty (raw control characters escaped, a\n"
        "  confidence kept as missing); re-asked %: the producing mode needed more than one\n"
        "  request, or an earlier mode failed (failures count as re-asked). 'tools (1st of\n"
        "  chain)': the chain's first mode read alone, the same requests as tools forced alone;\n"
        "  out tok/s: output tokens of all calls / their wall time (prompts and re-asks included)."
    )
    reasons = Counter(x.reason for o in table.values() for x in o if not x.ok and x.reason)
    for reason, count in reasons.most_common(8):
        print(f"  failure x{count}: {reason}")
    first = Counter(
        f"{m[0]} failed" for o in table.values() for x in o for m in x.modes[:1] if not m[1]
    )
    for what, count in first.most_common():
        print(f"  chain's first mode: {what} x{count}")


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--limit", type=int, default=50, help="corpus outputs in part 3 (default 50)")
    ap.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    ap.add_argument("--cold-runs", type=int, default=3, help="cold starts of each kind (3)")
    ap.add_argument("--skip-cold", action="store_true", help="skip part 1")
    ap.add_argument("--skip-throughput", action="store_true", help="skip part 2")
    ap.add_argument("--skip-modes", action="store_true", help="skip part 3")
    ap.add_argument("--threads", type=int, help="server threads (default: LocalModelServer's)")
    ap.add_argument(
        "--server-args", default="", metavar="ARGS",
        help='extra llama_cpp.server arguments, e.g. --server-args="--logits_all false" '
        "(cold start (a), parts 2 and 3; not the autostart child)",
    )  # fmt: skip
    ap.add_argument("--details", action="store_true", help="part 3: print every item's answers")
    ap.add_argument(
        "--approach-inputs", type=int, default=25, metavar="N",
        help="part 4: inputs per approach model (hand-written first, then corpus; default 25)",
    )  # fmt: skip
    ap.add_argument(
        "--approach-configs", default=",".join(APPROACH_CONFIGS), metavar="LIST",
        help=f"part 4: configurations, comma-separated (default {','.join(APPROACH_CONFIGS)})",
    )  # fmt: skip
    ap.add_argument("--temperature", type=float, default=0.0, help="part 4 temperature (0)")
    ap.add_argument("--skip-approaches", action="store_true", help="skip part 4")
    ap.add_argument(
        "--approach-workers", type=int, default=1, metavar="N",
        help="part 4: servers (each with --threads threads) answering calls in parallel (1)",
    )  # fmt: skip
    ap.add_argument(
        "--approaches", default=",".join(_APPROACH_NAMES), metavar="LIST",
        help="part 4: approach models, comma-separated (default: all eight)",
    )  # fmt: skip
    ap.add_argument(
        "--approach-log", metavar="PATH",
        help="part 4: append the raw replies of calls where some mode failed (JSON lines)",
    )  # fmt: skip
    ap.add_argument(
        "--gguf", metavar="PATH",
        help="serve this GGUF file instead of the bundled model (compare models side by side)",
    )  # fmt: skip
    ap.add_argument(
        "--wait-idle", type=float, default=120, metavar="S",
        help="before each measurement, wait up to S seconds while other processes keep the "
        "CPU busy (default 120)",
    )  # fmt: skip
    args = ap.parse_args()

    print(f"machine: {os.cpu_count()} CPUs, load average {_loadavg()} (1/5/15 min); Python "
          f"{platform.python_version()}; llama-cpp-python {_llama_server_version()}")  # fmt: skip
    if args.gguf:  # every part serves it, cold start included
        os.environ["ANSWERX_LOCAL_GGUF"] = args.gguf
    try:
        from answerx.local import bundled_model_path

        model = bundled_model_path()
    except AnswerxError as exc:
        print(f"local model unavailable ({exc}): nothing to benchmark")
        return 0
    if importlib.util.find_spec("llama_cpp") is None:
        print("llama-cpp-python is not installed (pip install 'answerx[local]'): nothing to run")
        return 0
    print(f"model: {model.name} ({model.stat().st_size / 1e6:.0f} MB), n_ctx {N_CTX}, "
          f"temperature 0, max_tokens {MAX_TOKENS}")  # fmt: skip

    extra = shlex.split(args.server_args)
    nb = Neighbours(args.wait_idle)
    print(f"other processes use {nb.now():.2f} cores now; a measurement during which they use "
          f"more than {nb.threshold:g} is marked busy")  # fmt: skip
    t_all = time.perf_counter()
    if not args.skip_cold:
        cold_start(args.cold_runs, nb, args.threads, extra)
    if not (args.skip_throughput and args.skip_modes and args.skip_approaches):
        with contextlib.ExitStack() as stack:
            server = stack.enter_context(make_server(args.threads, extra))
            print(f"\nserver: {server.base_url}, {server.n_threads} threads"
                  + (f", extra arguments: {' '.join(extra)}" if extra else ""))  # fmt: skip
            if not args.skip_throughput:
                throughput(server.base_url, nb)
            if not args.skip_modes:
                valid_objects(server.base_url, args.limit, args.seed, nb, args.details)
            servers = [server]
            if not args.skip_approaches:
                configs = [c.strip() for c in args.approach_configs.split(",") if c.strip()]
                unknown = sorted(set(configs) - set(APPROACH_CONFIGS))
                if unknown:
                    print(f"unknown configurations {unknown}; use some of {APPROACH_CONFIGS}")
                    return 2
                from answerx.structured.models import REASONING_EXTRACTION_MODELS

                approaches = [a.strip() for a in args.approaches.split(",") if a.strip()]
                if unknown := sorted(set(approaches) - set(REASONING_EXTRACTION_MODELS)):
                    print(f"unknown approaches {unknown}")
                    return 2
                for _ in range(args.approach_workers - 1):
                    servers.append(stack.enter_context(make_server(server.n_threads, extra)))
                every_approach(servers, args.approach_inputs, args.seed, nb, configs,
                               args.temperature, args.approach_log, approaches)  # fmt: skip
            print("\nserver memory at the end: "
                  + ", ".join(_rss_mb(s.process) for s in servers) + " (RSS)")  # fmt: skip
    print(f"\ntotal {time.perf_counter() - t_all:.0f} s; load average at the end {_loadavg()}; "
          f"{nb.busy_marks} measurement(s) marked busy")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
