"""A real PostgreSQL server for the store's tests, started in a temporary folder.

``initdb`` and ``pg_ctl`` from the OS packages (Debian's ``postgresql``, which ``make
test`` installs when it is missing and it can), on 127.0.0.1 at a free port, with a
password (scram-sha-256) so the tests use credentials as a team's server would. initdb
refuses to run as root: as root the server runs as the ``postgres`` user the Debian
package creates. :func:`unavailable` says why no server can be had, for the skip.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PostgresServer", "find_bin", "start_server", "unavailable"]

_VERSIONS = ("17", "16", "15", "14", "13")


def find_bin() -> Path | None:
    """The folder of PostgreSQL's server programs (initdb, pg_ctl), if installed."""
    for version in _VERSIONS:
        folder = Path(f"/usr/lib/postgresql/{version}/bin")
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_ctl") else None


def _as_user() -> list[str]:
    """The command prefix that runs the server as a user initdb accepts."""
    if os.geteuid() != 0:
        return []
    return ["runuser", "-u", "postgres", "--"]


def unavailable() -> str | None:
    """Why no PostgreSQL server can be started here (None: one can)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'answerx[postgres]')"
    if find_bin() is None:
        return "PostgreSQL's server is not installed (apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run the server as"
        if shutil.which("runuser") is None:
            return "running as root without runuser to start the server as 'postgres'"
    return None


@dataclass
class PostgresServer:
    """A running server: its folder, port, superuser and password."""

    folder: Path
    port: int
    user: str
    password: str

    def url(self, database: str = "postgres") -> str:
        """The server's URL for ``database``, with the credentials in it."""
        return f"postgresql://{self.user}:{self.password}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        bin_dir = find_bin()
        assert bin_dir is not None
        subprocess.run(
            [*_as_user(), str(bin_dir / "pg_ctl"), "-D", str(self.folder / "data"), "-m",
             "immediate", "stop"],
            capture_output=True, check=False, timeout=60,
        )  # fmt: skip
        shutil.rmtree(self.folder, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server() -> PostgresServer:
    """Start a fresh server (``initdb`` + ``pg_ctl start``) and wait until it answers."""
    bin_dir = find_bin()
    assert bin_dir is not None, unavailable()
    folder = Path(tempfile.mkdtemp(prefix="answerx-pg-"))
    password = secrets.token_hex(12)
    (folder / "pw").write_text(password)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        shutil.chown(folder / "pw", "postgres")
    user = "answerx"
    prefix = _as_user()
    subprocess.run(
        [*prefix, str(bin_dir / "initdb"), "-D", str(folder / "data"), "-U", user,
         "--auth=scram-sha-256", f"--pwfile={folder / 'pw'}", "-E", "UTF8", "--no-sync"],
        capture_output=True, check=True, timeout=120,
    )  # fmt: skip
    (folder / "pw").unlink()
    port = _free_port()
    options = (
        f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories='' "
        "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 "
        # No background ANALYZE writing at random moments: a test that checks what a
        # write changes must see only its own.
        "-c autovacuum=off"
    )
    subprocess.run(
        [*prefix, str(bin_dir / "pg_ctl"), "-D", str(folder / "data"), "-o", options, "-w",
         "-t", "60", "-l", str(folder / "data" / "server.log"), "start"],
        capture_output=True, check=True, timeout=90,
    )  # fmt: skip
    return PostgresServer(folder=folder, port=port, user=user, password=password)
