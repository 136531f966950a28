"""The values the store hands SQLite and gets back, and its columns of
JSON text: shared by the store's modules (:mod:`dbgcore.store.db`,
:mod:`dbgcore.store.profilerecords`)."""

from __future__ import annotations

import json

from dbgcore.shared.jsontypes import Json

#: A value sqlite3 stores and gives back (the types it maps to SQL's).
SqlValue = int | float | str | bytes | None
#: A query's parameters, or a row it reads.
SqlRow = tuple[SqlValue, ...]


def json_column(value: SqlValue, empty: str) -> Json:
    """A column that holds JSON text (NULL or empty: ``empty``'s value)."""
    return json.loads(value if isinstance(value, (str, bytes)) and value else empty)
