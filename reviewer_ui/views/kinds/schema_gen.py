"""schema_gen (paper 003): the schema, and each output validated against the
verification schema with every jsonschema error marked on the offending node."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from reviewer.kinds import ItemKind
from reviewer_ui import theme
from reviewer_ui.itemprep import ItemBundle
from reviewer_ui.textdoc import LineDocument
from reviewer_ui.views.kinds.base import KindLayout
from reviewer_ui.views.panes import section
from reviewer_ui.widgets.line_view import LineView


class SchemaGenLayout(KindLayout):
    kind = ItemKind.SCHEMA_GEN
    has_gold_diff = False  # schema generation has no single gold

    def build_left(self) -> QWidget:
        self.meta = QLabel()
        self.meta.setObjectName("muted")
        self.meta.setWordWrap(True)
        self.schema = LineView()
        box = QWidget()
        col = QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 0)
        col.addWidget(self.meta)
        col.addWidget(section("Schema given to the model", self.schema), 1)
        return box

    def extra_tabs(self):
        self.verdict = QLabel()
        self.verdict.setWordWrap(True)
        self.checked = LineView()
        self.errors = QListWidget()
        self.errors.currentRowChanged.connect(self._go_to_error)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("schemaGenValidation")
        split.addWidget(section("Output (offending nodes marked)", self.checked))
        split.addWidget(section("Validation errors", self.errors))
        split.setStretchFactor(0, 3)
        box = QWidget()
        col = QVBoxLayout(box)
        col.setContentsMargins(2, 2, 2, 2)
        col.addWidget(self.verdict)
        col.addWidget(split, 1)
        self._rows: list[int | None] = []
        return [(box, "Validation")]

    def fill_left(self, bundle: ItemBundle) -> None:
        p = bundle.detail.payload or {}
        facts = [f"subset: {p.get('subset') or bundle.detail.category or '—'}"]
        if p.get("special_token"):
            facts.append(f"special token: {p['special_token']}")
        facts.append("verification schema: " + ("own" if p.get("verify_schema") else "the schema shown"))
        self.meta.setText(" · ".join(facts))
        self.schema.set_document(bundle.view["schema"].document)

    def fill_tabs(self, bundle: ItemBundle, run_id: int | None) -> None:
        index = next((i for i, p in enumerate(bundle.outputs) if p.output.run_id == run_id), 0)
        self.errors.clear()
        if not bundle.outputs:
            self.verdict.setText("<i>No model output to validate.</i>")
            self.checked.set_document(LineDocument([]))
            self._rows = []
            return
        v = bundle.view["validations"][index]
        label = html.escape(bundle.outputs[index].label)
        if v.problem:
            self.verdict.setText(f"<b>{label}</b>: not validated: {html.escape(v.problem)}")
        elif v.errors:
            bad = theme.colors()["bad"].name()
            self.verdict.setText(f"<b>{label}</b>: <span style='color:{bad}'>invalid</span>, {len(v.errors)} error(s)")
        else:
            self.verdict.setText(f"<b>{label}</b>: valid against the schema")
        self.checked.set_document(v.document)
        self._rows = [row for row, _, _ in v.errors]
        for row, path, message in v.errors:
            where = f"line {row + 1}" if row is not None else "?"
            QListWidgetItem(f"{path} ({where}): {message}", self.errors)

    def _go_to_error(self, index: int) -> None:
        if 0 <= index < len(self._rows) and self._rows[index] is not None:
            self.checked.set_current_line(self._rows[index])
