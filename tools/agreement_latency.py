"""GUI-thread cost of the agreement panel on a large review:
``python -m tools.agreement_latency [ITEMS] [RESAMPLES]`` prints ``name: value unit`` lines.

The report is computed on a worker; what the GUI thread still does is fill
the tables, parse the SVG charts and lay out the rich text. This measures
that (target: showing a 10,000-item report under 100 ms, switching the
breakdown under 30 ms) beside the background computation, on the synthetic
two-annotator review of ``bench/agreement_bench.py``.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def synthetic_review(n_items: int):
    """The benchmark's review generator (bench/ is scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("agreement_bench", ROOT / "bench" / "agreement_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.synthetic_review(n_items)


def main(argv: list[str]) -> int:
    n_items = int(argv[0]) if argv else 10_000
    resamples = int(argv[1]) if len(argv) > 1 else 1000
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from reviewer.agreement.html_report import charts
    from reviewer.agreement.report import build_report
    from reviewer_ui.agreement.job import AgreementResult
    from reviewer_ui.agreement.panel import AgreementPanel
    from reviewer_ui.agreement.sections import panel_texts
    from reviewer_ui.runtime.jobs import JobRunner

    app = QApplication.instance() or QApplication([])
    ratings = synthetic_review(n_items)
    start = time.perf_counter()
    report = build_report(ratings, bootstrap=resamples, seed=0)
    result = AgreementResult("bench", [], report, charts(report), panel_texts(report))
    background = time.perf_counter() - start

    panel = AgreementPanel(None, JobRunner())
    panel.stale = False  # shown without a store: no computation of its own
    panel.resize(1300, 900)
    panel.show()
    app.processEvents()
    show_times, switch_times = [], []
    for _ in range(5):
        start = time.perf_counter()
        panel.show_result(result)
        app.processEvents()
        show_times.append(time.perf_counter() - start)
        for b in range(panel.breakdown_box.count()):
            start = time.perf_counter()
            panel.breakdown_box.setCurrentIndex(b)
            app.processEvents()
            switch_times.append(time.perf_counter() - start)
    show = statistics.median(show_times)
    switch = statistics.median(switch_times)
    print(f"agreement_items: {n_items} items")
    print(f"agreement_background_report_and_charts: {background * 1000:.0f} ms")
    print(f"agreement_gui_show_result_median: {show * 1000:.1f} ms")
    print(f"agreement_gui_switch_breakdown_median: {switch * 1000:.1f} ms")
    print(f"agreement_gui_share_of_total: {show / (show + background):.3f} ratio")
    panel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
