"""Manager benchmark: ``InstructorClientManager`` against the raw SDKs, on the fake server.

Everything runs in one process against :class:`answerx.testing.FakeProviderServer`
(127.0.0.1, no network), side by side and interleaved:

1. **Per-call overhead** (the server answers at once), sync then async. Arms,
   interleaved in rounds whose order rotates, after a warm-up:

   * ``raw``         — the provider's own SDK (``chat.completions.create``,
     ``messages.create``, ``chat``) sending *the very request body the manager
     sent* (captured from the fake server: tools, tool_choice, schema), the tool
     arguments parsed with the Pydantic model by hand;
   * ``instructor``  — a bare Instructor client (``from_openai`` & co, tools mode)
     on the same kind of SDK client: what Instructor itself costs (sync only);
   * ``manager``     — ``manager.create(messages, Model)`` (``acreate`` when async):
     the first request through the fast path (``answerx.structured.fastpath``);
   * ``no fast path`` — the same with ``fast_path=False``: every attempt through
     Instructor's ``create``, as before the fast path (no target applies to it).

   Targets, sync and async: ``manager`` median ≤ 1.15 × ``raw`` median and
   ≤ ``raw`` + 1.5 ms. The server shares the process (and the GIL) with the
   client, so the ratio includes its time in both arms; the absolute overhead in
   ms is the cleaner figure.

2. **Concurrency**: 200 concurrent ``acreate`` calls (``asyncio.gather``) while the
   server waits 100 ms before each answer; one warm-up burst per arm, then the best
   and median wall time of 5 bursts, beside the raw async SDK doing the same
   (the floor set by the server and the SDK) and ``no fast path``. Target: median
   ≤ 1.5 s with no failed call.

3. **Where the overhead goes** (when a target is missed, or with ``--profile``):
   cProfile of the raw, manager and no-fast-path arms with the self time of each
   call bucketed by package, the Instructor internals each manager arm runs per
   call, and unprofiled micro-timings of the suspects.

Prints PASS/FAIL per target and exits 0 either way: a measurement, not a test.

    python bench/manager.py                         # everything (2-3 minutes)
    python bench/manager.py --providers openai      # one provider
    python bench/manager.py --skip-concurrency --profile
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import cProfile
import gc
import os
import pstats
import statistics
import time
import timeit
import weakref
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

import instructor
from pydantic import BaseModel, Field, TypeAdapter
from tenacity import Retrying, stop_after_attempt

from answerx.structured import InstructorClientManager
from answerx.structured.models import ChainOfThoughtExtraction
from answerx.structured.providers import get_provider
from answerx.testing import FakeProviderServer, Reply

PROVIDERS = ("openai", "anthropic", "cohere")
MODEL = "bench-model"
API_KEY = "bench-key"
TARGET_RATIO = 0.15  # manager median ≤ raw median × 1.15
TARGET_ABS_MS = 1.5  # ... and ≤ raw median + 1.5 ms
TARGET_WALL_S = 1.5  # 200 concurrent acreate against a 100 ms server

RESPONSE_MODEL: type[BaseModel] = ChainOfThoughtExtraction
ARGUMENTS = {
    "reasoning_type": "chain_of_thought",
    "full_reasoning_text": "Natalia sold 48 clips in April and half as many, 24, in May. "
    "48 + 24 = 72.",
    "steps": ["April: 48 clips", "May: 48 / 2 = 24 clips", "Total: 48 + 24 = 72"],
    "answer_value": "72",
    "confidence": 0.95,
}
MESSAGES: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": "Separate the reasoning from the final answer of this output.\n\n"
        "Question: Natalia sold clips to 48 of her friends in April, and then she sold "
        "half as many clips in May. How many clips did Natalia sell altogether?\n\n"
        "Output: In April she sold 48. In May she sold half as many: 48 / 2 = 24. "
        "Altogether 48 + 24 = 72. The answer is 72.",
    }
]

_FAKE = FakeProviderServer(default=Reply.tool_call(ARGUMENTS))  # started by main()

SyncCall = Callable[[], Any]
AsyncCall = Callable[[], Awaitable[Any]]


# --------------------------------------------------------------------------- raw SDK calls
def _raw_calls(provider: str, body: dict[str, Any], model: type[BaseModel]) -> tuple[Any, Any]:
    """Sync and async callables that send ``body`` with the official SDK and parse the
    result with ``model`` by hand: the floor the manager is measured against."""
    spec = get_provider(provider)
    url = _FAKE.base_url(spec.sdk)
    # The official clients, configured as the manager configures its own (SDK retries off).
    sync = spec.adapter.client(api_key=API_KEY, base_url=url, timeout=spec.timeout, is_async=False)
    # An async client per event loop, as the manager keeps them: its connections belong
    # to the loop that opened them, and the benchmark runs several loops one after another.
    aio_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
        weakref.WeakKeyDictionary()
    )

    def aio() -> Any:
        loop = asyncio.get_running_loop()
        client = aio_clients.get(loop)
        if client is None:
            client = aio_clients[loop] = spec.adapter.client(
                api_key=API_KEY, base_url=url, timeout=spec.timeout, is_async=True
            )
        return client

    body = copy.deepcopy(body)

    if spec.sdk == "openai":

        def parse_openai(r: Any) -> BaseModel:
            return model.model_validate_json(r.choices[0].message.tool_calls[0].function.arguments)

        def call_openai() -> BaseModel:
            return parse_openai(sync.chat.completions.create(**body))

        async def acall_openai() -> BaseModel:
            return parse_openai(await aio().chat.completions.create(**body))

        return call_openai, acall_openai

    if spec.sdk == "anthropic":

        def parse_anthropic(r: Any) -> BaseModel:
            return model.model_validate(next(b for b in r.content if b.type == "tool_use").input)

        def call_anthropic() -> BaseModel:
            return parse_anthropic(sync.messages.create(**body))

        async def acall_anthropic() -> BaseModel:
            return parse_anthropic(await aio().messages.create(**body))

        return call_anthropic, acall_anthropic

    # Cohere: Instructor's TOOLS mode for Cohere puts the schema in the prompt and
    # reads JSON text back; "stream" is the SDK's own business.
    body.pop("stream", None)

    def parse_cohere(r: Any) -> BaseModel:
        return model.model_validate_json(r.message.content[0].text)

    def call_cohere() -> BaseModel:
        return parse_cohere(sync.chat(**body))

    async def acall_cohere() -> BaseModel:
        return parse_cohere(await aio().chat(**body))

    return call_cohere, acall_cohere


@dataclass
class Case:
    """One provider: its managers, bare Instructor client and raw SDK calls."""

    provider: str
    manager: InstructorClientManager
    full: InstructorClientManager  # fast_path=False
    body: dict[str, Any]
    arms: dict[str, SyncCall] = field(default_factory=dict)
    raw_async: AsyncCall | None = None
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    atimes: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def async_arms(self) -> dict[str, AsyncCall]:
        """The async arms (built inside the running loop: clients are per loop)."""
        assert self.raw_async is not None
        manager, full = self.manager, self.full
        return {
            "raw": self.raw_async,
            "manager": lambda: manager.acreate(MESSAGES, RESPONSE_MODEL),
            "no fast path": lambda: full.acreate(MESSAGES, RESPONSE_MODEL),
        }


def _make_case(provider: str) -> Case:
    spec = get_provider(provider)
    base_url = _FAKE.base_url(spec.sdk)
    manager = InstructorClientManager(provider, MODEL, api_key=API_KEY, base_url=base_url)
    full = InstructorClientManager(
        provider, MODEL, api_key=API_KEY, base_url=base_url, fast_path=False
    )
    result, info = manager.create(MESSAGES, RESPONSE_MODEL)
    assert result.answer_value == "72" and info.mode == manager.modes[0], (result, info)  # type: ignore[attr-defined]
    body = _FAKE.last_request.json
    full.create(MESSAGES, RESPONSE_MODEL)
    assert _FAKE.last_request.json == body, "the fast path must send Instructor's request"
    raw, araw = _raw_calls(provider, body, RESPONSE_MODEL)
    assert raw().answer_value == "72"

    sdk = spec.adapter.client(
        api_key=API_KEY, base_url=base_url, timeout=spec.timeout, is_async=False
    )
    bare = spec.adapter.instructor_client(sdk, instructor.Mode.TOOLS)

    def call_instructor() -> Any:
        return bare.create(
            response_model=RESPONSE_MODEL,
            messages=list(MESSAGES),
            model=MODEL,
            max_retries=manager.max_retries,
            max_tokens=manager.max_tokens,
            strict=False,
        )

    arms: dict[str, SyncCall] = {
        "raw": raw,
        "instructor": call_instructor,
        "manager": lambda: manager.create(MESSAGES, RESPONSE_MODEL),
        "no fast path": lambda: full.create(MESSAGES, RESPONSE_MODEL),
    }
    return Case(provider, manager, full, body, arms, araw)


# --------------------------------------------------------------------------- 1. overhead
def _timed(fn: SyncCall, n: int) -> list[float]:
    out: list[float] = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def _p90(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=10)[-1]


def run_overhead(cases: list[Case], rounds: int, calls: int, warmup: int) -> None:
    _FAKE.default_delay = 0.0
    for case in cases:
        for fn in case.arms.values():
            _timed(fn, warmup)
    for r in range(rounds):
        for case in cases:
            names = list(case.arms)
            k = r % len(names)
            order = names[k:] + names[:k]
            if (r // len(names)) % 2:
                order.reverse()
            for name in order:
                case.times[name] += _timed(case.arms[name], calls)
        _FAKE.reset()  # drop the recorded requests; keep memory flat
        _FAKE.set_default(Reply.tool_call(ARGUMENTS))

    print(
        f"\n== 1. per-call time, server answers at once ({rounds} rounds x {calls} calls"
        f" per arm, interleaved, after {warmup} warm-up calls)"
    )
    _print_times(cases, sync=True)


def _print_times(cases: list[Case], *, sync: bool) -> None:
    print(f"{'provider':<11}{'arm':<14}{'median ms':>10}{'p90 ms':>9}{'vs raw':>9}{'+ms':>8}")
    for case in cases:
        times = case.times if sync else case.atimes
        raw_med = statistics.median(times["raw"])
        for name, ts in times.items():
            med = statistics.median(ts)
            vs = f"{(med / raw_med - 1) * 100:+8.1f}%" if name != "raw" else f"{'-':>9}"
            plus = f"{(med - raw_med) * 1e3:+8.3f}" if name != "raw" else f"{'-':>8}"
            print(
                f"{case.provider:<11}{name:<14}{med * 1e3:>10.3f}{_p90(ts) * 1e3:>9.3f}{vs}{plus}"
            )


async def _atimed(fn: AsyncCall, n: int) -> list[float]:
    out: list[float] = []
    for _ in range(n):
        t0 = time.perf_counter()
        await fn()
        out.append(time.perf_counter() - t0)
    return out


async def _async_overhead(cases: list[Case], rounds: int, calls: int, warmup: int) -> None:
    arms = {case.provider: case.async_arms() for case in cases}
    for case in cases:
        for fn in arms[case.provider].values():
            await _atimed(fn, warmup)
    for r in range(rounds):
        for case in cases:
            names = list(arms[case.provider])
            k = r % len(names)
            order = names[k:] + names[:k]
            if (r // len(names)) % 2:
                order.reverse()
            for name in order:
                case.atimes[name] += await _atimed(arms[case.provider][name], calls)
        _FAKE.reset()
        _FAKE.set_default(Reply.tool_call(ARGUMENTS))


def run_async_overhead(cases: list[Case], rounds: int, calls: int, warmup: int) -> None:
    _FAKE.default_delay = 0.0
    asyncio.run(_async_overhead(cases, rounds, calls, warmup))
    print(
        f"\n== 1b. per-call time, async, one call at a time ({rounds} rounds x {calls} awaited"
        f" calls per arm, interleaved, after {warmup} warm-up calls)"
    )
    _print_times(cases, sync=False)


# --------------------------------------------------------------------------- 2. concurrency
async def _burst(make: AsyncCall, n: int) -> tuple[float, int]:
    t0 = time.perf_counter()
    results = await asyncio.gather(*(make() for _ in range(n)), return_exceptions=True)
    wall = time.perf_counter() - t0
    return wall, sum(isinstance(r, BaseException) for r in results)


async def _concurrency(
    cases: list[Case], n: int, runs: int, delay: float
) -> dict[str, dict[str, tuple[list[float], int]]]:
    out: dict[str, dict[str, tuple[list[float], int]]] = {}
    for case in cases:
        named = case.async_arms()
        arms: dict[str, AsyncCall] = {
            "raw async": named["raw"],
            "manager.acreate": named["manager"],
            "no fast path": named["no fast path"],
        }
        walls: dict[str, list[float]] = {name: [] for name in arms}
        failed = dict.fromkeys(arms, 0)
        for make in arms.values():  # warm-up: connection pools, Instructor, imports
            await _burst(make, n)
        for r in range(runs):
            for name in list(arms)[:: 1 if r % 2 == 0 else -1]:
                wall, errors = await _burst(arms[name], n)
                walls[name].append(wall)
                failed[name] += errors
        out[case.provider] = {name: (walls[name], failed[name]) for name in arms}
        _FAKE.reset()
        _FAKE.set_default(Reply.tool_call(ARGUMENTS))
        _FAKE.default_delay = delay
    return out


def run_concurrency(
    cases: list[Case], n: int, runs: int, delay: float
) -> dict[str, dict[str, tuple[list[float], int]]]:
    _FAKE.default_delay = delay
    try:
        res = asyncio.run(_concurrency(cases, n, runs, delay))
    finally:
        _FAKE.default_delay = 0.0
    print(
        f"\n== 2. {n} concurrent calls, server waits {delay * 1e3:.0f} ms per request"
        f" (1 warm-up burst per arm, then {runs} bursts, interleaved)"
    )
    print(f"{'provider':<11}{'arm':<17}{'best s':>8}{'median s':>10}{'failed':>8}")
    for provider, arms in res.items():
        for name, (walls, failed) in arms.items():
            print(
                f"{provider:<11}{name:<17}{min(walls):>8.3f}"
                f"{statistics.median(walls):>10.3f}{failed:>8}"
            )
    return res


# --------------------------------------------------------------------------- 3. analysis
_BUCKETS = (
    ("/answerx/", "answerx (manager)"),
    ("/instructor/", "instructor"),
    ("/tenacity/", "tenacity"),
    ("/pydantic_core/", "pydantic"),
    ("/pydantic/", "pydantic"),
    ("/openai/", "SDK (openai)"),
    ("/anthropic/", "SDK (anthropic)"),
    ("/cohere/", "SDK (cohere)"),
    ("/httpx", "httpx/httpcore/h11"),
    ("/httpcore", "httpx/httpcore/h11"),
    ("/h11/", "httpx/httpcore/h11"),
    ("/docstring_parser/", "docstring_parser"),
    ("/jinja2/", "jinja2"),
)
_IO = ("recv_into", "send", "sendall", "recv", "poll", "select")


def _bucket(func: tuple[str, int, str]) -> str | None:
    """The bucket of a profiled function, or None for a builtin (charged to its callers)."""
    path, _, name = func
    if path == "~":
        return "socket I/O (waiting on the server)" if any(w in name for w in _IO) else None
    path = path.replace("\\", "/")
    for needle, label in _BUCKETS:
        if needle in path:
            return label
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    return f"stdlib {stem}"


def _bucketed(stats: pstats.Stats, n: int) -> dict[str, float]:
    """Self time per bucket, µs per call; builtins' self time goes to their callers' buckets."""
    raw = stats.stats  # type: ignore[attr-defined]
    out: dict[str, float] = defaultdict(float)
    for func, (_cc, _nc, tt, _ct, callers) in raw.items():
        label = _bucket(func)
        if label is not None:
            out[label] += tt
            continue
        total = sum(c[2] for c in callers.values()) or 1.0
        for caller, c in callers.items():
            out[_bucket(caller) or "builtins"] += tt * c[2] / total
    return {k: v / n * 1e6 for k, v in out.items()}


def _profile(fn: SyncCall, n: int) -> pstats.Stats:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        fn()
    prof.disable()
    return pstats.Stats(prof)


_SUSPECTS = (
    ("instructor", "response_schema", "wraps the model in a NEW pydantic class (create_model)"),
    ("instructor", "generate_openai_schema", "tool schema; lru_cache keyed by that new class"),
    ("instructor", "generate_anthropic_schema", "Anthropic tool schema; the same cache"),
    ("pydantic", "model_json_schema", "pydantic builds the JSON schema (no cache of its own)"),
    ("instructor", "reject_async_validators", "walks the model's MRO for async validators"),
    ("instructor", "prepare_response_model", "normalises response_model (twice a call)"),
    ("instructor", "_usage_snapshot", "deep-copies usage (twice when hooks are passed)"),
    (
        "type_adapter.py",
        "__init__",
        "pydantic TypeAdapter built per call (one in the Anthropic parser)",
    ),
    ("instructor", "handle_templating", "Jinja templating (a no-op without context=)"),
)


def _suspect_rows(stats: pstats.Stats, n: int) -> list[tuple[str, float, float, str]]:
    rows: dict[tuple[str, str], list[float]] = {}
    for (path, _, name), (_cc, nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        for where, fn, _why in _SUSPECTS:
            if name == fn and where in path.replace("\\", "/"):
                row = rows.setdefault((where, fn), [0.0, 0.0])
                row[0] += nc / n
                row[1] += ct / n * 1e6
    out = []
    for where, fn, why in _SUSPECTS:
        if (where, fn) in rows:
            calls, us = rows[(where, fn)]
            label = "TypeAdapter.__init__" if fn == "__init__" else fn
            out.append((label, calls, us, why))
    return out


def _micro(case: Case) -> list[tuple[str, float | None]]:
    """Unprofiled µs per operation of what a manager call does beyond the raw SDK."""
    from answerx.structured import manager as mod

    m = case.manager
    model = RESPONSE_MODEL

    def best(stmt: Callable[[], object], number: int = 300) -> float:
        return min(timeit.repeat(stmt, number=number, repeat=5)) / number * 1e6

    def guard(stmt: Callable[[], Callable[[], object]], number: int = 300) -> float | None:
        try:  # the manager's internals may change; a missing one is reported as n/a
            return best(stmt(), number)
        except Exception:
            return None

    rows: list[tuple[str, float | None]] = []
    try:
        from instructor.v2.core.function_calls import response_schema
        from instructor.v2.core.response_model import prepare_response_model
        from instructor.v2.validation.async_validators import reject_async_validators

        wrapped = response_schema(model)
        rows += [
            (
                "instructor response_schema(Model): pydantic create_model",
                best(lambda: response_schema(model), 100),
            ),
            ("Model.model_json_schema()", best(model.model_json_schema, 200)),
            (
                "instructor reject_async_validators(Model)",
                best(lambda: reject_async_validators(model)),
            ),
            (
                "instructor reject_async_validators(pre-wrapped Model)",
                best(lambda: reject_async_validators(wrapped)),
            ),
            (
                "instructor prepare_response_model(Model), plain model",
                best(lambda: prepare_response_model(model), 100),
            ),
            (
                "instructor prepare_response_model(Model), pre-wrapped",
                best(lambda: prepare_response_model(wrapped)),
            ),
        ]
    except ImportError:
        pass
    adapter_type = Annotated[list[Any], Field(min_length=1, max_length=1)]
    rows.append(
        (
            "pydantic TypeAdapter(list[Any]) (Instructor's Anthropic parser)",
            best(lambda: TypeAdapter(adapter_type), 200),
        )
    )
    rows += [
        (
            "manager _Tally() + .hooks() (Instructor Hooks)",
            guard(lambda: lambda: mod._Tally().hooks()),
        ),
        (
            "manager _call (transient retries; tenacity only after a failure)",
            guard(lambda: lambda: m._call(int)),
        ),
        (
            "manager tenacity Retrying built + one attempt (what _call avoids)",
            guard(lambda: lambda: Retrying(stop=stop_after_attempt(5), reraise=True)(int)),
        ),
        ("fast path FirstTry.prepare (cached request frame)", guard(lambda: _prepare_call(m))),
        (
            "Instructor's mode handler, per call without the fast path",
            guard(lambda: _handler_call(m)),
        ),
        ("manager _mode_kwargs", guard(lambda: lambda: m._mode_kwargs("tools", model, {}))),
        ("manager _client (cache + lock)", guard(lambda: lambda: m._client(m.modes[0], False))),
        ("manager _info (CallInfo + ModeAttempt)", guard(lambda: _info_call(mod, m))),
    ]
    return rows


def _prepare_call(m: InstructorClientManager) -> Callable[[], object]:
    from answerx.structured.manager import _prepared

    first = m._first_try(m.modes[0], is_async=False)
    assert first is not None
    model = _prepared(RESPONSE_MODEL)

    def kwargs() -> dict[str, Any]:
        return m._request_kwargs(m.modes[0], RESPONSE_MODEL, {})

    return lambda: first.prepare(model, MESSAGES, (), kwargs)


def _handler_call(m: InstructorClientManager) -> Callable[[], object]:
    from answerx.structured.manager import _prepared

    first = m._first_try(m.modes[0], is_async=False)
    assert first is not None
    model, kwargs = _prepared(RESPONSE_MODEL), m._request_kwargs(m.modes[0], RESPONSE_MODEL, {})
    return lambda: first._handle(model, [dict(x) for x in MESSAGES], kwargs)


def _info_call(mod: Any, m: InstructorClientManager) -> Callable[[], object]:
    tally = mod._Tally()
    tally.close_mode("tools", None)
    return lambda: m._info(tally, "tools", 0.0)


def run_analysis(cases: list[Case], n: int) -> None:
    print(
        f"\n== 3. where the manager's overhead goes (cProfile, {n} calls per arm;"
        " profiled µs are inflated by the profiler, compare them with each other)"
    )
    _FAKE.default_delay = 0.0
    for case in cases:
        names: list[str] = [a for a in ("raw", "manager", "no fast path") if a in case.arms]
        profiles: dict[str, pstats.Stats] = {}
        for name in names:
            _timed(case.arms[name], 50)
            gc.collect()
            profiles[name] = _profile(case.arms[name], n)
        cols = {name: _bucketed(st, n) for name, st in profiles.items()}
        raw_b, mgr_b = cols["raw"], cols["manager"]
        print(f"\n-- {case.provider}: self time per call by package (µs, profiled)")
        print(f"{'package':<38}" + "".join(f"{c:>12}" for c in cols) + f"{'manager-raw':>12}")
        labels = sorted(
            set().union(*cols.values()), key=lambda k: raw_b.get(k, 0) - mgr_b.get(k, 0)
        )
        rest: dict[str, float] = dict.fromkeys(cols, 0.0)
        for label in labels:
            extra = mgr_b.get(label, 0.0) - raw_b.get(label, 0.0)
            if abs(extra) >= 20:
                vals = "".join(f"{col.get(label, 0.0):>12.0f}" for col in cols.values())
                print(f"{label:<38}{vals}{extra:>+12.0f}")
            else:
                for c, bucket in cols.items():
                    rest[c] += bucket.get(label, 0.0)
        vals = "".join(f"{v:>12.0f}" for v in rest.values())
        print(f"{'everything else':<38}{vals}{rest['manager'] - rest['raw']:>+12.0f}")
        tot = {c: sum(b.values()) for c, b in cols.items()}
        vals = "".join(f"{v:>12.0f}" for v in tot.values())
        print(f"{'total':<38}{vals}{tot['manager'] - tot['raw']:>+12.0f}")
        for arm in names[1:]:
            print(f"\n-- {case.provider}: Instructor's per-call work in the {arm!r} arm (profiled)")
            print(f"{'function':<26}{'calls/create':>13}{'µs/create':>11}  what")
            rows = _suspect_rows(profiles[arm], n)
            for fn_name, calls, us, why in rows:
                print(f"{fn_name:<26}{calls:>13.1f}{us:>11.0f}  {why}")
            if not rows:
                print("(none of them)")
        _FAKE.reset()
        _FAKE.set_default(Reply.tool_call(ARGUMENTS))
    print("\n-- micro-timings, no profiler (µs per operation; best of 5)")
    for label, cost in _micro(cases[0]):
        print(f"{label:<66}{'n/a' if cost is None else f'{cost:8.1f}':>9}")


# --------------------------------------------------------------------------- main
def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--providers", default=",".join(PROVIDERS), help="comma-separated")
    ap.add_argument("--rounds", type=int, default=20, help="interleaved rounds (default 20)")
    ap.add_argument("--calls", type=int, default=50, help="calls per arm per round (default 50)")
    ap.add_argument("--warmup", type=int, default=100, help="warm-up calls per arm (default 100)")
    ap.add_argument("--concurrency", type=int, default=200, help="concurrent calls (default 200)")
    ap.add_argument("--delay", type=float, default=0.1, help="server wait, s (default 0.1)")
    ap.add_argument("--runs", type=int, default=5, help="concurrent bursts per arm (default 5)")
    ap.add_argument("--skip-overhead", action="store_true")
    ap.add_argument("--skip-concurrency", action="store_true")
    ap.add_argument("--profile", action="store_true", help="analysis even if targets pass")
    ap.add_argument("--no-profile", action="store_true", help="never run the analysis")
    ap.add_argument("--profile-calls", type=int, default=300)
    args = ap.parse_args()
    providers = [p.strip() for p in args.providers.split(",") if p.strip()]
    unknown = sorted(set(providers) - set(PROVIDERS))
    if unknown:
        ap.error(f"unknown providers {unknown}; choose from {', '.join(PROVIDERS)}")

    checks: list[tuple[str, str, bool]] = []
    with _FAKE:
        cases = [_make_case(p) for p in providers]
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"answerx manager benchmark: fake provider server at {_FAKE.url} (in process), "
            f"model {RESPONSE_MODEL.__name__}, tools mode; instructor {instructor.__version__}, "
            f"{os.cpu_count()} CPUs, load average {load} (others' load adds noise)"
        )
        if not args.skip_overhead:
            run_overhead(cases, args.rounds, args.calls, args.warmup)
            run_async_overhead(cases, args.rounds, args.calls, args.warmup)
            for case in cases:
                for how, times in (("sync", case.times), ("async", case.atimes)):
                    raw = statistics.median(times["raw"])
                    mgr = statistics.median(times["manager"])
                    where = f"{case.provider} {how}"
                    checks.append(
                        (
                            f"{where}: manager overhead ≤ {TARGET_RATIO:.0%}",
                            f"{(mgr / raw - 1) * 100:+.1f}%",
                            mgr <= raw * (1 + TARGET_RATIO),
                        )
                    )
                    checks.append(
                        (
                            f"{where}: manager overhead ≤ {TARGET_ABS_MS} ms/call",
                            f"{(mgr - raw) * 1e3:+.3f} ms",
                            mgr - raw <= TARGET_ABS_MS / 1e3,
                        )
                    )
        if not args.skip_concurrency:
            res = run_concurrency(cases, args.concurrency, args.runs, args.delay)
            for provider, arms in res.items():
                walls, failed = arms["manager.acreate"]
                best, med = min(walls), statistics.median(walls)
                checks.append(
                    (
                        f"{provider}: {args.concurrency} concurrent acreate ≤ "
                        f"{TARGET_WALL_S} s (median)",
                        f"{med:.3f} s (best {best:.3f})" + (f", {failed} failed" if failed else ""),
                        med <= TARGET_WALL_S and not failed,
                    )
                )

        print("\n== targets")
        for name, value, ok in checks:
            print(f"{name:<52}{value:>24}  {'PASS' if ok else 'FAIL'}")
        missed = any(not ok for _, _, ok in checks)
        if not args.no_profile and (args.profile or missed):
            run_analysis(cases, args.profile_calls)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
