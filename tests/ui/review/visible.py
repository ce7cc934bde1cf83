"""What a person can read in a window, for the tests that assert what someone must not see."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def everything_shown(window) -> str:
    """Every text a person can see or hover in the window: its title and status bar, every
    visible widget's text and tooltip, combo box entries, tab and dock titles, and the
    cells and headers of every visible table or list (display and tooltip)."""
    from PySide6.QtWidgets import (
        QAbstractButton, QAbstractItemView, QComboBox, QDockWidget, QLineEdit, QPlainTextEdit, QTabBar, QTextEdit,
        QWidget,
    )

    out = [window.windowTitle(), window.statusBar().currentMessage() if hasattr(window, "statusBar") else ""]
    for w in window.findChildren(QWidget):
        if not w.isVisible():
            continue
        out.append(w.toolTip())
        if isinstance(w, (QLabel, QAbstractButton, QLineEdit)):
            out.append(w.text())
        elif isinstance(w, (QPlainTextEdit, QTextEdit)):
            out.append(w.toPlainText())
        elif isinstance(w, QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
            out += [str(w.itemData(i, Qt.ItemDataRole.ToolTipRole) or "") for i in range(w.count())]
        elif isinstance(w, QTabBar):
            out += [w.tabText(i) + " " + w.tabToolTip(i) for i in range(w.count())]
        elif isinstance(w, QDockWidget):
            out.append(w.windowTitle())
        if isinstance(w, QAbstractItemView) and w.model() is not None:
            m = w.model()
            from PySide6.QtCore import QModelIndex

            try:
                columns = m.columnCount(QModelIndex())
            except TypeError:  # a list model (its columnCount is private in the bindings)
                columns = 1
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                for c in range(min(columns, 40)):
                    out.append(str(m.headerData(c, Qt.Orientation.Horizontal, role) or ""))
                    for r in range(min(m.rowCount(QModelIndex()), 60)):
                        out.append(str(m.index(r, c).data(role) or ""))
    return "\n".join(t for t in out if t)
