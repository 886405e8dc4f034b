"""A missing, old or broken math-verify never aborts grading: the caller's run goes on.

lighteval's environment pins math-verify 0.5.2 (no ``math_verify.errors``), where a math
comparison used to raise ``RuntimeError: no grading worker process can be started``.
Each case runs in a fresh interpreter whose path puts a stand-in math-verify first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from answerx.grading.mathverify import MIN_MATH_VERIFY, _release

SRC = Path(__file__).resolve().parents[2] / "src"

# A matrix: neither the exact rungs nor the fast symbolic rung decide it, math-verify would.
SCRIPT = r"""
import json, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import answerx.grading  # math-verify is checked when grading is imported
    told = [str(w.message) for w in caught]
v = answerx.verify(r"The answer is $\begin{pmatrix}2/2 & 2\\3 & 4\end{pmatrix}$",
                   r"\begin{pmatrix}1 & 2\\ 3 & 4\end{pmatrix}")
easy = answerx.verify("The answer is $\\frac{1}{2}$.", "0.5")
print(json.dumps({"reason": v.reason, "how": v.how, "correct": v.correct, "doubt": v.doubt,
                  "easy": easy.correct, "warnings": told}))
"""


def stand_in(root: Path, version: str, init: str) -> Path:
    """A ``math_verify`` package of ``version`` whose ``__init__`` is ``init``."""
    (root / "math_verify").mkdir(parents=True)
    (root / "math_verify" / "__init__.py").write_text(init)
    info = root / f"math_verify-{version}.dist-info"
    info.mkdir()
    meta = f"Metadata-Version: 2.1\nName: math-verify\nVersion: {version}\n"
    (info / "METADATA").write_text(meta)
    return root


def grade_with(path: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), str(SRC)])}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=180,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr  # no exception reached the caller
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.slow
def test_an_old_math_verify_is_named_at_import_and_its_comparisons_cannot_tell(
    tmp_path: Path,
) -> None:
    got = grade_with(stand_in(tmp_path, "0.5.2", "raise ImportError('never imported')\n"))
    assert any(
        "math-verify 0.5.2 is installed; answerx needs 0.8.0 or later" in w
        for w in got["warnings"]  # type: ignore[attr-defined]
    )
    assert (got["reason"], got["how"], got["correct"]) == (
        "timeout", "math_verify_unavailable", False
    )  # fmt: skip
    assert got["doubt"] == "comparison_timeout"  # unsure: a judge may still rule on it
    assert got["easy"] is True  # answerx's own predicates still grade


@pytest.mark.slow
def test_a_broken_math_verify_of_a_good_version_degrades_in_the_worker_too(tmp_path: Path) -> None:
    # A version that passes the check but cannot be imported (a missing compiled part):
    # the grading worker must still start, and answer "cannot tell".
    broken = stand_in(tmp_path, "0.9.0", "raise ImportError(\"No module named 'antlr4'\")\n")
    got = grade_with(broken)
    assert got["warnings"] == []
    assert (got["reason"], got["how"]) == ("timeout", "math_verify_unavailable")
    assert got["easy"] is True


def test_versions_are_compared_as_numbers() -> None:
    assert _release("0.10.1") > MIN_MATH_VERIFY > _release("0.7.9")
    assert _release("0.8.0rc1") == (0, 8, 0)
