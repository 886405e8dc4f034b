"""Olympiad-style symbolic answers: each gold with spellings that state it and answers that do not.

Written for issue 29's symbolic table (``bench/verify.py --symbolic``) and the agreement
test of the fast rung (``tests/grading/test_symbolic_agreement.py``). Each row is
``(gold, equal spellings, different answers)``; ``pairs()`` flattens them into
``(answer, gold, is_equal)``, is_equal being the mathematical truth (which math-verify
and the fast rung are both measured against).
"""

from __future__ import annotations

ROWS: list[tuple[str, list[str], list[str]]] = [
    # surds
    (
        r"2\sqrt{5}",
        [r"\sqrt{20}", r"2 \sqrt 5", r"\frac{10}{\sqrt{5}}"],
        [r"\sqrt{10}", r"5\sqrt{2}"],
    ),
    (
        r"\frac{\sqrt{3}}{2}",
        [r"\dfrac{\sqrt 3}{2}", r"\frac{3}{2\sqrt{3}}", r"\sqrt{\frac{3}{4}}"],
        [r"\frac{\sqrt{2}}{2}", r"\frac{\sqrt{3}}{3}"],
    ),
    (r"3\sqrt{13}", [r"\sqrt{117}", r"\sqrt{9 \cdot 13}"], [r"13\sqrt{3}", r"3\sqrt{31}"]),
    (
        r"\frac{5\sqrt{42}}{27}",
        [r"\frac{5}{27}\sqrt{42}", r"\frac{10\sqrt{42}}{54}"],
        [r"\frac{5\sqrt{42}}{26}", r"\frac{\sqrt{42}}{27}"],
    ),
    (
        r"\sqrt{2}+\sqrt{5}",
        [r"\sqrt 5+\sqrt 2", r"\sqrt{5} + \sqrt{2}"],
        [r"\sqrt{7}", r"\sqrt{2}\sqrt{5}"],
    ),
    (r"\sqrt{2} - 1", [r"\frac{1}{1+\sqrt{2}}", r"-1+\sqrt2"], [r"1-\sqrt{2}", r"\sqrt{2}+1"]),
    (r"4\sqrt{2}", [r"\sqrt{32}", r"2\sqrt{8}", r"2^{5/2}"], [r"4\sqrt{3}", r"2\sqrt{2}"]),
    (
        r"\frac{1+\sqrt{5}}{2}",
        [r"\frac{\sqrt{5}+1}{2}", r"\frac12 + \frac{\sqrt5}{2}"],
        [r"\frac{1-\sqrt{5}}{2}", r"1+\sqrt{5}"],
    ),
    (r"6\sqrt{3}", [r"\sqrt{108}", r"3\sqrt{12}"], [r"6\sqrt{2}", r"3\sqrt{6}"]),
    (
        r"\frac{\sqrt{6}}{3}",
        [r"\sqrt{\frac{2}{3}}", r"\frac{2}{\sqrt{6}}"],
        [r"\frac{\sqrt{6}}{2}", r"\frac{\sqrt{3}}{3}"],
    ),
    (r"2+\sqrt{3}", [r"\frac{1}{2-\sqrt{3}}", r"\sqrt{3}+2"], [r"2-\sqrt{3}", r"2\sqrt{3}"]),
    (r"12\sqrt{2}", [r"\sqrt{288}", r"6\sqrt{8}"], [r"12\sqrt{3}", r"24"]),
    (r"\sqrt[3]{2}", [r"2^{1/3}", r"2^{\frac{1}{3}}"], [r"\sqrt{2}", r"\sqrt[3]{3}"]),
    (
        r"\frac{3\sqrt{2}}{4}",
        [r"\frac{3}{2\sqrt{2}}", r"0.75\sqrt{2}"],
        [r"\frac{3\sqrt{2}}{2}", r"\frac{2\sqrt{3}}{4}"],
    ),
    (r"10\sqrt{5}", [r"\sqrt{500}", r"5\sqrt{20}"], [r"5\sqrt{10}", r"10\sqrt{3}"]),
    (r"7 - 4\sqrt{3}", [r"(2-\sqrt{3})^2", r"-4\sqrt3+7"], [r"7+4\sqrt{3}", r"(2+\sqrt{3})^2"]),
    # pi and e
    (
        r"\frac{\pi}{6}",
        [r"\frac{1}{6}\pi", r"\pi/6", r"30^\circ \cdot \frac{\pi}{180}"],
        [r"\frac{\pi}{3}", r"\frac{\pi}{4}"],
    ),
    (r"3\pi", [r"\pi \cdot 3", r"\frac{6\pi}{2}"], [r"3", r"9\pi"]),
    (
        r"\frac{9}{4}\pi",
        [r"\frac94\pi", r"\frac{9\pi}{4}", r"2.25\pi"],
        [r"\frac{4}{9}\pi", r"\frac{9}{4}"],
    ),
    (r"16\pi", [r"\pi \times 16", r"4^2\pi"], [r"8\pi", r"16"]),
    (r"\frac{4\pi}{3}", [r"\frac{4}{3}\pi"], [r"\frac{3\pi}{4}", r"4\pi"]),
    (r"2\pi r", [r"2r\pi", r"\pi r \cdot 2"], [r"\pi r^2", r"2\pi"]),
    (
        r"\frac{\pi r}{h+r}",
        [r"\frac{r\pi}{r+h}", r"\pi\frac{r}{h+r}"],
        [r"\frac{\pi h}{h+r}", r"\frac{\pi r}{h}"],
    ),
    (r"e^2", [r"\exp(2)", r"e \cdot e"], [r"2e", r"e^3"]),
    (
        r"\frac{\pi}{6} + k\pi",
        [r"k\pi + \frac{\pi}{6}", r"\pi k + \frac{\pi}{6}"],
        [r"\frac{\pi}{6} + 2k\pi", r"\frac{\pi}{3} + k\pi"],
    ),
    (r"8 - 2\pi", [r"-2\pi + 8", r"2(4-\pi)"], [r"8 - \pi", r"2\pi - 8"]),
    (r"\pi^2", [r"\pi\cdot\pi"], [r"2\pi", r"\pi^3"]),
    (r"100\pi", [r"\pi \cdot 100", r"10^2\pi"], [r"10\pi", r"100"]),
    # values of functions
    (
        r"\frac{1}{2}",
        [r"\sin\frac{\pi}{6}", r"\cos\frac{\pi}{3}"],
        [r"\sin\frac{\pi}{3}", r"\frac{\sqrt{2}}{2}"],
    ),
    (
        r"\frac{\pi}{4}",
        [r"\arctan 1", r"\arcsin \frac{\sqrt{2}}{2}"],
        [r"\arctan 2", r"\frac{\pi}{2}"],
    ),
    (r"3", [r"\log_2 8", r"\log 1000", r"\ln e^3"], [r"\log_3 8", r"\log_2 9"]),
    (r"\ln 2", [r"\log_e 2", r"-\ln \frac12"], [r"\log 2", r"\ln 3"]),
    (r"2\sin x \cos x", [r"2\cos x \sin x"], [r"\sin x \cos x"]),
    # rationals and integers written as expressions
    (
        r"\frac{14}{3}",
        [r"4\frac{2}{3}", r"\frac{28}{6}", r"2+\frac53+1"],
        [r"\frac{13}{3}", r"\frac{3}{14}"],
    ),
    (r"\frac{3}{56}", [r"\frac{6}{112}", r"3/56"], [r"\frac{3}{65}", r"\frac{56}{3}"]),
    (r"-\frac{10}{9}", [r"\frac{-10}{9}", r"-10/9"], [r"\frac{10}{9}", r"-\frac{9}{10}"]),
    (
        r"720",
        [r"\frac{6!}{1}", r"3 \cdot 4 \cdot 5 \cdot 6 \cdot 2", r"\binom{10}{3} \cdot 6"],
        [r"5!", r"\binom{10}{3}"],
    ),
    (r"10", [r"\binom{5}{2}", r"\binom{5}{3}"], [r"\binom{5}{1}", r"\binom{6}{2}"]),
    (r"1024", [r"2^{10}", r"4^5"], [r"2^{11}", r"10^{3}"]),
    (r"\frac{1}{12}", [r"0.0833333333333333", r"12^{-1}"], [r"0.083", r"\frac{1}{21}"]),
    (r"9", [r"3^2", r"\sqrt{81}", r"|-9|"], [r"-9", r"\sqrt{9}"]),
    # percentages and degrees
    (r"20\%", [r"\frac{1}{5}", r"0.2", r"20"], [r"25\%", r"2"]),
    (r"12.5\%", [r"0.125", r"\frac18"], [r"12.5", r"1.25"]),
    (r"90^\circ", [r"90", r"90^{\circ}"], [r"45^\circ", r"180"]),
    (r"135^\circ", [r"135"], [r"45^\circ", r"225"]),
    # decimals
    (r"\sqrt{17}", [r"4.123106", r"4.1231056256"], [r"4.1231", r"4.12"]),
    (r"16386.17", [r"16386.170"], [r"16386.16", r"16386"]),
    (r"\frac{1}{3}", [r"0.333333", r"0.3333333"], [r"0.33", r"0.3333"]),
    # polynomials and rational expressions
    (r"x^2-2x+1", [r"(x-1)^2", r"(1-x)^2", r"x^{2} - 2x + 1"], [r"x^2-1", r"(x+1)^2"]),
    (r"(x+2)(x-3)", [r"x^2-x-6", r"(x-3)(x+2)"], [r"x^2+x-6", r"(x-2)(x+3)"]),
    (
        r"\frac{x+2}{7}",
        [r"\frac{x}{7}+\frac{2}{7}", r"\frac{1}{7}(x+2)"],
        [r"\frac{x+2}{5}", r"\frac{x}{7}+2"],
    ),
    (r"a^2+2ab+b^2", [r"(a+b)^2", r"(b+a)^2"], [r"a^2+b^2", r"(a-b)^2"]),
    (r"\frac{x^2-1}{x-1}", [r"x+1", r"1+x"], [r"x-1", r"\frac{x^2+1}{x-1}"]),
    (r"2-2p", [r"2(1-p)", r"-2p+2"], [r"2-p", r"2p-2"]),
    (r"x^3-3x^2+4x-1", [r"x(x^2-3x+4)-1"], [r"x^3-3x^2+4x+1", r"x^3+3x^2+4x-1"]),
    (
        r"\frac{1}{x(x+1)}",
        [r"\frac{1}{x}-\frac{1}{x+1}", r"\frac{1}{x^2+x}"],
        [r"\frac{1}{x}+\frac{1}{x+1}", r"\frac{1}{x^2+1}"],
    ),
    (r"4n^2+4n+1", [r"(2n+1)^2"], [r"(2n-1)^2", r"4n^2+1"]),
    (
        r"\frac{n(n+1)}{2}",
        [r"\frac{n^2+n}{2}", r"\frac{1}{2}n^2 + \frac{1}{2}n"],
        [r"\frac{n(n-1)}{2}", r"n(n+1)"],
    ),
    (r"3x^2y", [r"3yx^2", r"x \cdot 3xy"], [r"3xy^2", r"3x^2"]),
    (r"\frac{x}{x^2+1}", [r"\frac{1}{x + \frac{1}{x}}"], [r"\frac{x}{x^2-1}", r"\frac{1}{x^2+1}"]),
    (r"k^2 - 4", [r"(k-2)(k+2)"], [r"(k-2)^2", r"k^2+4"]),
    (r"2x+1", [r"y = 2x+1", r"1+2x", r"f(x) = 2x+1"], [r"2x-1", r"y = x+1"]),
    # equations and functions
    (
        r"y = -\frac{1}{2}x + \frac{3}{4}",
        [r"y = \frac{3}{4} - \frac{x}{2}", r"-\frac{1}{2}x + \frac{3}{4}"],
        [r"y = -\frac{1}{2}x - \frac{3}{4}", r"y = 2x + \frac{3}{4}"],
    ),
    (r"f(n) = n", [r"f(z) = z", r"f(x)=x"], [r"f(n) = 2n", r"f(z) = z + 1"]),
    (r"f(x) = x^2 + 1", [r"f(t) = t^2 + 1", r"x^2+1"], [r"f(x) = x^2 - 1", r"f(t) = t^2"]),
    (r"x = 11", [r"x = 5+5+1", r"11"], [r"x = 12", r"12"]),
    (r"k = \frac{1}{3}", [r"k = \frac{2}{6}", r"\frac{1}{3}"], [r"k = 3", r"\frac{1}{4}"]),
    # sets and lists of values
    (
        r"-1,0,1",
        [r"1,0,-1", r"\{-1, 0, 1\}", r"x \in \{-1, 0, 1\}", r"x = -1, x = 0, x = 1"],
        [r"-1,1", r"0,1,2"],
    ),
    (
        r"$-1$,$2$,$-2$",
        [r"-2,-1,2", r"\{2,-1,-2\}", r"x = 2, x = -1, x = -2"],
        [r"-1,2", r"1,2,-2"],
    ),
    (
        r"10,11,12,13,14,-2,-1,0,1,2",
        [r"-2,-1,0,1,2,10,11,12,13,14", r"14,13,12,11,10,2,1,0,-1,-2"],
        [r"10,11,12,13,14", r"-2,-1,0,1,2,10,11,12,13"],
    ),
    (r"-2,1", [r"1,-2", r"x = 1, x = -2"], [r"2,-1", r"-2"]),
    (
        r"1 \pm \sqrt{19}",
        [r"1+\sqrt{19}, 1-\sqrt{19}", r"1-\sqrt{19},1+\sqrt{19}"],
        [r"1+\sqrt{19}", r"-1\pm\sqrt{19}"],
    ),
    (
        r"\{1\pm\sqrt{5},-2\}",
        [r"-2, 1+\sqrt5, 1-\sqrt5"],
        [r"2, 1+\sqrt5, 1-\sqrt5", r"-2, 1+\sqrt5"],
    ),
    (
        r"3 \pm 2\sqrt{2}",
        [r"3+2\sqrt2, 3-2\sqrt2", r"3-\sqrt{8}, 3+\sqrt{8}"],
        [r"3\pm\sqrt{2}", r"2\pm 3\sqrt{2}"],
    ),
    (r"\frac{1}{2}, 3", [r"3, \frac12", r"0.5, 3"], [r"2, 3", r"\frac{1}{2}, -3"]),
    (r"-3,4", [r"4,-3", r"x = 4, x = -3"], [r"3,4", r"-3,-4"]),
    (r"\sqrt{2}, -\sqrt{2}", [r"\pm\sqrt{2}", r"-\sqrt{2},\sqrt{2}"], [r"\sqrt{2}", r"2, -2"]),
    (
        r"\frac{\pi}{3}, \frac{2\pi}{3}",
        [r"\frac{2\pi}{3}, \frac{\pi}{3}"],
        [r"\frac{\pi}{3}", r"\frac{\pi}{6}, \frac{2\pi}{3}"],
    ),
    # tuples and points
    (r"(6,31,-1)", [r"(6, 31, -1)", r"\left(6,31,-1\right)"], [r"(6,-1,31)", r"(6,31,1)"]),
    (r"(1, 3), (4, 0)", [r"(4, 0), (1, 3)"], [r"(1, 3), (0, 4)", r"(1, 3)"]),
    (
        r"(3, \frac{\pi}{2})",
        [r"\left( 3, \frac{\pi}{2} \right)", r"(3, \frac12\pi)"],
        [r"(\frac{\pi}{2}, 3)", r"(3, \pi)"],
    ),
    (
        r"\left(\frac{4}{5},\frac{1}{5}\right)",
        [r"(0.8, 0.2)", r"\left(\frac45, \frac15\right)"],
        [r"\left(\frac{1}{5},\frac{4}{5}\right)", r"(\frac45, \frac14)"],
    ),
    (r"(7,6)", [r"(7, 6)"], [r"(6,7)", r"(7,-6)"]),
    (r"(1,\frac{9}{2})", [r"(1,4.5)"], [r"(1,4.25)", r"(\frac92, 1)"]),
    (r"(2, -1, 3)", [r"(2,-1,3)"], [r"(2,1,3)", r"(-1,2,3)"]),
    # intervals, unions, inequalities
    (
        r"(-\infty, -5)",
        [r"k < -5", r"-5 > k", r"x \in (-\infty, -5)"],
        [r"k \le -5", r"(-\infty, 5)"],
    ),
    (
        r"[\frac12, 8]",
        [r"\frac12 \le x \le 8", r"[0.5, 8]", r"8 \ge x \ge \frac{1}{2}"],
        [r"(\frac12, 8]", r"\frac12 < x \le 8"],
    ),
    (r"[3, \infty)", [r"x \ge 3", r"x \geq 3", r"3 \le x"], [r"x > 3", r"(3, \infty)"]),
    (r"x \ge 3", [r"[3, \infty)", r"x \geq 3", r"3 \leq x"], [r"x \le 3", r"(3, \infty)"]),
    (r"[0,1)", [r"0 \le x < 1"], [r"(0,1)", r"[0,1]"]),
    (r"[-2, 7]", [r"-2 \le x \le 7", r"x \in [-2,7]"], [r"(-2, 7)", r"[-2, 7)"]),
    (
        r"[-1, -\frac{1}{2}) \cup (-\frac{1}{2}, 0) \cup (0, 1) \cup (1, \infty)",
        [r"[-1, -\tfrac12) \cup (-\tfrac12, 0) \cup (0, 1) \cup (1, \infty)"],
        [
            r"[-1, 0) \cup (0, 1) \cup (1, \infty)",
            r"(-1, -\frac{1}{2}) \cup (-\frac{1}{2}, 0) \cup (0, 1) \cup (1, \infty)",
        ],
    ),
    (
        r"(2, 12) \cup (12, 102)",
        [r"(12, 102) \cup (2, 12)"],
        [r"(2, 102)", r"(2, 12] \cup (12, 102)"],
    ),
    (
        r"(-\infty, -3] \cup [2, \infty)",
        [r"[2, \infty) \cup (-\infty, -3]"],
        [r"[-3, 2]", r"(-\infty, -3) \cup (2, \infty)"],
    ),
    (r"(-\infty, 3)", [r"x < 3", r"x \lt 3"], [r"x > 3", r"x \le 3"]),
    (r"(-1, 1)", [r"-1 < x < 1"], [r"[-1, 1]", r"-1 \le x < 1"]),
    (r"x > 5", [r"x \gt 5", r"5 < x", r"(5, \infty)"], [r"x < 5", r"x \ge 5"]),
    (r"\{-1\} \cup [0,7)", [r"[0,7) \cup \{-1\}"], [r"[-1, 7)", r"\{1\} \cup [0,7)"]),
    (r"(0, \frac{\pi}{2})", [r"0 < x < \frac{\pi}{2}"], [r"(0, \pi)", r"[0, \frac{\pi}{2}]"]),
]


def pairs() -> list[tuple[str, str, bool]]:
    """``(answer, gold, is_equal)`` for every spelling of every row."""
    out = []
    for gold, same, other in ROWS:
        out.extend((answer, gold, True) for answer in same)
        out.extend((answer, gold, False) for answer in other)
    return out
