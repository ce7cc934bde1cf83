"""Team mode: identities and rights held by PostgreSQL (``reviewer team init/add/remove/list``).

The identity is the PostgreSQL login (``current_user``); rights are the roles
``<prefix>annotator``, ``<prefix>adjudicator`` and ``<prefix>admin`` granted to logins;
row-level security (reviewer.team.sql) makes blindness, rights and assignments hold
for every client. Passwords and authentication stay PostgreSQL's: reviewer stores none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from contextlib import contextmanager

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from reviewer.errors import ReviewerError
from reviewer.team.sql import DEFAULT_PREFIX, DEFINER_ROLE, ROLE_NAMES, init_statements, role

_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class TeamError(ReviewerError):
    pass


@dataclass(frozen=True)
class Member:
    login: str
    role: str


def _check_name(value: str, what: str) -> str:
    if not _NAME.match(value or ""):
        raise TeamError(f"{what} {value!r} is not a plain PostgreSQL name (lower-case letters, digits, _)")
    return value


@contextmanager
def _db_errors(what: str):
    """PostgreSQL's refusal (no right to create roles, unknown login...) as a one-line error."""
    try:
        yield
    except DBAPIError as exc:
        reason = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
        raise TeamError(f"{what}: PostgreSQL refused: {reason}") from None


def _postgres(store) -> None:
    if store.backend != "postgresql":
        raise TeamError("team mode needs PostgreSQL (--db postgresql://...); SQLite has local profiles only, "
                        "and local profiles are not access control")


def prefix_of(store) -> str:
    from reviewer.review.core import team_prefix

    with store.engine.connect() as conn:
        prefix = team_prefix(conn)
    if prefix is None:
        raise TeamError("this database is not a team database yet: run `reviewer team init --db URL` first")
    return prefix


def init(store, prefix: str = DEFAULT_PREFIX) -> list[str]:
    """Create the roles, grants, policies and triggers; return the role names. Idempotent: run
    again on a team database made by an older version, it upgrades it in place."""
    _postgres(store)
    _check_name(prefix + "x", "role prefix")
    with _db_errors("team init"), store.engine.begin() as conn:
        schema = conn.execute(text("select current_schema()")).scalar()
        for stmt in init_statements(prefix, _check_name(schema, "schema")):
            conn.exec_driver_sql(stmt.replace("%", "%%"))
    return [role(prefix, n) for n in ROLE_NAMES]


def add(store, login: str, as_role: str) -> str:
    """Give ``login`` (created without a password when missing) exactly the team role ``as_role``;
    return how the member connects."""
    _postgres(store)
    if as_role not in ROLE_NAMES:
        raise TeamError(f"unknown role {as_role!r}: one of {', '.join(ROLE_NAMES)}")
    prefix = prefix_of(store)
    _check_name(login, "login")
    if login in {role(prefix, n) for n in (*ROLE_NAMES, DEFINER_ROLE)}:
        raise TeamError(f"{login} is one of the team's roles, not a login")
    with _db_errors(f"adding {login}"), store.engine.begin() as conn:
        exists = conn.execute(text("select 1 from pg_roles where rolname = :n"), {"n": login}).first()
        if not exists:
            conn.exec_driver_sql(f"CREATE ROLE {login} LOGIN")
        for other in ROLE_NAMES:
            conn.exec_driver_sql(f"REVOKE {role(prefix, other)} FROM {login}")
        conn.exec_driver_sql(f"GRANT {role(prefix, as_role)} TO {login}")
    url = store.engine.url.set(username=login, password=None)
    return (f"{login} is now {as_role}. Connect with: reviewer --db '{url.render_as_string(hide_password=True)}'"
            f" (set a password in PostgreSQL if your server asks for one: ALTER ROLE {login} PASSWORD '...')")


def remove(store, login: str) -> None:
    """Take every team role away from ``login`` (the login itself stays PostgreSQL's)."""
    _postgres(store)
    prefix = prefix_of(store)
    _check_name(login, "login")
    with _db_errors(f"removing {login}"), store.engine.begin() as conn:
        for name in ROLE_NAMES:
            conn.exec_driver_sql(f"REVOKE {role(prefix, name)} FROM {login}")


def members(store) -> list[Member]:
    _postgres(store)
    prefix = prefix_of(store)
    with store.engine.connect() as conn:
        rows = conn.execute(text(
            "select m.rolname as login, g.rolname as grp from pg_auth_members am "
            "join pg_roles m on m.oid = am.member join pg_roles g on g.oid = am.roleid "
            "where g.rolname = any(:roles) order by m.rolname"
        ), {"roles": [role(prefix, n) for n in ROLE_NAMES]}).all()
    return [Member(r.login, r.grp[len(prefix):]) for r in rows]
