"""What a batch worker needs loaded before it runs its first batch, loaded once.

Nothing here is public. A worker forked from a process that ran these shares what
they loaded (fork's copy-on-write) instead of paying it itself: pyarrow imports
pandas (when installed) the first time it turns Python values into an array, to
check for pandas types (about 0.2 s of CPU); the extraction rule tables fill their
caches on first use; and a verify run's grading loads sympy and math-verify and
their lazily loaded parts (about a second and a half). Run either in the calling
process, right before it forks its workers (:mod:`answerx.batch.workers`), or in
the fork server when the workers must start from one (:mod:`answerx.batch._preload`).
"""

from __future__ import annotations

import contextlib
import logging

__all__ = ["warm_extraction", "warm_grading"]


def warm_extraction(*, arrow: bool = True) -> None:
    """Load and warm what every job runs; ``arrow``: the jobs build Arrow arrays (Arrow
    input or output), so pyarrow's first conversion (its pandas import) is paid here."""
    import pyarrow as pa

    import answerx.batch._jobs  # noqa: F401 - what every job runs
    from answerx.extraction import extract

    if arrow:
        pa.array(["warm"], pa.string())
    extract("So $x = \\boxed{\\frac{1}{2}}$. The answer is (B).")


def warm_grading() -> None:
    """Load and warm sympy and math-verify, as a grading worker's warm-up does."""
    from answerx.grading import verify
    from answerx.grading._worker import _WARM_UP
    from answerx.grading.mathverify import math_equal
    from answerx.grading.symbolic import prepare

    # math-verify warns once that its timers are off: the grading worker's limit applies.
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    # A warm-up only: a math-verify that cannot run is for the grading worker to report,
    # per item; it must not stop the run here.
    with contextlib.suppress(Exception):
        prepare()
        for answer, gold in _WARM_UP:
            math_equal(answer, gold)
        verify("So the answer is $\\frac{1}{2}$.", "0.5")
