"""Every menu entry has keys: shown in the entry and its tooltip, listed by the F1 sheet,
and no two entries share keys (Qt would then fire neither)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer_ui import shortcuts


def menu_actions(window):
    """(menu title, action) for every entry of every menu of the window, submenus included."""
    found = []

    def walk(menu, title):
        for action in menu.actions():
            if action.isSeparator():
                continue
            if action.menu() is not None:
                walk(action.menu(), title)
            else:
                found.append((title, action))

    for top in window.menuBar().actions():
        if top.menu() is not None:
            walk(top.menu(), top.text().replace("&", ""))
    return found



def sheet_rows(qtbot, window) -> list[tuple[str, str, str]]:
    """Press F1 from the item table, as a user would; the sheet's (menu or panel, action, keys) rows."""
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    qtbot.keyClick(window.table, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: getattr(window, "shortcuts_sheet", None) is not None
                    and window.shortcuts_sheet.isVisible(), timeout=3000)
    table = window.shortcuts_sheet.table
    return [tuple(table.item(r, c).text() for c in range(3)) for r in range(table.rowCount())]


def test_every_menu_entry_has_keys_in_its_tooltip_and_in_the_f1_sheet(qtbot, window):
    entries = menu_actions(window)
    review = [a.text() for title, a in entries if title == "Review"]
    assert {"Identity…", "Adjudication queue", "Export Gold…"} <= set(review)
    missing = [f"{title} ▸ {a.text()}" for title, a in entries if a.isVisible() and not shortcuts.keys_text(a)]
    assert missing == [], f"menu entries without a shortcut: {missing}"
    no_tip = [a.text() for _, a in entries if a.isVisible() and f"({shortcuts.keys_text(a)})" not in a.toolTip()]
    assert no_tip == [], f"tooltips that do not name the keys: {no_tip}"

    # F1 opens the sheet; it lists every entry with its menu and keys
    listed = set(sheet_rows(qtbot, window))
    unlisted = [(title, a.text(), shortcuts.keys_text(a)) for title, a in entries
                if a.isVisible() and (title, a.text().replace("&", ""), shortcuts.keys_text(a)) not in listed]
    assert unlisted == [], f"menu entries the F1 sheet does not list: {unlisted}"
    window.shortcuts_sheet.close()

    # no two actions of the window answer the same keys (an ambiguous shortcut fires neither)
    owners: dict[str, list[str]] = {}
    for action in {id(a): a for a in window.findChildren(type(entries[0][1]))}.values():
        if not action.isEnabled() and not action.text():
            continue
        for key in action.shortcuts():
            owners.setdefault(key.toString(), []).append(action.text())
    clashes = {k: v for k, v in owners.items() if len(v) > 1}
    assert clashes == {}, f"keys bound twice: {clashes}"


def test_review_menu_keys_do_what_the_entry_says(qtbot, window):
    ws = window.review
    ws.setCurrentWidget(ws.release)
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(window.table.hasFocus)
    qtbot.keyClick(window.table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert ws.current_panel() is ws.annotate_tab  # the adjudication queue lives under Annotate
    if not ws.session.is_adjudicator:  # an annotator's Ctrl+Shift+A says why no queue shows
        assert "adjudicators'" in window.statusBar().currentMessage()


def test_the_f1_sheet_lists_the_keys_that_work_inside_the_panels(qtbot, window):
    """P/F/R, 1-9, A, D, E, N and undo work inside the annotation panel, F8 in the diff, Ctrl+Enter
    in the fix editor and the adjudication view: none is a menu entry, and the sheet lists each."""
    listed = {(panel, keys) for panel, _what, keys in sheet_rows(qtbot, window)}
    window.shortcuts_sheet.close()
    panel = {("Annotation panel", k) for k in ("P", "F", "R", "A", "D", "E", "N", "Ctrl+Z", *map(str, range(1, 10)))}
    assert panel <= listed, f"panel keys missing from the sheet: {sorted(panel - listed)}"
    assert ("Gold vs output", "F8") in listed and ("Gold vs output", "Shift+F8") in listed
    assert ("Fix editor", "Ctrl+Return, Ctrl+Enter") in listed and ("Fix editor", "Esc") in listed
    adjudication = {("Adjudication", k) for k in ("P", "F", "R", "Alt+A", "Alt+B", "Alt+M", "Alt+O")}
    assert adjudication <= listed, f"adjudication keys missing from the sheet: {sorted(adjudication - listed)}"
