"""Persistence: SQLite by default, PostgreSQL for teams, through the same code."""

from reviewer.store.importing import ImportSummary
from reviewer.store.queries import ItemQuery
from reviewer.store.store import Store

__all__ = ["ImportSummary", "ItemQuery", "Store"]
