"""The progress record of a file run (``OUT.answerx-progress``): enough to check that a
run asked to continue is the same run, and to continue it where it stopped.

It is saved after every batch written (atomically: a kill leaves the old record
or the new one), never through a symbolic link, and deleted when the run finishes.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

from answerx.batch._jobs import Settings
from answerx.batch.summary import BatchSummary
from answerx.errors import ConfigError
from answerx.recordfiles.streams import Source, name_of
from answerx.support.nofollow import write_output

__all__ = ["ProgressRecord", "progress_path"]

_PROGRESS_SUFFIX = ".answerx-progress"
_PROGRESS_VERSION = 1


def progress_path(out: str | os.PathLike[str]) -> Path:
    """Where the progress record of a run writing ``out`` is kept."""
    return Path(str(out) + _PROGRESS_SUFFIX)


@dataclass(slots=True)
class ProgressRecord:
    """What ``OUT.answerx-progress`` holds: the run (input, formats, settings), its
    summary so far, and where its output stands."""

    run: dict[str, Any]
    summary: dict[str, Any]
    state: dict[str, Any]

    @classmethod
    def for_run(cls, src: Source, fin: str, fout: str, settings: Settings) -> ProgressRecord:
        """The record of a run reading ``src`` as ``fin`` and writing ``fout``."""
        name = name_of(src)
        run = {
            "version": _PROGRESS_VERSION,
            "input": os.path.abspath(name) if name else None,
            "in_format": fin,
            "out_format": fout,
            "settings": asdict(settings),
        }
        return cls(run, {}, {})

    def save(self, path: Path, summary: BatchSummary, state: dict[str, Any]) -> None:
        """Record ``summary`` and the output's ``state`` beside ``path``."""
        data = {
            "run": self.run,
            "summary": summary.model_dump(mode="json"),
            "state": state,
        }
        # Atomic, and never through a link: a kill leaves the old record or the new one.
        write_output(progress_path(path), json.dumps(data))

    def clear(self, dst: object) -> None:
        """Delete the record of a finished run writing ``dst`` (a path; streams have none)."""
        if isinstance(dst, str | os.PathLike):
            progress_path(dst).unlink(missing_ok=True)

    def resume_from(
        self, dst: str | os.PathLike[str] | IO[bytes] | object, fresh: BatchSummary
    ) -> tuple[BatchSummary, bool]:
        """The summary of the run to continue (after checking it is this run), and
        whether there is one (no output yet: a resume is a first run)."""
        if not isinstance(dst, str | os.PathLike):
            raise ConfigError("--continue needs --out FILE: a stream cannot be continued")
        target = progress_path(dst)
        if not Path(dst).exists():
            return fresh, False
        try:
            saved = json.loads(target.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(
                f"nothing to continue: {dst} has no progress record ({target.name}); "
                "it finished, or was not written by answerx; run again without --continue"
            ) from None
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot continue: {target} is unreadable ({exc})") from None
        if saved.get("run") != self.run:
            raise ConfigError(
                f"cannot continue: {dst} was written by a different run "
                f"(recorded: {json.dumps(saved.get('run'))}); give the same input and options"
            )
        self.summary, self.state = saved["summary"], saved["state"]
        summary = BatchSummary.model_validate(saved["summary"])
        summary.interrupted = False
        summary.resumed_from = summary.consumed
        summary.workers = fresh.workers
        return summary, True
