"""The store's schema: its tables as append-only migrations, and how values are stored.

The schema is versioned (SQLite's ``PRAGMA user_version``) and changed only by appending
to :data:`MIGRATIONS`; :class:`~answerx.experiments.store.ResultStore` applies the ones a
file lacks when it opens it for writing. A store of an older schema opened read-only is
read through :func:`old_schema_columns`, which adds what the migrations would have.
Every column of an item is a field of :class:`~answerx.experiments.records.ItemRecord`;
lists and objects are stored as JSON text, booleans as 0/1 and times as ISO 8601 text
(:func:`to_sql`, :func:`from_sql`).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

from answerx.experiments.records import ItemRecord, RunRecord
from answerx.experiments.store.browse import BROWSE_COLUMNS
from answerx.experiments.store.export import utc_iso

__all__ = [
    "ITEM_COLUMNS",
    "KEY_COLUMNS",
    "MIGRATIONS",
    "RUN_COLUMNS",
    "SCHEMA_VERSION",
    "from_sql",
    "old_schema_columns",
    "to_sql",
]

KEY_COLUMNS = ("approach", "strategy", "provider", "model", "item_id", "repetition")
ITEM_COLUMNS: tuple[str, ...] = tuple(ItemRecord.model_fields)
RUN_COLUMNS: tuple[str, ...] = tuple(RunRecord.model_fields)
_JSON_COLUMNS = frozenset({"answers", "choices", "numbers", "verdict_detail", "span", "extraction"})
_BOOL_COLUMNS = frozenset({"cached", "correct", "valid", "unfinished"})
_TIME_COLUMNS = frozenset({"finished_at", "started_at"})
_M001 = """
CREATE TABLE runs (
    run_id          TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    config          TEXT NOT NULL,          -- JSON: the validated run configuration
    config_hash     TEXT NOT NULL,
    answerx_version TEXT NOT NULL,
    started_at      TEXT NOT NULL,          -- ISO 8601, UTC
    finished_at     TEXT,
    status          TEXT NOT NULL
);
CREATE INDEX runs_config_hash ON runs (config_hash);
CREATE TABLE items (
    id               INTEGER PRIMARY KEY,   -- insertion order
    run_id           TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    approach         TEXT NOT NULL,
    strategy         TEXT NOT NULL,
    provider         TEXT NOT NULL,
    model            TEXT NOT NULL,
    item_id          TEXT NOT NULL,
    repetition       INTEGER NOT NULL,
    dataset          TEXT NOT NULL,
    task             TEXT NOT NULL,
    question         TEXT NOT NULL,
    gold             TEXT,
    choices          TEXT,                  -- JSON list
    numbers          TEXT,                  -- JSON list
    prompt           TEXT NOT NULL,         -- JSON: the first request's messages
    raw_output       TEXT NOT NULL,
    extracted_answer TEXT,
    method           TEXT NOT NULL,
    confidence       REAL NOT NULL,
    stage            TEXT,
    mode             TEXT,
    attempts         INTEGER NOT NULL,
    fallbacks        INTEGER NOT NULL,
    calls            INTEGER NOT NULL,
    input_tokens     INTEGER NOT NULL,
    output_tokens    INTEGER NOT NULL,
    cost_usd         REAL,                  -- NULL: the model has no price
    latency_s        REAL NOT NULL,
    termination      TEXT NOT NULL,
    error            TEXT,
    cached           INTEGER NOT NULL,      -- 0/1
    correct          INTEGER,               -- 0/1, NULL until scored
    score_method     TEXT,
    finished_at      TEXT
);
CREATE UNIQUE INDEX items_key
    ON items (run_id, approach, strategy, provider, model, item_id, repetition);
"""

# The provider's finish reason of the item's last free-text reply ("length": cut off).
_M002 = "ALTER TABLE items ADD COLUMN finish_reason TEXT"

# Schemas 1-2 kept one name per verdict (score_method), translated from grading's
# reason and how with detail lost; schema 3 keeps grading's own words. What each old
# name says in them: math_verify and numeric each covered several predicates (exact,
# fraction, math-verify ...), so their `how` is not known (NULL), and the old name stays
# in verdict_detail. One SQL expression per column, for the migration and for reading
# an old store that cannot be migrated (read-only).
_OLD_REASONS = {
    "no_gold": "unreadable_gold",
    "no_answer": "no_answer",
    "math_verify_timeout": "timeout",
}
_OLD_HOWS = {
    "no_gold": "none",
    "no_answer": "none",
    "math_verify_timeout": "math_verify",
    "choice_letter": "letter",
    "choice_text": "option_text",
    "boolean": "boolean",
    "text": "normalised_text",
    "game24": "game24",
}


def _from_score_method(table: dict[str, str], otherwise: str) -> str:
    whens = " ".join(f"WHEN score_method = '{old}' THEN '{new}'" for old, new in table.items())
    return f"CASE WHEN score_method IS NULL THEN NULL {whens} ELSE {otherwise} END"


_OLD_VERDICT = {
    "reason": _from_score_method(
        _OLD_REASONS,
        "CASE correct WHEN 1 THEN 'equivalent' WHEN 0 THEN 'different' ELSE 'unreadable_gold' END",
    ),
    "how": _from_score_method(_OLD_HOWS, "NULL"),
    # Text, not json_object(): SQLite builds without JSON functions exist.
    "verdict_detail": """CASE WHEN score_method IS NULL THEN NULL
        ELSE '{"score_method": "' || score_method || '"}' END""",
}

# The verdict in grading's own words, and what extraction found about the answer
# (malformed_answer and unfinished are judged from them). score_method stays, unused:
# DROP COLUMN needs SQLite 3.35, older than some systems' still.
_M003 = f"""
ALTER TABLE items ADD COLUMN valid INTEGER;             -- 0/1, NULL: not checked
ALTER TABLE items ADD COLUMN problem TEXT;
ALTER TABLE items ADD COLUMN unfinished INTEGER NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN reason TEXT;               -- NULL until scored
ALTER TABLE items ADD COLUMN how TEXT;
ALTER TABLE items ADD COLUMN verdict_detail TEXT;       -- JSON object
UPDATE items SET reason = {_OLD_VERDICT["reason"]},
    how = {_OLD_VERDICT["how"]},
    verdict_detail = {_OLD_VERDICT["verdict_detail"]}
"""

# What a reader needs to audit an item (a run viewer): where the answer was read from
# (span: JSON [start, end) in raw_output), and every call the item made (conversation:
# a JSON list of calls). Items stored before keep NULL spans and no conversation. (No
# comment after the last column: SQLite keeps its text inside the table's definition.)
#
# items_browse holds every column a reader filters, sorts or counts by (browse.py), so
# those queries read the index alone: the verdict's columns sit after the long texts in
# each row, and reading them from the table would walk every row's overflow pages (a
# filtered page of a 100,000-item run: 0.2-0.6 s without it; bench/viewer.py).
# items_pair finds the same question's item in another arm with its verdict, for paired
# comparisons (0.36 s -> 0.07 s for two arms of 25,000 items).
_M004 = f"""
ALTER TABLE items ADD COLUMN candidate TEXT;
ALTER TABLE items ADD COLUMN span TEXT;
ALTER TABLE items ADD COLUMN conversation TEXT NOT NULL DEFAULT '';
CREATE INDEX items_browse ON items ({", ".join(BROWSE_COLUMNS)});
CREATE INDEX items_pair ON items
    (run_id, approach, strategy, provider, model, item_id, repetition, dataset, correct)
"""

# Several accepted answers per item (aliases), and the three measures open-domain QA
# reports (exact match, token F1, cover match): columns, as reports average them the
# way they count `correct`. NULL in older rows (one gold; not measured until re-scored).
# answers: a JSON list; NULL when the gold is the only accepted answer.
_M005 = """
ALTER TABLE items ADD COLUMN answers TEXT;
ALTER TABLE items ADD COLUMN em REAL;
ALTER TABLE items ADD COLUMN f1 REAL;
ALTER TABLE items ADD COLUMN cover REAL
"""

# The extraction whole (JSON of Extraction.model_dump(mode="json")): what scoring decides
# a verdict from (grading.decide), so a re-score reads what extraction found, not a
# reconstruction from the columns above (which keep the parts readers filter on). NULL in
# older rows: scoring rebuilds an extraction from those columns there.
_M006 = "ALTER TABLE items ADD COLUMN extraction TEXT"

# Many workers, one run (`answerx run --join`): which worker holds which item, until when
# (Unix time by the worker's clock; leases are long beside clock skew). A lease runs out
# when its worker dies, so another takes the item; a finished item's lease never does
# (FINISHED), so no one asks it again in that session. Cleared when a run is resumed.
_M007 = """
CREATE TABLE claims (
    run_id       TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    approach     TEXT NOT NULL,
    strategy     TEXT NOT NULL,
    provider     TEXT NOT NULL,
    model        TEXT NOT NULL,
    item_id      TEXT NOT NULL,
    repetition   INTEGER NOT NULL,
    worker       TEXT NOT NULL,
    leased_until REAL NOT NULL,
    PRIMARY KEY (run_id, approach, strategy, provider, model, item_id, repetition)
)
"""

# What workers of one run share beyond its items. responses: the response cache of a
# store on a server (experiments/cache.py's table and key; a file store keeps its own in
# cache.db beside it, so this table stays empty there). budgets: what a run has spent of
# each capped budget (the judge's), counted by every worker in one row, so a cap holds
# for the run, not per worker; kept when a run is resumed (it is the run's spend).
_M008 = """
CREATE TABLE responses (
    key        TEXT PRIMARY KEY,
    payload    TEXT NOT NULL,
    info       TEXT NOT NULL,
    created_at TEXT DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE budgets (
    run_id   TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    calls    INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    PRIMARY KEY (run_id, name)
)
"""

#: Append-only: (name, SQL). Migration *n* brings the schema to ``user_version`` *n*.
MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("m001_runs_and_items", _M001),
    ("m002_items_finish_reason", _M002),
    ("m003_items_verdict_reason_how", _M003),
    ("m004_items_span_conversation", _M004),
    ("m005_items_answers_and_qa_measures", _M005),
    ("m006_items_extraction", _M006),
    ("m007_claims", _M007),
    ("m008_shared_responses_and_budgets", _M008),
)
SCHEMA_VERSION = len(MIGRATIONS)


def old_schema_columns(db: sqlite3.Connection) -> str:
    """The select list that reads the file's ``items`` table as the current schema has
    it: every column the table has, then one expression for each column that later
    migrations add (the old verdict in grading's words, else the column's default)."""
    present = {row[1] for row in db.execute("PRAGMA main.table_info(items)")}
    if not present:
        raise sqlite3.DatabaseError("it holds no answerx items table")
    added = []
    for column in ITEM_COLUMNS:
        if column in present:
            continue
        if column in _OLD_VERDICT and "score_method" in present:
            added.append(f"{_OLD_VERDICT[column]} AS {column}")
        else:
            default = {"unfinished": "0", "conversation": "''"}.get(column, "NULL")
            added.append(f"{default} AS {column}")
    return ", ".join(["*", *added])


def to_sql(column: str, value: Any) -> Any:
    """An item's or run's ``value`` as its ``column`` stores it: JSON text, 0/1, ISO time."""
    if value is None:
        return None
    if column in _JSON_COLUMNS:
        return json.dumps(value)
    if column in _BOOL_COLUMNS:
        return int(bool(value))
    if column in _TIME_COLUMNS:
        return utc_iso(value)
    return value


def from_sql(column: str, value: Any) -> Any:
    """A stored value of ``column`` as the record has it (the inverse of :func:`to_sql`)."""
    if value is None:
        return None
    if column in _JSON_COLUMNS:
        return json.loads(value)
    if column in _BOOL_COLUMNS:
        return bool(value)
    if column in _TIME_COLUMNS:
        return datetime.fromisoformat(value)
    return value
