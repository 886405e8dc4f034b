"""The bundled demo experiment (config/experiments/demo.yaml) end to end on the local model.

Marker ``local_model``: a real llama.cpp server on 127.0.0.1 serving the bundled
SmolLM2-135M-Instruct. ``answerx run`` runs the demo config as ``make demo``
does, narrowed to one question per dataset and short replies to stay fast: all
three approaches (one of them multi-call), stored, scored, priced (a local
model costs 0, not "unknown") and reported with plots. A 135M model is not
expected to be right: only that every step completes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp", reason="the 'local' extra (llama-cpp-python) is not installed")

from typer.testing import CliRunner

from answerx.cli import app
from answerx.experiments.config import load_config
from answerx.experiments.store import ResultStore
from answerx.local import LocalModelServer

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.slow,  # about ten short calls to a CPU model
]

DEMO = Path(__file__).resolve().parents[2] / "config" / "experiments" / "demo.yaml"


@pytest.fixture(scope="module")
def server() -> Iterator[LocalModelServer]:
    with LocalModelServer() as running:
        yield running


def test_the_demo_config_runs_end_to_end_on_the_local_model(
    server: LocalModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANSWERX_LOCAL_URL", raising=False)
    db, reports = tmp_path / "answerx.db", tmp_path / "reports"
    demo = load_config(DEMO)
    assert [t.provider for t in demo.targets] == ["local"]  # what make demo runs

    result = CliRunner().invoke(
        app,
        ["run", str(DEMO), "-q", "--limit", "1",
         "--base-url", server.base_url, "--db", str(db), "--out-dir", str(reports)],
    )  # fmt: skip

    with ResultStore(db) as store:
        (run,) = store.list_runs()
        items = list(store.items(run.run_id))
    errors = [i.error for i in items if i.error is not None]
    assert result.exit_code == (1 if errors else 0), result.output
    assert run.status == "finished"
    assert "cost $0.0000" in result.stderr  # the local model is free, never "unknown"
    assert "Accuracy (Wilson 95% interval)" in result.stdout
    assert {(i.approach, i.dataset) for i in items} == {
        (approach, dataset)
        for approach in ("none", "chain_of_thought")
        for dataset in ("arithmetic", "multiple_choice")
    }
    # A 135M model may fail an item (an object cut off at max_tokens); answerx itself must not.
    assert not [e for e in errors if not e.startswith(("ProviderRequestError", "Structured"))]
    assert len(errors) < len(items) / 2, errors
    for item in items:
        assert item.provider == "local" and item.input_tokens > 0
        assert item.cost_usd == 0.0 and item.correct is not None
    folder = reports / run.run_id
    for name in ("report.md", "report.json", "accuracy.png", "accuracy_vs_cost.png"):
        assert (folder / name).stat().st_size > 0
