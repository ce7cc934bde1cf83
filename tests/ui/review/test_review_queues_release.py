"""Queues, progress, the release panel and the workspace that hosts them, with
the real job runner (results arrive through signals; no sleeps)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QSettings, Qt

from reviewer.review import resolution
from reviewer.review.annotate import save_annotation
from reviewer.review.rubric import Draft
from reviewer_ui.review.queue_panel import QueuePanel
from reviewer_ui.review.release_panel import ReleasePanel
from reviewer_ui.review.session import SETTINGS_KEY, ReviewSession
from reviewer_ui.review.workspace import ReviewWorkspace

OK = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}


def passed(**kw):
    return Draft(**({"verdict": "pass", "checks": dict(OK), "ambiguity": "low", "difficulty": "medium"} | kw))


@pytest.fixture
def reviewed(sqlite_store, dataset):
    """q0 agreed (auto-settled), q1 small disagreement, q2 verdicts disagree, q3 only alice."""
    ids = dataset[1]
    save_annotation(sqlite_store, ids["q0"], "alice", passed(), None)
    save_annotation(sqlite_store, ids["q0"], "bob", passed(), None)
    save_annotation(sqlite_store, ids["q1"], "alice", passed(), None)
    save_annotation(sqlite_store, ids["q1"], "bob", passed(difficulty="hard"), None)
    save_annotation(sqlite_store, ids["q2"], "alice", passed(), None)
    save_annotation(sqlite_store, ids["q2"], "bob", Draft(verdict="reject", ambiguity="high"), None)
    save_annotation(sqlite_store, ids["q3"], "alice", passed(), None)
    return ids


def test_progress_and_queue_sorted_by_disagreement_with_reasons(qtbot, sqlite_store, dataset, reviewed, alice,
                                                                 carol, runner):
    panel = QueuePanel(alice, runner)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.refreshed, timeout=10000):
        panel.set_dataset(dataset[0])
    assert panel.mine_label.text() == "You (alice) annotated 4 of 5 items (80%)"  # beside the bar, not on it
    assert not panel.mine_bar.isTextVisible()
    assert panel.mine_bar.value() == 4 and panel.mine_bar.maximum() == 5
    # an annotator has no adjudication queue and no dataset-wide dispute counts
    assert panel.queue_list.count() == 1 and "adjudicators'" in panel.queue_list.item(0).text()
    assert "disputed" not in panel.dataset_label.text()
    panel = QueuePanel(carol, runner)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.refreshed, timeout=10000):
        panel.set_dataset(dataset[0])
    assert "3 reviewed twice" in panel.dataset_label.text()
    assert "2 disputed" in panel.dataset_label.text() and "1 settled (1 unanimous" in panel.dataset_label.text()
    rows = [panel.queue_list.item(i) for i in range(panel.queue_list.count())]
    assert [r.data(Qt.ItemDataRole.UserRole) for r in rows] == [reviewed["q2"], reviewed["q1"]]
    assert "verdict pass vs reject" in rows[0].text() and "difficulty medium vs hard" in rows[1].text()


def test_next_unannotated_and_activating_a_queue_entry(qtbot, sqlite_store, dataset, reviewed, alice, carol):
    panel = QueuePanel(alice)  # no runner: synchronous
    qtbot.addWidget(panel)
    panel.set_dataset(dataset[0])
    with qtbot.waitSignal(panel.navigate) as sig:
        panel.next_unannotated()
    assert sig.args == [reviewed["x0"]]  # the only item alice has not annotated
    adj_panel = QueuePanel(carol)
    qtbot.addWidget(adj_panel)
    adj_panel.set_dataset(dataset[0])
    with qtbot.waitSignal(adj_panel.adjudicate_requested) as sig:
        adj_panel._activated(adj_panel.queue_list.item(0))  # an adjudicator to its adjudication
    assert sig.args == [reviewed["q2"]]


def test_release_counts_reasons_and_exports_gold_jsonl(qtbot, sqlite_store, dataset, reviewed, carol, runner,
                                                      tmp_path):
    resolution.adjudicate(sqlite_store, reviewed["q1"], "carol", "pass", None, "difficulty is medium",
                          {"ambiguity": "low", "difficulty": "medium"}, None)
    panel = ReleasePanel(carol, runner)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.counted, timeout=10000):
        panel.set_dataset(dataset[0])
    assert (panel.released, panel.total) == (2, 5)
    assert "<b>2</b> of 5 items are released as Gold" in panel.summary.text()
    assert panel.reasons == {"not settled by dual review yet": 3}
    out = tmp_path / "gold.jsonl"
    with qtbot.waitSignal(panel.exported, timeout=10000):
        panel.export("jsonl", out)
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [x["record_id"] for x in lines] == ["q0", "q1"]
    assert lines[1]["provenance"]["adjudicator"] == "carol"
    assert "Exported 2 Gold item(s)" in panel.status.text()


def test_identity_is_persisted_in_settings(qapp, sqlite_store, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    session = ReviewSession(sqlite_store, settings)
    session.set_identity("erin", "adjudicator")
    again = ReviewSession(sqlite_store, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert again.name == "erin" and again.is_adjudicator
    assert settings.value(SETTINGS_KEY) == "erin"
    with pytest.raises(ValueError):
        session.set_identity("   ")


def test_workspace_routes_navigation_and_refreshes_after_saves(qtbot, sqlite_store, dataset, runner, tmp_path):
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    settings.setValue(SETTINGS_KEY, "alice")
    ws = ReviewWorkspace(sqlite_store, runner, settings)
    qtbot.addWidget(ws)
    ids = dataset[1]
    with qtbot.waitSignal(ws.queues.refreshed, timeout=10000):
        ws.show_item(sqlite_store.item(ids["q0"]))
    assert ws.queues.mine_bar.value() == 0
    with qtbot.waitSignal(ws.navigate, timeout=10000) as sig:  # R is saved off the GUI thread, then moves on
        ws.annotation.set_verdict("reject")
    assert sig.args == [ids["q1"]]
    # "You annotated 1 of 5" is current when the save lands: it came with the save, not from a later refresh
    assert ws.queues.queues.progress.mine == 0  # the last refresh still counted nothing
    assert ws.queues.mine_bar.value() == 1 and "annotated 1 of 5" in ws.queues.mine_label.text()
    ws.show_item(sqlite_store.item(ids["q1"]))
    with qtbot.waitSignal(ws.navigate, timeout=10000) as sig:
        ws.annotation.save_and_next()
    assert sig.args == [ids["q2"]]
    ws.setCurrentWidget(ws.release)
    qtbot.waitUntil(lambda: ws.release.total == 5, timeout=10000)
    ws.setCurrentWidget(ws.adjudication)
    assert "Only adjudicators" in ws.adjudication.access.text()


def test_export_gold_in_the_source_format_keeps_only_gold_with_the_fix(qtbot, sqlite_store, carol, runner,
                                                                       tmp_path):
    tools = [{"name": "Weather", "description": "forecasts"}, {"name": "Calendar", "description": "meetings"}]
    rows = [{"id": f"t{i}", "message": f"message {i}", "tools": tools, "expected": ["Weather"]} for i in range(3)]
    source = tmp_path / "select.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    ds = sqlite_store.import_dataset(source, "toolselect", name="select")
    t0, t1 = (sqlite_store.find_item("select", f"t{i}").id for i in (0, 1))
    checks = {"schema_conformance": True, "content_faithfulness": False, "cross_field_consistency": True}
    for who in ("alice", "bob"):  # both fix t0 the same way: settled automatically
        save_annotation(sqlite_store, t0, who, Draft("fix", dict(checks), "low", "medium", [], "",
                                                    ["Calendar", "Weather"]), None)
        save_annotation(sqlite_store, t1, who, Draft(verdict="reject", ambiguity="high"), None)
    panel = ReleasePanel(carol, runner)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.counted, timeout=10000):
        panel.set_dataset(ds.dataset_id)
    assert (panel.released, panel.total) == (1, 3)
    assert panel.reasons == {"not settled by dual review yet": 1, "rejected": 1, "ambiguity High": 1}
    with qtbot.waitSignal(panel.exported, timeout=10000):
        panel.export("source", tmp_path / "out")
    [written] = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    exported = [json.loads(x) for x in written.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["expected"]) for r in exported] == [("t0", ["Calendar", "Weather"])]


def test_a_pass_without_ambiguity_is_counted_withheld_and_its_reason_filters(qtbot, sqlite_store, dataset, carol,
                                                                          runner):
    """Both annotators press P on q1 and touch nothing else: settled, but the Release tab withholds it
    under "ambiguity not rated", and that entry narrows the table to it."""
    ids = dataset[1]
    for who in ("alice", "erin"):
        save_annotation(sqlite_store, ids["q0"], who, passed(), None)
        save_annotation(sqlite_store, ids["q1"], who, Draft(verdict="pass"), None)
    panel = ReleasePanel(carol, runner)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.counted, timeout=10000):
        panel.set_dataset(dataset[0])
    assert panel.released == 1 and panel.released_button.text() == "Released: 1"
    assert panel.reasons["ambiguity not rated"] == 1
    [entry] = [panel.reason_list.item(i) for i in range(panel.reason_list.count())
               if panel.reason_list.item(i).data(Qt.ItemDataRole.UserRole) == "ambiguity not rated"]
    assert entry.text().split() == ["1", "ambiguity", "not", "rated"]
    with qtbot.waitSignal(panel.show_items) as shown:
        panel._show_reason(entry)
    assert shown.args == ["withheld (ambiguity not rated)", [ids["q1"]]]


def test_identity_dialog_switches_name_and_role(qtbot, sqlite_store, alice):
    from reviewer_ui.review.identity_dialog import IdentityDialog

    dialog = IdentityDialog(alice)
    qtbot.addWidget(dialog)
    assert (dialog.name.text(), dialog.role.currentText()) == ("alice", "annotator")
    dialog.name.setText("")
    assert not dialog.ok.isEnabled()
    dialog.name.setText("frank")
    dialog.role.setCurrentText("adjudicator")
    with qtbot.waitSignal(alice.changed):
        dialog.ok.click()
    assert alice.name == "frank" and alice.is_adjudicator


def test_next_unannotated_with_a_runner_looks_the_item_up_off_the_gui_thread(qtbot, sqlite_store, dataset, reviewed,
                                                                            alice, runner):
    from tests.ui.review.test_review_annotation_panel import SqlThreads

    panel = QueuePanel(alice, runner)
    qtbot.addWidget(panel)
    panel.set_dataset(dataset[0])
    sql = SqlThreads(sqlite_store.engine)
    sql.on = True
    with qtbot.waitSignal(panel.navigate, timeout=10000) as sig:
        assert panel.next_unannotated() is None  # returned at once: the look-up is a job
    sql.on = False
    assert sig.args == [reviewed["x0"]]
    assert sql.gui == [] and sql.worker  # the query ran, on a worker
