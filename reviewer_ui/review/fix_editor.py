"""The fix editor: edit an item's gold as JSON text (or as a plain line for an
answer string) with live checks, before it is saved as a Fix.

Contracts:
- ``load`` opens on a value (the current gold, or an earlier fix of it); the
  diff, the patch-operation count and the schema check are always against
  ``original`` (the item's gold the fix will be applied to).
- Validation runs on the GUI thread, debounced (``VALIDATE_DELAY_MS``) while
  typing; ``validate_now`` runs it at once. After each run ``validated`` fires
  and ``syntax_error``, ``schema_errors``, ``changes`` and ``op_count`` hold the
  results.
- ``save_requested(value)`` is emitted only for text that parses and differs
  from the original; the editor never writes to the store itself.
- Nothing typed is lost by a key: Enter inserts a newline in the JSON text and
  presses no button (no button is a dialog default); Ctrl+Enter saves; Esc and
  closing the hosting dialog ask first when there are unsaved changes; "Back to
  the original" asks first and is itself undoable (Ctrl+Z / Ctrl+Shift+Z undo
  and redo inside the editor).
"""

from __future__ import annotations

import html
import json
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QDialog, QHBoxLayout, QLabel, QLineEdit, QListWidget, QMessageBox, QPlainTextEdit, QPushButton, QTextEdit,
    QToolButton, QVBoxLayout, QWidget,
)

from reviewer.kinds import ItemKind
from reviewer.review.patch import make_patch
from reviewer.review.rubric import MANY_FIX_OPERATIONS
from reviewer_ui import theme
from reviewer_ui.review.widgets import rich_label

VALIDATE_DELAY_MS = 150
MAX_LISTED_CHANGES = 500
MAX_SCHEMA_ERRORS = 20


def to_text(value: Any) -> str:
    """How a gold value is shown for editing: pretty JSON, keys in their order."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def describe_changes(original: Any, value: Any, ops: list[dict] | None = None) -> list[str]:
    """Readable changes from ``original`` to ``value``: the structural JSON diff's
    lines when ``reviewer.jsondiff`` is available, else the RFC 6902 operations
    (``ops``, computed when not given)."""
    try:
        from reviewer.jsondiff import diff
    except ImportError:  # the structural diff is optional; the patch is always there
        diff = None
    if diff is not None:
        return [c.describe() for c in diff(original, value)]
    ops = make_patch(original, value) if ops is None else ops
    return [f"{op['op']} {op['path'] or '(whole value)'}" for op in ops]


def schema_validator(schema_text: str | None):
    """A jsonschema validator for the item's schema, or (None, why not)."""
    if not schema_text:
        return None, None
    import jsonschema

    try:
        schema = json.loads(schema_text)
    except ValueError as exc:
        return None, f"the item's schema is not valid JSON ({exc}); the fix is not checked against it"
    try:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return None, f"the item's schema is not a valid JSON Schema ({exc.message}); the fix is not checked against it"
    return cls(schema), None


_ORIGINAL = object()  # FixEditor.load without ``current``: edit the original


class FixEditor(QWidget):
    save_requested = Signal(object)  # the parsed fixed gold
    cancel_requested = Signal()
    validated = Signal()

    def __init__(self, parent: QWidget | None = None, show_buttons: bool = True):
        super().__init__(parent)
        self.kind: str | None = None
        self.original: Any = None
        self.as_line = False
        self._validator = None
        self.syntax_error: str | None = None
        self.schema_errors: list[str] = []
        self.schema_note: str | None = None
        self.changes: list[str] = []
        self.op_count = 0
        self.value: Any = None  # the parsed value when the text parses
        # What the change line says while the text is the original (an annotator's editor is open for a Fix only).
        self.no_change_text = "No change yet: a Fix must change the gold."

        self.title = QLabel("Fix the gold")
        self.title.setObjectName("sectionTitle")
        self.text = QPlainTextEdit()
        self.text.setFont(theme.monospace_font())
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setTabChangesFocus(False)
        self.line = QLineEdit()
        self.line.setFont(theme.monospace_font())
        self.line.hide()
        self.syntax_label = rich_label()
        self.schema_label = rich_label()
        self.ops_label = rich_label()
        changes_title = QLabel("Changes against the original gold")
        changes_title.setObjectName("sectionTitle")
        self.change_list = QListWidget()
        self.change_list.setMaximumHeight(160)
        self.save_button = QPushButton("Save fix  (Ctrl+Enter)")
        self.save_button.setToolTip("Store this as your Fix (Ctrl+Enter)")
        self.cancel_button = QPushButton("Close  (Esc)")
        self.cancel_button.setToolTip("Close the editor (asks first when there are unsaved changes) (Esc)")
        self.reset_button = QPushButton("Back to the original…")
        self.reset_button.setToolTip("Replace the text with the item's original gold (asks first; Ctrl+Z undoes it)")
        self.undo_button = QToolButton(text="Undo", toolTip="Undo the last edit (Ctrl+Z)")
        self.redo_button = QToolButton(text="Redo", toolTip="Redo (Ctrl+Shift+Z)")
        # No button is a dialog default: Enter belongs to the text (a newline), never to a button.
        for b in (self.save_button, self.cancel_button, self.reset_button):
            b.setAutoDefault(False)
            b.setDefault(False)
        self.save_button.clicked.connect(self.request_save)
        self.cancel_button.clicked.connect(self.request_close)
        self.reset_button.clicked.connect(self.back_to_original)
        self.undo_button.clicked.connect(self.undo)
        self.redo_button.clicked.connect(self.redo)
        self._baseline = ""  # the text as loaded or last saved: differences are unsaved changes
        self._closing = False

        buttons = QHBoxLayout()
        buttons.addWidget(self.reset_button)
        buttons.addWidget(self.undo_button)
        buttons.addWidget(self.redo_button)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.text, 3)
        layout.addWidget(self.line)
        layout.addWidget(self.syntax_label)
        layout.addWidget(self.schema_label)
        layout.addWidget(self.ops_label)
        layout.addWidget(changes_title)
        layout.addWidget(self.change_list, 1)
        layout.addLayout(buttons)
        for w in (self.save_button, self.cancel_button):
            w.setVisible(show_buttons)

        self._timer = QTimer(self, singleShot=True, interval=VALIDATE_DELAY_MS)
        self._timer.timeout.connect(self.validate_now)
        for signal in (self.text.textChanged, self.line.textChanged):
            signal.connect(self._timer.start)
            # Save stays clickable while a check is pending; request_save checks first.
            signal.connect(lambda: self.save_button.setEnabled(True))
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            sc = QShortcut(QKeySequence(keys), self, self.request_save)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        esc = QShortcut(QKeySequence("Escape"), self, self.request_close)
        esc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        # In a one-line answer Enter would reach the dialog (and close it): swallow it.
        self.line.returnPressed.connect(lambda: None)
        self._guard = _CloseGuard(self)
        self.text.installEventFilter(_KeepIndent(self.text))
        self.text.undoAvailable.connect(self.undo_button.setEnabled)
        self.text.redoAvailable.connect(self.redo_button.setEnabled)
        self.undo_button.setEnabled(False)
        self.redo_button.setEnabled(False)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        window = self.window()
        if isinstance(window, QDialog) and window is not self:
            window.installEventFilter(self._guard)  # closing the dialog asks too

    # -- unsaved changes -------------------------------------------------------------

    @property
    def dirty(self) -> bool:
        """Whether the text differs from what was loaded or last saved."""
        return self.current_text() != self._baseline

    def confirm(self, title: str, question: str) -> bool:
        """Ask a yes/no question (No is the default, so a stray Enter keeps the edit)."""
        answer = QMessageBox.question(self, title, question,
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def may_close(self) -> bool:
        """True when closing loses nothing, or the user agreed to discard the changes."""
        return not self.dirty or self.confirm("Discard your changes?",
                                              "The fix has unsaved changes. Close and discard them?")

    def request_close(self) -> None:
        if self.may_close():
            self._closing = True
            try:
                self.cancel_requested.emit()
            finally:
                self._closing = False

    def back_to_original(self) -> None:
        """Put the original gold back in the text, after asking; undoable with Ctrl+Z."""
        if self.current_text() == (self.original if self.as_line else to_text(self.original)):
            return
        if not self.confirm("Back to the original?",
                            "Replace your edit with the item's original gold? (Ctrl+Z brings the edit back.)"):
            return
        if self.as_line and isinstance(self.original, str):
            self.line.selectAll()
            self.line.insert(self.original)  # QLineEdit keeps this on its undo stack
        else:
            cursor = self.text.textCursor()
            cursor.select(QTextCursor.SelectionType.Document)
            cursor.insertText(to_text(self.original))  # one undoable edit, unlike setPlainText
        self.validate_now()

    def undo(self) -> None:
        (self.line if self.as_line else self.text).undo()

    def redo(self) -> None:
        (self.line if self.as_line else self.text).redo()

    # -- input ---------------------------------------------------------------------

    def load(self, kind: str, original: Any, schema_text: str | None = None, current: Any = _ORIGINAL) -> None:
        """Edit ``current`` (default: ``original``; a JSON null gold is None) as a fix of ``original``."""
        self.kind = kind
        self.original = original
        # An answer string is edited as it reads, without JSON quotes.
        self.as_line = isinstance(original, str)
        self.text.setVisible(not self.as_line)
        self.line.setVisible(self.as_line)
        self._validator, self.schema_note = (
            schema_validator(schema_text) if kind == ItemKind.EXTRACTION else (None, None))
        self.set_value(original if current is _ORIGINAL else current)

    def set_value(self, value: Any) -> None:
        """Replace the editor's content with ``value`` and validate it at once."""
        if self.as_line and isinstance(value, str):
            self.line.setText(value)
        else:
            if self.as_line:  # a non-string fix of a string gold: edit it as JSON
                self.as_line = False
                self.line.hide()
                self.text.show()
            self.text.setPlainText(to_text(value))
        self._baseline = self.current_text()
        self.validate_now()

    def current_text(self) -> str:
        return self.line.text() if self.as_line else self.text.toPlainText()

    # -- validation ------------------------------------------------------------------

    def validate_now(self) -> None:
        self._timer.stop()
        c = theme.colors()
        self.syntax_error, self.schema_errors, self.changes, self.op_count, self.value = None, [], [], 0, None
        self.text.setExtraSelections([])
        if self.as_line:
            value, ok = self.line.text(), True
        else:
            value, ok = self._parse(self.text.toPlainText())
        if ok:
            self.value = value
            ops = make_patch(self.original, value)
            self.op_count = len(ops)
            self.changes = describe_changes(self.original, value, ops) if ops else []
            if self._validator is not None:
                errors = sorted(self._validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
                self.schema_errors = [f"{e.json_path}: {e.message}" for e in errors]
        self._show_results(c)
        self.validated.emit()

    def _parse(self, text: str) -> tuple[Any, bool]:
        try:
            return json.loads(text), True
        except json.JSONDecodeError as exc:
            self.syntax_error = f"JSON syntax error at line {exc.lineno}, column {exc.colno}: {exc.msg}"
            self._mark_line(exc.lineno)
            return None, False

    def _mark_line(self, lineno: int) -> None:
        block = self.text.document().findBlockByNumber(max(0, lineno - 1))
        if not block.isValid():
            return
        sel = QTextEdit.ExtraSelection()
        sel.format.setBackground(theme.colors()["error_bg"])
        sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
        sel.cursor = QTextCursor(block)
        self.text.setExtraSelections([sel])

    def _show_results(self, c) -> None:
        bad, warn, ok, muted = (c[k].name() for k in ("bad", "unk", "ok", "muted"))
        if self.syntax_error:
            self.syntax_label.setText(f"<span style='color:{bad}'>✗ {self.syntax_error}</span>")
        else:
            self.syntax_label.setText(f"<span style='color:{ok}'>✓ valid JSON</span>" if not self.as_line else "")
        if self.schema_note:
            self.schema_label.setText(f"<span style='color:{warn}'>{html.escape(self.schema_note)}</span>")
        elif self._validator is None or self.syntax_error:
            self.schema_label.setText("")
        elif self.schema_errors:
            shown = self.schema_errors[:MAX_SCHEMA_ERRORS]
            more = len(self.schema_errors) - len(shown)
            lines = "<br>".join(html.escape(e) for e in shown) + (f"<br>… and {more} more" if more > 0 else "")
            self.schema_label.setText(
                f"<span style='color:{bad}'>✗ {len(self.schema_errors)} schema error(s):<br>{lines}</span>")
        else:
            self.schema_label.setText(f"<span style='color:{ok}'>✓ matches the item's schema</span>")
        if self.syntax_error:
            self.ops_label.setText("")
        elif self.op_count == 0:
            self.ops_label.setText(f"<span style='color:{muted}'>{html.escape(self.no_change_text)}</span>")
        elif self.op_count > MANY_FIX_OPERATIONS:
            self.ops_label.setText(
                f"<span style='color:{warn}'>⚠ {self.op_count} patch operations: fixes should be minimal "
                f"(at most {MANY_FIX_OPERATIONS}), so this may be a Reject.</span>")
        else:
            self.ops_label.setText(f"{self.op_count} patch operation(s).")
        self.change_list.clear()
        self.change_list.addItems(self.changes[:MAX_LISTED_CHANGES])
        if len(self.changes) > MAX_LISTED_CHANGES:
            self.change_list.addItem(f"… {len(self.changes) - MAX_LISTED_CHANGES} more")
        self.save_button.setEnabled(self.can_save)

    @property
    def can_save(self) -> bool:
        return self.syntax_error is None and self.op_count > 0

    def request_save(self) -> None:
        self.validate_now()
        if self.can_save:
            self._baseline = self.current_text()  # saved: closing now loses nothing
            self._closing = True
            try:
                self.save_requested.emit(self.value)
            finally:
                self._closing = False


class _KeepIndent(QObject):
    """Enter in the JSON text: a newline indented like the current line, one step more
    after an opening brace or bracket (nothing else: Enter never reaches a button)."""

    def eventFilter(self, obj, event) -> bool:
        if (event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
                and event.modifiers() in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier)):
            cursor = obj.textCursor()
            before = cursor.block().text()[: cursor.positionInBlock()]
            indent = before[: len(before) - len(before.lstrip(" "))]
            obj.insertPlainText("\n" + indent + ("  " if before.rstrip().endswith(("{", "[")) else ""))
            return True
        return False


class _CloseGuard(QObject):
    """Asks before the dialog hosting the editor closes with unsaved changes."""

    def __init__(self, editor: FixEditor):
        super().__init__(editor)
        self.editor = editor

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Close and not self.editor._closing and not self.editor.may_close():
            event.ignore()
            return True
        return False
