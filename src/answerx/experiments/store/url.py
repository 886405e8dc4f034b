"""Where a store lives: a SQLite file's path, or a PostgreSQL server's URL.

``--db``, ``ANSWERX_DB`` and ``db:`` in an experiment config take either. A URL's
credentials come from the URL itself or from PostgreSQL's own ``PG*`` environment
variables (``PGPASSWORD``, ``PGPASSFILE``, ``PGUSER`` ...), which the driver reads;
a message names the server by :func:`display_url`, never with its password.
"""

from __future__ import annotations

import os
from os import PathLike
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from answerx.support.home import default_db

__all__ = [
    "DB_ENV",
    "URL_SCHEMES",
    "default_store",
    "display_store",
    "display_url",
    "is_store_url",
    "store_location",
    "url_password",
]

#: The environment variable naming the store when ``--db`` and ``output.db`` do not.
DB_ENV = "ANSWERX_DB"

#: The URL schemes of a PostgreSQL store (libpq's two spellings).
URL_SCHEMES = ("postgresql://", "postgres://")


def is_store_url(value: str | PathLike[str] | None) -> bool:
    """Whether ``value`` names a PostgreSQL server (else it is a SQLite file's path).

    >>> is_store_url("postgresql://team@db.lab:5432/answerx"), is_store_url("runs/answerx.db")
    (True, False)
    """
    return isinstance(value, str) and value.lower().startswith(URL_SCHEMES)


def store_location(value: str | PathLike[str]) -> Path | str:
    """A store as given: a URL kept as its text (a :class:`~pathlib.Path` would fold its
    ``//``), anything else a path."""
    text = os.fspath(value)
    return text if is_store_url(text) else Path(text)


def default_store() -> Path | str:
    """The store when none is named: ``$ANSWERX_DB`` (a path or a URL), else
    ``answerx.db`` in ``$ANSWERX_HOME`` (:func:`answerx.support.home.default_db`)."""
    named = os.environ.get(DB_ENV, "").strip()
    return store_location(named) if named else default_db()


def url_password(url: str) -> str | None:
    """The password written in ``url``, if any."""
    return urlsplit(url).password


def display_store(location: str | PathLike[str]) -> str:
    """A store as messages name it: a file's path, a URL without its password."""
    text = os.fspath(location)
    return display_url(text) if is_store_url(text) else text


def display_url(url: str) -> str:
    """``url`` without its password, as messages and progress lines show it.

    >>> display_url("postgresql://team:s3cret-pass@db.lab:5432/answerx")
    'postgresql://team@db.lab:5432/answerx'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit(parts._replace(netloc=f"{user}{host}"))
