"""Writing the browser test's screenshots without following a link planted in their folder.

The folder is opened with ``O_NOFOLLOW | O_DIRECTORY`` and each file created inside it,
relative to that descriptor, with ``O_NOFOLLOW``: a symbolic link in place of the folder or
of a file is refused (``OSError``), never written through. Playwright's own
``screenshot(path=...)`` would follow one, so it hands over the bytes instead.
"""

from __future__ import annotations

import os
from pathlib import Path

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def save(folder: Path, name: str, data: bytes) -> Path:
    """Write ``data`` to ``folder/name`` (the folder made if missing); refuse links."""
    if "/" in name or name in ("", ".", ".."):
        raise ValueError(f"a file name, not a path: {name!r}")
    folder.mkdir(parents=True, exist_ok=True)
    where = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        fd = os.open(name, _FLAGS, 0o644, dir_fd=where)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
    finally:
        os.close(where)
    return folder / name
