"""What a batch worker needs loaded before it runs its first batch, loaded once.

Nothing here is public. A worker forked from a process that ran these shares what
they loaded (fork's copy-on-write) instead of paying it itself: pyarrow imports
pandas (when installed) the first time it turns Python values into an array, to
check for pandas types (about 0.2 s of CPU); the extraction rule tables fill their
caches on first use; and a verify run's grading loads sympy and math-verify and
the parts every comparison loads on first use (about two thirds of a second). Run
either in the calling process, right before it forks its workers
(:mod:`answerx.batch.workers`), or in the fork server when the workers must start
from one (:mod:`answerx.batch._preload`).
"""

from __future__ import annotations

import contextlib
import gc
import logging

__all__ = ["warm_extraction", "warm_grading", "warm_grading_rules"]


def warm_extraction(*, arrow: bool = True) -> None:
    """Load and warm what every job runs; ``arrow``: the jobs build Arrow arrays (Arrow
    input or output), so pyarrow's first conversion (its pandas import) is paid here."""
    import pyarrow as pa

    import answerx.batch._jobs  # noqa: F401 - what every job runs
    from answerx.extraction import extract

    if arrow:
        pa.array(["warm"], pa.string())
    extract("So $x = \\boxed{\\frac{1}{2}}$. The answer is (B).")


# The one comparison a batch run's parent warms math-verify with before it forks its
# workers. Measured (2 cores, the corpus' math-verify items, a worker forked after each
# step): this pair fills the LaTeX parser's decision tables and loads the parts of sympy
# that math-verify's comparison imports on first use, and saves every worker's grading
# process 0.3 CPU s on its first items for 0.33 s spent once; the grading worker's other
# warm-up pairs (:data:`answerx.grading._worker._WARM_UP`: sets, intervals, matrices, a
# plain number) saved the workers nothing measurable on the corpus and cost 0.3 s more,
# on the one process every row waits for. An item that needs one of their parts pays it
# (a tenth of a second) in its own worker, well inside its time limit.
_COMPARISON = ("(x+1)^2", "x^2+2x+1")


def warm_grading_rules() -> None:
    """Load grading's own rules and their first-use tables, not math-verify (0.1 s): what
    a verify run's batch workers need from their first row. math-verify is warmed apart,
    by the run's grading template (:func:`warm_grading`, in
    :class:`answerx.grading.pool.SharedTemplate`), while they run; so are its patterns,
    which the fast rung's walk needs (its grading workers walk for the batch workers,
    :class:`answerx.grading.symbolic.ReadingsElsewhere`)."""
    from answerx.grading import verify
    from answerx.grading.symbolic import prepare

    prepare(readings=False)
    verify("So the answer is $\\frac{1}{2}$.", "0.5")  # decided by the rules alone


def warm_grading() -> None:
    """Load sympy and math-verify and warm them with one comparison that pays its way.

    The collector is off meanwhile: what loads here lives as long as the process, and
    the full collections that hundreds of module imports would trigger (a sixth of the
    warm-up) would only walk it again and again. Its state is restored afterwards.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        _warm_grading()
    finally:
        if collecting:
            gc.enable()


def _warm_grading() -> None:
    from answerx.grading import verify
    from answerx.grading.mathverify import math_equal
    from answerx.grading.symbolic import prepare

    # math-verify warns once that its timers are off: the grading worker's limit applies.
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    # A warm-up only: a math-verify that cannot run is for the grading worker to report,
    # per item; it must not stop the run here.
    with contextlib.suppress(Exception):
        prepare()
        math_equal(*_COMPARISON)
        verify("So the answer is $\\frac{1}{2}$.", "0.5")
