"""Journey: alice, bob (annotators) and carol (adjudicator) review one item through the real
app window, each connected to the team database with their own PostgreSQL login, driven
from the keyboard, at 1366x768 and 1920x1080. Screenshots of every step are saved
(to $REVIEWER_SHOTS/<size>/ when set, see tools/review_protocol_screenshots.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLabel
from sqlalchemy import text

from reviewer.jobs import silent
from reviewer.review import Review, Stage
from reviewer.store import Store
from reviewer.store.importing import import_dataset
from tests.store import records as R
from tests.team.conftest import team  # noqa: F401  (the fixture)
from tests.ui.conftest import shown_main_window
from tests.ui.review.visible import everything_shown as _everything_shown

pytestmark = pytest.mark.postgres


def _visible_text(widget) -> str:
    """Everything a person can read in the review dock: every visible label's text."""
    return "\n".join(label.text() for label in widget.findChildren(QLabel) if label.isVisibleTo(widget))


# Run and model names of the dataset's two runs: annotators must never see them (the dataset is blind).
RUNS = {"zebra-run-alpha": "gpt-zebra-7b-secret", "okapi-run-beta": "claude-okapi-secret"}
SECRETS = [*RUNS, *RUNS.values()]


def _add_runs(owner, ds) -> None:
    from reviewer.formats.base import OutputRecord, ParsedRun, RunRecord
    from reviewer.store.importing import import_run

    for name, model in RUNS.items():
        outs = (OutputRecord(record_id=f"q{i}", text=f"Answer {i}" if name.startswith("zebra") else f"Other {i}",
                             prediction=None, raw={"model": model}, extra={"model": model}, source_line=i + 1)
                for i in range(3))
        import_run(owner.engine, ds, ParsedRun(RunRecord(name=name, format="test-preds", source=f"{name}.jsonl",
                                                         model=model), outs), silent())


def _key(qtbot, window, *keys) -> None:
    window.activateWindow()
    window.table.setFocus()
    for key in keys:
        qtbot.keyClick(window.table, key)


def _show_row(qtbot, window, row: int) -> None:
    item_id = window.model.item_id(row)
    window.select_row(row)
    qtbot.waitUntil(lambda: window.review.annotation.detail is not None
                    and window.review.annotation.detail.id == item_id, timeout=10000)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=["1366x768", "1920x1080"])
def test_three_people_follow_the_blind_protocol_in_the_app(qtbot, team, tmp_path, size):  # noqa: F811
    shots = Path(os.environ.get("REVIEWER_SHOTS") or tmp_path) / f"{size[0]}x{size[1]}"
    shots.mkdir(parents=True, exist_ok=True)
    owner = Store(team.admin_url)
    ds = import_dataset(owner.engine, R.dataset([R.item(i, gold=f"Answer {i}") for i in range(3)]),
                        silent()).dataset_id
    with owner.engine.begin() as conn:
        for who in ("alice", "bob"):
            conn.execute(text("insert into assignment (dataset_id, item_id, annotator, created_at) "
                              "select :ds, id, :who, now() from item where dataset_id = :ds"),
                         {"ds": ds, "who": team.logins[who]})
    _add_runs(owner, ds)
    q0 = owner.find_item("demo", "q0").id
    windows = []

    def open_window(person: str):
        settings = QSettings(str(tmp_path / f"{person}-{size[0]}.ini"), QSettings.Format.IniFormat)
        w = shown_main_window(qtbot, team.store(person), settings, size)
        windows.append(w)
        w.select_dataset("demo")
        qtbot.waitUntil(lambda: w.review.annotation.detail is not None, timeout=10000)
        _show_row(qtbot, w, 0)
        qtbot.waitUntil(lambda: w.review.session.signed_in, timeout=10000)  # the role is read in a job
        assert w.review.session.name == team.logins[person]  # the login, not a typed name
        return w

    def shot(window, name: str) -> None:
        qtbot.wait(50)  # let the last repaint land before grabbing
        window.grab().save(str(shots / f"{name}.png"))

    carol_core = Review(team.store("carol"))
    carol_core.set_rule(ds, carol_core.rule(ds), blind_models=True)  # annotators see "Output 1, 2"

    def blind_check(window, who: str) -> None:
        seen = _everything_shown(window)
        assert [s for s in SECRETS if s in seen] == [], f"{who} saw a run or model name"
        assert "Output 1" in seen and "Output 2" in seen

    def dock_fits(window) -> None:
        """The Review dock is no wider than it needs (≤ 420 px at 1366x768) and clips nothing."""
        if size == (1366, 768):
            assert window.review_dock.width() <= 420, window.review_dock.width()
        panel = window.review.annotation
        assert panel.width() >= panel.minimumSizeHint().width()

    try:
        # alice: checks yes (1 2 3), ambiguity low (A), difficulty confirmed (D), Pass (P) -> next item
        alice = open_window("alice")
        _key(qtbot, alice, Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_A, Qt.Key.Key_D)
        _key(qtbot, alice, Qt.Key.Key_P)
        qtbot.waitUntil(lambda: alice.review.annotation.detail.id != q0, timeout=10000)  # advanced
        assert carol_core.stage(q0) == Stage.ONE_REVIEW
        _show_row(qtbot, alice, 0)
        # The item's status line says so once its review is read (on the runner). (The queue panel's
        # note on the statuses, which said "waiting for a second review" too, is now a tooltip.)
        qtbot.waitUntil(lambda: "waiting for a second review" in _visible_text(alice.review), timeout=10000)
        qtbot.waitUntil(lambda: alice.item_view.bundle is not None and alice.item_view.bundle.blind, timeout=10000)
        blind_check(alice, "alice")
        dock_fits(alice)
        assert not alice.runs_dock.isVisible()  # the Runs dock is about named runs: closed while blind
        shot(alice, "1-alice-submitted-pass")

        # bob: Reject (R) on the same item; he never sees alice's verdict, then or after
        bob = open_window("bob")
        assert "alice" not in _visible_text(bob.review) and "Pass" not in alice.review.annotation.status.text()
        _key(qtbot, bob, Qt.Key.Key_R)
        qtbot.waitUntil(lambda: bob.review.annotation.detail.id != q0, timeout=10000)
        _show_row(qtbot, bob, 0)
        qtbot.waitUntil(lambda: "with the adjudicator" in bob.review.annotation.stage_label.text(), timeout=10000)
        seen = _visible_text(bob.review)
        assert "with the adjudicator" in seen and team.logins["alice"] not in seen
        qtbot.waitUntil(lambda: bob.item_view.bundle is not None and bob.item_view.bundle.blind, timeout=10000)
        blind_check(bob, "bob")
        dock_fits(bob)
        bob.model.refresh()
        qtbot.waitUntil(lambda: "with the adjudicator" in str(bob.model.index(0, bob_review_col(bob)).data()),
                        timeout=10000)
        qtbot.waitUntil(lambda: "annotated 1 of 3" in bob.review.queues.mine_label.text(), timeout=10000)
        shot(bob, "2-bob-rejected-blind")
        # bob changes his mind (1 2 3 A P): the item stays with the adjudicator
        _key(qtbot, bob, Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_A, Qt.Key.Key_P)
        qtbot.waitUntil(lambda: bob.review.annotation.detail.id != q0, timeout=10000)
        assert carol_core.stage(q0) == Stage.DISPUTED
        assert carol_core.snapshot(q0).others[1].draft.verdict == "pass"  # his revision was saved
        _show_row(qtbot, bob, 0)
        shot(bob, "3-bob-revised-still-disputed")

        # carol: the queue lists q0 (verdict disagreement first); Enter opens it; she settles
        carol = open_window("carol")
        queue = carol.review.queues
        qtbot.waitUntil(lambda: queue.queue_list.count() > 0 and
                        queue.queue_list.item(0).data(Qt.ItemDataRole.UserRole) == q0, timeout=10000)
        assert "verdict pass vs reject" in queue.queue_list.item(0).text()
        queue.queue_list.setFocus()
        queue.queue_list.setCurrentRow(0)
        qtbot.keyClick(queue.queue_list, Qt.Key.Key_Return)
        view = carol.review.adjudication
        qtbot.waitUntil(lambda: view.detail is not None and view.detail.id == q0 and view.a is not None,
                        timeout=10000)
        shot(carol, "4-carol-adjudicates")
        qtbot.waitUntil(lambda: carol.item_view.bundle is not None and carol.item_view.bundle.detail.id == q0,
                        timeout=10000)
        carol_sees = _everything_shown(carol)
        assert all(name in carol_sees for name in RUNS)  # the adjudicator sees the run names
        assert not carol.item_view.bundle.blind
        view.pick_original.setFocus()
        qtbot.keyClick(view.pick_original, Qt.Key.Key_Space)
        view.verdict.buttons["pass"].setFocus()
        qtbot.keyClick(view.verdict.buttons["pass"], Qt.Key.Key_Space)
        view.rationale.setFocus()
        qtbot.keyClicks(view.rationale, "The answer is supported by the tool output")
        view.ambiguity.buttons["low"].setFocus()
        qtbot.keyClick(view.ambiguity.buttons["low"], Qt.Key.Key_Space)
        with qtbot.waitSignal(view.settled, timeout=10000):
            qtbot.keyClick(view.rationale, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        assert carol_core.stage(q0) == Stage.ADJUDICATED
        assert carol_core.snapshot(q0).adjudication.rationale == "The answer is supported by the tool output"
        shot(carol, "5-carol-settled")

        # alice still has the item open: carol's decision reaches her without a restart (live update)
        _show_row(qtbot, alice, 0)
        qtbot.waitUntil(lambda: "settled" in alice.review.annotation.stage_label.text(), timeout=15000)
        seen = _visible_text(alice.review)
        assert "settled" in seen.lower() and team.logins["bob"] not in seen and "Reject" not in seen.split("Status")[-1]
        shot(alice, "6-alice-sees-settled")
    finally:
        for w in windows:
            w.review.stop_live()
            w.runner.shutdown(5000)
            w.close()


def bob_review_col(window) -> int:
    from reviewer_ui.models.item_table import COL

    return COL["Review"]
