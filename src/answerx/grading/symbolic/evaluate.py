"""Values of parsed answers: exactly (:class:`Surd`) where they are rational or surds,
otherwise numerically with 50 significant digits, always within fixed bounds.

Numeric work runs in an mpmath context of this thread's own (mpmath functions change
their context's precision while they work, so a shared one is not thread-safe).
"""

from __future__ import annotations

import math
import random
import threading
from fractions import Fraction
from typing import Any, Final

from answerx.grading.symbolic.parser import Node
from answerx.grading.symbolic.surds import Surd, TooBig, integer_root

__all__ = [
    "DIGITS",
    "MODULAR_POINTS",
    "POINTS",
    "PRIME",
    "contains",
    "exact",
    "free_variables",
    "modular",
    "numeric",
    "numeric_context",
    "rational_in_variables",
]

#: Significant digits of the numeric evaluation.
DIGITS: Final = 50
_MAX_FACTORIAL: Final = 100
_MAX_BINOMIAL: Final = 1000
_MAX_EXPONENT: Final = 1000  # integer powers of numbers; larger are left to math-verify
_MAX_DIGITS: Final = 10_000  # decimal digits of any numeric value
_MAX_BITS: Final = 33_220  # the same, in binary digits
_MAX_TRIG_ARGUMENT: Final = 10**6


def _points() -> list[list[Fraction]]:
    # Fixed seed: the same points every run, on every machine. Rationals p/q with
    # |p| up to 97 and q up to 29 avoid the small integers where answers have their
    # poles and roots.
    rng = random.Random(29)
    return [
        [Fraction(rng.choice([-1, 1]) * rng.randint(1, 97), rng.randint(1, 29)) for _ in range(4)]
        for _ in range(12)
    ]


#: The fixed points at which expressions in up to four variables are compared.
POINTS: Final = _points()

#: A prime: rational functions of rational numbers are compared modulo it first, in
#: machine-sized integers (values that differ there differ exactly; values that agree at
#: six random residues agree everywhere but with a chance below 10^-100).
PRIME: Final = 2**61 - 1
_RESIDUES = random.Random(61)
MODULAR_POINTS: Final = [[_RESIDUES.randrange(2, PRIME) for _ in range(4)] for _ in range(12)]

_local = threading.local()


def numeric_context() -> Any:
    """This thread's mpmath context (imported on first use: most items never need it)."""
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        from mpmath import MPContext

        ctx = MPContext()
        ctx.dps = DIGITS
        _local.pi, _local.e = +ctx.pi, +ctx.e  # computed once: mpmath's constants are lazy
        _local.ctx = ctx
    return ctx


# --- which variables, and where ------------------------------------------------------------


def contains(node: Node, kind: str) -> bool:
    """Whether ``node`` has a node of ``kind`` anywhere in it."""
    if node[0] == kind:
        return True
    return any(
        contains(child, kind) if isinstance(child, tuple)
        else isinstance(child, list) and any(contains(i, kind) for i in child)
        for child in node[1:]
    )  # fmt: skip


def free_variables(node: Node, found: set[str] | None = None) -> set[str]:
    """The variable names in ``node``."""
    found = set() if found is None else found
    if node[0] == "v":
        found.add(node[1])
    else:
        for child in node[1:]:
            if isinstance(child, tuple):
                free_variables(child, found)
            elif isinstance(child, list):
                for item in child:
                    free_variables(item, found)
    return found


_RATIONAL_OPS: Final = frozenset({"add", "sub", "mul", "div", "neg"})


def rational_in_variables(node: Node) -> bool:
    """True when variables appear only under + - * / and integer powers: a rational
    function (of any constants), which equals another one wherever it is defined once
    it does at enough points. ``\\sqrt{x^2}`` against ``|x|`` is left to math-verify."""
    kind = node[0]
    if kind in ("n", "c", "v"):
        return True
    if kind in _RATIONAL_OPS:
        return all(rational_in_variables(child) for child in node[1:])
    if kind == "pow":
        base, exponent = node[1], node[2]
        if free_variables(exponent):
            return False
        if free_variables(base):
            return _integer_literal(exponent) and rational_in_variables(base)
        return True
    return not free_variables(node)


def _integer_literal(node: Node) -> bool:
    if node[0] == "neg":
        node = node[1]
    return node[0] == "n" and bool(node[1].denominator == 1)


# --- exact ---------------------------------------------------------------------------------


def exact(node: Node, env: dict[str, Fraction]) -> Surd:
    """The exact value of ``node`` with variables set from ``env``; TooBig when it is not
    a rational or a surd (pi, logarithms, a cube root of 2) or past a bound;
    ZeroDivisionError where it is undefined."""
    kind = node[0]
    if kind == "n":
        return Surd.rational(node[1])
    if kind == "v":
        if node[1] not in env:
            raise TooBig("unset variable")
        return Surd.rational(env[node[1]])
    if kind == "add":
        return exact(node[1], env) + exact(node[2], env)
    if kind == "sub":
        return exact(node[1], env) - exact(node[2], env)
    if kind == "mul":
        return exact(node[1], env) * exact(node[2], env)
    if kind == "div":
        return exact(node[1], env) / exact(node[2], env)
    if kind == "neg":
        return -exact(node[1], env)
    if kind == "pow":
        return _exact_power(exact(node[1], env), _rational(exact(node[2], env)))
    if kind == "sqrt":
        return Surd.sqrt_of(_rational(exact(node[1], env)))
    if kind == "root":
        return _exact_power(exact(node[1], env), Fraction(1, _integer(exact(node[2], env), 2, 64)))
    if kind == "fact":
        return Surd.rational(math.factorial(_integer(exact(node[1], env), 0, _MAX_FACTORIAL)))
    if kind == "binom":
        n = _integer(exact(node[1], env), 0, _MAX_BINOMIAL)
        return Surd.rational(math.comb(n, _integer(exact(node[2], env), 0, _MAX_BINOMIAL)))
    if kind == "abs":
        value = exact(node[1], env)
        return -value if _sign(value) < 0 else value
    if kind == "deg":  # math-verify drops the degree sign: 30^\circ is 30
        return exact(node[1], env)
    raise TooBig(f"{kind} is not exact")


def _rational(value: Surd) -> Fraction:
    q = value.as_rational()
    if q is None:
        raise TooBig("not rational")
    return q


def _integer(value: Surd, low: int, high: int) -> int:
    q = _rational(value)
    if q.denominator != 1 or not low <= q <= high:
        raise TooBig("not a small integer")
    return int(q)


def _sign(value: Surd) -> int:
    approx = value.approx()
    bound = sum(abs(q) for q in value.terms.values()) * Fraction(1, 1 << 190)
    if abs(approx) <= bound:
        if not value.terms:
            return 0
        raise TooBig("sign too close to call")
    return 1 if approx > 0 else -1


def _exact_power(base: Surd, exponent: Fraction) -> Surd:
    if exponent.denominator == 1:
        if abs(exponent) > _MAX_EXPONENT:
            raise TooBig("exponent too large")
        return base.power(int(exponent))
    q = _rational(base)
    if q < 0 or exponent.denominator > 64 or abs(exponent.numerator) > _MAX_EXPONENT:
        raise TooBig("fractional power")
    k = exponent.denominator
    if k == 2:
        return Surd.sqrt_of(q).power(exponent.numerator)
    top, bottom = integer_root(q.numerator, k), integer_root(q.denominator, k)
    if top is None or bottom is None:
        raise TooBig("root is not rational")
    return Surd.rational(Fraction(top, bottom)).power(exponent.numerator)


# --- modular -------------------------------------------------------------------------------


def modular(node: Node, env: dict[str, int]) -> int:
    """``node`` modulo :data:`PRIME`: TooBig beyond + - * / and integer powers of rationals,
    ZeroDivisionError where a denominator vanishes there."""
    kind = node[0]
    if kind == "n":
        q = node[1]
        return int(q.numerator * pow(q.denominator, -1, PRIME) % PRIME)
    if kind == "v":
        return env[node[1]]
    if kind == "neg":
        return -modular(node[1], env) % PRIME
    if kind in ("add", "sub", "mul", "div"):
        a, b = modular(node[1], env), modular(node[2], env)
        if kind == "add":
            return (a + b) % PRIME
        if kind == "sub":
            return (a - b) % PRIME
        if kind == "mul":
            return a * b % PRIME
        if b == 0:
            raise ZeroDivisionError("pole")
        return a * pow(b, -1, PRIME) % PRIME
    if kind == "pow" and _integer_literal(node[2]):
        n = node[2][1][1] if node[2][0] == "neg" else node[2][1]
        n = -int(n) if node[2][0] == "neg" else int(n)
        if abs(n) > _MAX_EXPONENT:
            raise TooBig("exponent too large")
        base = modular(node[1], env)
        if base == 0 and n < 0:
            raise ZeroDivisionError("pole")
        return pow(base, n, PRIME)
    raise TooBig(f"{kind} is not rational")


# --- numeric -------------------------------------------------------------------------------


def numeric(node: Node, env: dict[str, Fraction], ctx: Any) -> Any:
    """The value of ``node`` to :data:`DIGITS` digits (an mpmath ``mpf``); TooBig where
    it is not a real number in bounds, ZeroDivisionError where it is undefined."""
    value = _numeric(node, env, ctx)
    if not ctx.isfinite(value) or (value and abs(ctx.mag(value)) > _MAX_BITS):
        raise TooBig("not a finite number in bounds")
    return value


def _numeric(node: Node, env: dict[str, Fraction], ctx: Any) -> Any:
    kind = node[0]
    if kind == "n":
        return ctx.mpf(node[1].numerator) / node[1].denominator
    if kind == "v":
        if node[1] not in env:
            raise TooBig("unset variable")
        q = env[node[1]]
        return ctx.mpf(q.numerator) / q.denominator
    if kind == "c":
        return _local.pi if node[1] == "pi" else _local.e
    if kind == "neg":
        return -_numeric(node[1], env, ctx)
    if kind in ("add", "sub", "mul", "div"):
        a, b = _numeric(node[1], env, ctx), _numeric(node[2], env, ctx)
        if kind == "add":
            return a + b
        if kind == "sub":
            return a - b
        if kind == "mul":
            return a * b
        if not b:
            raise ZeroDivisionError("division by zero")
        return a / b
    if kind == "pow":
        return _numeric_power(_numeric(node[1], env, ctx), _numeric(node[2], env, ctx), ctx)
    if kind == "sqrt":
        return _numeric_power(_numeric(node[1], env, ctx), ctx.mpf(0.5), ctx)
    if kind == "root":
        degree = _numeric(node[2], env, ctx)
        if degree != int(degree) or not 2 <= degree <= 64:
            raise TooBig("root degree")
        return _numeric_power(_numeric(node[1], env, ctx), 1 / degree, ctx)
    if kind == "fn":
        if contains(node[2], "deg"):  # \sin 30^\circ: math-verify reads 30 radians
            raise TooBig("degrees inside a function")
        return _function(node[1], _numeric(node[2], env, ctx), ctx)
    if kind == "deg":
        return _numeric(node[1], env, ctx)
    if kind == "log":
        base, arg = _numeric(node[1], env, ctx), _numeric(node[2], env, ctx)
        if base <= 0 or base == 1 or arg <= 0:
            raise TooBig("logarithm out of its domain")
        return ctx.log(arg) / ctx.log(base)
    if kind == "abs":
        return abs(_numeric(node[1], env, ctx))
    if kind in ("fact", "binom"):
        return ctx.mpf(int(_rational(exact(node, env))))
    raise TooBig(f"{kind} has no numeric value")


def _numeric_power(base: Any, exponent: Any, ctx: Any) -> Any:
    if exponent == int(exponent) and abs(exponent) <= _MAX_EXPONENT:
        if base == 0 and exponent < 0:
            raise ZeroDivisionError("zero to a negative power")
        return base ** int(exponent)
    if base < 0:
        raise TooBig("not a real number")
    if base == 0:
        if exponent <= 0:
            raise ZeroDivisionError("zero to a non-positive power")
        return ctx.mpf(0)
    if abs(exponent * ctx.log10(base)) > _MAX_DIGITS:
        raise TooBig("power too large")
    return ctx.power(base, exponent)


def _function(name: str, x: Any, ctx: Any) -> Any:
    if name in ("sin", "cos", "tan", "cot", "sec", "csc", "sinh", "cosh", "tanh", "exp"):
        if abs(x) > (_MAX_TRIG_ARGUMENT if name in ("sin", "cos", "tan", "cot", "sec", "csc")
                     else 10_000):  # fmt: skip
            raise TooBig("argument too large")
        value = getattr(ctx, name)(x)
        if name in ("tan", "cot", "sec", "csc") and abs(value) > ctx.mpf(10) ** 40:
            raise ZeroDivisionError("at a pole")
        return value
    if name in ("arcsin", "arccos"):
        if abs(x) > 1:
            raise TooBig("outside [-1, 1]")
        return ctx.asin(x) if name == "arcsin" else ctx.acos(x)
    if name == "arctan":
        return ctx.atan(x)
    if x <= 0:
        raise TooBig("logarithm of a non-positive number")
    return ctx.ln(x) if name == "ln" else ctx.log10(x)
