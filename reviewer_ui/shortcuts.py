"""Keyboard shortcuts made visible: every action's tooltip names its keys, and
a sheet (F1 or ?) lists every shortcut of the window by menu, then the keys that
work inside a panel (the annotation panel's P/F/R, 1-9..., the diff's F8, the fix
editor's Ctrl+Enter), which are QShortcuts described with ``panel_key``."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QDialog, QTableWidget, QTableWidgetItem, QVBoxLayout, QHeaderView, QAbstractItemView


def keys_text(action: QAction) -> str:
    return ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts())


# Keys of panels built only when first needed (the fix editor, an item's diff view): they may not
# exist when the sheet opens, so they are known here rather than found among the window's children.
LAZY_PANEL_KEYS = (("Gold vs output", "Next change", "F8"),
                   ("Gold vs output", "Previous change", "Shift+F8"),
                   ("Fix editor", "Save the fix", "Ctrl+Return, Ctrl+Enter"),
                   ("Fix editor", "Close (asks when there are unsaved changes)", "Esc"))
_AREA = "reviewer.panel"  # QShortcut property naming the panel whose key it is


def panel_key(parent, keys, slot, area: str, description: str,
              context: Qt.ShortcutContext = Qt.ShortcutContext.WidgetWithChildrenShortcut) -> QShortcut:
    """A key that works inside ``parent`` (a panel), described for the shortcuts sheet."""
    shortcut = QShortcut(QKeySequence(keys), parent, slot)
    shortcut.setContext(context)
    shortcut.setProperty(_AREA, area)
    shortcut.setWhatsThis(description)
    return shortcut


def panel_shortcuts(window) -> list[tuple[str, str, str]]:
    """(panel, what, keys) for every described panel key in ``window``, once each, plus the keys of
    panels not built yet (LAZY_PANEL_KEYS)."""
    rows, seen = [], set()
    for shortcut in window.findChildren(QShortcut):
        area = shortcut.property(_AREA)
        if not area:
            continue
        row = (area, shortcut.whatsThis(), shortcut.key().toString(QKeySequence.SequenceFormat.NativeText))
        if row not in seen:
            seen.add(row)
            rows.append(row)
    return rows + [r for r in LAZY_PANEL_KEYS if r not in seen]


def show_keys_in_tooltips(window) -> None:
    """Append "(keys)" to each action's tooltip (menus show the keys by themselves)."""
    for action in window.findChildren(QAction):
        keys = keys_text(action)
        if not keys or not action.text():
            continue
        tip = action.toolTip() or action.text().replace("&", "").rstrip("…")
        if f"({keys})" not in tip:
            action.setToolTip(f"{tip} ({keys})")


def all_shortcuts(window) -> list[tuple[str, str, str]]:
    """(menu, action, keys) for every action with keys: menu entries first, then the rest."""
    rows, seen = [], set()
    for top in window.menuBar().actions():
        menu = top.menu()
        if menu is None:
            continue
        for action in menu.actions():
            keys = keys_text(action)
            if keys and id(action) not in seen:
                seen.add(id(action))
                rows.append((top.text().replace("&", ""), action.text().replace("&", ""), keys))
    for action in window.actions():
        keys = keys_text(action)
        if keys and id(action) not in seen and action.text():
            seen.add(id(action))
            rows.append(("(keys)", action.text().replace("&", ""), keys))
    return rows + panel_shortcuts(window)


class ShortcutsSheet(QDialog):
    def __init__(self, window):
        super().__init__(window)
        self.setWindowTitle("Keyboard shortcuts")
        rows = all_shortcuts(window)
        self.table = QTableWidget(len(rows), 3)
        self.table.setHorizontalHeaderLabels(["Menu", "Action", "Keys"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.resizeColumnToContents(0)
        self.table.resizeColumnToContents(2)
        QVBoxLayout(self).addWidget(self.table)
        screen = window.screen().availableGeometry() if window.screen() else None
        self.resize(min(640, screen.width() - 40) if screen else 640, min(600, screen.height() - 80) if screen else 600)
