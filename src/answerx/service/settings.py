"""The service's settings: a frozen pydantic model, read from ``ANSWERX_*`` variables.

``answerx serve``'s options go over them (:meth:`ServiceSettings.updated`) and the
result is handed to ``create_app(settings)``: nothing is written into the environment.

=========================  ===========================================  =========
variable                   meaning                                      default
=========================  ===========================================  =========
``ANSWERX_API_TOKEN``      bearer token every request must carry        none
                           (``/healthz``, ``/readyz`` and the docs
                           excepted); unset: no authentication
``ANSWERX_MAX_BODY_BYTES`` largest request body, in bytes               1048576
``ANSWERX_MAX_BATCH``      most items in one ``/v1/extract/batch``      1000
``ANSWERX_LLM_TIMEOUT_S``  seconds an LLM endpoint waits for its        60
                           provider calls, retries included
``ANSWERX_LLM_CONCURRENCY`` LLM requests served at once per worker;     16
                           beyond it: 429 with ``Retry-After``
``ANSWERX_RETRY_AFTER_S``  the ``Retry-After`` sent with such a 429     1
``ANSWERX_EXTRACT_WORKERS`` processes extracting large inputs and       the cores
                           batches off the event loop, per server
                           worker; 0: all extraction on the loop
``ANSWERX_HEADER_TIMEOUT_S`` seconds a connection may take to send a    10
                           request's line and headers; then closed
``ANSWERX_MAX_HEADER_BYTES`` largest request line and headers,     65536
                           in bytes; beyond: 431, and the
                           connection closed
``ANSWERX_MAX_HEADERS``    most header fields in one request;         100
                           beyond: 431, and the connection closed
``ANSWERX_KEEP_ALIVE_S``   seconds an idle keep-alive connection is     20
                           kept open between requests (longer than
                           clients keep idle connections: httpx 5,
                           aiohttp 15; see below)
``ANSWERX_ALLOWED_HOSTS``  host names (comma-separated; ``*.example``   none
                           and ``*`` allowed) accepted in the
                           ``Host`` header besides the loopback
                           names; see below
``ANSWERX_MAX_CONNECTIONS`` connections open at once per server         1000
                           worker; beyond: the one waiting longest
                           for a request is closed to make room
                           (never one with a request in progress;
                           none: the new one is closed)
``ANSWERX_RUNS_DB``        a results store whose runs the service       none
                           shows, read-only, under ``/runs/`` (the
                           pages of ``answerx runs view``)
``ANSWERX_JUDGE``          ``PROVIDER/MODEL`` of the LLM judge          none
                           ``/v1/verify`` asks about the items the
                           rules cannot decide; unset: no judge
``ANSWERX_JUDGE_MAX_CALLS`` the judge's questions per server worker,    none
                           at most; then it stops asking
``ANSWERX_JUDGE_MAX_COST`` the judge's cost cap in USD per server       none
                           worker (priced from the price table)
``ANSWERX_JUDGE_CONCURRENCY`` judge calls in flight at once per         4
                           server worker
``ANSWERX_JUDGE_CACHE``    the judge's response cache (SQLite file);    $ANSWERX_HOME/
                           ``off``: none                                cache.db
``ANSWERX_JUDGE_MIN_CONFIDENCE`` a ruling below this leaves the rules'  0.5
                           verdict
=========================  ===========================================  =========

The judge is the server's, never a request's: a client can neither name a provider
or model for it nor raise its budget (an unauthenticated client could otherwise spend
the server's credits on any model); it can only ask for no judging (``"judge":
false``). Only items the rules could not decide reach it, its budget and cost cap bound
what it spends per worker process, and its concurrency bounds the calls in flight.

Why 20 s of keep-alive, not uvicorn's 5: a client reuses an idle connection until
its own expiry (httpx: 5 s). With the server's timeout equal to it, the server
closes the connection just as the client sends its next request on it, which
the client sees as a request closed without a reply (``ReadError``); uvloop, which
runs due timers before reading the sockets, made this likely whenever the event
loop had been busy (extraction on the loop). The server's timeout must be the
longer one; idle connections count against ``ANSWERX_MAX_CONNECTIONS``.

Which ``Host`` headers are answered (against DNS rebinding: a web page whose name
is made to resolve to 127.0.0.1 sends its own name as ``Host``, and without a token
would drive the server, spending its provider credits): without a token, only
:data:`LOOPBACK_HOSTS` (``localhost``, ``127.0.0.1``, ``[::1]``, any port); with a
token, any (a page cannot know the token); with ``ANSWERX_ALLOWED_HOSTS``
(``answerx serve --allowed-host``), the loopback names and those, token or not.
Others get a 400 ``invalid_host``.

Provider credentials are never settings of the service: each provider reads its
key from its own environment variable (``config/providers.yaml``), on the server.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from answerx.errors import ConfigError
from answerx.grading.judgement import DEFAULT_JUDGE_MIN_CONFIDENCE
from answerx.service.verify_schemas import RewardSettings

__all__ = ["ENV_VARS", "LOOPBACK_HOSTS", "ServiceSettings"]

#: The ``Host`` names of this machine's own loopback (brackets for IPv6, as in a URL).
LOOPBACK_HOSTS: Final = ("localhost", "127.0.0.1", "[::1]")

#: Field name -> the environment variable that sets it.
ENV_VARS: Final[Mapping[str, str]] = {
    "api_token": "ANSWERX_API_TOKEN",
    "max_body_bytes": "ANSWERX_MAX_BODY_BYTES",
    "max_batch": "ANSWERX_MAX_BATCH",
    "llm_timeout_s": "ANSWERX_LLM_TIMEOUT_S",
    "llm_concurrency": "ANSWERX_LLM_CONCURRENCY",
    "retry_after_s": "ANSWERX_RETRY_AFTER_S",
    "extract_workers": "ANSWERX_EXTRACT_WORKERS",
    "header_timeout_s": "ANSWERX_HEADER_TIMEOUT_S",
    "max_header_bytes": "ANSWERX_MAX_HEADER_BYTES",
    "max_headers": "ANSWERX_MAX_HEADERS",
    "keep_alive_s": "ANSWERX_KEEP_ALIVE_S",
    "max_connections": "ANSWERX_MAX_CONNECTIONS",
    "allowed_hosts": "ANSWERX_ALLOWED_HOSTS",
    "runs_db": "ANSWERX_RUNS_DB",
    "judge": "ANSWERX_JUDGE",
    "judge_max_calls": "ANSWERX_JUDGE_MAX_CALLS",
    "judge_max_cost_usd": "ANSWERX_JUDGE_MAX_COST",
    "judge_concurrency": "ANSWERX_JUDGE_CONCURRENCY",
    "judge_cache": "ANSWERX_JUDGE_CACHE",
    "judge_min_confidence": "ANSWERX_JUDGE_MIN_CONFIDENCE",
}


class ServiceSettings(BaseModel):
    """Limits and authentication of one service instance (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    api_token: SecretStr | None = Field(
        default=None, description="Bearer token required on every API request; None: open."
    )
    max_body_bytes: int = Field(default=1_048_576, ge=1, description="Largest request body.")
    max_batch: int = Field(default=1000, ge=1, description="Most items in one batch request.")
    llm_timeout_s: float = Field(
        default=60.0, gt=0, description="Deadline of one LLM endpoint request, retries included."
    )
    llm_concurrency: int = Field(
        default=16, ge=1, description="LLM requests in flight at once (per worker process)."
    )
    retry_after_s: int = Field(
        default=1, ge=0, description="Retry-After (seconds) of a 429 for a full LLM queue."
    )
    extract_workers: int | None = Field(
        default=None,
        ge=0,
        description="Processes extracting large inputs off the event loop (None: one per "
        "core; 0: none, everything on the loop).",
    )
    header_timeout_s: float = Field(
        default=10.0, gt=0, description="Deadline for a request's line and headers."
    )
    max_header_bytes: int = Field(
        default=65_536,
        ge=1024,
        description="Largest request line and headers (bytes); beyond: 431, connection closed.",
    )
    max_headers: int = Field(
        default=100,
        ge=1,
        description="Most header fields in one request; beyond: 431, connection closed.",
    )
    keep_alive_s: int = Field(
        default=20, ge=1, description="Idle seconds before a keep-alive connection is closed."
    )
    max_connections: int = Field(
        default=1000,
        ge=1,
        description="Connections open at once (per worker process); beyond, the one "
        "waiting longest for a request is closed to make room.",
    )

    allowed_hosts: tuple[str, ...] = Field(
        default=(),
        description="Host names accepted besides the loopback ones ('*.example.com', '*').",
    )

    judge: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9_.-]+(/\S+)?$",
        description="PROVIDER/MODEL of the judge asked about the residue (None: no judge).",
    )
    judge_max_calls: int | None = Field(
        default=None, ge=0, description="The judge's questions per worker process, at most."
    )
    judge_max_cost_usd: float | None = Field(
        default=None, ge=0, description="The judge's cost cap (USD) per worker process."
    )
    judge_concurrency: int = Field(
        default=4, ge=1, description="Judge calls in flight at once (per worker process)."
    )
    judge_cache: str | None = Field(
        default=None,
        description="The judge's response cache file (None: $ANSWERX_HOME/cache.db; 'off': none).",
    )
    judge_min_confidence: float = Field(
        default=DEFAULT_JUDGE_MIN_CONFIDENCE,
        ge=0.0,
        le=1.0,
        description="A judge's ruling below this confidence leaves the rules' verdict.",
    )

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _host_list(cls, value: object) -> object:
        if isinstance(value, str):  # from the environment: comma-separated
            value = value.split(",")
        if isinstance(value, list | tuple):
            hosts = tuple(str(host).strip().lower() for host in value if str(host).strip())
            for host in hosts:
                # Starlette's rule for its patterns: "*" alone, or "*." before a domain.
                if "*" in host[1:] or (
                    host.startswith("*") and host != "*" and not host.startswith("*.")
                ):
                    raise ValueError(
                        f"{host!r} is not a host name or a pattern like '*.example.com'"
                    )
            return hosts
        return value

    @property
    def accepted_hosts(self) -> tuple[str, ...] | None:
        """The ``Host`` names answered (ports aside), or None for any (see above)."""
        if "*" in self.allowed_hosts:
            return None
        if self.allowed_hosts:
            return (*LOOPBACK_HOSTS, *self.allowed_hosts)
        return None if self.api_token is not None else LOOPBACK_HOSTS

    runs_db: Path | str | None = Field(
        default=None,
        description="A results store shown read-only under /runs/ (a SQLite file, or a "
        "postgresql:// URL); None: none.",
    )
    reward: RewardSettings = Field(
        default_factory=RewardSettings,
        description="How /v1/reward reads rollouts a request does not describe.",
    )

    @field_validator("runs_db", mode="before")
    @classmethod
    def _store_location(cls, value: object) -> object:
        # A URL stays text (a Path would fold its //); the store decides what it names.
        if isinstance(value, str | os.PathLike) and "://" not in os.fspath(value):
            return Path(value)
        return value

    @property
    def auth_required(self) -> bool:
        """Whether requests must carry the bearer token."""
        return self.api_token is not None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ServiceSettings:
        """Settings from ``ANSWERX_*`` variables (``os.environ`` by default).

        An empty ``ANSWERX_API_TOKEN`` counts as unset. A malformed value raises
        :class:`~answerx.errors.ConfigError` naming the variable (never its value,
        which may be the token).
        """
        env = os.environ if environ is None else environ
        values = {field: env[var] for field, var in ENV_VARS.items() if env.get(var, "").strip()}
        return cls._checked({**values, "reward": RewardSettings.from_env(env)})

    def updated(self, **fields: object) -> ServiceSettings:
        """These settings with ``fields`` over them (None leaves a field as it is),
        validated: what ``answerx serve``'s options do, without touching the environment."""
        given = {name: value for name, value in fields.items() if value is not None}
        return self._checked({**dict(self), **given}) if given else self

    @classmethod
    def _checked(cls, values: Mapping[str, object]) -> ServiceSettings:
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = "; ".join(
                f"{ENV_VARS.get(str(err['loc'][0]), err['loc'][0])}: {err['msg']}"
                for err in exc.errors(include_input=False, include_url=False)
            )
            raise ConfigError(f"invalid service settings: {problems}") from None
