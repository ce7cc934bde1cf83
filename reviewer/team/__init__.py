"""Team mode: identities and rights held by PostgreSQL (``reviewer team init/add/remove/list``).

The functions live in reviewer.team.admin (imported lazily so that the CLI starts fast);
the roles, grants, policies and triggers in reviewer.team.sql.
"""

from __future__ import annotations

from reviewer.team.sql import DEFAULT_PREFIX, ROLE_NAMES

__all__ = ["DEFAULT_PREFIX", "ROLE_NAMES", "Member", "TeamError", "add", "init", "members", "prefix_of", "remove"]


def __getattr__(name: str):
    if name in __all__:
        from reviewer.team import admin

        return getattr(admin, name)
    raise AttributeError(name)
