"""`reviewer team` on SQLite: a clear refusal, no traceback, nothing written."""

from __future__ import annotations

from tests.team.conftest import reviewer_cli


def test_team_init_on_sqlite_says_why_not(tmp_path):
    db = tmp_path / "solo.sqlite3"
    done = reviewer_cli("team", "init", "--db", str(db))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "team mode needs PostgreSQL" in done.stderr and "local profiles are not access control" in done.stderr
