"""A team database on the real PostgreSQL: a fresh schema, `reviewer team init/add` run as the
CLI runs them, and logins alice, bob (annotators) and carol (adjudicator), all with names
unique to this run (prefix ``rvw_proto_``) and dropped afterwards."""

from __future__ import annotations

import subprocess
import sys
import uuid
from dataclasses import dataclass

import pytest
from sqlalchemy.engine import make_url

from tests.conftest import PG_URL


@dataclass
class Team:
    admin_url: str  # the schema owner (postgres), who ran `team init`
    prefix: str
    logins: dict[str, str]  # person -> PostgreSQL login

    def url(self, person: str) -> str:
        """The URL ``person`` connects with: their own login, the same schema."""
        u = make_url(self.admin_url)
        return u.set(username=self.logins[person]).render_as_string(hide_password=False)

    def store(self, person: str):
        from reviewer.store import Store

        return Store(self.url(person))


def reviewer_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reviewer.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def team(pg_url):
    import psycopg

    tag = uuid.uuid4().hex[:8]
    prefix = f"rvw_proto_{tag}_"
    logins = {p: f"{prefix}u_{p}" for p in ("alice", "bob", "carol", "admin")}
    from reviewer.store import Store

    Store(pg_url).close()  # create the schema's tables
    done = reviewer_cli("team", "init", "--db", pg_url, "--prefix", prefix)
    assert done.returncode == 0, done.stderr
    try:
        for person, role in (("alice", "annotator"), ("bob", "annotator"), ("carol", "adjudicator"),
                             ("admin", "admin")):
            done = reviewer_cli("team", "add", logins[person], "--role", role, "--db", pg_url)
            assert done.returncode == 0, done.stderr
            assert f"{logins[person]} is now {role}" in done.stdout and "PASSWORD" in done.stdout
        yield Team(pg_url, prefix, logins)
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            for name in [*logins.values(), *(f"{prefix}{r}" for r in ("annotator", "adjudicator", "admin", "definer"))]:
                if conn.execute("select 1 from pg_roles where rolname = %s", (name,)).fetchone():
                    conn.execute(f"DROP OWNED BY {name} CASCADE")
                    conn.execute(f"DROP ROLE {name}")
