"""Imported once by the worker pool's fork server, so that every worker forks warm.

Nothing here is public. Without it each worker would pay its own start-up on its
first batch: pyarrow imports pandas (when installed) the first time it turns
Python values into an array, to check for pandas types (about 0.2 s of CPU),
and the extraction rule tables fill their caches on first use. Once in the
server, the workers share it through fork's copy-on-write; ``gc.freeze()``
keeps it shared, since a worker's garbage collector would otherwise visit, and
so copy, every page of those objects.
"""

import gc

import pyarrow as pa

import answerx.batch._jobs  # noqa: F401 - what every job runs
from answerx.extraction import extract

pa.array(["warm"], pa.string())
extract("So $x = \\boxed{\\frac{1}{2}}$. The answer is (B).")
gc.freeze()  # what was loaded above lives as long as the server: never collected
