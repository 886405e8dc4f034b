"""Fixtures for the retrieval tests: the bundled corpus indexed once per module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from answerx.retrieval import Index, bundled_index


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    """The bundled corpus in an FTS5 index."""
    path: Path = tmp_path_factory.mktemp("index") / "bundled.db"
    with bundled_index(path) as built:
        yield built
