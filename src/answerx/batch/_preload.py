"""Imported once by the worker pool's fork server, so that every worker forks warm.

Nothing here is public. Used where the workers cannot be forked from the calling
process itself (it runs other threads, see :mod:`answerx.batch.workers`); what is
loaded is :func:`answerx.batch._warm.warm_extraction`'s. Once in the server, the
workers share it through fork's copy-on-write; ``gc.freeze()`` keeps it shared,
since a worker's garbage collector would otherwise visit, and so copy, every page
of those objects.
"""

import gc

from answerx.batch._warm import warm_extraction

warm_extraction()
gc.freeze()  # what was loaded above lives as long as the server: never collected
