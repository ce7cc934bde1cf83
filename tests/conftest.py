"""Shared fixtures: a real store on SQLite and on PostgreSQL, and paths to ../shared."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REFDATA = SHARED / "refdata"
PG_URL = os.environ.get("REVIEWER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def refdata(*parts: str) -> Path:
    """A path under ../shared/refdata, or skip the test saying what is missing."""
    path = REFDATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference data not available: {path} not found (it lives in ../shared beside the project)")
    return path


def _postgres_reason() -> str | None:
    """None when PostgreSQL answers at PG_URL, else why the team-mode tests cannot run."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed"
    try:
        with psycopg.connect(PG_URL.replace("postgresql://", "postgresql://", 1), connect_timeout=3) as conn:
            conn.execute("select 1")
    except Exception as exc:  # any failure to connect means: no server here
        return f"PostgreSQL not reachable at {PG_URL} ({exc.__class__.__name__}: {str(exc).strip()[:120]})"
    return None


_PG_REASON = _postgres_reason()


@pytest.fixture
def pg_url():
    """A PostgreSQL URL whose search_path is a fresh schema, dropped after the test."""
    if _PG_REASON:
        pytest.skip(f"team-mode (PostgreSQL) test not run: {_PG_REASON}")
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"create schema {schema}")
    sep = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        # team mode's blind views live beside it (reviewer.team.masking); they went undropped
        conn.execute(f"drop schema if exists {schema}_blind cascade")
        conn.execute(f"drop schema {schema} cascade")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    """The same test on both backends: a SQLite file and a PostgreSQL schema."""
    if request.param == "sqlite":
        return str(tmp_path / "reviewer.sqlite3")
    return request.getfixturevalue("pg_url")


@pytest.fixture
def store(db_url):
    from reviewer.store import Store

    s = Store(db_url)
    yield s
    s.close()
