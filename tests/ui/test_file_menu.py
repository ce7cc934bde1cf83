"""The File menu against a real store: a bad file's error names the file and
line and imports nothing; a dataset written by another process (the CLI)
appears without a restart, keeping the current item; Open database switches to
another SQLite file and lists it under recent; Quit is Ctrl+Q; every menu
action shows its keys in its tooltip; F1 lists them."""

from __future__ import annotations

import subprocess
import sys

from PySide6.QtCore import Qt

from reviewer.samples import DATA_DIR
from reviewer.store import Store
from tests.ui.conftest import open_dataset, shown_main_window
from reviewer_ui.file_menu import ImportDialog, OpenDatabaseDialog, recent_databases


def test_a_bad_file_names_file_and_line_and_imports_nothing(qtbot, window, demo_store, tmp_path):
    bad = tmp_path / "broken.jsonl"
    good = (DATA_DIR / "schemagen" / "schemagen.jsonl").read_text().splitlines()[0]
    bad.write_text(good + '\n{"id": "b", "question": \n')  # line 2 breaks off
    before = [(d.name, d.items) for d in demo_store.datasets()]
    dialog = ImportDialog(window, "dataset")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.path.setText(str(bad))
    dialog.format.setCurrentIndex(dialog.format.findData("schemagen"))
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(dialog.message.text()), timeout=5000)
    assert str(bad) in dialog.message.text() and "line 2" in dialog.message.text()
    assert "Traceback" not in dialog.message.text()
    assert [(d.name, d.items) for d in demo_store.datasets()] == before


def test_a_dataset_imported_by_another_process_appears_without_a_restart(qtbot, window, demo_store):
    open_dataset(qtbot, window, "tool_qa")
    shown = window.item_view.bundle.detail.id
    n = window.dataset_box.count()
    subprocess.run([sys.executable, "-m", "reviewer.cli", "import", "dataset", str(DATA_DIR / "schemagen" /
                    "schemagen.jsonl"), "--name", "from-the-cli", "--db", demo_store.engine.url.database],
                   check=True, capture_output=True)
    qtbot.waitUntil(lambda: window.dataset_box.count() == n + 1, timeout=10000)
    assert any(d.name == "from-the-cli" for d in window.datasets)
    assert window.current_dataset().name == "demo-tool_qa"  # the user's place is kept
    assert window.item_view.bundle.detail.id == shown


def test_open_database_switches_and_remembers(qtbot, window, tmp_path):
    other = tmp_path / "other.sqlite3"
    s = Store(str(other))
    s.import_dataset(DATA_DIR / "schemagen" / "schemagen.jsonl", name="elsewhere")
    s.close()
    dialog = OpenDatabaseDialog(window)
    qtbot.addWidget(dialog)
    dialog.url.setCurrentText(str(other))
    dialog.start()
    qtbot.waitUntil(lambda: getattr(window, "replaced_by", None) is not None, timeout=10000)
    new = window.replaced_by
    try:
        qtbot.waitUntil(lambda: [d.name for d in new.datasets] == ["elsewhere"], timeout=5000)
        assert recent_databases(window.settings)[0] == str(other)
        assert not window.isVisible()
        new.activateWindow()
        qtbot.waitUntil(new.isActiveWindow, timeout=3000)
        new.table.setFocus()
        qtbot.keyClick(new.table, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)  # Quit
        qtbot.waitUntil(lambda: not new.isVisible(), timeout=3000)
    finally:
        new.runner.shutdown(5000)


def test_menu_actions_show_their_keys_and_f1_lists_them(qtbot, window):
    menus = {a.text(): a.menu() for a in window.menuBar().actions()}
    assert list(menus)[0] == "&File"
    texts = [a.text() for a in menus["&File"].actions() if a.text()]
    assert texts[:2] == ["Open database…", "Open recent"] and "Quit" in texts
    for title, menu in menus.items():
        for a in menu.actions():
            if a.isSeparator() or a.menu() is not None:
                continue
            if title != "&Review":  # the review protocol's own actions are its developer's
                assert a.shortcut().toString(), f"{title} ▸ {a.text()} has no shortcut"
            if a.shortcut().toString():
                assert a.shortcut().toString(a.shortcut().SequenceFormat.NativeText) in a.toolTip(), a.text()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: getattr(window, "shortcuts_sheet", None) is not None
                    and window.shortcuts_sheet.isVisible(), timeout=3000)
    table = window.shortcuts_sheet.table
    listed = {table.item(r, 1).text(): table.item(r, 2).text() for r in range(table.rowCount())}
    assert listed["Quit"] == "Ctrl+Q" and listed["Import dataset…"] == "Ctrl+I" and "F1" in listed["Keyboard shortcuts"]
    window.shortcuts_sheet.close()


def test_a_run_import_that_answers_part_of_the_dataset_says_how_much(qtbot, window, demo_store, tmp_path):
    import json

    from reviewer.store import ItemQuery

    ds = next(d for d in demo_store.datasets() if d.name == "demo-tool_qa")
    first = demo_store.item_page(ItemQuery(dataset_id=ds.id), 0, 1)[0]
    preds = tmp_path / "partial.jsonl"
    preds.write_text(json.dumps({"id": first.record_id, "text": "an answer"}) + "\n")
    dialog = ImportDialog(window, "run")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.dataset.setCurrentIndex(dialog.dataset.findData(ds.id))
    dialog.path.setText(str(preds))
    dialog.format.setCurrentIndex(dialog.format.findData("outputs-jsonl"))
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(dialog.message.text()), timeout=5000)
    assert "1 outputs added" in dialog.message.text(), dialog.message.text()
    assert f"the run covers 1 of {ds.items} items" in dialog.message.text()


def _visible_texts(dialog) -> list[str]:
    from PySide6.QtWidgets import QLabel

    texts = [label.text() for label in dialog.findChildren(QLabel) if label.isVisible() and label.text()]
    return texts + ([dialog.message.text()] if dialog.message.isVisible() else [])


def _import_dialog_by_keyboard(qtbot, window, keys=Qt.KeyboardModifier.ControlModifier):
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_I, keys)  # File ▸ Import dataset… / Import run…
    qtbot.waitUntil(lambda: isinstance(getattr(window, "file_dialog", None), ImportDialog)
                    and window.file_dialog.isVisible(), timeout=3000)
    dialog = window.file_dialog
    qtbot.addWidget(dialog)
    return dialog


def test_a_file_of_no_known_format_says_so_once_in_the_dialogs_words(qtbot, window, tmp_path):
    csv = tmp_path / "wrong.csv"
    csv.write_text("id,question,answer\n1,what?,that\n")
    dialog = _import_dialog_by_keyboard(qtbot, window)
    qtbot.keyClicks(dialog.path, str(csv))
    qtbot.waitUntil(lambda: any("format" in t for t in _visible_texts(dialog)), timeout=5000)
    texts = [t for t in _visible_texts(dialog) if "format" in t]
    assert len(texts) == 1, f"said {len(texts)} times: {texts}"
    assert "--format" not in texts[0] and "choose one in Format" in texts[0], texts[0]
    assert not dialog.start_button.isEnabled()  # importing would only fail the same way
    # Choosing a format (keyboard: the Format field, Down) makes Import possible again.
    dialog.format.setFocus()
    qtbot.keyClick(dialog.format, Qt.Key.Key_Down)
    qtbot.waitUntil(dialog.start_button.isEnabled, timeout=3000)


def test_a_run_file_given_as_a_dataset_points_to_import_run(qtbot, window):
    run_file = DATA_DIR / "nestools" / "predictions" / "chainsmith-8b" / "raw_response.jsonl"
    dialog = _import_dialog_by_keyboard(qtbot, window)
    qtbot.keyClicks(dialog.path, str(run_file))
    qtbot.waitUntil(lambda: any("Import run" in t for t in _visible_texts(dialog)), timeout=5000)
    texts = [t for t in _visible_texts(dialog) if "format" in t or "Import run" in t]
    assert len(texts) == 1, texts
    assert "a run of model outputs (NesTools predictions" in texts[0] and "File ▸ Import run" in texts[0], texts[0]
    assert "--format" not in texts[0]
    assert not dialog.start_button.isEnabled()


def _gap(dialog, upper, lower) -> int:
    """Pixels of the dialog between the bottom of ``upper`` and the top of ``lower``."""
    from PySide6.QtCore import QPoint

    return lower.mapTo(dialog, QPoint(0, 0)).y() - (upper.mapTo(dialog, QPoint(0, 0)).y() + upper.height())


def test_the_import_form_has_no_empty_row_under_format(qtbot, window, tmp_path):
    """Under Format there was an empty row (the detected format's, with nothing detected yet): a
    blank band between Format and Name. The rows are as far apart as Path and Format are; the
    detected format takes a row only once there is one, and after an import its message follows
    the form directly."""
    dialog = _import_dialog_by_keyboard(qtbot, window)
    path_row = dialog.path.parentWidget()
    row_gap = _gap(dialog, path_row, dialog.format)
    assert _gap(dialog, dialog.format, dialog.name) <= row_gap + 1, "a blank row between Format and Name"
    assert not dialog.detected.isVisible()
    wrong = tmp_path / "a-file-whose-format-nobody-could-tell-from-its-content.csv"
    wrong.write_text("id,question\n1,what?\n")
    qtbot.keyClicks(dialog.path, str(wrong))  # its message takes two lines: the dialog grows
    qtbot.waitUntil(lambda: "choose one in Format" in dialog.message.text(), timeout=5000)
    assert not dialog.detected.isVisible()
    dialog.path.clear()
    qtbot.keyClicks(dialog.path, str(DATA_DIR / "schemagen" / "schemagen.jsonl"))
    qtbot.waitUntil(dialog.detected.isVisible, timeout=5000)
    assert dialog.detected.text().startswith("Detected: ")
    assert _gap(dialog, dialog.format, dialog.detected) <= row_gap + 1
    assert _gap(dialog, dialog.detected, dialog.name) <= row_gap + 1
    label_x = dialog.detected.mapTo(dialog, dialog.rect().topLeft()).x()
    assert label_x == dialog.format.mapTo(dialog, dialog.rect().topLeft()).x()  # aligned with the fields
    qtbot.keyClicks(dialog.name, "imported-twice")
    dialog.start_button.setFocus()
    qtbot.keyClick(dialog.start_button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: dialog.message.text().startswith("Imported"), timeout=20000)
    # laid out anew once the progress bar is hidden and the message has its height
    qtbot.waitUntil(lambda: not dialog.progress.isVisible() and dialog.message.height() > 0, timeout=5000)
    # Hiding the bar posts a layout request; CI once measured before it was handled (the bar's
    # old room, 34 px). Do the pending layout now, as the next event would, then measure.
    dialog.layout().activate()
    assert _gap(dialog, dialog.name, dialog.message) <= row_gap + 1, "a blank band above the import's message"
    assert _gap(dialog, dialog.format, dialog.detected) <= row_gap + 1
    dialog.close()


def test_a_jobs_progress_reads_as_words_with_its_recent_rate_and_time_left():
    from reviewer.jobs import Progress
    from reviewer_ui.file_menu import RecentRate, progress_words

    def report(done, total, message, at):
        return Progress(done, total, message, at), at

    rate = RecentRate()
    # an export: 20 s of reading with no count, then writing at 25,000 items a second
    assert rate.add(*report(0, None, "reading", 0.0)) is None
    assert rate.add(*report(0, None, "reading", 20.0)) is None
    assert rate.add(*report(25_000, 100_000, "25,000 of 100,000 written", 21.0)) is None  # a new phase
    p, at = report(75_000, 100_000, "75,000 of 100,000 written", 23.0)
    assert progress_words(p, rate.add(p, at)) == "75,000 of 100,000 written · 25,000 a second · about 1 s left"
    p, at = report(99_000, 100_000, "99,000 of 100,000 written", 23.96)
    assert progress_words(p, rate.add(p, at)).endswith("less than a second left")
    assert progress_words(Progress(1000, 100_000, "1,000 of about 100,000 items read", 0.4)) == \
        "1,000 of about 100,000 items read"  # no rate yet
    assert progress_words(Progress(5000, None, "5,000 items read", 2.0), 2500.0) == "5,000 items read · 2,500 a second"
