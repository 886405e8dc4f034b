"""Where records come from and go to: a path, opened once, or an open binary stream.

A path is opened exactly once, by whoever reads it: a named pipe (FIFO) or a
shell's process substitution (``<(zcat in.jsonl.gz)``, a ``/dev/fd/N`` path) can
be opened only once without losing data or waiting forever for a writer, and is
then read as the stream it is. Sizes and positions are known only for regular
files; for a pipe they are None and 0.
"""

from __future__ import annotations

import io
import os
from typing import IO, Any

__all__ = ["Source", "name_of", "size_of", "tell"]

Source = str | os.PathLike[str] | IO[bytes]
"""A path, or an open binary stream (``-`` as a path is no file: the caller's stream)."""


def name_of(source: object) -> str | None:
    """The file name of a path or of a stream opened from one; None for stdin, a pipe
    without a name, or an in-memory stream."""
    if isinstance(source, str | os.PathLike):
        return None if str(source) == "-" else str(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) and not name.startswith("<") else None


def size_of(stream: IO[bytes]) -> int | None:
    """The size of the file under ``stream``; None for a pipe, a FIFO or a test stream."""
    try:
        size = os.fstat(stream.fileno()).st_size
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None  # not a real file
    return size or None


def tell(stream: Any) -> int:
    """``stream``'s position; 0 where it has none (a pipe)."""
    try:
        return int(stream.tell())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return 0
