"""A small grammar for answer-sized LaTeX: numbers, expressions, lists, sets, intervals, relations.

The parse is a tree of plain tuples (``Node``), the first element naming the node:

- ``("n", Fraction, is_decimal)``, ``("v", name)``, ``("c", "pi" | "e")``, ``("inf",)``;
- ``("add" | "sub" | "mul" | "div" | "pow" | "binom", a, b)``, ``("neg" | "sqrt" | "abs" |
  "fact" | "pct" | "deg", a)``, ``("root", a, n)``, ``("fn", name, a)``, ``("log", base, a)``;
- ``("pm", a, b)`` (``a \\pm b``), ``("call", name, args)`` (``f(x)``);
- ``("list", items)`` (``1, 2``), ``("set", items)`` (``\\{1, 2\\}``), ``("tuple", items)``,
  ``("bracket", "(" | "[", ")" | "]", a, b)`` (``(a, b]``: an interval, or a pair),
  ``("union", parts)``, ``("rel", items, ops)`` (``a < x \\le b``, ``y = 2x``),
  ``("in", var, set)``, ``("empty",)``.

Anything ambiguous (``1/2\\frac13``, ``\\frac123``, ``2 3``) or unknown is not parsed
(``parse`` returns None): the fast rung then leaves the answer to math-verify.
Hand-written because no library parses these shapes fast enough (docs/DESIGN.md).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Final

from answerx.grading.symbolic.lexer import Token, tokenize

__all__ = ["FUNCTIONS", "Node", "parse"]

Node = tuple[Any, ...]

#: Functions of one argument the evaluator knows (``\log`` is base 10, as math-verify reads it).
FUNCTIONS: Final = frozenset(
    [
        "sin",
        "cos",
        "tan",
        "cot",
        "sec",
        "csc",
        "arcsin",
        "arccos",
        "arctan",
        "sinh",
        "cosh",
        "tanh",
        "ln",
        "log",
        "exp",
    ]
)
_GREEK: Final = frozenset(
    [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "varepsilon",
        "zeta",
        "eta",
        "theta",
        "vartheta",
        "kappa",
        "lambda",
        "mu",
        "nu",
        "xi",
        "rho",
        "sigma",
        "tau",
        "phi",
        "varphi",
        "chi",
        "psi",
        "omega",
        "Gamma",
        "Delta",
        "Theta",
        "Lambda",
        "Xi",
        "Sigma",
        "Phi",
        "Psi",
        "Omega",
    ]
)
_CALLABLE: Final = frozenset("fgh")  # f(x) is a function, x(x+1) a product
_MAX_DEPTH: Final = 60


def _number(text: str) -> Node:
    # Fraction(int) skips the string parsing Fraction(str) does: most numbers are integers.
    if text.isdigit():
        return ("n", Fraction(int(text)), False)
    return ("n", Fraction(text), True)


def _is_whole(node: Node) -> bool:
    if node[0] == "neg":
        node = node[1]
    return node[0] == "n" and not node[2] and node[1].denominator == 1


def _is_fraction(node: Node) -> bool:
    return node[0] == "div" and _is_whole(node[1]) and _is_whole(node[2])


def _mixed_number(whole: Node, fraction: Node) -> Node:
    # 4\frac{2}{3} is 4 + 2/3 (as math-verify reads it), -4\frac{2}{3} is -(4 + 2/3)
    if whole[0] == "neg":
        return ("neg", ("add", whole[1], fraction))
    return ("add", whole, fraction)


_END: Final = Token("end", "")


class _Unreadable(Exception):
    """Outside the grammar: the answer goes on to math-verify."""


def parse(text: str) -> Node | None:
    """The tree of ``text``, or None when it is not in the grammar."""
    tokens = tokenize(text)
    if not tokens:
        return None
    try:
        return _Parser(tokens).answer()
    except (_Unreadable, ZeroDivisionError, ValueError):
        return None


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = [*tokens, _END]  # a sentinel: no bounds checks on the hot path
        self.pos = 0
        self.depth = 0
        self.in_abs = 0  # inside |...|, a bar closes; outside, it opens a factor

    # --- token access -------------------------------------------------------------------------
    def peek(self) -> Token | None:
        tok = self.tokens[self.pos]
        return None if tok is _END else tok

    def next(self) -> Token:
        tok = self.tokens[self.pos]
        if tok is _END:
            raise _Unreadable("unexpected end")
        self.pos += 1
        return tok

    def at(self, kind: str, text: str | None = None) -> bool:
        tok = self.tokens[self.pos]
        return tok.kind == kind and (text is None or tok.text == text)

    def expect(self, kind: str, text: str) -> None:
        if not self.at(kind, text):
            raise _Unreadable(f"expected {text}")
        self.pos += 1

    def enter(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _Unreadable("nested too deep")

    # --- top level ----------------------------------------------------------------------------
    def answer(self) -> Node:
        items = [self.item()]
        while self.at("op", ","):
            self.pos += 1
            self._no_thousands_group()
            items.append(self.item())
        if self.peek() is not None:
            raise _Unreadable("trailing tokens")
        return items[0] if len(items) == 1 else ("list", items)

    def _no_thousands_group(self) -> None:
        # "1,000" (or "10,\!000") is one number to a reader, not the list 1, 0.
        before, after = self.tokens[self.pos - 2], self.peek()
        if before.kind == "num" and after is not None and after.kind == "num":  # noqa: SIM102
            if len(after.text.split(".")[0]) == 3:  # 1,000 and 2,500.75
                raise _Unreadable("thousands separator")

    def item(self) -> Node:
        first = self.relation()
        if not self.at("cmd", "cup"):
            return first
        parts = [first]
        while self.at("cmd", "cup"):
            self.pos += 1
            parts.append(self.relation())
        return ("union", parts)

    def relation(self) -> Node:
        items = [self.sum()]
        ops: list[str] = []
        if self.at("cmd", "in"):
            self.pos += 1
            target = self.item()
            return ("in", items[0], target)
        while self.at("cmp"):
            ops.append(self.next().text)
            items.append(self.sum())
        return items[0] if not ops else ("rel", items, ops)

    # --- expressions --------------------------------------------------------------------------
    def sum(self) -> Node:
        self.enter()
        if self.at("cmd", "pm"):  # \pm\sqrt{2}: both signs
            self.pos += 1
            node: Node = ("pm", ("n", Fraction(0), False), self.term(after_sign=True))
        else:
            node = self.term()
        while True:
            if self.at("op", "+"):
                self.pos += 1
                node = ("add", node, self.term())
            elif self.at("op", "-"):
                self.pos += 1
                node = ("sub", node, self.term(after_sign=True))
            elif self.at("cmd", "pm"):
                self.pos += 1
                node = ("pm", node, self.term(after_sign=True))
            else:
                break
        self.depth -= 1
        return node

    def term(self, after_sign: bool = False) -> Node:
        node = self.unary()
        while True:
            if self.at("op", "*"):
                self.pos += 1
                node = ("mul", node, self.unary())
            elif self.at("op", "/"):
                self.pos += 1
                node = ("div", node, self.divisor(after_sign))
            elif self._starts_factor():
                if self.at("num"):  # "2 3" or "x2"
                    raise _Unreadable("number after a factor")
                mixed = self.at("cmd", "frac") and _is_whole(node)
                right = self.power()
                node = _mixed_number(node, right) if mixed and _is_fraction(right) else (
                    "mul", node, right)  # fmt: skip
            else:
                return node

    def divisor(self, after_sign: bool) -> Node:
        """What follows a ``/``: ``1/2x`` and ``1/2\\pi`` are ``1/(2x)`` and ``1/(2\\pi)``, as
        math-verify reads them (its grammar binds a product without a sign before ``/``).
        After a binary minus it reads ``x-1/3y`` as ``x - y/3`` but ``a-b/cd`` as
        ``a - b/(cd)``: such a term is left to it."""
        node = self.unary()
        while self._starts_factor():
            # "1/2 3", "1/2\frac13": no reading at all
            if after_sign or self.at("num") or self.at("cmd", "frac"):
                raise _Unreadable("ambiguous division")
            node = ("mul", node, self.power())
        return node

    def _starts_factor(self) -> bool:
        tok = self.peek()
        if tok is None:
            return False
        if tok.kind in ("num", "id"):
            return True
        if tok.kind == "op":
            return tok.text in ("(", "{") or (tok.text == "|" and not self.in_abs)
        return tok.kind == "cmd" and tok.text not in ("cup", "in", "pm")

    def unary(self) -> Node:
        if self.at("op", "-"):
            self.pos += 1
            self.enter()
            node = ("neg", self.unary())
            self.depth -= 1
            return node
        if self.at("op", "+"):
            self.pos += 1
            return self.unary()
        return self.power()

    def power(self) -> Node:
        node = self.postfix(self.primary())
        if self.at("op", "^"):
            self.pos += 1
            node = ("pow", node, self.exponent())
            if self.at("op", "^"):
                raise _Unreadable("double superscript")
            node = self.postfix(node)
        return node

    def postfix(self, node: Node) -> Node:
        while True:
            if self.at("op", "!"):
                self.pos += 1
                node = ("fact", node)
            elif self.at("deg"):
                self.pos += 1
                node = ("deg", node)
            elif self.at("pct"):
                self.pos += 1
                node = ("pct", node)
            elif self.at("op", "'") or self.at("op", "_"):
                raise _Unreadable("prime or subscript")
            else:
                return node

    def exponent(self) -> Node:
        tok = self.next()
        if tok.kind == "op" and tok.text == "{":
            return self.group_rest()
        if tok.kind == "num" and tok.text.isdigit():  # x^23 is x^{23}, as math-verify reads it
            return ("n", Fraction(tok.text), False)
        if tok.kind == "id":
            return self.symbol(tok.text)
        if tok.kind == "cmd" and tok.text == "pi":
            return ("c", "pi")
        raise _Unreadable("exponent")  # 2^-1, 2^1.5: not LaTeX

    def group_rest(self) -> Node:
        node = self.sum()
        self.expect("op", "}")
        return node

    # --- atoms --------------------------------------------------------------------------------
    def primary(self) -> Node:
        tok = self.next()
        if tok.kind == "num":
            if self.at("op", "_"):  # 204_5, 100100_b: math-verify reads the digits alone
                self.pos += 1
                self.subscript()
            return _number(tok.text)
        if tok.kind == "id":
            return self.identifier(tok.text)
        if tok.kind == "cmd":
            return self.command(tok.text)
        if tok.kind == "op":
            if tok.text == "{":
                return self.group_rest()
            if tok.text in ("(", "["):
                return self.bracket(tok.text)
            if tok.text == "{{":
                return ("set", self.elements("}}"))
            if tok.text == "|" and not self.in_abs:
                self.in_abs += 1
                inner = self.sum()
                self.expect("op", "|")
                self.in_abs -= 1
                return ("abs", inner)
        raise _Unreadable(f"unexpected {tok.text}")

    def symbol(self, name: str) -> Node:
        if name == "e":
            return ("c", "e")
        if name == "i":  # the imaginary unit: math-verify's complex handling decides
            raise _Unreadable("imaginary unit")
        return ("v", name)

    def identifier(self, name: str) -> Node:
        if self.at("op", "_"):  # a_1, x_{n}
            self.pos += 1
            return ("v", f"{name}_{self.subscript()}")
        if name in _CALLABLE and self.at("op", "("):
            self.pos += 1
            args = self.elements(")")
            return ("call", name, args)
        return self.symbol(name)

    def subscript(self) -> str:
        tok = self.next()
        if tok.kind == "op" and tok.text == "{":
            sub = self.next()
            self.expect("op", "}")
        else:
            sub = tok
        if sub.kind not in ("num", "id") or len(sub.text) > 3:
            raise _Unreadable("subscript")
        return sub.text

    def command(self, name: str) -> Node:
        if name == "pi":
            return ("c", "pi")
        if name == "infty":
            return ("inf",)
        if name == "emptyset":
            return ("empty",)
        if name in _GREEK:
            return ("v", name)
        if name == "frac":
            top = self.argument(split_two_digits=True)
            return ("div", top, self.argument())
        if name == "sqrt":
            if self.at("op", "["):
                self.pos += 1
                degree = self.sum()
                self.expect("op", "]")
                return ("root", self.argument(), degree)
            if self.at("op", "("):  # sqrt(26), √(6√3): plain text, the root of the group
                self.pos += 1
                inner = self.sum()
                self.expect("op", ")")
                return ("sqrt", inner)
            return ("sqrt", self.argument())
        if name == "binom":
            return ("binom", self.argument(), self.argument())
        if name in FUNCTIONS:
            return self.function(name)
        raise _Unreadable(f"unknown command {name}")

    def argument(self, split_two_digits: bool = False) -> Node:
        """A braced group or one token: ``\\frac{1}{2}``, ``\\frac12``, ``\\sqrt3``."""
        tok = self.next()
        if tok.kind == "op" and tok.text == "{":
            return self.group_rest()
        if tok.kind == "num" and tok.text.isdigit():
            if len(tok.text) == 1:
                return ("n", Fraction(tok.text), False)
            if split_two_digits and len(tok.text) == 2:  # \frac12: numerator 1, denominator 2
                self.tokens[self.pos - 1] = Token("num", tok.text[1])
                self.pos -= 1
                return ("n", Fraction(tok.text[0]), False)
        if tok.kind == "id":
            return self.symbol(tok.text)
        if tok.kind == "cmd" and tok.text == "pi":
            return ("c", "pi")
        raise _Unreadable("argument")

    def function(self, name: str) -> Node:
        base: Node | None = None
        power: Node | None = None
        if name == "log" and self.at("op", "_"):
            self.pos += 1
            base = self.argument()
        if self.at("op", "^"):
            self.pos += 1
            power = self.exponent()
            if power[0] == "neg":
                raise _Unreadable("inverse function")
        if self.at("op", "("):
            self.pos += 1
            arg = self.sum()
            self.expect("op", ")")
        else:
            arg = self.unparenthesised_argument()
        node: Node = ("log", base, arg) if base is not None else ("fn", name, arg)
        return ("pow", node, power) if power is not None else node

    def unparenthesised_argument(self) -> Node:
        """``\\sin 2x``, ``\\cos \\pi x``, ``\\sin{x}^2``: math-verify's argument runs on over a
        product (letters but e, groups, bars, \\pi and Greek letters) and stops at
        another function, ``\\sqrt`` or ``e`` (``\\sin x \\cos x`` is sin(x) cos(x),
        ``\\sin x e`` is e sin(x)); where it runs on over more (``/``, ``\\cdot``, ``\\frac``,
        ``\\infty``, a number: ``\\sin x/2`` is sin(x/2) there) the answer is left to it."""
        arg = self.power()
        while True:
            tok = self.tokens[self.pos]
            kind, text = tok.kind, tok.text
            if (
                (kind == "id" and text != "e")
                or (kind == "op" and (text in ("(", "{") or (text == "|" and not self.in_abs)))
                or (kind == "cmd" and (text == "pi" or text in _GREEK))
            ):
                arg = ("mul", arg, self.power())
            elif (
                kind == "num"  # \sin x 2 is sin(2x) there, but \log 8 2 is log(10)
                or (kind == "op" and text in ("/", "*"))
                or (kind == "cmd" and text in ("frac", "infty", "binom"))
            ):
                raise _Unreadable("function argument")
            else:
                return arg

    def bracket(self, opening: str) -> Node:
        items = [self.sum()]
        while self.at("op", ","):
            self.pos += 1
            items.append(self.sum())
        closing = self.next()
        if closing.kind != "op" or closing.text not in (")", "]"):
            raise _Unreadable("unclosed bracket")
        if len(items) == 1:
            if opening == "(" and closing.text == ")":
                return items[0]
            raise _Unreadable("square brackets around one value")
        if len(items) == 2:
            return ("bracket", opening, closing.text, items[0], items[1])
        # Three or more values in (...) or in [...] are an ordered tuple, as math-verify
        # reads both ([-5, -8, -6, 0] is theoremqa's list answer); mixed brackets are not.
        if (opening, closing.text) in (("(", ")"), ("[", "]")):
            return ("tuple", items)
        raise _Unreadable("bracketed list")

    def elements(self, closing: str) -> list[Node]:
        if self.at("op", closing):
            self.pos += 1
            return []
        items = [self.relation()]
        while self.at("op", ","):
            self.pos += 1
            items.append(self.relation())
        self.expect("op", closing)
        return items
