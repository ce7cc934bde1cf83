"""Migration 2 on a version-1 database with reviews: stages and first submissions are backfilled."""

from __future__ import annotations

from sqlalchemy import text

from reviewer.jobs import silent
from reviewer.review import Review, Stage
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from tests.store import records as R


def test_a_version_1_database_with_reviews_gets_its_stages(db_url):
    store = Store(db_url)
    import_dataset(store.engine, R.dataset([R.item(i) for i in range(4)]), silent())
    ids = [store.find_item("demo", f"q{i}").id for i in range(4)]
    with store.engine.begin() as conn:  # back to the version 1 schema, with version 1 data
        conn.execute(text("DROP TABLE item_review"))
        conn.execute(text("DROP TABLE assignment"))
        conn.execute(text("ALTER TABLE annotation DROP COLUMN first_submission"))
        conn.execute(text("ALTER TABLE annotation DROP COLUMN first_key"))
        conn.execute(text("UPDATE reviewer_schema SET version = 1"))
        rows = [(ids[0], "ann", "pass"), (ids[1], "ann", "pass"), (ids[1], "bob", "reject"),
                (ids[2], "ann", "pass"), (ids[2], "bob", "pass")]
        for item_id, who, verdict in rows:
            conn.execute(text("INSERT INTO annotation (item_id, annotator, verdict, rubric, version, created_at, "
                              "updated_at) VALUES (:i, :w, :v, :r, 1, :t, :t)"),
                         {"i": item_id, "w": who, "v": verdict, "r": '{"ambiguity": "low"}',
                          "t": "2026-01-01 00:00:00"})
        conn.execute(text("INSERT INTO adjudication (item_id, verdict, resolution, version, created_at, updated_at) "
                          "VALUES (:i, 'pass', 'auto', 1, :t, :t)"), {"i": ids[2], "t": "2026-01-01 00:00:00"})
    store.close()
    upgraded = Store(db_url)
    reports = Review.for_reports(upgraded)
    assert [reports.stage(i) for i in ids] == [Stage.ONE_REVIEW, Stage.DISPUTED, Stage.UNANIMOUS,
                                               Stage.NOT_ANNOTATED]
    snap = reports.snapshot(ids[1])
    assert {k: d.verdict for k, d in snap.first_submissions.items()} == {"ann": "pass", "bob": "reject"}
    upgraded.close()
