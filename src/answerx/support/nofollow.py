"""Output folders and files created without following a symbolic link.

Someone who can write in a folder answerx writes to (a shared ``/tmp``, a team's
report folder) could plant a link where answerx is about to write, say
``reports/<run id> -> ~/.ssh``, and have answerx overwrite what the link points
to. Everything answerx writes goes through this module, which never writes
through a link:

- **a file**, whether answerx names it (``report.md``, a progress record, a
  temporary file) or the user does (``--out answers.jsonl``), is opened with
  ``O_NOFOLLOW``, relative to its folder's descriptor;
- **a folder answerx names or creates** (``<run id>`` below ``--out-dir``, a
  missing folder of a path) is opened with ``O_NOFOLLOW | O_DIRECTORY``, and what
  it holds is created relative to that descriptor (``dir_fd``), so no link swapped
  in after the check is ever crossed;
- **the folders above, as the user gave them** (``/tmp`` on macOS, a home folder
  that is a link) are resolved as the operating system does: they are the
  user's own choice, and existed before answerx started.

A file opened for writing that has more than one name (a **hard link**, which
``O_NOFOLLOW`` cannot see) is refused too, checked on the open descriptor before
anything is truncated or written: the other name would receive the output.

A link where answerx would write is refused with
:class:`~answerx.errors.SymlinkRefused` (an :class:`OSError` too, ``ELOOP``, or
``EMLINK`` for a hard link), which names the link and where it points; the command
line exits 3. Whole files
are written beside their place and renamed into it (:meth:`OutputDir.replacing`),
so a failure leaves the earlier file whole and a planted hard link is replaced,
not written through.

POSIX only (``O_NOFOLLOW`` and ``dir_fd``), as answerx is. The standard library
has ``O_NOFOLLOW`` and ``dir_fd`` but nothing that walks a path with them, which is
why this is written here.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any, Final

from answerx.errors import SymlinkRefused

__all__ = ["OutputDir", "open_output", "output_dir", "write_output"]

_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY: Final = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS: Final = os.O_RDONLY | _DIRECTORY | _CLOEXEC

#: ``open()`` modes this module opens files in, and their ``os.open`` flags.
_MODES: Final[dict[str, int]] = {
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "r+": os.O_RDWR,
    "r": os.O_RDONLY,
}


class OutputDir:
    """An output folder held open by its descriptor: files and folders are created in it
    relative to the descriptor, never through a symbolic link.

    >>> import tempfile
    >>> with output_dir(tempfile.mkdtemp()) as folder, folder.folder("run-1") as run:
    ...     run.write("report.md", "# Report\\n").name
    'report.md'
    """

    def __init__(self, fd: int, path: Path) -> None:
        self.fd = fd
        self.path = path

    def __enter__(self) -> OutputDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the folder's descriptor (what was opened in it stays open)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def folder(self, name: str, *, create: bool = True) -> OutputDir:
        """The sub-folder ``name``, created when missing (``create``); never a link."""
        _check_name(name)
        if create:
            _mkdir_at(self.fd, name)
        return OutputDir(_open_dir_at(self.fd, name, self.path / name), self.path / name)

    def open(self, name: str, mode: str = "wb", **options: Any) -> IO[Any]:
        """The file ``name`` opened as ``open(path, mode, **options)`` would, but never
        through a link: a symbolic link at ``name`` is refused, and so, for writing, is a
        file with other hard links. Modes: ``w``, ``a``, ``r+``, ``r``, each text or binary."""
        _check_name(name)
        flags = _MODES.get(mode.replace("b", "").replace("t", ""))
        if flags is None:
            raise ValueError(f"mode {mode!r}: one of {', '.join(_MODES)} (text or binary)")
        path = self.path / name
        # Truncate only once the file is known to be ours alone: O_TRUNC would empty a
        # hard-linked file elsewhere before the check could refuse it.
        truncate = flags & os.O_TRUNC
        try:
            fd = os.open(name, (flags & ~os.O_TRUNC) | _NOFOLLOW | _CLOEXEC, 0o666, dir_fd=self.fd)
        except OSError as exc:
            raise _refusal(exc, self.fd, name, path) from None
        try:
            if flags != _MODES["r"]:
                _refuse_hard_link(fd, path)
            if truncate:
                os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
        return os.fdopen(fd, mode, **options)

    @contextmanager
    def replacing(self, name: str) -> Iterator[IO[bytes]]:
        """``with folder.replacing(name) as stream``: write the file ``name`` whole.

        The bytes go to a hidden file beside it, renamed to ``name`` when the block
        ends without an error; after an error the hidden file is removed and an
        earlier ``name`` is left as it was. A link at ``name`` is refused first.
        """
        self.refuse_link(name)
        partial = f".{name}.{secrets.token_hex(4)}.partial"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        fd = os.open(partial, flags, 0o666, dir_fd=self.fd)  # O_EXCL: never a planted one
        try:
            with os.fdopen(fd, "wb") as stream:
                yield stream
            os.replace(partial, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            self.unlink(partial)
            raise

    def write(self, name: str, data: bytes | str) -> Path:
        """Write the file ``name`` whole (text as UTF-8), as :meth:`replacing` does;
        returns its path."""
        with self.replacing(name) as stream:
            stream.write(data.encode("utf-8") if isinstance(data, str) else data)
        return self.path / name

    def replace(self, source: str, target: str) -> None:
        """Rename ``source`` to ``target`` in this folder; a link at either is refused
        (a rename never follows one, but would move it or drop it silently)."""
        self.refuse_link(source)
        self.refuse_link(target)
        os.replace(source, target, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def unlink(self, name: str) -> None:
        """Remove ``name`` when it is there (a link is removed, not what it points to)."""
        _check_name(name)
        with suppress(FileNotFoundError):
            os.unlink(name, dir_fd=self.fd)

    def exists(self, name: str) -> bool:
        """Whether anything, a link included, is called ``name`` here."""
        _check_name(name)
        try:
            os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        return True

    def refuse_link(self, name: str) -> None:
        """Raise :class:`SymlinkRefused` when ``name`` here is a symbolic link."""
        _check_name(name)
        if _is_link(self.fd, name):
            raise _refused(self.fd, name, self.path / name)


def output_dir(
    path: str | os.PathLike[str], *, create: bool = True, follow: bool = False
) -> OutputDir:
    """The folder ``path``, opened (and created with its missing parents, ``create``)
    without following a link at its last component or at any folder created here.

    ``follow=True`` lets the folder itself be a link: for the folder of a file the
    user named (``--out reports/a.csv``), which is theirs as given. Links in the
    existing folders above are resolved as the operating system does.
    """
    where = Path(path)
    return OutputDir(_open_dir(where, create=create, follow=follow), where)


def open_output(path: str | os.PathLike[str], mode: str = "wb", **options: Any) -> IO[Any]:
    """``open(path, mode, **options)`` for a file answerx writes, refusing a link at
    ``path`` (its folder is resolved as given, and must exist)."""
    where = Path(path)
    with output_dir(where.parent, create=False, follow=True) as folder:
        return folder.open(where.name, mode, **options)


def write_output(path: str | os.PathLike[str], data: bytes | str) -> Path:
    """Write the file ``path`` whole (:meth:`OutputDir.write`), refusing a link at it;
    its folder is created when missing. Returns ``path``."""
    where = Path(path)
    with output_dir(where.parent, follow=True) as folder:
        folder.write(where.name, data)
    return where


# --------------------------------------------------------------------------- walking
def _open_dir(path: Path, *, create: bool, follow: bool) -> int:
    """A descriptor of the folder ``path``; a missing one is created from its nearest
    existing parent down, each created folder opened without following a link."""
    try:
        return os.open(path, _DIR_FLAGS | (0 if follow else _NOFOLLOW))
    except FileNotFoundError:
        if not create or path.parent == path:
            raise
    except OSError as exc:
        if follow or exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        if os.path.islink(path):
            raise _refused(None, str(path), path) from None
        raise
    parent = _open_dir(path.parent, create=True, follow=True)
    try:
        if path.name in ("", ".", ".."):  # nothing to create: the parent already is it
            return _open_dir_at(parent, path.name or ".", path)
        _mkdir_at(parent, path.name)
        return _open_dir_at(parent, path.name, path)
    finally:
        os.close(parent)


def _mkdir_at(parent: int, name: str) -> None:
    # One that exists (made meanwhile, or a link, dangling or not) is opened next, with
    # O_NOFOLLOW, which refuses a link.
    with suppress(FileExistsError):
        os.mkdir(name, 0o777, dir_fd=parent)


def _open_dir_at(parent: int, name: str, path: Path) -> int:
    try:
        return os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=parent)
    except OSError as exc:
        raise _refusal(exc, parent, name, path) from None


def _refusal(exc: OSError, parent: int, name: str, path: Path) -> OSError:
    """``exc`` as raised by an ``O_NOFOLLOW`` open: :class:`SymlinkRefused` when ``name``
    is a link (Linux says ``ELOOP``, or ``ENOTDIR`` with ``O_DIRECTORY``), else ``exc``
    naming ``path``."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK) and _is_link(parent, name):
        return _refused(parent, name, path)
    return type(exc)(exc.errno, exc.strerror, str(path))


def _refuse_hard_link(fd: int, path: Path) -> None:
    """Refuse to write into the open file ``fd`` when another name shares it (a hard
    link planted where answerx writes: the file elsewhere would receive the output).
    Checked on the descriptor, so no link made between a check and the open escapes it;
    a device (``/dev/null``) or a pipe is not a file anyone links to."""
    info = os.fstat(fd)
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        raise SymlinkRefused(str(path), links=info.st_nlink)


def _is_link(parent: int | None, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _refused(parent: int | None, name: str, path: Path) -> SymlinkRefused:
    try:
        target: str | None = os.readlink(name, dir_fd=parent)
    except OSError:
        target = None
    return SymlinkRefused(str(path), target=target)


def _check_name(name: str) -> None:
    # One component, relative to the folder: a slash would walk through other folders.
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"not a file name in a folder: {name!r}")
