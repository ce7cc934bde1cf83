"""Signing in never reads the database on the GUI thread: the window's ReviewSession reads the
role (on PostgreSQL also whether the database is in team mode) in a job, and the identity
dialog looks a typed name's role up and writes the chosen one in jobs too. Until the role
lands the window is usable and shows nothing adjudicator-only ("Signing in as …"); a newer
sign-in wins over an older one; a refusal is a message, never a traceback.

The journey (alice signs in at start, becomes carol the adjudicator through Review ▸
Identity… by keyboard) saves a screenshot of each step to $REVIEWER_SHOTS when set."""

from __future__ import annotations

import os
import threading

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication
from sqlalchemy import text

from reviewer.review import annotate
from reviewer.review.rubric import Draft
from tests.ui.journeys import wait_idle
from tests.ui.review.test_review_annotation_panel import SqlThreads
from tests.ui.review.visible import everything_shown

CTRL_ALT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier


def _settings(tmp_path, name: str) -> QSettings:
    s = QSettings(str(tmp_path / f"settings-{name}.ini"), QSettings.Format.IniFormat)
    s.setValue("review/identity", name)
    return s


def _window(qtbot, store, settings, size=(1366, 768)):
    from reviewer_ui.main_window import MainWindow

    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    return w


def _signed_in(session, name: str) -> bool:
    return session.signed_in and not session.signing_in and session.name == name


def _focus(widget) -> QApplication:
    return QApplication.focusWidget() or widget


def drive_identity_dialog(qtbot, window, name: str, role: str, during=None) -> list:
    """As a person would: Ctrl+Alt+I (Review ▸ Identity…) from the item table, Ctrl+A and type
    ``name``, Tab to the role and pick ``role`` with the arrow keys, Enter. ``during(dialog,
    step)`` runs at "filled" (before Enter) and "entered" (just after it, the dialog still open
    while it signs in). The dialog is modal: it is driven from inside its own event loop (a
    failure there rejects it and is raised here). Returns [dialog, what it said after Enter]."""
    from reviewer_ui.review.identity_dialog import IdentityDialog

    seen: list = []
    errors: list = []
    tries = [0]

    def drive() -> None:
        dialog = QApplication.activeModalWidget()
        ready = isinstance(dialog, IdentityDialog) and dialog.name.hasFocus()
        if not ready:  # not open, or not focused, yet
            tries[0] += 1
            if tries[0] < 250:
                QTimer.singleShot(20, drive)
            elif isinstance(dialog, IdentityDialog):
                errors.append(AssertionError("the identity dialog opened without the keyboard in its name field"))
                dialog.reject()
            return
        try:
            seen.append(dialog)
            qtbot.keyClick(dialog.name, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            qtbot.keyClicks(dialog.name, name)
            qtbot.keyClick(dialog.name, Qt.Key.Key_Tab)
            assert dialog.role.hasFocus(), "Tab did not move to the role"
            target = dialog.role.findText(role)
            while dialog.role.currentIndex() != target:
                key = Qt.Key.Key_Down if dialog.role.currentIndex() < target else Qt.Key.Key_Up
                qtbot.keyClick(_focus(dialog.role), key)
            if during:
                during(dialog, "filled")
            qtbot.keyClick(_focus(dialog.role), Qt.Key.Key_Return)
            seen.append(dialog.error.text())
            if during:
                during(dialog, "entered")
        except BaseException as exc:  # noqa: BLE001 - raised in the test, not lost in the event loop
            errors.append(exc)
            dialog.reject()

    QTimer.singleShot(0, drive)
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(window.table.hasFocus, timeout=3000)
    qtbot.keyClick(window.table, Qt.Key.Key_I, CTRL_ALT)  # returns once the dialog has closed
    if errors:
        raise errors[0]
    assert seen, "Ctrl+Alt+I did not open the identity dialog"
    return seen


# -- (a) no SQL on the GUI thread: building the window, and the identity dialog ----------------------------


def test_building_the_window_and_changing_identity_run_no_sql_on_the_gui_thread(qtbot, db_url, tmp_path):
    """The role query (on PostgreSQL also the team-mode check) runs on a worker as the window is
    built; the dialog's role lookup, its role write and the read back run on workers too."""
    from reviewer.store import Store
    from tools.demo import build_demo_store

    store = Store(db_url)
    build_demo_store(store)
    annotate.set_role(store, "alice", "annotator")
    sql = SqlThreads(store.engine)
    sql.on = True
    window = _window(qtbot, store, _settings(tmp_path, "alice"))
    try:
        session, panel = window.review.session, window.review.annotation
        qtbot.waitUntil(lambda: bool(window.datasets) and session.name == "alice", timeout=10000)
        window.select_dataset("demo-tool_qa")
        qtbot.waitUntil(lambda: panel.detail is not None and not panel.loading and panel.snapshot is not None,
                        timeout=10000)
        assert session.role == "annotator"

        said = drive_identity_dialog(qtbot, window, "carol", "adjudicator")
        qtbot.waitUntil(lambda: session.name == "carol" and session.is_adjudicator, timeout=10000)
        wait_idle(qtbot, window)
        sql.on = False
        assert sql.gui == [], f"SQL on the GUI thread while signing in: {sql.gui[:3]}"
        assert any("person" in s for s in sql.worker)  # the role was read (and written) on a worker
        assert "Signing in as carol" in said[1]  # the dialog waited for the job, saying so
        assert annotate.role_of(store, "carol") == "adjudicator"  # written
    finally:
        wait_idle(qtbot, window)
        window.runner.shutdown(5000)
        window.close()
        store.close()


# -- (b) the journey: alice at start, carol the adjudicator by keyboard --------------------------------------


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_alice_signs_in_then_becomes_carol_the_adjudicator_by_keyboard(qtbot, demo_store, tmp_path, size):
    store = demo_store
    annotate.set_role(store, "alice", "annotator")
    settings = _settings(tmp_path, "alice")
    settings.setValue("dataset", "demo-tool_qa")
    disputed = store.find_item("demo-tool_qa", "bikes-1")
    for who, verdict in (("alice", "pass"), ("bob", "reject")):  # one disputed item waits for an adjudicator
        annotate.save_annotation(store, disputed.id, who, Draft(verdict=verdict, ambiguity="low",
                                                                difficulty="medium", checks={}), None)
    sql = SqlThreads(store.engine)
    sql.on = True
    window = _window(qtbot, store, settings, size)
    ws, session = window.review, window.review.session
    try:
        # Built, not signed in yet: an annotator's view, saying so (the grab runs no event loop)
        assert session.signing_in
        assert not ws.queues.queue_list.isVisibleTo(ws) and "Signing in as alice" in ws.queues.mine_label.text()
        _save(window, size, "1-signing-in")
        qtbot.waitUntil(lambda: _signed_in(session, "alice") and window.item_view.bundle is not None
                        and ws.annotation.detail is not None and not ws.annotation.loading, timeout=10000)
        qtbot.waitUntil(lambda: "annotated" in ws.queues.mine_label.text(), timeout=10000)
        assert session.role == "annotator" and not ws.queues.queue_list.isVisibleTo(ws)
        assert "as alice" in ws.annotation.who.text()
        _save(window, size, "2-alice-signed-in")

        def during(dialog, step):
            _save(dialog, size, f"3-dialog-{step}")

        said = drive_identity_dialog(qtbot, window, "carol", "adjudicator", during)
        assert "Signing in as carol" in said[1]
        qtbot.waitUntil(lambda: _signed_in(session, "carol") and ws.queues.queue_list.isVisibleTo(ws)
                        and ws.queues.queue_list.count() > 0
                        and ws.queues.queue_list.item(0).data(Qt.ItemDataRole.UserRole) is not None, timeout=10000)
        assert session.is_adjudicator and "as carol" in ws.annotation.who.text()
        assert "bikes-1" in ws.queues.queue_list.item(0).text()  # the disputed item, for carol to settle
        wait_idle(qtbot, window)
        _save(window, size, "4-carol-adjudication-queue")

        # Ctrl+Shift+A puts the keyboard in the queue; Enter opens the item on the Adjudicate tab
        window.activateWindow()
        window.table.setFocus()
        qtbot.waitUntil(window.table.hasFocus, timeout=3000)
        qtbot.keyClick(window.table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier
                       | Qt.KeyboardModifier.ShiftModifier)
        qtbot.waitUntil(ws.queues.queue_list.hasFocus, timeout=3000)
        ws.queues.queue_list.setCurrentRow(0)
        qtbot.keyClick(ws.queues.queue_list, Qt.Key.Key_Return)
        view = ws.adjudication
        qtbot.waitUntil(lambda: view.detail is not None and view.a is not None and view.body.isVisible(),
                        timeout=10000)
        assert {view.a.annotator, view.b.annotator} == {"alice", "bob"}
        wait_idle(qtbot, window)
        _save(window, size, "5-carol-adjudicates")
        sql.on = False
        assert sql.gui == [], f"SQL on the GUI thread: {sql.gui[:3]}"
    finally:
        wait_idle(qtbot, window)
        window.runner.shutdown(5000)
        window.close()


def _save(widget, size, step: str) -> None:
    """A screenshot of ``step`` in $REVIEWER_SHOTS/sign-in-<size>/ (when set); grabbed as is."""
    folder = os.environ.get("REVIEWER_SHOTS")
    if not folder:
        return
    path = os.path.join(folder, f"sign-in-{size[0]}x{size[1]}")
    os.makedirs(path, exist_ok=True)
    widget.grab().save(os.path.join(path, f"{step}.png"))


# -- least privilege until the role lands; the newest sign-in wins; refusals are messages ---------------------


@pytest.fixture
def gate(runner):
    """Hold ``runner``'s only worker until ``gate.set()``: jobs started meanwhile wait their turn
    (a sign-in that has not landed yet, however fast the database is)."""
    held = threading.Event()
    runner.pool.setMaxThreadCount(1)
    runner.start("gate", lambda _ctx: held.wait(30))
    yield held
    held.set()


def test_until_the_role_lands_an_adjudicator_is_treated_as_an_annotator(qtbot, sqlite_store, dataset, tmp_path,
                                                                         runner, gate):
    from reviewer_ui.review.workspace import ReviewWorkspace

    annotate.set_role(sqlite_store, "carol", "adjudicator")
    q0 = dataset[1]["q0"]
    for who, verdict in (("alice", "pass"), ("bob", "reject")):  # disputed: carol has something to settle
        annotate.save_annotation(sqlite_store, q0, who, Draft(verdict=verdict, ambiguity="low", difficulty="medium",
                                                              checks={}), None)
    ws = ReviewWorkspace(sqlite_store, runner, _settings(tmp_path, "carol"))
    qtbot.addWidget(ws)
    ws.show()
    session = ws.session
    ws.set_dataset(dataset[0])
    ws.show_item(sqlite_store.item(q0))
    ws.setCurrentWidget(ws.adjudication)
    qtbot.waitExposed(ws)
    assert session.signing_in and session.name == "carol" and session.role == "annotator"
    assert not session.is_adjudicator and not session.review.may_adjudicate
    assert not ws.queues.queue_list.isVisibleTo(ws.queues) and not ws.adjudication.body.isVisibleTo(ws.adjudication)
    assert "Signing in as carol" in ws.adjudication.access.text()
    seen = everything_shown(ws)
    assert "bob" not in seen and "reject" not in seen.lower().replace("reject (r)", "")  # nobody's verdict
    assert ws.annotation.loading and "Signing in as carol" in ws.annotation.status.text()
    assert not ws.annotation.verdict.isEnabled()
    with qtbot.waitSignal(session.changed, timeout=10000):
        gate.set()
    assert _signed_in(session, "carol") and session.is_adjudicator
    qtbot.waitUntil(lambda: ws.queues.queue_list.isVisibleTo(ws.queues) and ws.adjudication.a is not None
                    and ws.adjudication.body.isVisibleTo(ws.adjudication) and not ws.annotation.loading,
                    timeout=10000)
    assert {ws.adjudication.a.annotator, ws.adjudication.b.annotator} == {"alice", "bob"}
    qtbot.waitUntil(lambda: runner.active == 0, timeout=10000)


def test_keys_typed_while_signing_in_apply_once_the_role_has_landed(qtbot, sqlite_store, dataset, tmp_path, runner,
                                                                    gate):
    from reviewer.review.annotate import snapshot
    from reviewer_ui.review.session import ReviewSession
    from tests.ui.review.test_review_annotation_panel import shown_panel

    annotate.set_role(sqlite_store, "alice", "annotator")
    session = ReviewSession(sqlite_store, _settings(tmp_path, "alice"), runner=runner)
    session.set_advance_after_verdict(False)
    panel = shown_panel(qtbot, session, runner)
    panel.show_item(sqlite_store.item(dataset[1]["q0"]))
    assert session.signing_in and panel.loading and "Signing in as alice" in panel.status.text()
    qtbot.keyClick(panel, Qt.Key.Key_R)  # typed ahead: waits for the sign-in, then for the item's review
    assert session.signing_in and panel.draft.verdict is None
    gate.set()
    qtbot.waitUntil(lambda: not session.signing_in and not panel.loading and not panel.saving, timeout=10000)
    assert panel.draft.verdict == "reject"
    assert snapshot(sqlite_store, dataset[1]["q0"], "alice").mine.draft.verdict == "reject"


def test_a_newer_sign_in_wins_over_an_older_one_still_running(qtbot, sqlite_store, tmp_path, runner):
    from reviewer_ui.review.session import ReviewSession

    session = ReviewSession(sqlite_store, _settings(tmp_path, "alice"), runner=runner)
    qtbot.waitUntil(lambda: _signed_in(session, "alice"), timeout=10000)
    landed = []
    session.changed.connect(lambda: landed.append((session.name, session.role, session.signing_in)))
    # Three sign-ins before any lands (no event loop runs between them); the older ones are
    # superseded, and a role write of theirs that already began is done before the newest one's.
    session.set_identity("erin", "adjudicator")
    session.set_identity("frank")
    session.set_identity("erin", "annotator")  # she changed her mind
    qtbot.waitUntil(lambda: not session.signing_in, timeout=10000)
    qtbot.waitUntil(lambda: runner.active == 0, timeout=10000)  # the superseded jobs ended too
    assert (session.name, session.role) == ("erin", "annotator")
    assert annotate.role_of(sqlite_store, "erin") == "annotator"  # the older write never lands after the newer
    assert [x for x in landed if not x[2]] == [("erin", "annotator", False)]  # one landing: the newest
    assert all(role == "annotator" for _, role, _ in landed)  # never an adjudicator on the way


def test_a_refused_sign_in_is_a_message_and_the_window_stays_usable(qtbot, sqlite_store, dataset, tmp_path,
                                                                     monkeypatch):
    """The database refuses the sign-in: at start the panels say "Not signed in" and the status
    bar why, in one line; the table still browses; the dialog then says "Not changed" and stays
    open; once the database answers, Enter in the same dialog signs in."""
    import sqlite3

    from sqlalchemy.exc import OperationalError

    from reviewer_ui.review import session as session_module

    real = session_module.sign_in
    refusing = [True]

    def sign_in(ctx, store, name, role, lock=None):
        if refusing[0]:
            raise OperationalError("SELECT person.role FROM person WHERE person.name = ?", (name,),
                                   sqlite3.OperationalError("database is locked"))
        return real(ctx, store, name, role, lock)

    monkeypatch.setattr(session_module, "sign_in", sign_in)
    settings = _settings(tmp_path, "alice")
    settings.setValue("dataset", "demo")
    window = _window(qtbot, sqlite_store, settings)
    ws, session = window.review, window.review.session
    try:
        qtbot.waitUntil(lambda: not session.signing_in and ws.annotation.detail is not None
                        and window.model.rowCount() == 5, timeout=10000)
        assert not session.signed_in and not session.is_adjudicator
        said = window.statusBar().currentMessage()
        assert said == "Could not sign in as alice: database is locked"  # no statement, no traceback
        assert "Not signed in: database is locked" in ws.annotation.status.text()
        assert not ws.annotation.loading and not ws.annotation.verdict.isEnabled()
        assert "Not signed in" in ws.queues.mine_label.text()

        def retry(dialog, step):
            if step != "entered":
                return
            if dialog.busy:
                QTimer.singleShot(20, lambda: retry(dialog, step))
                return
            said.append(dialog.error.text())
            refusing[0] = False
            assert dialog.isVisible() and dialog.name.hasFocus()
            qtbot.keyClick(dialog.name, Qt.Key.Key_Return)  # the same dialog, again

        said = []
        drive_identity_dialog(qtbot, window, "carol", "adjudicator", retry)
        assert said == ["Not changed: database is locked"]  # shown in the dialog, which stayed open
        assert _signed_in(session, "carol") and session.is_adjudicator
        qtbot.waitUntil(lambda: ws.annotation.detail is not None and not ws.annotation.loading
                        and ws.annotation.verdict.isEnabled(), timeout=10000)
    finally:
        wait_idle(qtbot, window)
        window.runner.shutdown(5000)
        window.close()


def test_a_refused_switch_keeps_the_identity_the_database_confirmed(qtbot, sqlite_store, tmp_path, runner):
    from reviewer_ui.review.session import ReviewSession

    annotate.set_role(sqlite_store, "carol", "adjudicator")
    session = ReviewSession(sqlite_store, _settings(tmp_path, "carol"), runner=runner)
    qtbot.waitUntil(lambda: _signed_in(session, "carol"), timeout=10000)
    with sqlite_store.engine.begin() as conn:
        conn.execute(text("alter table person rename to person_away"))
    with qtbot.waitSignal(session.failed, timeout=10000) as failed:
        session.set_identity("alice", "annotator")
        assert session.name == "alice" and not session.is_adjudicator  # meanwhile: least privilege
    assert failed.args == ["Could not sign in as alice: no such table: person"]
    assert _signed_in(session, "carol") and session.is_adjudicator  # nothing changed
    assert session.settings.value("review/identity") == "carol"


def test_the_identity_dialog_shows_a_typed_names_role_without_reading_on_the_gui_thread(qtbot, sqlite_store,
                                                                                        tmp_path, runner):
    from reviewer_ui.review.identity_dialog import IdentityDialog
    from reviewer_ui.review.session import ReviewSession

    annotate.set_role(sqlite_store, "alice", "annotator")
    annotate.set_role(sqlite_store, "carol", "adjudicator")
    session = ReviewSession(sqlite_store, _settings(tmp_path, "alice"), runner=runner)
    qtbot.waitUntil(lambda: _signed_in(session, "alice"), timeout=10000)
    sql = SqlThreads(sqlite_store.engine)
    sql.on = True
    dialog = IdentityDialog(session)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.name.selectAll()
    qtbot.keyClicks(dialog.name, "carol")
    qtbot.waitUntil(lambda: dialog.role.currentText() == "adjudicator", timeout=10000)  # carol's own role
    # Enter while the lookup of a new name is still running: the dialog signs in with that name's
    # role once it is in (the role shown was the previous name's), not with the stale one
    qtbot.keyClicks(dialog.name, "ine")  # "caroline": a new profile
    with qtbot.waitSignal(dialog.accepted, timeout=10000):
        qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
        assert dialog.busy
    assert _signed_in(session, "caroline") and session.role == "annotator"
    qtbot.waitUntil(lambda: runner.active == 0, timeout=10000)
    sql.on = False
    assert sql.gui == [], f"SQL on the GUI thread: {sql.gui[:3]}"


def test_without_a_runner_the_session_signs_in_on_the_spot(qtbot, sqlite_store, tmp_path):
    """Scripts and panels tested alone: the role is read as the session is built (no job)."""
    from reviewer_ui.review.session import ReviewSession

    annotate.set_role(sqlite_store, "carol", "adjudicator")
    session = ReviewSession(sqlite_store, _settings(tmp_path, "carol"))
    assert _signed_in(session, "carol") and session.is_adjudicator
    assert session.set_identity("alice") is None and _signed_in(session, "alice")


def test_the_identity_dialog_opened_while_signing_in_waits_for_the_role(qtbot, sqlite_store, tmp_path, runner, gate):
    """Opened before the sign-in landed, the dialog would show the assumed role (annotator) and
    Enter would write it over carol's own: it says "Signing in" and takes no Enter until it lands."""
    from reviewer_ui.review.identity_dialog import IdentityDialog
    from reviewer_ui.review.session import ReviewSession

    annotate.set_role(sqlite_store, "carol", "adjudicator")
    session = ReviewSession(sqlite_store, _settings(tmp_path, "carol"), runner=runner)
    dialog = IdentityDialog(session)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.busy and not dialog.ok.isEnabled() and not dialog.role.isEnabled()
    assert "Signing in as carol" in dialog.error.text()
    qtbot.keyClick(dialog.name, Qt.Key.Key_Return)
    assert dialog.isVisible() and session.signing_in  # nothing submitted
    with qtbot.waitSignal(session.changed, timeout=10000):
        gate.set()
    assert not dialog.busy and dialog.ok.isEnabled() and dialog.role.isEnabled()
    assert (dialog.name.text(), dialog.role.currentText(), dialog.error.text()) == ("carol", "adjudicator", "")
    with qtbot.waitSignal(dialog.accepted, timeout=10000):
        qtbot.keyClick(dialog.name, Qt.Key.Key_Return)  # now Enter keeps her as she is
    assert _signed_in(session, "carol") and session.is_adjudicator
    qtbot.waitUntil(lambda: runner.active == 0, timeout=10000)
    assert annotate.role_of(sqlite_store, "carol") == "adjudicator"
