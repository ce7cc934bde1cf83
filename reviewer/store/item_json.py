"""An item's JSON as stored: each value once in the row (issue 14).

A reader takes the question and the gold out of the source record as they are
(NesTools: question = record["task"], gold = record["call"]), and an import's
original gold is its gold. Stored as given, a NesTools row held the gold three
times and the question twice: 1.3 kB of its 4 kB. PostgreSQL parses, logs and
compresses every byte of a row (~10 us a kB of server time), and a row that stays
above 2 kB after compression has its raw moved out of line into the TOAST table;
SQLite writes the bytes into its pages. Three storage rules:

- ``original_gold`` is SQL NULL while the gold is the one imported. The database
  keeps it: a trigger (``keep_original_gold``, installed by schema step 10 and for
  every new database) copies the old gold into a NULL ``original_gold`` when the
  gold first changes, whoever writes it with an UPDATE (the app, a team trigger, psql;
  ``gold = original_gold`` on an unchanged item keeps its gold). A tool that rewrites
  a whole row (DELETE and INSERT, SQLite's INSERT OR REPLACE) with a new gold and the
  NULL it read makes that gold the original: such tools must UPDATE. Readers use
  ``ORIGINAL_GOLD`` (``coalesce(original_gold, gold)`` in SQL: a stored JSON
  ``null`` stays a value there, where Python would see None either way).
- A top-level value of ``raw`` that *is* the question (a str) or the gold given with it
  (the same object, as the reader put it in both) keeps its key and place in
  ``raw`` with the column's name as a placeholder, and ``raw_refs`` maps the key to
  the column: ``{"task": "question", "call": "original_gold"}``. ``raw_refs`` NULL:
  ``raw`` is whole (every item imported before this, any record sharing nothing).
  The referenced columns are never rewritten after an import (a gold edit changes
  ``gold``; ``original_gold`` keeps the imported gold), so ``raw`` reads back as read.
- ``payload``: see reviewer.store.payloads (a value of ``raw`` stored once, in ``raw``).

Everything that reads these columns from the database selects ``JSON_COLUMNS``
(or ``ITEM_COLUMNS`` for the whole row) and takes raw and payload from
``stored_raw`` / ``stored_payload``. The raw rule itself is reviewer.store.raw_refs
(no database imports: the import's reading process uses it).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, type_coerce

from reviewer.store.models import Item
from reviewer.store.payloads import expand as expand_payload
from reviewer.store.raw_refs import compact_raw, expand_raw

__all__ = ["ITEM_COLUMNS", "JSON_COLUMNS", "ORIGINAL_GOLD", "compact_raw", "expand_raw", "stored_payload", "stored_raw"]

item_t = Item.__table__

# The gold as imported: SQL NULL in original_gold means the gold has not changed since.
ORIGINAL_GOLD = type_coerce(func.coalesce(item_t.c.original_gold, item_t.c.gold), item_t.c.original_gold.type
                            ).label("original_gold")

# Every column of item, original_gold as ORIGINAL_GOLD: for select(*ITEM_COLUMNS) where select(item_t) was.
ITEM_COLUMNS = tuple(ORIGINAL_GOLD if c.name == "original_gold" else c for c in item_t.c)

# What stored_raw and stored_payload read from a row.
JSON_COLUMNS = (item_t.c.raw, item_t.c.raw_refs, item_t.c.question, ORIGINAL_GOLD, item_t.c.payload)


def stored_raw(row: Any) -> Any:
    """The source record of a row selected with ``JSON_COLUMNS`` (or ``ITEM_COLUMNS``)."""
    return expand_raw(row.raw, row.raw_refs, row.question, row.original_gold)


def stored_payload(row: Any, raw: Any = None) -> dict:
    """The payload of such a row as its reader made it (``raw``: ``stored_raw(row)``, when
    the caller has it already)."""
    return expand_payload(row.payload, stored_raw(row) if raw is None else raw)
