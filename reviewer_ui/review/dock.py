"""Hosting the review workspace in the main window: ``install(window)``.

Adds a "Review" dock (the workspace tabs) and a Review menu, feeds the
workspace each item the item view finishes loading, and turns the
workspace's navigation requests into table selections. The main window only
calls ``install``; everything else about review lives here.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDockWidget

from reviewer_ui.review.workspace import ReviewWorkspace

TABLE_REFRESH_DELAY_MS = 500
NEARBY_ROWS = 400  # rows after the current one searched for the item to show (a page or two)


def install(window) -> ReviewWorkspace:
    """Add the review dock and menu to ``window`` (a ui.main_window.MainWindow)."""
    ws = ReviewWorkspace(window.store, window.runner, window.settings, window)
    # Keyboard-first: verdict and rubric keys work wherever the focus is, except
    # in text fields (which keep their letters) — J/K still move through the items.
    ws.annotation.set_shortcut_context(Qt.ShortcutContext.WindowShortcut)
    dock = QDockWidget("Review", window)
    dock.setObjectName("reviewDock")
    dock.setWidget(ws)
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    ws.adjudication.enlarge_button.show()
    ws.adjudication.enlarge_requested.connect(lambda: float_large(dock, window))
    window.item_view.loaded.connect(lambda bundle: ws.show_item(bundle.detail))
    ws.navigate.connect(lambda item_id: show_item(window, item_id))
    # The table's Review column reads annotations: repaint it once a burst of saves pauses.
    repaint = QTimer(ws, singleShot=True, interval=TABLE_REFRESH_DELAY_MS)
    repaint.timeout.connect(window.model.refresh)
    ws.annotation.saved.connect(repaint.start)
    ws.external_change.connect(repaint.start)  # others' changes (live updates)
    # The Review column is blind like the panel: it shows what this reviewer may see.
    viewer: list = []  # the (name, sees all) the column shows: read again only when it changes

    def follow_identity() -> None:
        now = (ws.session.name, ws.session.is_adjudicator)
        if viewer != [now]:  # a sign-in confirming the annotator assumed meanwhile reads nothing again
            viewer[:] = [now]
            window.model.set_viewer(*now)

    ws.session.changed.connect(follow_identity)
    follow_identity()
    # A sign-in the database refused is said in the status bar (the panels say "not signed in").
    ws.session.failed.connect(lambda message: window.statusBar().showMessage(message, 10000))
    ws.adjudication.settled.connect(repaint.start)
    # A settled item has new gold (and, once re-scored, new scores): the item view shows them at
    # once, not the gold it loaded before (it kept "✓ 1.00" against the old gold until reopened).
    ws.adjudication.settled.connect(lambda view: window.item_view.reload_if_shown({view.item_id}))
    ws.annotation.landed.connect(lambda saved: _gold_may_have_changed(window, saved))
    ws.annotation.warned.connect(lambda message: window.statusBar().showMessage(message, 15000))
    menu = window.menuBar().addMenu("&Review")
    for action in ws.actions_for_menu():
        menu.addAction(action)
        window.addAction(action)  # shortcuts work while the dock is hidden too
    menu.addSeparator()
    menu.addAction(dock.toggleViewAction())
    window.review = ws
    window.review_dock = dock
    from reviewer_ui.review.blinding import WindowBlinding

    window.review_blinding = WindowBlinding(window, ws.session, ws)
    ws.external_change.connect(window.review_blinding.forget)  # e.g. an adjudicator switched blindness
    return ws


def _gold_may_have_changed(window, saved) -> None:
    """An annotation's save can settle the item (two agreeing Fixes write the gold): show the
    item again when the item's version moved past the one shown."""
    bundle = window.item_view.bundle
    if bundle is not None and bundle.detail.id == saved.view.item_id \
            and saved.snapshot.item_version != bundle.detail.version:
        window.item_view.reload_if_shown({saved.view.item_id})


def float_large(dock: QDockWidget, window) -> None:
    """Float the dock in a window large enough for the adjudication view's four panes
    (the dock's title-bar button docks it back)."""
    dock.setFloating(True)
    size = window.size()
    width, height = max(1100, size.width() * 3 // 4), max(800, size.height() * 9 // 10)
    screen = window.screen().availableGeometry() if window.screen() is not None else None
    if screen is not None:  # never larger than the screen (a 1366x768 laptop has no 800 px to give)
        frame = dock.frameGeometry().size() - dock.size()  # the window frame around it
        width = min(width, screen.width() - frame.width())
        height = min(height, screen.height() - frame.height())
    dock.resize(width, height)
    frame = dock.frameGeometry()
    frame.moveCenter(window.geometry().center())
    if screen is not None:  # whole on the screen, title bar included
        frame.moveLeft(max(screen.left(), min(frame.left(), screen.right() - frame.width() + 1)))
        frame.moveTop(max(screen.top(), min(frame.top(), screen.bottom() - frame.height() + 1)))
    dock.move(frame.topLeft())


def show_item(window, item_id: int) -> None:
    """Select ``item_id`` in the table when it is near the current row; else show it directly."""
    start = max(0, window.current_row())
    for row in range(start, min(window.model.rowCount(), start + NEARBY_ROWS)):
        if window.model.item_id(row) == item_id:
            window.select_row(row)
            return
    for row in range(0, min(start, NEARBY_ROWS)):  # the queue wraps around to the start
        if window.model.item_id(row) == item_id:
            window.select_row(row)
            return
    window.item_view.show_item(item_id)
    window.statusBar().showMessage("The item is not near the current row in the table (or is filtered out); "
                                   "it is shown without moving the selection.", 6000)
