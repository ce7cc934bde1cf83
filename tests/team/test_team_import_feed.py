"""An admin's import into a team database (row-level security: no COPY) reads in its own
process even for a file big enough for the reading process (reviewer.store.import_feed)."""

from __future__ import annotations

from reviewer.store import import_feed
from tests.store import records as R


def test_an_admins_big_import_under_row_security_reads_in_process(team, tmp_path, monkeypatch):
    started = []
    real_start = import_feed.Feed.start
    monkeypatch.setattr(import_feed, "MIN_BYTES", 0)  # every NesTools file counts as big
    monkeypatch.setattr(import_feed.Feed, "start", lambda self: started.append(self) or real_start(self))
    admin = team.store("admin")
    try:
        summary = admin.import_dataset(R.nestools_like(tmp_path / "nt", 1200), format="nestools", name="teamnt")
        assert summary.added == 1200
        assert len(started) == 1 and started[0].received == 0  # started, then not used: ended unread
        assert started[0].proc is None
        item = admin.find_item("teamnt", "1")
        assert item.payload["api_ids"] == [9031, 10894, 1163] and item.payload["apis"] == item.raw["api"]
    finally:
        admin.close()
