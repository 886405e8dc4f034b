"""The answerx exception tree.

Every error answerx raises on purpose descends from :class:`AnswerxError`, so
``except AnswerxError`` catches answerx's failures without hiding bugs::

    AnswerxError
    ├── ConfigError               bad configuration or setting (also a ValueError)
    │   ├── UnknownName               an unknown task/approach/provider/sample name, with
    │   │   │                         the closest valid one (did you mean …?) and the list
    │   │   └── UnsupportedProvider   an unknown provider given to the client manager; its
    │   │                             message opens as ml-agents' ValueError does
    │   ├── CredentialsMissing        a provider's API-key environment variable is unset
    │   │                             (carries provider and variable, never a key)
    │   ├── RunNotFound               no run with that id (or id prefix) in the store
    │   ├── DuplicateRun              a run with that id already exists in the store
    │   └── PluginError               an installed plug-in (an entry point) cannot be used:
    │                                 it does not load, is not what its group takes, or
    │                                 clashes with another (names the package)
    ├── InputError                a malformed input record or file (carries line number)
    │   └── UnreadableFile            an input file that cannot be read at all: not
    │                                 Parquet, truncated, a header that is not text (path)
    ├── SymlinkRefused            answerx would write through a symbolic or hard link planted
    │                             in an output folder (also an OSError, ELOOP or EMLINK;
    │                             carries path, target, links)
    ├── StoreError                a results store or response cache that cannot be used:
    │                             damaged, truncated, not a database, locked, disk full
    │                             (carries path; the message says how to recover)
    ├── ProviderError             a provider call failed (carries provider and model)
    │   ├── ProviderAuthError         401/403: names the key's environment variable
    │   ├── ProviderRateLimited       429 after every retry (carries retry_after)
    │   ├── ProviderTimeout           no answer within the timeout, after every retry
    │   ├── ProviderUnavailable       5xx or connection failure, after every retry
    │   ├── ProviderRequestError      another 4xx the provider refused (not a mode problem)
    │   └── StructuredOutputError     every mode of the chain failed to give a valid object
    ├── StepLimitReached          a call, step or time budget ran out and the final attempt
    │                             found no answer (carries termination; raised by answerx.agent)
    └── ServiceError              the answerx service answered with an error or could not be
                                  reached (carries status_code, error_type; raised by
                                  answerx.client)

Finding no answer is not an error: that is ``Extraction(method="none")``.
A subclass of :class:`ConfigError` is still a ConfigError (and a ValueError), so code
that catches the general class keeps working; catch the precise one to act on it.

Errors never carry API keys, headers or other secrets: messages from providers
pass through :func:`redact` before they reach an exception.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from answerx.didyoumean import suggest
from answerx.redactor import redact_keys

if TYPE_CHECKING:  # pydantic is not loaded just to raise an error
    from answerx.callinfo import CallInfo

__all__ = [
    "AnswerxError",
    "ConfigError",
    "CredentialsMissing",
    "DuplicateRun",
    "InputError",
    "PluginError",
    "ProviderAuthError",
    "ProviderError",
    "ProviderRateLimited",
    "ProviderRequestError",
    "ProviderTimeout",
    "ProviderUnavailable",
    "RunNotFound",
    "ServiceError",
    "StepLimitReached",
    "StoreError",
    "StructuredOutputError",
    "SymlinkRefused",
    "UnknownName",
    "UnreadableFile",
    "UnsupportedProvider",
    "redact",
]


class AnswerxError(Exception):
    """Root of every error answerx raises on purpose."""


class ConfigError(AnswerxError, ValueError):
    """A configuration value or name is not valid; the message lists the valid ones."""


class UnknownName(ConfigError):
    """``name`` is not one of the valid names of its ``kind`` (task, approach, provider,
    sample ...). The message says which valid name was likely meant, and lists them all
    (under ``listed``, default "valid KINDs").

    >>> str(UnknownName("task", "numerc", ["math", "numeric", "text"]))
    "unknown task 'numerc' (did you mean 'numeric'?); valid tasks: math, numeric, text"
    """

    def __init__(self, kind: str, name: str, valid: Iterable[str], *, listed: str = "") -> None:
        self.kind = kind
        self.name = name
        self.valid = list(valid)
        self.suggestion = suggest(name, self.valid)
        hint = f" (did you mean {self.suggestion!r}?)" if self.suggestion else ""
        super().__init__(
            f"unknown {kind} {name!r}{hint}; {listed or f'valid {kind}s'}: {', '.join(self.valid)}"
        )


class UnsupportedProvider(UnknownName):
    """An unknown provider name given to :class:`~answerx.structured.InstructorClientManager`:
    an :class:`UnknownName` (so a ConfigError and a ValueError) whose message opens as the
    ml-agents manager's ``ValueError`` does, ``Unsupported provider: NAME``, followed by
    the closest valid name and the list."""

    def __init__(self, name: str, valid: Iterable[str]) -> None:
        super().__init__("provider", name, valid)
        self.args = (f"Unsupported provider: {name}: {self.args[0]}",)


class CredentialsMissing(ConfigError):
    """A provider needs an API key and its environment variable ``variable`` is not set.

    Not a provider failure (nothing was sent): the caller's environment is at fault.
    """

    def __init__(
        self, message: str, *, provider: str | None = None, variable: str | None = None
    ) -> None:
        self.provider = provider
        self.variable = variable
        super().__init__(message)


class RunNotFound(ConfigError):
    """No run with this id (or id prefix) is in the results store; ``run_id`` is the id asked."""

    def __init__(self, message: str, *, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(message)


class DuplicateRun(ConfigError):
    """A run with this ``run_id`` already exists in the results store."""

    def __init__(self, message: str, *, run_id: str) -> None:
        self.run_id = run_id
        super().__init__(message)


class PluginError(ConfigError):
    """An installed package's plug-in cannot be used: its entry point does not load,
    gives something its group does not take, or shares its name with another's.
    ``entry_point`` is the entry point's name; the message names the package."""

    def __init__(self, message: str, *, entry_point: str) -> None:
        self.entry_point = entry_point
        super().__init__(message)


class InputError(AnswerxError, ValueError):
    """A malformed input record; ``line`` is its 1-based line number when known."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


class UnreadableFile(InputError):
    """An input file that cannot be read at all (not Parquet, cut short, a CSV header that
    is not text), as opposed to one malformed record in it; ``path`` is the file."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(message)


class SymlinkRefused(AnswerxError, OSError):
    """A symbolic link stands where answerx was to write a file or a folder it names
    (``--out FILE``, ``OUT_DIR/<run id>``, ``report.md``, a progress record): answerx
    never writes through one, since a link planted in a shared folder would make it
    overwrite what the link points to. ``path`` is the link, ``target`` where it
    points (None when unreadable). Also an :class:`OSError` (``ELOOP``), so code that
    handles I/O errors handles it; the command line exits 3.
    """

    def __init__(self, path: str, *, target: str | None = None, links: int = 1) -> None:
        self.path = path
        self.target = target
        #: Names the file has (``st_nlink``): more than one is a hard link, refused too.
        self.links = links
        if links > 1:
            kind = f"a file with {links} hard links (another name shares its contents)"
        else:
            kind = "a symbolic link" + (f" (to {target})" if target is not None else "")
        message = (
            f"{path} is {kind}: answerx does not write through links in "
            "output paths; remove the link, or name the real file or folder"
        )
        OSError.__init__(self, errno.EMLINK if links > 1 else errno.ELOOP, message, path)

    def __str__(self) -> str:
        return str(self.strerror)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled across processes as it was made
        return (_symlink_refused, (self.path, self.target, self.links))


def _symlink_refused(path: str, target: str | None, links: int = 1) -> SymlinkRefused:
    return SymlinkRefused(path, target=target, links=links)


class StoreError(AnswerxError):
    """A SQLite file answerx keeps results or cached responses in cannot be opened, read
    or written; ``path`` is the file. Never a usage error: the file, not the command, is
    at fault, and the message says what to do (``sqlite3 PATH .recover``, another ``--db``)."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(message)


class ProviderError(AnswerxError):
    """A call to an LLM provider failed. ``provider``/``model`` say which one."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        model: str | None = None,
        status_code: int | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.status_code = status_code
        # The failed call's CallInfo when a manager raised it: the attempts and tokens
        # spent before the failure (None from a caller that made no call, or a test double).
        self.call_info: CallInfo | None = None
        where = f"{provider}/{model}" if model else provider
        super().__init__(f"{where}: {redact(message)}")


class ProviderAuthError(ProviderError):
    """The provider refused the credentials (401/403). Never retried, never a fallback."""


class ProviderRateLimited(ProviderError):
    """429 Too Many Requests, still after every retry."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: object) -> None:
        self.retry_after = retry_after
        super().__init__(message, **kw)  # type: ignore[arg-type]


class ProviderTimeout(ProviderError):
    """The provider did not answer within the timeout, still after every retry."""


class ProviderUnavailable(ProviderError):
    """A 5xx answer or a connection failure, still after every retry."""


class ProviderRequestError(ProviderError):
    """The provider refused the request (4xx) for a reason no mode change can fix."""


class StructuredOutputError(ProviderError):
    """No mode of the provider's chain produced a valid object; ``failures`` says why."""

    def __init__(self, message: str, *, failures: list[tuple[str, str]], **kw: object) -> None:
        self.failures = failures
        detail = "; ".join(f"{mode}: {reason}" for mode, reason in failures)
        super().__init__(f"{message} ({detail})" if detail else message, **kw)  # type: ignore[arg-type]


class StepLimitReached(AnswerxError):
    """A call, step or time budget ran out and the final attempt found no answer either.

    ``termination`` says which limit (an :class:`answerx.agent.Termination`, a ``str``
    enum: this bottom module cannot import the agent's type).
    """

    def __init__(self, message: str, *, termination: str) -> None:
        super().__init__(message)
        self.termination = termination


class ServiceError(AnswerxError):
    """The answerx service answered with an error, or could not be reached.

    ``status_code`` is the HTTP status (None when no answer came), ``error_type``
    the service's stable error name (``validation_error``, ``unauthorized``, ...),
    ``message`` its explanation and ``retry_after`` its ``Retry-After`` in seconds.
    ``detail`` is the whole error object; after a failed provider call it also
    holds ``attempts`` and ``usage`` (the tokens that call used, billed all the same).
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None,
        error_type: str,
        retry_after: float | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> None:
        self.status_code = status_code
        self.error_type = error_type
        self.message = message
        self.retry_after = retry_after
        self.detail: Mapping[str, Any] = detail if detail is not None else {}
        prefix = f"{status_code} {error_type}" if status_code is not None else error_type
        super().__init__(f"{prefix}: {message}")


# Anything that looks like a credential: provider key formats and bearer tokens.
_SECRET = re.compile(
    r"(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}|sk-ant-[A-Za-z0-9_\-]{8,}|(?i:bearer)\s+[A-Za-z0-9._\-]{8,}"
    r"|(?i:(?:api[_-]?key|x-api-key|authorization)[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9._\-]{8,}"
)


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with the given secrets, any run of 8+ characters of them or of a
    configured key (:mod:`answerx.redactor`), and anything shaped like a key,
    replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return _SECRET.sub("***", redact_keys(text, *secrets))
