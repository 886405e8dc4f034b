"""Shared test configuration.

Hypothesis profiles: ``answerx`` (the default for local runs) keeps the whole suite
fast and draws new random examples each run, so a developer's run can find a new bug;
``ci`` (loaded when the ``CI`` environment variable is set, as ``.ci/run`` does) draws
the same examples every run (``derandomize=True``, no example database), so a random
find can never block a landing; ``thorough`` is for a longer hunt
(``HYPOTHESIS_PROFILE=thorough pytest tests/property``). ``HYPOTHESIS_PROFILE`` wins
over ``CI``. Tests that pin their own ``@settings`` keep those values and inherit the
rest (``derandomize`` included) from the loaded profile.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "answerx",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "ci",
    parent=settings.get_profile("answerx"),
    derandomize=True,
    database=None,
)
_IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if _IN_CI else "answerx"))
