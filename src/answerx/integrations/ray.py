"""Ray Data: extraction and verification beyond one machine.

:class:`Extractor` and :class:`Verifier` are callable classes for
``ray.data.Dataset.map_batches``: Ray builds one per actor (the rule tables
compile once), then hands it Arrow batches::

    ds = ray.data.read_parquet("s3://bucket/rollouts/")
    ds = ds.map_batches(
        Extractor, batch_format="pyarrow", concurrency=64,
        fn_constructor_kwargs={"column": "completion"},
    )
    ds.write_parquet("s3://bucket/extracted/")

Each batch goes through :func:`answerx.batch.extract_table` (or
``verify_table``): the same columns, row for row, as on one machine. Every
row is kept: a row that cannot be read has null results and its reason in the
``error`` column, since a distributed job has no terminal to report it on.

:func:`run_ray_cli` is ``answerx extract|verify --engine ray``. Ray is the
optional extra ``answerx[ray]``; it is imported only when used.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa

from answerx.batch._jobs import Settings, annotate_batch
from answerx.batch.tables import extract_table, verify_table
from answerx.errors import ConfigError
from answerx.extraction import extract
from answerx.extraction.tasks import check_task

__all__ = ["Extractor", "Verifier", "read_dataset", "run_ray", "run_ray_cli"]


class Extractor:
    """``map_batches`` callable: a ``pyarrow.Table`` batch in, the same with the columns of
    :func:`answerx.batch.extract_table` out.

    With ``file_mode=True`` (what ``--engine ray`` uses), ``task`` is the default task,
    ``task``/``choices``/``numbers`` columns are used when the data has them, and a
    null output is an error row, exactly as in ``answerx extract --file``.
    """

    def __init__(
        self,
        *,
        column: str = "raw_output",
        task: str = "auto",
        choices: str | None = None,
        numbers: str | None = None,
        prefix: str = "",
        file_mode: bool = False,
    ) -> None:
        if file_mode:
            check_task(task)
        self.column, self.task, self.prefix = column, task, prefix
        self.choices, self.numbers, self.file_mode = choices, numbers, file_mode
        extract("The answer is 1.")  # warm the rule tables once per actor, not per batch

    def __call__(self, batch: pa.Table) -> pa.Table:
        """The batch with the result columns added."""
        if self.file_mode:
            settings = Settings(
                field=self.column,
                task=self.task,
                choices_field=self.choices or "choices",
                numbers_field=self.numbers or "numbers",
                prefix=self.prefix,
            )
            return annotate_batch(batch, settings)
        return extract_table(
            batch,
            column=self.column,
            task=self.task,
            choices=self.choices,
            numbers=self.numbers,
            prefix=self.prefix,
        )


class Verifier:
    """``map_batches`` callable: a ``pyarrow.Table`` batch in, the same with the columns of
    :func:`answerx.batch.verify_table` out (``file_mode`` as for :class:`Extractor`)."""

    def __init__(
        self,
        *,
        output: str = "raw_output",
        gold: str = "gold",
        task: str = "auto",
        choices: str | None = None,
        numbers: str | None = None,
        prefix: str = "",
        file_mode: bool = False,
    ) -> None:
        if file_mode:
            check_task(task)
        self.output, self.gold, self.task, self.prefix = output, gold, task, prefix
        self.choices, self.numbers, self.file_mode = choices, numbers, file_mode

    def __call__(self, batch: pa.Table) -> pa.Table:
        """The batch with the verdict columns added."""
        if self.file_mode:
            settings = Settings(
                mode="verify",
                field=self.output,
                gold=self.gold,
                task=self.task,
                choices_field=self.choices or "choices",
                numbers_field=self.numbers or "numbers",
                prefix=self.prefix,
            )
            return annotate_batch(batch, settings)
        return verify_table(
            batch,
            output=self.output,
            gold=self.gold,
            task=self.task,
            choices=self.choices,
            numbers=self.numbers,
            prefix=self.prefix,
        )


def read_dataset(paths: str | list[str]) -> Any:
    """A Ray dataset of Parquet or JSONL files: paths, globs, directories or URIs
    (``s3://…``, ``gs://…``), comma-separated in one string or as a list."""
    import ray.data

    items = [p.strip() for p in paths.split(",")] if isinstance(paths, str) else list(paths)
    expanded: list[str] = []
    for item in items:
        if "://" not in item and glob.has_magic(item):
            matches = sorted(glob.glob(item))
            if not matches:
                raise ConfigError(f"no file matches {item!r}")
            expanded.extend(matches)
        else:
            expanded.append(item)
    kinds = {_kind(p) for p in expanded}
    if len(kinds) != 1:
        raise ConfigError("give Parquet files or JSONL files, not both")
    if kinds == {"jsonl"}:
        return ray.data.read_json(expanded, lines=True)
    return ray.data.read_parquet(expanded)


def run_ray(
    paths: str | list[str],
    out: str,
    *,
    mode: Literal["extract", "verify"] = "extract",
    field: str = "raw_output",
    gold: str = "gold",
    task: str = "auto",
    prefix: str = "",
    batch_size: int = 1024,
    concurrency: int | None = None,
) -> None:
    """Extract (or verify) every row of ``paths`` on the Ray cluster this process is
    connected to (``ray.init`` first), writing Parquet files under ``out``."""
    import ray

    ds = read_dataset(paths)
    if concurrency is None:
        cpus = ray.cluster_resources().get("CPU", 1)  # type: ignore[no-untyped-call,unused-ignore]
        concurrency = max(1, int(cpus))
    udf: type[Extractor] | type[Verifier]
    kwargs: dict[str, Any] = {"task": task, "prefix": prefix, "file_mode": True}
    if mode == "verify":
        udf, kwargs = Verifier, kwargs | {"output": field, "gold": gold}
    else:
        udf, kwargs = Extractor, kwargs | {"column": field}
    ds = ds.map_batches(
        udf,
        fn_constructor_kwargs=kwargs,
        batch_format="pyarrow",
        batch_size=batch_size,
        # An autoscaling pool (1 to N actors), not a fixed N: N actors holding all N
        # CPUs leave none for the read tasks that feed them, and the job never ends.
        concurrency=(1, concurrency),
    )
    ds.write_parquet(out)


def run_ray_cli(
    mode: Literal["extract", "verify"],
    file: str,
    out: str | None,
    *,
    address: str | None,
    field: str,
    task: str,
    prefix: str,
    batch_size: int,
    workers: int | None,
    quiet: bool,
    gold: str = "gold",
) -> int:
    """``answerx extract|verify --engine ray``: run, then report what was written.

    Returns the number of error rows (kept in the output, with their reason).
    """
    try:
        import ray
    except ImportError:
        raise ConfigError("--engine ray needs Ray: pip install 'answerx[ray]'") from None
    if out is None or out == "-":
        raise ConfigError("--engine ray writes Parquet files: give --out-dir DIRECTORY")
    check_task(task)
    address = address or os.environ.get("RAY_ADDRESS")
    if ray.is_initialized():
        pass  # already connected (a test, a notebook): use that cluster
    elif address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(num_cpus=workers, log_to_driver=False, include_dashboard=False)
    run_ray(
        file,
        out,
        mode=mode,
        field=field,
        gold=gold,
        task=task,
        prefix=prefix,
        batch_size=batch_size,
        concurrency=workers,
    )
    return _report(out, prefix, quiet)


def _report(out: str, prefix: str, quiet: bool) -> int:
    from rich.console import Console

    if "://" in out or not Path(out).exists():
        return 0  # a remote filesystem: Ray wrote it; reading it back is the user's call
    import pyarrow.dataset as pads

    column = prefix + "error"
    table = pads.dataset(out, format="parquet").to_table(columns=[column])
    errors = [e for e in table.column(column).to_pylist() if e is not None]
    if not quiet:
        err = Console(stderr=True, highlight=False)
        err.print(
            f"read {table.num_rows:,} · written {table.num_rows:,} · "
            f"with an error {len(errors):,} (kept, reason in {column!r})"
        )
        for reason in errors[:10]:
            err.print(f"[yellow]warning:[/] row skipped by extraction: {reason}")
        err.print(f"Parquet files in {out}")
    return len(errors)


def _kind(path: str) -> str:
    name = path.rstrip("/").lower()
    if name.endswith((".jsonl", ".ndjson", ".json", ".jsonl.gz")):
        return "jsonl"
    return "parquet"  # a .parquet file, or a directory / prefix of them
