"""Imported once by the fork server of a verify run, after :mod:`answerx.batch._preload`.

Nothing here is public. sympy and math-verify are imported and warmed here
(:func:`answerx.batch._warm.warm_grading`), once, so that every batch worker forks
with them in memory and forks its own grading worker from itself
(:func:`answerx.grading.pool.fork_workers`) instead of starting a fresh interpreter
that imports them again.
"""

import gc

from answerx.batch._warm import warm_grading

warm_grading()
gc.freeze()  # what was loaded above lives as long as the server: never collected
