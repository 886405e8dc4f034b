"""One demo run for the viewer's tests (made once per module by the real runner against the
fake provider), and a client for the viewer's pages over it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from demo_run import demo_run
from fastapi.testclient import TestClient

from answerx.testing import FakeProviderServer
from answerx.viewer import create_viewer_app

# The stores older answerx versions wrote are built where the store's own tests build them.
sys.path.append(str(Path(__file__).parents[1] / "experiments"))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(store, run id) of the demo run (see ``demo_run``)."""
    folder = tmp_path_factory.mktemp("viewer-demo")
    with pytest.MonkeyPatch.context() as patch, FakeProviderServer() as fake:
        patch.setenv("OPENAI_API_KEY", "sk-test-viewer-key")
        patch.delenv("ANSWERX_PROMPT_DIR", raising=False)
        return demo_run(folder, fake)


@pytest.fixture
def client(demo: tuple[Path, str]) -> Iterator[TestClient]:
    with TestClient(create_viewer_app(demo[0])) as viewer:
        yield viewer
