"""The guards' own tables: per-dataset settings, per-item results and adjudicator overrides.

They live here, not in reviewer.store.models, so the guards stay one self-contained
package; reviewer.store.migrations imports this module so that a new database gets
the tables at once and an older one gets them through the guards' migration step.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from reviewer.store.models import utcnow


class GuardSettings(SQLModel, table=True):
    """A dataset's guard settings (rules, thresholds; see reviewer.guards.settings)."""

    __tablename__ = "guard_settings"
    dataset_id: int = Field(
        sa_column=Column(Integer, ForeignKey("dataset.id", ondelete="CASCADE"), primary_key=True))
    settings: dict | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    updated_at: datetime = Field(default_factory=utcnow)


class CheckResult(SQLModel, table=True):
    """The latest result of one guard on one item.

    ``status``: pass | fail | skip (the guard does not apply) | error (it could not run).
    ``input_hash`` digests everything the result depends on (gold, source, schema,
    the dataset's settings for that guard), so a result whose inputs changed is stale.
    """

    __tablename__ = "check_result"
    __table_args__ = (UniqueConstraint("item_id", "guard", name="uq_check_result"),)
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(
        sa_column=Column(Integer, ForeignKey("item.id", ondelete="CASCADE"), nullable=False, index=True))
    guard: str = Field(sa_column=Column(String(40), nullable=False, index=True))
    status: str = Field(sa_column=Column(String(10), nullable=False))
    summary: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    details: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    input_hash: str = Field(sa_column=Column(String(64), nullable=False))
    computed_at: datetime = Field(default_factory=utcnow)


class GuardOverride(SQLModel, table=True):
    """An adjudicator's decision that a failed guard does not block the item's release,
    with the written reason (exported in the item's provenance)."""

    __tablename__ = "guard_override"
    __table_args__ = (UniqueConstraint("item_id", "guard", name="uq_guard_override"),)
    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(
        sa_column=Column(Integer, ForeignKey("item.id", ondelete="CASCADE"), nullable=False, index=True))
    guard: str = Field(sa_column=Column(String(40), nullable=False))
    adjudicator: str = Field(sa_column=Column(String(100), nullable=False))
    reason: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


TABLES = (GuardSettings.__table__, CheckResult.__table__, GuardOverride.__table__)


def create_tables(conn) -> None:
    """Migration step: add the guards' tables to a database that lacks them."""
    for table in TABLES:
        table.create(conn, checkfirst=True)
