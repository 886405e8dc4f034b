"""Exact numbers of the form ``sum of q_i * sqrt(r_i)`` (rational ``q_i``, square-free ``r_i``).

Square roots of distinct square-free integers are linearly independent over the
rationals, so two such sums are equal exactly when their terms are: ``2\\sqrt{5}``
and ``\\sqrt{20}`` both become ``{5: 2}``. Every operation is bounded (terms, bits,
radicands): past a bound it raises :class:`TooBig` and the caller falls back to a
numeric comparison or leaves the item to math-verify.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Final

__all__ = ["Surd", "TooBig", "integer_root", "square_free"]

_MAX_TERMS: Final = 16
_MAX_BITS: Final = 4096  # numerator or denominator of any coefficient
_MAX_RADICAND: Final = 10**12  # factored by trial division up to its cube root
_SMALL_PRIMES: Final = [
    p for p in range(2, 10_001) if all(p % d for d in range(2, math.isqrt(p) + 1))
]


class TooBig(ArithmeticError):
    """Past a size bound, or not exact here: decided some other way."""


def square_free(n: int) -> tuple[int, int]:
    """``(a, r)`` with ``n == a * a * r`` and ``r`` square-free (``n`` ≥ 1, at most 10^12)."""
    if n > _MAX_RADICAND:
        raise TooBig("radicand too large to factor")
    outside, radical, rest = 1, 1, n
    for p in _SMALL_PRIMES:
        if p * p * p > rest:
            break
        exponent = 0
        while rest % p == 0:
            rest //= p
            exponent += 1
        outside *= p ** (exponent // 2)
        radical *= p ** (exponent % 2)
    # What is left has no prime factor up to its cube root: it is 1, p, p*q or p*p.
    root = math.isqrt(rest)
    if root * root == rest:
        return outside * root, radical
    return outside, radical * rest


def integer_root(n: int, k: int) -> int | None:
    """The integer ``k``-th root of ``n`` ≥ 0 when it is exact, else None."""
    if n.bit_length() > _MAX_BITS:
        raise TooBig("root of a huge number")
    guess = round(n ** (1.0 / k)) if n.bit_length() < 1000 else int(math.exp(math.log(n) / k))
    for r in (guess - 1, guess, guess + 1):
        if r >= 0 and r**k == n:
            return r
    return None


def _check(q: Fraction) -> Fraction:
    if q.numerator.bit_length() > _MAX_BITS or q.denominator.bit_length() > _MAX_BITS:
        raise TooBig("coefficient too large")
    return q


class Surd:
    """An exact ``sum q * sqrt(r)``, kept canonical: no zero terms, ``r`` square-free."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[int, Fraction]) -> None:
        if len(terms) > _MAX_TERMS:
            raise TooBig("too many radicals")
        self.terms = {r: _check(q) for r, q in terms.items() if q}

    @classmethod
    def rational(cls, q: Fraction | int) -> Surd:
        return cls({1: q if isinstance(q, Fraction) else Fraction(q)})

    @classmethod
    def sqrt_of(cls, q: Fraction) -> Surd:
        """The square root of a rational ``q`` ≥ 0."""
        if q < 0:
            raise TooBig("square root of a negative number")
        # sqrt(a/b) = sqrt(a*b)/b
        outside, radicand = square_free(q.numerator * q.denominator)
        return cls({radicand: Fraction(outside, q.denominator)})

    def as_rational(self) -> Fraction | None:
        if not self.terms:
            return Fraction(0)
        if len(self.terms) == 1 and 1 in self.terms:
            return self.terms[1]
        return None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Surd) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    def __repr__(self) -> str:
        return " + ".join(f"{q}*sqrt({r})" for r, q in sorted(self.terms.items())) or "0"

    def __neg__(self) -> Surd:
        return Surd({r: -q for r, q in self.terms.items()})

    def __add__(self, other: Surd) -> Surd:
        terms = dict(self.terms)
        for r, q in other.terms.items():
            terms[r] = terms.get(r, Fraction(0)) + q
        return Surd(terms)

    def __sub__(self, other: Surd) -> Surd:
        return self + (-other)

    def __mul__(self, other: Surd) -> Surd:
        terms: dict[int, Fraction] = {}
        for r1, q1 in self.terms.items():
            for r2, q2 in other.terms.items():
                g = math.gcd(r1, r2)  # sqrt(r1 r2) = g sqrt(r1 r2 / g^2)
                r = (r1 // g) * (r2 // g)
                terms[r] = terms.get(r, Fraction(0)) + q1 * q2 * g
        return Surd(terms)

    def inverse(self) -> Surd:
        """``1 / self``: multiplied by its conjugates until the denominator is rational."""
        if not self.terms:
            raise ZeroDivisionError("division by zero")
        numerator = Surd.rational(1)
        denominator = self
        for _ in range(_MAX_TERMS):
            q = denominator.as_rational()
            if q is not None:
                return numerator * Surd.rational(1 / q)
            p = _a_prime_of(max(r for r in denominator.terms if r != 1))
            conjugate = Surd({r: (-q if r % p == 0 else q) for r, q in denominator.terms.items()})
            numerator = numerator * conjugate
            denominator = denominator * conjugate
        raise TooBig("denominator did not become rational")

    def __truediv__(self, other: Surd) -> Surd:
        return self * other.inverse()

    def power(self, n: int) -> Surd:
        if abs(n) > 4096:
            raise TooBig("exponent too large")
        base = self if n >= 0 else self.inverse()
        result, n = Surd.rational(1), abs(n)
        while n:
            if n & 1:
                result = result * base
            n >>= 1
            if n:
                base = base * base
        return result

    def approx(self, bits: int = 200) -> Fraction:
        """A rational within 2^-bits times the sum of the absolute coefficients."""
        total = Fraction(0)
        scale = 1 << bits
        for r, q in self.terms.items():
            total += q * Fraction(math.isqrt(r * scale * scale), scale)
        return total


def _a_prime_of(n: int) -> int:
    for p in _SMALL_PRIMES:
        if n % p == 0:
            return p
    return n  # a prime (or a product of two large ones: conjugating by it still halves)
