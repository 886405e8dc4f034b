"""Imported once by the fork server of a verify run, after :mod:`answerx.batch._preload`.

Nothing here is public. sympy and math-verify are imported and their lazily loaded
parts warmed here, once, so that every batch worker forks with them in memory and
forks its own grading worker from itself (:func:`answerx.grading.pool.fork_workers`)
instead of starting a fresh interpreter that imports them again: about a second
and a half of CPU per batch worker, which made eight workers on two cores slower
than one.
"""

import contextlib
import gc
import logging

from answerx.grading import verify
from answerx.grading._worker import _WARM_UP
from answerx.grading.mathverify import math_equal
from answerx.grading.symbolic import prepare

# math-verify warns once that its timers are off: the grading worker's limit applies.
logging.getLogger("math_verify").setLevel(logging.ERROR)
# A warm-up only: a math-verify that cannot run is for the grading worker to report,
# per item; it must not stop the fork server, and with it the whole run.
with contextlib.suppress(Exception):
    prepare()
    for _answer, _gold in _WARM_UP:
        math_equal(_answer, _gold)
    verify("So the answer is $\\frac{1}{2}$.", "0.5")
gc.freeze()  # what was loaded above lives as long as the server: never collected
