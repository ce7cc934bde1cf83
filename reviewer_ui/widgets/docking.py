"""Side docks of the main window: a panel in a scroll area, docked on the right and
tabbed with the Review dock (the Runs and Agreement docks share this)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QFrame, QScrollArea


def scrolled(panel) -> QScrollArea:
    """The panel in a scroll area: a short window scrolls the panel instead of growing."""
    area = QScrollArea()
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(panel)
    return area


def dock_beside_review(window, title: str, object_name: str, panel) -> QDockWidget:
    """Dock ``panel`` (scrolled) on the window's right, tabbed with its Review dock when
    there is one, which stays in front: the full height of the window, never a strip."""
    dock = QDockWidget(title, window)
    dock.setObjectName(object_name)
    dock.setWidget(scrolled(panel))
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    review_dock = getattr(window, "review_dock", None)
    if review_dock is not None:
        window.tabifyDockWidget(review_dock, dock)
        review_dock.raise_()
    return dock
