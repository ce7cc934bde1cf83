"""Screenshots of the review panels on sample data:
``python -m tools.review_screenshots OUT_DIR [light|dark]``.

Builds a throw-away SQLite store with a small extraction dataset, two
annotators' fixes and an adjudicator, then saves PNGs of the annotation panel,
the fix editor (with a schema error and the change list) and the adjudication
view. Runs offscreen; nothing is written outside OUT_DIR and a temp folder.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

SCHEMA = {
    "type": "object",
    "properties": {
        "company": {"type": "string"},
        "founded": {"type": "integer"},
        "offices": {"type": "array", "items": {"type": "object", "properties": {
            "city": {"type": "string"}, "staff": {"type": "integer"}}, "required": ["city"]}},
    },
    "required": ["company", "founded"],
}
GOLD = {"company": "Northwind Traders", "founded": 1994,
        "offices": [{"city": "Lisbon", "staff": 40}, {"city": "Oslo", "staff": 12}]}


def build_store(folder: Path):
    """A store with one extraction item per case; returns (store, {record_id: item id})."""
    from reviewer.formats.base import DatasetRecord, ItemRecord, ParsedDataset
    from reviewer.jobs import silent
    from reviewer.review import annotate
    from reviewer.review.annotate import save_annotation
    from reviewer.review.rubric import Draft
    from reviewer.store import Store
    from reviewer.store.importing import import_dataset

    store = Store(str(folder / "sample.sqlite3"))
    items = [
        ItemRecord(record_id=f"deep-{i}", kind="extraction", gold=GOLD, raw={"id": i},
                   payload={"text": "Northwind Traders, founded in 1994, runs offices in Lisbon (40 staff) "
                                    "and Oslo (12 staff)."},
                   schema=json.dumps(SCHEMA), category="business", depth=5, difficulty="Hard",
                   source_file="deepjson.xlsx", source_line=i + 2)
        for i in range(3)
    ]
    ds = ParsedDataset(DatasetRecord(name="sample", format="deepjson", kind="extraction", source="deepjson.xlsx"),
                       iter(items))
    import_dataset(store.engine, ds, silent())
    ids = {it.record_id: store.find_item("sample", it.record_id).id for it in items}
    annotate.set_role(store, "carol", "adjudicator")
    checks = {"schema_conformance": True, "content_faithfulness": False, "cross_field_consistency": True,
              "length_compliance": False}
    fix_a = json.loads(json.dumps(GOLD))
    fix_a["offices"][1]["staff"] = 21
    fix_b = json.loads(json.dumps(GOLD))
    fix_b["founded"] = 1995
    save_annotation(store, ids["deep-0"], "alice", Draft("fix", dict(checks), "low", "hard",
                                                         ["extraction_incomplete"], "Oslo has 21 staff", fix_a), None)
    save_annotation(store, ids["deep-0"], "bob", Draft("fix", dict(checks), "medium", "hard",
                                                       ["semantic_hallucination"], "founded 1995", fix_b), None)
    save_annotation(store, ids["deep-1"], "bob", Draft("pass", {}, "low", "hard", [], "", None), None)
    return store, ids


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or (len(argv) == 2 and argv[1] not in ("light", "dark")):
        print("usage: python -m tools.review_screenshots OUT_DIR [light|dark]", file=sys.stderr)
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from reviewer_ui import theme
    from reviewer_ui.review.adjudication_view import AdjudicationPanel
    from reviewer_ui.review.annotation_panel import AnnotationPanel
    from reviewer_ui.review.session import ReviewSession

    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication([])
    theme.apply(app, argv[1] if len(argv) == 2 else "light")
    with tempfile.TemporaryDirectory() as tmp:
        store, ids = build_store(Path(tmp))

        def session(name: str) -> ReviewSession:
            s = ReviewSession(store, QSettings(str(Path(tmp) / f"{name}.ini"), QSettings.Format.IniFormat))
            s.set_identity(name)
            return s

        def save(widget, name: str, size: tuple[int, int]) -> None:
            widget.resize(*size)
            widget.show()
            app.processEvents()
            path = out / name
            widget.grab().save(str(path))
            print(path)

        alice = session("alice")
        panel = AnnotationPanel(alice)
        panel.show_item(store.item(ids["deep-1"]))  # bob annotated it: hidden from alice
        panel.set_verdict("reject")  # as the keys R, A and D would
        panel.cycle_ambiguity()
        panel.toggle_difficulty()
        panel.set_check("content_faithfulness", False)
        panel.note.setPlainText("The source never names the Oslo office's staff count.")
        panel.flush_note()
        save(panel, "annotation_panel.png", (620, 860))

        editor = panel.open_fix_editor()
        broken = json.loads(json.dumps(GOLD))
        broken["founded"] = "1994"
        broken["offices"][1]["staff"] = 21
        editor.set_value(broken)
        save(panel.fix_dialog, "fix_editor.png", (720, 640))
        editor.text.setPlainText(editor.text.toPlainText().replace('"Oslo",', '"Oslo"'))
        editor.validate_now()
        save(panel.fix_dialog, "fix_editor_syntax_error.png", (720, 640))

        carol = session("carol")
        adj = AdjudicationPanel(carol)
        adj.show_item(store.item(ids["deep-0"]))
        adj.pick("merge")
        adj.rationale.setPlainText("Both fixes are supported by the source.")
        save(adj, "adjudication_view.png", (1280, 1000))
        store.close()
        save_main_window(Path(tmp), out, app)
    return 0


def save_main_window(tmp: Path, out: Path, app) -> None:
    """The main window on the UI's demo data with the review dock beside the item."""
    from PySide6.QtCore import QSettings

    from reviewer.store import Store
    from tools.demo import build_demo_store
    from reviewer_ui.main_window import MainWindow

    store = Store(str(tmp / "demo.sqlite3"))
    build_demo_store(store)
    settings = QSettings(str(tmp / "main.ini"), QSettings.Format.IniFormat)
    settings.setValue("review/identity", "alice")
    window = MainWindow(store, settings)
    window.resize(1700, 950)
    window.show()

    def wait_for(condition) -> None:
        for _ in range(250):  # data loads on the job runner; at most a few seconds
            if condition():
                return
            app.processEvents()
            window.runner.pool.waitForDone(20)

    wait_for(lambda: bool(window.datasets))
    window.select_dataset("demo-tool_qa")
    wait_for(lambda: window.review.annotation.detail is not None
             and window.review.annotation.detail.record_id.startswith("bikes"))
    window.review.annotation.set_verdict("fix")
    window.review.annotation.fix_dialog.close()
    window.review.annotation.cycle_ambiguity()
    app.processEvents()
    path = out / "main_window_review.png"
    window.grab().save(str(path))
    print(path)
    window.runner.shutdown(3000)
    window.close()
    store.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
