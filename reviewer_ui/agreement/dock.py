"""Hosting the agreement panel in the main window: ``install(window)``.

Adds an "Agreement" dock (hidden until asked for, tabbed with the review dock
when there is one) and a Review ▸ Agreement… action (View ▸ when there is no
Review menu). The panel recomputes after annotation saves and adjudications
(debounced) and when the current dataset changes; a clicked disagreement
selects its item in the table. The main window only calls ``install``.
"""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMenu, QWidget

from reviewer_ui.widgets.docking import dock_beside_review

SHORTCUT = "Ctrl+Shift+G"


def install(window) -> None:
    """Add the agreement dock and its menu action to ``window`` (a ui.main_window.MainWindow).

    The dock starts empty and hidden; its panel (and the statistics code under it:
    numpy, the report builders) is built the first time the dock is shown or
    ``window.agreement_panel()`` is called, so a start that never opens it never
    pays for it (issue #14: import only what is needed).
    """
    # Beside the item, tabbed with the review dock: the full height of the window
    # (a bottom dock shared the height with the item and opened as a strip).
    dock = dock_beside_review(window, "Agreement", "agreementDock", QWidget())
    dock.hide()  # the report costs a computation: only once asked for
    built: list = []

    def panel():
        if not built:
            built.append(_build_panel(window, dock))
        return built[0]

    # A window state restored with the dock open shows it before anyone asked.
    dock.visibilityChanged.connect(lambda visible: panel() if visible else None)
    action = QAction("Agreement…", window)
    action.setShortcut(QKeySequence(SHORTCUT))
    action.setToolTip("Agreement statistics and the curation report")
    action.triggered.connect(lambda: (panel(), open_dock(dock)))
    menu = _menu(window, "&Review") or _menu(window, "&View") or window.menuBar().addMenu("&Review")
    menu.addAction(action)
    window.addAction(action)
    window.agreement_panel = panel
    window.agreement_dock = dock
    window.agreement_action = action


def _build_panel(window, dock: QDockWidget):
    from reviewer_ui import docks
    from reviewer_ui.agreement.panel import AgreementPanel

    panel = AgreementPanel(window.store, window.runner, window.current_dataset, window)
    dock.widget().setWidget(panel)  # the scroll area dock_beside_review made; the placeholder goes
    docks.watch_growth(window, dock, panel)
    window.dataset_box.currentIndexChanged.connect(panel.on_dataset_changed)
    review = getattr(window, "review", None)
    if review is not None:
        review.annotation.saved.connect(panel.schedule_refresh)
        review.adjudication.settled.connect(panel.schedule_refresh)
    panel.navigate.connect(lambda item_id: _show_item(window, item_id))
    return panel


def open_dock(dock: QDockWidget) -> None:
    """Show the dock (at a size its content fits, on screen) and bring it to the front."""
    from reviewer_ui import docks

    dock.show()
    dock.raise_()
    window = dock.parentWidget()
    if window is not None:
        if dock.isFloating():
            docks.on_screen(dock, window)
        else:
            docks.fit_docked(window, dock)


def _menu(window, title: str) -> QMenu | None:
    for action in window.menuBar().actions():
        if action.menu() is not None and action.text() == title:
            return action.menu()
    return None


def _show_item(window, item_id: int) -> None:
    # The review dock knows how to find an item in the table; without it, show the item directly.
    try:
        from reviewer_ui.review.dock import show_item
    except ImportError:
        window.item_view.show_item(item_id)
        return
    show_item(window, item_id)
