"""Persistence: SQLite by default, PostgreSQL for teams, through the same code.

The names below load on first use (PEP 562): ``reviewer.store.views`` or
``reviewer.store.catalog`` can be imported without paying for SQLAlchemy and
SQLModel, which is most of a quick command's start-up time.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewer.store.importing import ImportSummary
    from reviewer.store.queries import ItemQuery
    from reviewer.store.store import Store

_LAZY = {
    "ImportSummary": "reviewer.store.importing",
    "ItemQuery": "reviewer.store.queries",
    "Store": "reviewer.store.store",
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ImportSummary", "ItemQuery", "Store"]
