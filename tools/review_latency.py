"""How long the annotation panel holds the GUI thread per key:
``python -m tools.review_latency [ITEMS]`` prints ``name: value unit`` lines.

The panel saves through the job runner (off the GUI thread). This measures, on a SQLite
dataset of ITEMS items, the time a verdict or rubric key keeps the GUI thread busy with the
runner (``review_key_gui``) against the same panel without a runner, which saves on the
GUI thread (``review_key_gui_synchronous``, the naive figure), and the time until the save
has landed in the panel (``review_save_landed``). Target: a key under 20 ms at p95.
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


def _measure(app, store, session, runner, rounds: int) -> tuple[list[float], list[float]]:
    from reviewer_ui.review.annotation_panel import AnnotationPanel

    panel = AnnotationPanel(session, runner)
    shown: list[int] = []
    panel.navigate.connect(shown.append)
    keys, landed = [], []
    item_id = store.find_item("latency", "q0").id
    for _ in range(rounds):
        panel.show_item(store.item(item_id))
        for change in (lambda: panel.set_verdict("reject"), panel.cycle_ambiguity):
            t = time.perf_counter()
            change()
            keys.append(time.perf_counter() - t)
            while panel.saving:
                app.processEvents()
            landed.append(time.perf_counter() - t)
        before = len(shown)
        panel.save_and_next()
        while len(shown) == before:
            app.processEvents()
        item_id = shown[-1]
    return keys, landed


def main(argv: list[str]) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, QThreadPool
    from PySide6.QtWidgets import QApplication

    from reviewer.formats.base import DatasetRecord, ItemRecord, ParsedDataset
    from reviewer.jobs import silent
    from reviewer.store import Store
    from reviewer.store.importing import import_dataset
    from reviewer_ui.review.session import ReviewSession
    from reviewer_ui.runtime.jobs import JobRunner

    n_items = int(argv[0]) if argv else 2000
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "latency.sqlite3"))
        items = (ItemRecord(record_id=f"q{i}", kind="tool_qa", gold={"answer": f"A{i}", "n": i}, raw={"i": i},
                            question=f"Question {i}?") for i in range(n_items))
        import_dataset(store.engine, ParsedDataset(
            DatasetRecord(name="latency", format="jsonl", kind="tool_qa", source="made up"), items), silent())
        results = {}
        for mode, name in (("sync", "sync-bench"), ("async", "async-bench")):
            session = ReviewSession(store, QSettings(str(Path(tmp) / f"{mode}.ini"), QSettings.Format.IniFormat))
            session.set_identity(name)
            session.set_advance_after_verdict(False)
            runner = JobRunner(QThreadPool()) if mode == "async" else None
            results[mode] = _measure(app, store, session, runner, min(100, n_items // 2))
            if runner is not None:
                runner.shutdown(5000)
        store.close()
    sync_keys, _ = results["sync"]
    keys, landed = results["async"]
    for name, values in (("review_key_gui", keys), ("review_key_gui_synchronous", sync_keys),
                         ("review_save_landed", landed)):
        print(f"{name}_median: {statistics.median(values) * 1000:.2f} ms")
        print(f"{name}_p95: {percentile(values, 0.95) * 1000:.2f} ms")
    print(f"review_key_gui_p95_vs_20ms_target: {percentile(keys, 0.95) * 1000 / 20:.3f} ratio")
    print(f"review_key_gui_p95_vs_synchronous: {percentile(keys, 0.95) / percentile(sync_keys, 0.95):.3f} ratio")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
