"""The results store: experiment runs and their items, in rooms of one job each.

- :mod:`.core`: :class:`ResultStore`, opened one way (:meth:`ResultStore.open`),
  writing and reading runs and items;
- :mod:`.schema`: the tables as append-only migrations, and how values are stored;
- :mod:`.browse`: what a reader asks for as data (:class:`ItemQuery`) and as SQL, and
  :data:`BROWSE_COLUMNS`, the browsing index the facets and groups derive from;
- :mod:`.queries`: those queries run (pages, counts, neighbours, tallies);
- :mod:`.export`: a run's items as CSV, JSONL or Parquet;
- :mod:`.health`: is this file a store (the check every command on runs makes first);
- :mod:`.salvage`: what can still be read from a damaged store, copied into a new one;
- :mod:`.url`: a store is a file's path or a server's URL; :mod:`.postgres`: the store
  on a PostgreSQL server (:class:`PostgresStore`, opened by :meth:`ResultStore.open`).
"""

from answerx.experiments.sqlitefile import store_error
from answerx.experiments.store.browse import BROWSE_COLUMNS, FACETS, GROUPS, ItemQuery
from answerx.experiments.store.core import DEFAULT_DB, OpenMode, ResultStore, new_run_id
from answerx.experiments.store.export import ExportFormat
from answerx.experiments.store.health import check_store_file
from answerx.experiments.store.postgres import PostgresStore  # registers the server store
from answerx.experiments.store.salvage import Salvage, salvage
from answerx.experiments.store.schema import MIGRATIONS, SCHEMA_VERSION

__all__ = [
    "BROWSE_COLUMNS",
    "DEFAULT_DB",
    "FACETS",
    "GROUPS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "ExportFormat",
    "ItemQuery",
    "OpenMode",
    "PostgresStore",
    "ResultStore",
    "Salvage",
    "check_store_file",
    "new_run_id",
    "salvage",
    "store_error",
]
