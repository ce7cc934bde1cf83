"""The File menu: open a database (SQLite file or PostgreSQL URL, recent list),
import a dataset or a run, export, quit. ``install(window)``.

Imports and exports are core functions (reviewer.store) run on the window's
JobRunner: a progress bar and Cancel in the dialog, errors as the core words
them (file and line), and the new items in the window at once (the window's
``store_changed``). Dialogs open in the folder last used, else the home folder
(never the working directory of whoever started the app).
"""

from __future__ import annotations

import collections
import time
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from reviewer_ui import focus_chain
from reviewer_ui.widgets.message_text import MessageText
from reviewer_ui.widgets.wrapped_label import WrappedLabel

RECENT_KEY = "recentDatabases"
MAX_RECENT = 8
FOLDER_KEY = "lastFolder"  # where files were last imported from
EXPORT_FOLDER_KEY = "lastExportFolder"  # where exports were last written (never the import's source folder)
DETECT = "(detect from the file)"


def last_folder(settings: QSettings, key: str = FOLDER_KEY) -> str:
    """The folder a file dialog opens in: the last one used for that purpose, else home."""
    folder = str(settings.value(key, "") or "")
    return folder if folder and Path(folder).is_dir() else str(Path.home())


def remember_folder(settings: QSettings, path: str, key: str = FOLDER_KEY) -> None:
    p = Path(path)
    settings.setValue(key, str(p if p.is_dir() else p.parent))


def recent_databases(settings: QSettings) -> list[str]:
    value = settings.value(RECENT_KEY, []) or []
    return [value] if isinstance(value, str) else [str(v) for v in value]


def remember_database(settings: QSettings, url: str) -> None:
    recent = [url] + [u for u in recent_databases(settings) if u != url]
    settings.setValue(RECENT_KEY, recent[:MAX_RECENT])


# -- job functions (worker threads; no widgets) ------------------------------------------------------


def import_dataset_job(ctx, store, path: str, fmt: str | None, name: str | None):
    return store.import_dataset(path, format=fmt, name=name or None, ctx=ctx, actor="gui")


def import_run_job(ctx, store, dataset_id: int, path: str, fmt: str | None, name: str | None):
    """A prediction file or a folder of them (reviewer.store.Store.import_runs, as the CLI)."""
    return store.import_runs(dataset_id, path, format=fmt, name=name or None, ctx=ctx, actor="gui")


def export_job(ctx, store, dataset_id: int, target: str, as_jsonl: bool, gold_only: bool) -> str:
    """Export as the dialog asks; the message says what was written and, for the released
    Gold, what was withheld and why (the CLI prints the same counts)."""
    if not gold_only:
        if as_jsonl:
            n = store.export_jsonl(dataset_id, target, ctx=ctx)
            return f"Wrote {n:,} {_items(n)} to {target}."
        files = store.export_dataset(dataset_id, target, ctx=ctx)
        return f"Wrote {len(files)} file{'s' if len(files) != 1 else ''} under {target}."
    if as_jsonl:
        done = store.export_released_gold(dataset_id, target, ctx=ctx)
        text = f"Wrote {done.written:,} released Gold {_items(done.written)} to {target}."
    else:
        done = store.export_released_gold_source(dataset_id, target, ctx=ctx)
        text = (f"Wrote {done.written:,} released Gold {_items(done.written)} in the benchmark's own files "
                f"under {target}.")
    if done.withheld:
        reasons = "; ".join(f"{count:,} {reason}" for reason, count in done.reasons.items())
        text += f" Withheld {done.withheld:,} {_items(done.withheld)}: {reasons}."
    return text


def _items(n: int) -> str:
    return "item" if n == 1 else "items"


def detect_job(ctx, path: str, what: str) -> str:
    from reviewer.formats.registry import find_dataset_format, find_run_format, prediction_files, whole_folder_format

    p = Path(path)
    if what == "run" and p.is_dir() and whole_folder_format(p) is None:
        # a folder of prediction files: what the import will take from it
        picked, skipped = prediction_files(p, check=ctx.check_cancelled)
        labels = ", ".join(sorted({f.label for _, f in picked}))
        files = f"{len(picked)} prediction file{'s' if len(picked) != 1 else ''}"
        return f"{files} ({labels})" + (f"; {len(skipped)} other file(s) will be skipped" if skipped else "")
    found = (find_dataset_format if what == "dataset" else find_run_format)(p)
    return found.label


def format_problem(exc: BaseException) -> str | None:
    """The dialog's words for a file whose format could not be told (the core's message names
    the CLI's --format); None for any other error."""
    from reviewer.errors import FormatNotDetected, RunMismatch

    if isinstance(exc, RunMismatch):  # the core's advice names the CLI's --name
        return (f"{exc.path}: {exc.problem}. Type another run name in Name to import it as a run of its "
                f"own{exc.after}.")
    if not isinstance(exc, FormatNotDetected):
        return None
    if exc.other is not None:
        name, label = exc.other
        if exc.what == "dataset":
            advice = (f"this looks like a run of model outputs ({label}, {name}): use File ▸ Import run… "
                      "(Ctrl+Shift+I) to add it to the dataset it answers.")
        else:
            advice = f"this looks like a dataset ({label}, {name}): use File ▸ Import dataset… (Ctrl+I)."
    elif exc.candidates:
        advice = (f"this could be read as more than one {exc.what} format ({', '.join(exc.candidates)}); "
                  "choose one in Format.")
    else:
        advice = f"cannot tell which {exc.what} format this is; choose one in Format."
    return f"{exc.path}: {advice}" if exc.path else advice


def open_store_job(ctx, url: str):
    from reviewer.store import Store

    return Store(url)


def progress_words(p, rate: float | None = None) -> str:
    """A job's progress as a person reads it: its message, then ``rate`` (units a second,
    ``RecentRate``'s) and the time left at that rate, when known."""
    words = [p.message]
    if rate:
        words.append(f"{rate:,.0f} a second")
        if p.total and p.done < p.total:
            eta = (p.total - p.done) / rate
            words.append(f"about {eta:,.0f} s left" if eta >= 1 else "less than a second left")
    return " · ".join(words)


class RecentRate:
    """A job's rate over its last few seconds of reports, for ``progress_words``.

    Not ``Progress.rate`` (done over the whole time since the job began): an export reads
    for 20 s before it counts what it writes, and that rate said "10 a second · about
    10,068 s left" of a job that had 4 s to go. A report of another total, or of fewer
    done, starts a new phase."""

    WINDOW_S = 5.0

    def __init__(self):
        self.samples: collections.deque = collections.deque()

    def add(self, p, now: float) -> float | None:
        if self.samples and (p.total != self.samples[-1][2] or p.done < self.samples[-1][1]):
            self.samples.clear()
        self.samples.append((now, p.done, p.total))
        while len(self.samples) > 2 and now - self.samples[1][0] >= self.WINDOW_S:
            self.samples.popleft()
        then, done_then, _ = self.samples[0]
        return (p.done - done_then) / (now - then) if now - then >= 1.0 and p.done > done_then else None


# -- dialogs --------------------------------------------------------------------------------------------


class JobDialog(QDialog):
    """A form, a progress bar, an error line, and Start / Cancel / Close."""

    job_key = "file:job"

    def __init__(self, window, title: str):
        super().__init__(window)
        self.window_ = window
        self.runner = window.runner
        self.setWindowTitle(title)
        self.form = QFormLayout()
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        # What the job says of its progress, under the bar while it runs: "12,000 of about
        # 100,000 items read · 24,100 a second · about 4 s left" (the bar alone said nothing of
        # a NesTools import's 100,000 items but that it was busy)
        self.progress_text = QLabel("")
        self.progress_text.setObjectName("muted")
        self.progress_text.setVisible(False)
        self.message = MessageText()  # wraps inside a long path, so nothing after it is cut off
        self.start_button = QPushButton("Start")
        self.cancel_button = QPushButton("Cancel")
        self.close_button = QPushButton("Close")
        for b in (self.start_button, self.cancel_button, self.close_button):
            b.setAutoDefault(False)
        self.start_button.setDefault(True)
        self.cancel_button.setEnabled(False)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(lambda: self.runner.cancel(self.job_key))
        self.close_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.start_button, self.cancel_button, self.close_button):
            buttons.addWidget(b)
        col = QVBoxLayout(self)
        col.addLayout(self.form)
        col.addWidget(self.progress)
        col.addWidget(self.progress_text)
        col.addWidget(self.message)
        # Height the dialog has to spare (it grew while the progress bar showed, or the user made
        # it taller) goes above the buttons, never into a gap between the form's rows.
        col.addStretch(1)
        col.addLayout(buttons)
        self.job = None
        self.result_value = None
        self._tab_ordered = False

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """On first show: Tab goes through the form in reading order, then the buttons, and the
        keyboard starts in the first field (Ctrl+I then typing fills the path). Qt links widgets
        into the Tab chain as they are created, and the buttons are made before the form: the
        keyboard started on a button and Tab reached the path last."""
        super().showEvent(event)
        if not self._tab_ordered:
            self._tab_ordered = True
            widgets = focus_chain.chain(self)
            focus_chain.order(widgets, [])
            first = next((w for w in widgets if focus_chain.tab_stop(w) and w.isEnabled()
                          and w.isVisibleTo(self)), None)
            if first is not None:
                first.setFocus(Qt.FocusReason.TabFocusReason)

    def path_row(self, line: QLineEdit, *choosers: tuple[str, callable]) -> QWidget:
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        h.addWidget(line, 1)
        for text, slot in choosers:
            b = QPushButton(text)
            b.setAutoDefault(False)
            b.clicked.connect(slot)
            h.addWidget(b)
        return row

    def run_job(self, fn, *args, on_result) -> None:
        self.message.setText("")
        self.message.setStyleSheet("")
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self._rate = RecentRate()
        self.start_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.job = self.runner.start(self.job_key, fn, *args, on_result=on_result, on_error=self._failed,
                                     on_progress=self._progressed)
        self.job.cancelled.connect(lambda: self._say("Cancelled: nothing was imported or written."))
        self.job.done.connect(self._ended)

    def _progressed(self, p) -> None:
        if p.total:
            self.progress.setRange(0, p.total)
            self.progress.setValue(min(p.done, p.total))
        rate = self._rate.add(p, time.monotonic())
        if p.message and self.cancel_button.isEnabled():  # not after the job ended (a late report)
            self.progress_text.setText(progress_words(p, rate))
            self.progress_text.setVisible(True)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Esc cancels a running job, as in any progress dialog (a second Esc, once it has
        stopped, closes the dialog); Close still closes it and leaves the job running, its
        progress and Cancel in the window's status bar."""
        if event.key() == Qt.Key.Key_Escape and self.job is not None and self.cancel_button.isEnabled():
            self.runner.cancel(self.job_key)
            self._say("Cancelling…")
            event.accept()
            return
        super().keyPressEvent(event)

    def _failed(self, exc: BaseException, _trace: str) -> None:
        self._say(format_problem(exc) or str(exc), error=True)

    def _say(self, text: str, error: bool = False) -> None:
        self.message.setStyleSheet("color: #c0392b" if error else "")
        self.message.setText(text)

    def _ended(self) -> None:
        self.progress.setVisible(False)
        self.progress_text.setVisible(False)
        self.progress_text.setText("")
        self.start_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def start(self) -> None:
        raise NotImplementedError


class ImportDialog(JobDialog):
    """Import a dataset (file or folder) or a run (a prediction file, or a folder of them) into the open store."""

    def __init__(self, window, what: str):
        super().__init__(window, "Import a dataset" if what == "dataset" else "Import a run")
        self.what = what
        self.settings = window.settings
        self.path = QLineEdit()
        self.path.setPlaceholderText("a file or folder" if what == "dataset" else
                                     "a prediction file, or a folder of them (one run per model and setup)")
        self.path.textChanged.connect(self._detect)
        self._undetected = False  # the file's format could not be told: Import waits for a choice in Format
        choosers = [("File…", self.choose_file), ("Folder…", self.choose_folder)]
        self.format = QComboBox()
        self.format.addItem(DETECT, None)
        from reviewer.formats.registry import dataset_formats, run_formats

        for name, f in sorted((dataset_formats() if what == "dataset" else run_formats()).items()):
            self.format.addItem(f"{f.label} ({name})", name)
        self.format.currentIndexChanged.connect(self._update_start)
        self.detected = WrappedLabel("")  # as tall as its text: no band of spare height around it
        self.detected.setObjectName("muted")
        self.detected.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.name = QLineEdit()
        self.name.setPlaceholderText("default: from the file name" if what == "dataset" else
                                     "default: from each file's name")
        self.form.addRow("Path", self.path_row(self.path, *choosers))
        if what == "run":
            self.dataset = QComboBox()
            for d in window.datasets:
                self.dataset.addItem(f"{d.name}  ({d.items:,} items)", d.id)
            current = window.current_dataset()
            if current is not None:
                self.dataset.setCurrentIndex(self.dataset.findData(current.id))
            self.form.addRow("Answers dataset", self.dataset)
        self.form.addRow("Format", self.format)
        self.form.addRow("", self.detected)
        self.form.setRowVisible(self.detected, False)  # shown with a detected format, not an empty row
        self.form.addRow("Name", self.name)
        self.start_button.setText("Import")
        self.resize(640, self.sizeHint().height())

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.windowTitle(), last_folder(self.settings))
        if path:
            self.path.setText(path)

    def choose_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.windowTitle(), last_folder(self.settings))
        if path:
            self.path.setText(path)

    def _detect(self, text: str) -> None:
        """Say which format the file is in (under Format), or, once, why it cannot be imported
        as it is (in the message line, where it wraps; Import waits for a choice in Format)."""
        self._show_detected("")
        if self._undetected:
            self._say("")
        self._undetected = False
        self._update_start()
        if text.strip() and Path(text.strip()).exists():
            self.runner.start("file:detect", detect_job, text.strip(), self.what,
                              on_result=lambda label: self._show_detected(f"Detected: {label}"),
                              on_error=lambda exc, _tb: self._not_detected(exc))

    def _show_detected(self, text: str) -> None:
        """The detected format under Format; its row takes no room while there is none."""
        self.detected.setText(text)
        self.form.setRowVisible(self.detected, bool(text))

    def _not_detected(self, exc: BaseException) -> None:
        problem = format_problem(exc)
        self._undetected = problem is not None
        self._say(problem or str(exc), error=True)
        self._update_start()

    def _update_start(self, *_args) -> None:
        running = self.job is not None and self.cancel_button.isEnabled()
        self.start_button.setEnabled(not running and not (self._undetected and self.format.currentData() is None))

    def _ended(self) -> None:
        super()._ended()
        self._update_start()

    def start(self) -> None:
        path = self.path.text().strip()
        if not path:
            self._say("Choose a file first.", error=True)
            return
        remember_folder(self.settings, path)
        fmt, name = self.format.currentData(), self.name.text().strip()
        if self.what == "dataset":
            self.run_job(import_dataset_job, self.window_.store, path, fmt, name, on_result=self._imported)
        else:
            if self.dataset.currentData() is None:
                self._say("Import a dataset first: a run answers a dataset's items.", error=True)
                return
            self.run_job(import_run_job, self.window_.store, self.dataset.currentData(), path, fmt, name,
                         on_result=self._imported)

    def _imported(self, result) -> None:
        """A dataset's summary, or a run import's (reviewer.store.importing.RunsImport): its
        lines said, its first run selected."""
        self.result_value = result
        if self.what == "dataset":
            self._say(f"Imported {result.describe()}.")
            self.window_.store_changed(select_dataset=result.dataset)
            return
        lines = result.describe()
        self._say(f"Imported {lines[0]}." if len(lines) == 1 else "Imported:\n" + "\n".join(lines))
        first = result.runs()[0]
        self.window_.store_changed(select_dataset=first.dataset, select_run=first.run)


class ExportDialog(JobDialog):
    """Export the current dataset in its source format (a folder) or as JSONL (a file)."""

    def __init__(self, window):
        super().__init__(window, "Export")
        self.settings = window.settings
        ds = window.current_dataset()
        self.dataset_id = ds.id if ds else None
        self.as_jsonl = QCheckBox("One JSONL file with provenance (else the benchmark's own files in a folder)")
        self.gold_only = QCheckBox("Only the released Gold, as the Release tab counts it")
        self.target = QLineEdit()
        base = Path(last_folder(self.settings, EXPORT_FOLDER_KEY))
        self.target.setText(str(base / f"{ds.name if ds else 'dataset'}-export"))
        self.as_jsonl.toggled.connect(self._kind_changed)
        self.form.addRow("Dataset", QLabel(ds.name if ds else "(none: pick a dataset first)"))
        self.form.addRow("", self.as_jsonl)
        self.form.addRow("", self.gold_only)
        self.form.addRow("To", self.path_row(self.target, ("Choose…", self.choose)))
        self.start_button.setText("Export")
        self.start_button.setEnabled(ds is not None)
        self.resize(640, self.sizeHint().height())

    def _kind_changed(self, jsonl: bool) -> None:
        p = Path(self.target.text())
        if jsonl and p.suffix != ".jsonl":
            self.target.setText(str(p.with_suffix(".jsonl")))
        elif not jsonl and p.suffix == ".jsonl":
            self.target.setText(str(p.with_suffix("")))

    def choose(self) -> None:
        if self.as_jsonl.isChecked():
            path, _ = QFileDialog.getSaveFileName(self, "Export as JSONL", self.target.text(), "JSON Lines (*.jsonl)")
        else:
            path = QFileDialog.getExistingDirectory(self, "Export into", str(Path(self.target.text()).parent))
        if path:
            self.target.setText(path)

    def start(self) -> None:
        target = self.target.text().strip()
        if not target or self.dataset_id is None:
            return
        remember_folder(self.settings, target if not self.as_jsonl.isChecked() else str(Path(target).parent),
                        EXPORT_FOLDER_KEY)
        self.run_job(export_job, self.window_.store, self.dataset_id, target, self.as_jsonl.isChecked(),
                     self.gold_only.isChecked(), on_result=self._done)

    def _done(self, text: str) -> None:
        self.result_value = text
        self._say(text)


class OpenDatabaseDialog(JobDialog):
    """Open another database: a SQLite file, or a PostgreSQL URL (postgresql://user@host/db)."""

    def __init__(self, window):
        super().__init__(window, "Open database")
        self.settings = window.settings
        self.url = QComboBox()
        self.url.setEditable(True)
        self.url.addItems(recent_databases(self.settings))
        self.url.setCurrentText("")
        self.url.lineEdit().setPlaceholderText("a .sqlite3 file, or postgresql://user@host:5432/db")
        self.form.addRow("Database", self.path_row(self.url, ("SQLite file…", self.choose)))
        self.form.addRow("", QLabel("Recent databases are in the list."))
        self.start_button.setText("Open")
        self.resize(640, self.sizeHint().height())

    def choose(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "SQLite database (a new name creates one)",
                                              last_folder(self.settings), "SQLite (*.sqlite3 *.sqlite *.db);;All (*)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.url.setCurrentText(path)

    def start(self) -> None:
        url = self.url.currentText().strip()
        if not url:
            self._say("Give a file or a PostgreSQL URL.", error=True)
            return
        self.run_job(open_store_job, url, on_result=lambda store: self._opened(url, store))

    def _opened(self, url: str, store) -> None:
        remember_database(self.settings, url)
        self.result_value = self.window_.switch_store(store, url)
        self.accept()


# -- the menu -------------------------------------------------------------------------------------------


def install(window) -> QMenu:
    """Add the File menu (first in the menu bar) to ``window`` (a MainWindow)."""
    menu = QMenu("&File", window)
    first = window.menuBar().actions()[0] if window.menuBar().actions() else None
    window.menuBar().insertMenu(first, menu) if first else window.menuBar().addMenu(menu)

    def act(text: str, keys: str, slot, tip: str) -> QAction:
        a = QAction(text, window)
        a.setShortcut(QKeySequence(keys))
        a.setToolTip(tip)
        a.triggered.connect(slot)
        menu.addAction(a)
        window.addAction(a)
        return a

    window.open_db_action = act("Open database…", "Ctrl+O", lambda: open_dialog(window, OpenDatabaseDialog(window)),
                                "Open a SQLite file or a PostgreSQL URL")
    recent = menu.addMenu("Open recent")
    recent.aboutToShow.connect(lambda: _fill_recent(window, recent))
    menu.addSeparator()
    window.import_dataset_action = act("Import dataset…", "Ctrl+I",
                                       lambda: open_dialog(window, ImportDialog(window, "dataset")),
                                       "Import benchmark items from a file or folder (format detected)")
    window.import_run_action = act("Import run…", "Ctrl+Shift+I",
                                   lambda: open_dialog(window, ImportDialog(window, "run")),
                                   "Import model outputs (a prediction file, or a folder of them) as a run of the current dataset")
    window.export_action = act("Export…", "Ctrl+Shift+E", lambda: open_dialog(window, ExportDialog(window)),
                               "Export the current dataset (its own format, or JSONL)")
    menu.addSeparator()
    window.quit_action = act("Quit", "Ctrl+Q", window.close, "Quit (settings are saved)")
    window.file_menu = menu
    return menu


def open_dialog(window, dialog: QDialog) -> QDialog:
    """Show ``dialog`` non-modally (tests and screenshots drive it; the window stays usable)."""
    window.file_dialog = dialog
    dialog.show()
    dialog.raise_()
    return dialog


def _fill_recent(window, menu: QMenu) -> None:
    menu.clear()
    urls = recent_databases(window.settings)
    if not urls:
        menu.addAction("(none yet)").setEnabled(False)
    for url in urls:
        menu.addAction(url, lambda url=url: _open_recent(window, url))


def _open_recent(window, url: str) -> None:
    dialog = OpenDatabaseDialog(window)
    dialog.url.setCurrentText(url)
    open_dialog(window, dialog)
    dialog.start()


__all__ = ["install", "ImportDialog", "ExportDialog", "OpenDatabaseDialog"]
