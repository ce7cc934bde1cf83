"""Journey: a curator filters the item table to items whose guards failed, reads why in
the item view (the span found or "no evidence", the violated rule, the drifted gold) and
takes a gold program's answer in one action. Real widgets, real store, real sandbox;
screenshots of each step at 1366x768 and 1920x1080 under tests/ui/screenshots/guards/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from reviewer import guards
from reviewer.guards import settings as guard_settings
from reviewer.jobs import silent
from reviewer.store.importing import import_dataset
from tests.store import records as R
from tests.ui.conftest import shown_main_window

SHOTS = Path(__file__).parent / "screenshots" / "guards"
TEXT = ("The expedition started on 2 June 2023 and ended on 20 June 2023. "
        "The team of 12 climbers was led by Ana Ruiz, a guide from Cusco. ")
RESPONSE = json.dumps({"data": {"attributes": {"result": [{"accessionNumber": "0001-24", "formType": "8-K"}]}}})
PROGRAM = ('def get_answer(api_response):\n'
           '    return api_response["data"]["attributes"]["result"][0]["formType"]\n')


@pytest.fixture
def guard_store(tmp_path):
    from reviewer.store import Store

    store = Store(str(tmp_path / "guards.sqlite3"))
    trips = [R.item(i, gold=g, kind="extraction", payload={"text": TEXT}, context=None,
                    schema=json.dumps({"type": "object"}), category="trip")
             for i, g in enumerate([
                 {"leader": "Ana Ruiz", "start": "2023-06-02", "end": "2023-06-20", "team": 12},
                 {"leader": "Bo Chen", "start": "2023-06-02", "end": "2023-06-20", "team": 12},
                 {"leader": "Ana Ruiz", "start": "2023-06-20", "end": "2023-06-02", "team": 12}])]
    ds = import_dataset(store.engine, R.dataset(trips, name="trips"), silent())
    guard_settings.update(store, ds.dataset_id, rules=["$.start <= $.end"], min_words=10)
    guards.run_checks(store, ds.dataset_id)
    sec = import_dataset(store.engine, R.dataset([R.item(0, gold="10-K", context=RESPONSE, category="EXTRACTIVE",
                                                         payload={"task": "GetFormType", "gold_code": PROGRAM})],
                                                 name="sec"), silent())
    guards.run_checks(store, sec.dataset_id)
    yield store
    store.close()


def _shot(widget, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / f"{name}.png"))


def _showing(win, pane, record_id: str, dataset: str | None = None) -> bool:
    """The item view shows ``record_id`` and the guards pane shows that item's results."""
    b = win.item_view.bundle
    return (b is not None and b.detail.record_id == record_id and (dataset is None or b.detail.dataset == dataset)
            and pane.item_id == b.detail.id and pane.guards is not None and pane.guards.item_id == b.detail.id)


def _choose(qtbot, combo, data) -> None:
    """Pick ``data`` in a combo box with the keyboard, as a person would."""
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Home)
    while combo.currentData() != data:
        qtbot.keyClick(combo, Qt.Key.Key_Down)


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
def test_guard_journey(qtbot, guard_store, settings, size):
    win = shown_main_window(qtbot, guard_store, settings, size)
    tag = f"{size[0]}x{size[1]}"
    try:
        pane = win.item_view.guards
        win.select_dataset("trips")
        qtbot.waitUntil(lambda: win.model.rowCount() == 3, timeout=5000)

        _choose(qtbot, win.filters.guard, "grounding")
        qtbot.waitUntil(lambda: win.model.rowCount() == 1, timeout=5000)
        qtbot.waitUntil(lambda: _showing(win, pane, "q1"), timeout=5000)
        text = pane.body.text()
        assert "✗ Grounding" in text and "no evidence" in text and "$.leader = Bo Chen" in text
        assert "<b>2 June 2023</b>" in text  # the span found for $.start, in its context
        _shot(win, f"{tag}-1-grounding-failed")

        _choose(qtbot, win.filters.guard, "constraints")
        qtbot.waitUntil(lambda: win.model.rowCount() == 1 and _showing(win, pane, "q2"), timeout=5000)
        assert "✗ Constraints" in pane.body.text() and "$.start &lt;= $.end" in pane.body.text()
        assert "$.start = &quot;2023-06-20&quot; vs $.end = &quot;2023-06-02&quot;" in pane.body.text()
        assert not pane.take_answer.isVisible()
        _shot(win, f"{tag}-2-rule-violated")

        _choose(qtbot, win.filters.guard, "gold_program")  # the filters stay when the dataset changes
        win.select_dataset("sec")
        qtbot.waitUntil(lambda: _showing(win, pane, "q0", "sec"), timeout=10000)
        assert pane.take_answer.isVisible()
        assert "program's answer: <b>8-K</b> · stored gold: <b>10-K</b>" in pane.body.text()
        _shot(win, f"{tag}-3-gold-drift")
        item_id = pane.item_id
        with qtbot.waitSignal(pane.gold_changed, timeout=10000):
            pane.take_answer.setFocus()
            qtbot.keyClick(pane.take_answer, Qt.Key.Key_Space)
        assert guard_store.item(item_id).gold == "8-K"
        qtbot.waitUntil(lambda: not pane.take_answer.isVisible() and "✓ Gold program" in pane.body.text(),
                        timeout=10000)
        _shot(win, f"{tag}-4-answer-taken")
    finally:
        win.runner.shutdown(5000)


def test_rules_are_edited_in_the_app_and_the_check_runs_from_it(qtbot, guard_store, settings):
    from reviewer.guards import settings as gs
    from reviewer_ui.review.release_panel import count_release

    win = shown_main_window(qtbot, guard_store, settings, (1366, 768))
    try:
        pane = win.item_view.guards
        win.select_dataset("trips")
        qtbot.waitUntil(lambda: _showing(win, pane, "q0"), timeout=5000)
        pane.rules_button.setFocus()
        qtbot.keyClick(pane.rules_button, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: pane.dialog is not None and pane.dialog.isVisible(), timeout=5000)
        dialog = pane.dialog
        ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
        dialog.rules.setFocus()
        qtbot.keyClick(dialog.rules, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(dialog.rules, Qt.Key.Key_Return)
        qtbot.keyClicks(dialog.rules, "$.team between 1 and")
        assert not ok.isEnabled() and "rule 2" in dialog.problem.text()  # a broken rule cannot be saved
        qtbot.keyClicks(dialog.rules, " 10")
        assert ok.isEnabled()
        _shot(dialog, "rules-dialog")
        with qtbot.waitSignal(pane.settings_saved, timeout=5000):
            qtbot.keyClick(dialog, Qt.Key.Key_Return)
        dataset_id = guard_store.dataset("trips").id
        with guard_store.engine.connect() as conn:
            assert gs.load(conn, dataset_id).rules == ["$.start <= $.end", "$.team between 1 and 10"]
        with qtbot.waitSignal(pane.checked, timeout=20000) as blocker:
            pane.check_button.click()
        assert blocker.args[0].counts["constraints"] == {"fail": 3}  # a team of 12 breaks the new rule
        qtbot.waitUntil(lambda: "✗ Constraints" in pane.body.text() and "checked 3 items" in pane.progress.text(),
                        timeout=5000)
        _shot(win, "rules-checked")
        released, total, reasons = count_release(None, guard_store, dataset_id)  # the release report counts them
        assert reasons["guard failed: Constraints"] == 3 and reasons["guard failed: Leakage"] == 3
    finally:
        win.runner.shutdown(5000)


def test_a_changed_gold_reruns_the_program_when_the_item_is_shown(qtbot, guard_store, settings):
    win = shown_main_window(qtbot, guard_store, settings, (1366, 768))
    try:
        pane = win.item_view.guards
        item = guard_store.find_item("sec", "q0")
        guard_store.set_gold(item.id, "8-K", "bob", item.version)  # someone fixed it by hand elsewhere
        win.select_dataset("sec")
        qtbot.waitUntil(lambda: _showing(win, pane, "q0", "sec") and not pane.guards.stale
                        and "✓ Gold program" in pane.body.text(), timeout=20000)
        assert not pane.take_answer.isVisible()
    finally:
        win.runner.shutdown(5000)
