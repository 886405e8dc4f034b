"""Where a store lives: a SQLite file's path, or a PostgreSQL server's URL.

``--db``, ``ANSWERX_DB`` and ``db:`` in an experiment config take either. A URL's
credentials come from the URL itself or from PostgreSQL's own ``PG*`` environment
variables (``PGPASSWORD``, ``PGPASSFILE``, ``PGUSER`` ...), which the driver reads;
a message names the server by :func:`display_url`, never with its password.
"""

from __future__ import annotations

from os import PathLike
from urllib.parse import urlsplit, urlunsplit

__all__ = ["URL_SCHEMES", "display_url", "is_store_url", "url_password"]

#: The URL schemes of a PostgreSQL store (libpq's two spellings).
URL_SCHEMES = ("postgresql://", "postgres://")


def is_store_url(value: str | PathLike[str] | None) -> bool:
    """Whether ``value`` names a PostgreSQL server (else it is a SQLite file's path).

    >>> is_store_url("postgresql://team@db.lab:5432/answerx"), is_store_url("runs/answerx.db")
    (True, False)
    """
    return isinstance(value, str) and value.lower().startswith(URL_SCHEMES)


def url_password(url: str) -> str | None:
    """The password written in ``url``, if any."""
    return urlsplit(url).password


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
