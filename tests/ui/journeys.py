"""Helpers the journey tests share: answering message boxes and driving the
review workspace as a person would (kept here so the steps that depend on the
review protocol's widgets can be adapted in one place)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox


def answer_next_box(button: QMessageBox.StandardButton, seen: list[str] | None = None,
                    within_s: float = 30.0) -> None:
    """Press ``button`` in the next message box that opens within ``within_s`` seconds (modal boxes
    block the test's flow). It stops looking after that: a test that failed before its box opened
    must not leave a poller behind that answers a later test's box."""
    import time

    deadline = time.monotonic() + within_s

    def press() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            if time.monotonic() < deadline:
                QTimer.singleShot(20, press)
            return
        if seen is not None:
            seen.append(box.text())
        box.button(button).click()

    QTimer.singleShot(0, press)


def open_fix_dialog(qtbot, window):
    """Press E (Edit fix…) on the shown item; return (dialog, editor)."""
    ws = window.review
    qtbot.waitUntil(lambda: ws.annotation.detail is not None, timeout=5000)
    window.activateWindow()
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_E)
    qtbot.waitUntil(lambda: ws.annotation.fix_dialog is not None and ws.annotation.fix_dialog.isVisible(),
                    timeout=5000)
    dialog: QDialog = ws.annotation.fix_dialog
    return dialog, ws.annotation.fix_editor


# -- review steps (today's review API through its widgets; adapt here when the protocol changes) ----------


def become(qtbot, window, name: str, role: str = "annotator") -> None:
    """Sign in as ``name`` (the role is granted in the store first, as an admin would); done
    when the sign-in has landed (it reads the role in a job)."""
    from reviewer.review import annotate

    annotate.set_role(window.store, name, role)
    session = window.review.session
    session.set_identity(name)
    qtbot.waitUntil(lambda: session.signed_in and not session.signing_in and session.name == name, timeout=10000)


def show_row(qtbot, window, row: int):
    """Select ``row`` with the keyboard's current-row machinery and wait until the review panel shows it."""
    window.select_row(row)
    item_id = window.model.item_id(row)
    qtbot.waitUntil(lambda: window.review.annotation.detail is not None
                    and window.review.annotation.detail.id == item_id, timeout=5000)
    return item_id


def annotate_rows(qtbot, window, verdicts: dict[int, str]) -> None:
    """As the signed-in annotator, give each row its verdict by keyboard from the item table:
    a Pass answers the rubric checks first (keys 1, 2, 3...), a Reject is R. Each row is done
    when its save has landed (the panel's ``saved``): a verdict moves the panel on to the next
    item by itself, so its draft may already be the next item's by the time anyone looks."""
    panel = window.review.annotation
    stored: list = []
    panel.saved.connect(stored.append)
    try:
        for row, verdict in verdicts.items():
            item_id = show_row(qtbot, window, row)
            window.activateWindow()
            window.table.setFocus()
            qtbot.waitUntil(window.table.hasFocus, timeout=3000)
            if verdict == "pass":
                for n in range(len(panel.check_rows)):
                    qtbot.keyClick(window.table, str(n + 1))
                qtbot.keyClick(window.table, "p")
            else:
                qtbot.keyClick(window.table, "r")
            qtbot.waitUntil(lambda: any(v.item_id == item_id and v.draft.verdict == verdict for v in stored),
                            timeout=10000)
    finally:
        panel.saved.disconnect(stored.append)


def adjudicate_row(qtbot, window, row: int, take: str, rationale: str) -> None:
    """As the signed-in adjudicator: open the Adjudicate tab on ``row``, take A's or B's
    decision, write the rationale and settle."""
    ws = window.review
    ws.setCurrentWidget(ws.adjudication)
    item_id = show_row(qtbot, window, row)
    view = ws.adjudication
    qtbot.waitUntil(lambda: view.detail is not None and view.detail.id == item_id and view.a is not None,
                    timeout=5000)
    qtbot.mouseClick(view.pick_a if take == "a" else view.pick_b, Qt.MouseButton.LeftButton)
    view.rationale.setFocus()
    qtbot.keyClicks(view.rationale, rationale)
    qtbot.waitUntil(view.settle_button.isEnabled, timeout=3000)
    with qtbot.waitSignal(view.settled, timeout=5000):
        qtbot.mouseClick(view.settle_button, Qt.MouseButton.LeftButton)


# -- screenshots (tools/journey_screenshots.py sets REVIEWER_SHOTS) ----------------------------------------

_shot_counter: dict[str, int] = {}


def shot(window, step: str, *extra) -> None:
    """Save the window (and any ``extra`` top-level widgets: dialogs) as PNGs when
    $REVIEWER_SHOTS names a folder; a no-op in ordinary test runs."""
    import os
    import re

    folder = os.environ.get("REVIEWER_SHOTS")
    if not folder:
        return
    from PySide6.QtWidgets import QApplication

    # Photograph the window once its layout has settled (a dock refits in a posted event):
    # a shot of a transient state showed cut controls no user would see. Screenshot mode only.
    import time

    from tools.fitcheck import fit_problems

    for _ in range(3):
        QApplication.processEvents()
    deadline = time.monotonic() + 2.0
    while fit_problems(window) and time.monotonic() < deadline:
        QApplication.processEvents()
    test = os.environ.get("PYTEST_CURRENT_TEST", "journey").split("::")[-1].split(" ")[0]
    test = re.sub(r"[^A-Za-z0-9x_-]+", "-", test.replace("test_", ""))[:100]
    n = _shot_counter[test] = _shot_counter.get(test, 0) + 1
    base = os.path.join(folder, f"{test}-{n:02d}-{step}")
    window.grab().save(base + ".png")
    for i, w in enumerate(extra):
        w.grab().save(f"{base}-dialog{i + 1}.png")


def wait_idle(qtbot, window) -> None:
    """Wait until no job runs and the review queue has no refresh pending."""
    qtbot.waitUntil(lambda: window.runner.active == 0 and not window.review._queue_timer.isActive(), timeout=15000)


def window_signed_in(qtbot, store, tmp_path, size, identity: str, dataset: str, settings: dict | None = None):
    """A MainWindow of ``size`` whose settings open ``dataset`` signed in as ``identity`` (with
    ``settings``' other keys), returned once the sign-in landed and the review panel shows an item."""
    from PySide6.QtCore import QSettings

    from reviewer_ui.main_window import MainWindow

    stored = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    for key, value in {"review/identity": identity, "dataset": dataset, **(settings or {})}.items():
        stored.setValue(key, value)
    window = MainWindow(store, stored)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    ws, session = window.review, window.review.session
    qtbot.waitUntil(lambda: session.signed_in and session.name == identity and window.model.rowCount() > 0
                    and ws.annotation.detail is not None and not ws.annotation.loading, timeout=10000)
    return window
