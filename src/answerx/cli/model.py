"""``answerx model serve|status``: the bundled local model server."""

from __future__ import annotations

import importlib.util
import os
import signal
import threading
from typing import Annotated

import typer

from answerx.cli._common import command_boundary, stdout
from answerx.cli.options import deprecated_option, note_deprecated
from answerx.errors import ConfigError
from answerx.local import LocalModelServer, bundled_model_path, server_answers

__all__ = ["app"]

app = typer.Typer(help="The bundled local model (SmolLM2-135M-Instruct via llama.cpp).")


@app.command("serve")
def serve(
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: a free one).")] = 0,
    model_file: Annotated[
        str | None,
        typer.Option(
            "--model-file",
            show_default=False,
            help="A GGUF file (default: $ANSWERX_LOCAL_GGUF or the bundled model).",
        ),
    ] = None,
    old_model: Annotated[str | None, deprecated_option("--model", "--model-file")] = None,
    n_ctx: Annotated[int, typer.Option(help="Context length in tokens.")] = 4096,
) -> None:
    """Serve the local model in the foreground until Ctrl-C."""
    # --model is a model's name in every other command; here it named a file.
    if old_model is not None:
        note_deprecated("--model", "--model-file")
    model = model_file or old_model
    with command_boundary():
        server = LocalModelServer(model, port=port or None, n_ctx=n_ctx)
        out = stdout()
        out.print(f"starting {server.model_path.name} …")
        with server:
            out.print(f"serving at [bold]{server.base_url}[/]  (Ctrl-C to stop)")
            out.print(f"use it with: ANSWERX_LOCAL_URL={server.base_url}")
            stop = threading.Event()
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
            try:
                while server.running and not stop.wait(0.5):
                    pass
            except KeyboardInterrupt:
                pass
        out.print("stopped")


@app.command("status")
def status() -> None:
    """Where the local provider's model comes from, and whether a server answers."""
    from answerx.structured import get_provider  # Instructor and the SDKs: only when asked

    with command_boundary():
        spec = get_provider("local")
        out = stdout()
        installed = importlib.util.find_spec("llama_cpp") is not None
        hint = "yes" if installed else "no (pip install 'answerx[local]')"
        out.print(f"llama-cpp-python installed: {hint}", markup=False)
        try:
            out.print(f"model file: {bundled_model_path()}", markup=False)
        except ConfigError as exc:  # a missing extra is a status here, not a failure
            out.print(f"model file: not available ({exc})", markup=False)
        url = os.environ.get(spec.base_url_env or "")
        if url:
            state = "answers" if server_answers(url) else "does NOT answer"
            out.print(f"configured server: {url} ({state})")
        else:
            out.print("configured server: none; answerx starts the model on a free port when used")
        out.print(f"default model name: {spec.default_model}; modes: {', '.join(spec.modes)}")
