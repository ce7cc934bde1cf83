"""Fixtures of the agreement panel tests: the bundled samples in a SQLite store
and a running panel on them (offscreen Qt)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything imports Qt

import pytest

from reviewer.review.annotate import save_annotation
from reviewer.review.rubric import Draft
from reviewer.samples import ensure_samples
from reviewer.store import ItemQuery, Store

GOOD = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}
BAD = dict(GOOD, content_faithfulness=False)


def rows_of(store, name: str):
    ds = store.dataset(name)
    return ds, store.item_page(ItemQuery(dataset_id=ds.id), 0, 1000)


def rate(store, item_id: int, who: str, verdict: str, tags: tuple[str, ...] = (), ambiguity: str = "low"):
    checks = GOOD if verdict == "pass" else BAD
    return save_annotation(store, item_id, who, Draft(verdict, dict(checks), ambiguity, None, list(tags)), None)


@pytest.fixture
def store(tmp_path):
    s = Store(str(tmp_path / "db.sqlite3"))
    ensure_samples(s)
    yield s
    s.close()


def annotate_skewed(store) -> list:
    """Tool selection (32 items): alice and bob pass all but two items, which bob alone rejects.
    Raw agreement 30/32 with nearly every rating "pass": the kappa paradox."""
    _, rows = rows_of(store, "sample-tool-selection")
    for i, row in enumerate(rows):
        rate(store, row.id, "alice", "pass")
        if i in (3, 7):
            rate(store, row.id, "bob", "reject", ("tool_selection",), "medium")
        else:
            rate(store, row.id, "bob", "pass")
    return rows


def annotate_unanimous(store) -> list:
    """Function calls (6 items): both annotators pass everything, so kappa is undefined."""
    _, rows = rows_of(store, "sample-function-calls")
    for row in rows:
        rate(store, row.id, "alice", "pass")
        rate(store, row.id, "bob", "pass")
    return rows


@pytest.fixture
def make_panel(qtbot, store):
    """make_panel(dataset_name or None for all datasets) -> a shown AgreementPanel with its first result."""
    from PySide6.QtCore import QThreadPool

    from reviewer_ui.agreement.panel import SCOPE_ALL, AgreementPanel
    from reviewer_ui.runtime.jobs import JobRunner

    runners = []

    def make(dataset: str | None, resamples: int = 200):
        runner = JobRunner(QThreadPool())
        runners.append(runner)
        current = store.dataset(dataset) if dataset else None
        panel = AgreementPanel(store, runner, lambda: current)
        panel.timer.setInterval(50)  # the debounce itself is not under test; waiting 1.5 s per test is
        panel.resamples.setValue(resamples)
        if dataset is None:
            panel.set_scope(SCOPE_ALL)
        qtbot.addWidget(panel)
        panel.resize(1200, 800)
        with qtbot.waitSignal(panel.updated, timeout=30_000):
            panel.show()
        return panel

    yield make
    for r in runners:
        r.shutdown(10_000)
