"""Live updates: a second process's (or connection's) change is noticed without a restart."""

from __future__ import annotations

import time

import pytest

from reviewer.jobs import silent
from reviewer.review import Draft, Review
from reviewer.review.live import ChangeWatcher
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from tests.store import records as R
from tests.team.conftest import team  # noqa: F401  (the fixture)


def _until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_sqlite_notices_another_connections_commit(tmp_path):
    db = str(tmp_path / "live.sqlite3")
    mine = Store(db)
    import_dataset(mine.engine, R.dataset([R.item(0)]), silent())
    watcher = ChangeWatcher(mine)
    assert watcher.poll() is False
    other = Store(db)  # another app on the same file
    Review(other, "bob").annotate(other.find_item("demo", "q0").id, Draft(verdict="pass"), None)
    assert watcher.poll() is True
    assert watcher.poll() is False  # reported once
    watcher.close()


@pytest.mark.postgres
def test_team_database_notifies_stage_changes(team):  # noqa: F811
    owner = Store(team.admin_url)
    ds = import_dataset(owner.engine, R.dataset([R.item(0)]), silent()).dataset_id
    item_id = owner.find_item("demo", "q0").id
    from sqlalchemy import text

    with owner.engine.begin() as conn:
        conn.execute(text("insert into assignment (dataset_id, item_id, annotator, created_at) "
                          "values (:ds, :i, :who, now())"), {"ds": ds, "i": item_id, "who": team.logins["alice"]})
    watcher = ChangeWatcher(team.store("carol"))
    assert watcher.poll() is False
    Review(team.store("alice")).annotate(item_id, Draft(verdict="pass"), None)
    assert _until(watcher.poll), "carol was not told about alice's submission"
    watcher.close()


@pytest.mark.postgres
def test_team_database_tells_an_annotator_that_blindness_was_switched(team):  # noqa: F811
    """The PostgreSQL path of a blindness switch: carol's change reaches alice's open window's
    watcher (NOTIFY), and what alice then reads is numbered."""
    owner = Store(team.admin_url)
    ds = import_dataset(owner.engine, R.dataset([R.item(0)]), silent()).dataset_id
    owner.close()
    alice = Review(team.store("alice"))
    watcher = ChangeWatcher(alice.store)
    assert watcher.poll() is False and not alice.blind_models(ds)
    carol = Review(team.store("carol"))
    carol.set_rule(ds, carol.rule(ds), blind_models=True)
    assert _until(watcher.poll), "alice was not told that the dataset became blind"
    assert alice.blind_models(ds)
    watcher.close()
