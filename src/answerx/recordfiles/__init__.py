"""Record files: the formats (JSONL, JSON, CSV, Parquet), their readers and their writers.

The one place that knows files of records, below everything that reads or writes
them: the file runs (:mod:`answerx.batch`), the single-core
:func:`answerx.extraction.extract_file`, the experiment data sets and the run
exports. It knows nothing of what answerx does with a record.

- :mod:`~answerx.recordfiles.formats`: the format table (suffixes, input and output
  formats).
- :mod:`~answerx.recordfiles.jsonl`: a JSONL line into a dict, or the reason why not;
  records written as standard JSON.
- :mod:`~answerx.recordfiles.csvfile`: CSV in blocks that pyarrow parses, a block with a
  malformed record re-read by the ``csv`` module to name it.
- :mod:`~answerx.recordfiles.parquetfile`: Parquet in flat memory.
- :mod:`~answerx.recordfiles.writers`: the four output formats, each a valid file once
  closed.
- :mod:`~answerx.recordfiles.lines`: lines in bounded memory (a line over the maximum
  is read past, not held).
- :mod:`~answerx.recordfiles.streams`: paths opened once (a FIFO, ``<(…)``), streams.
"""

# Only the light modules here: importing answerx.extraction (which reads JSONL through
# this package) must not load pyarrow. The readers and writers of CSV and Parquet are
# imported from their modules.
from answerx.recordfiles.formats import (
    INPUT_FORMATS,
    OUTPUT_FORMATS,
    SUFFIXES,
    InputFormat,
    InputFormatName,
    RecordFormat,
    format_of,
)
from answerx.recordfiles.jsonl import dumps_record, json_object

__all__ = [
    "INPUT_FORMATS",
    "OUTPUT_FORMATS",
    "SUFFIXES",
    "InputFormat",
    "InputFormatName",
    "RecordFormat",
    "dumps_record",
    "format_of",
    "json_object",
]
