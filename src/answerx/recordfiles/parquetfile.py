"""Parquet in flat memory: record batches read one at a time, and a file that cannot
be read said to be so (:class:`~answerx.errors.UnreadableFile`), whether it is
refused at once (not Parquet, cut short: its footer is gone) or part-way (a
damaged page)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

import pyarrow as pa
import pyarrow.parquet as pq

from answerx.errors import ConfigError, UnreadableFile

__all__ = ["open_parquet", "parquet_batches"]


def open_parquet(stream: IO[bytes], where: str) -> pq.ParquetFile:
    """The Parquet file behind ``stream`` (a file opened in binary mode).

    Raises :class:`~answerx.errors.ConfigError` for a stream that cannot seek (a
    pipe: Parquet is read from its end) and :class:`~answerx.errors.UnreadableFile`
    for one that is not a whole Parquet file.
    """
    if not stream.seekable():
        raise ConfigError(
            f"{where}: Parquet is read from its end, so it must be a regular file, not a "
            "pipe or stdin: write it to a file first"
        )
    try:
        # pre_buffer (the default) keeps every row group it has read cached until the
        # file is closed: memory grows with the file. A 1 MB read buffer stays flat.
        return pq.ParquetFile(stream, pre_buffer=False, buffer_size=1 << 20)
    except (pa.ArrowException, OSError) as exc:
        raise UnreadableFile(f"{where}: not a readable Parquet file ({exc})", path=where) from None


def parquet_batches(
    parquet: pq.ParquetFile, where: str, batch_size: int = 1024
) -> Iterator[pa.RecordBatch]:
    """``parquet``'s rows in record batches of at most ``batch_size``; a page that cannot
    be read raises :class:`~answerx.errors.UnreadableFile` naming the file."""
    batches = parquet.iter_batches(batch_size=batch_size)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (pa.ArrowException, OSError) as exc:
            raise UnreadableFile(
                f"{where}: the Parquet file is damaged part-way ({exc})", path=where
            ) from None
        yield batch
