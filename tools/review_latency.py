"""Latency of the annotation panel's synchronous store calls:
``python -m tools.review_latency [ITEMS]`` prints ``name: value unit`` lines.

The panel saves on the GUI thread because one save is one small transaction;
this measures that claim (target: a save, with the panel's refresh, under
20 ms at the 95th percentile on SQLite) on a dataset of ITEMS items.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main(argv: list[str]) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from reviewer.formats.base import DatasetRecord, ItemRecord, ParsedDataset
    from reviewer.jobs import silent
    from reviewer.store import Store
    from reviewer.store.importing import import_dataset
    from reviewer_ui.review.annotation_panel import AnnotationPanel
    from reviewer_ui.review.session import ReviewSession

    n_items = int(argv[0]) if argv else 2000
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "latency.sqlite3"))
        items = (ItemRecord(record_id=f"q{i}", kind="tool_qa", gold={"answer": f"A{i}", "n": i}, raw={"i": i},
                            question=f"Question {i}?") for i in range(n_items))
        ds = import_dataset(store.engine, ParsedDataset(
            DatasetRecord(name="latency", format="jsonl", kind="tool_qa", source="made up"), items), silent())
        session = ReviewSession(store, QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        session.set_identity("bench")
        panel = AnnotationPanel(session)
        saves, shows, nexts = [], [], []
        item_id = store.find_item("latency", "q0").id
        for _ in range(min(200, n_items)):
            t = time.perf_counter()
            panel.show_item(store.item(item_id))
            shows.append(time.perf_counter() - t)
            for change in (lambda: panel.set_verdict("reject"), panel.cycle_ambiguity):
                t = time.perf_counter()
                change()
                saves.append(time.perf_counter() - t)
            t = time.perf_counter()
            item_id = panel.save_and_next()
            nexts.append(time.perf_counter() - t)
            app.processEvents()
        store.close()
        del ds
    for name, values in (("review_save_on_change", saves), ("review_show_item", shows),
                         ("review_next_item", nexts)):
        print(f"{name}_median: {statistics.median(values) * 1000:.1f} ms")
        print(f"{name}_p95: {percentile(values, 0.95) * 1000:.1f} ms")
    print(f"review_save_p95_vs_20ms_budget: {percentile(saves, 0.95) * 1000 / 20:.2f} ratio")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
