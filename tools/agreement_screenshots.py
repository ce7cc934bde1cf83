"""Screenshots of the agreement panel on the bundled samples:
``python -m tools.agreement_screenshots OUT_DIR [light|dark]``.

Builds a throw-away SQLite store with the samples and a review of three
annotators (a skewed tool-selection set, extraction fixes with difficulty
corrections, call chains with paper 004's perspectives), then saves one PNG
per tab of the panel and one of the main window with the dock open. Runs
offscreen; nothing is written outside OUT_DIR and a temp folder.
"""

from __future__ import annotations

import copy
import os
import sys
import tempfile
from pathlib import Path

GOOD = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}


def annotate_samples(store) -> None:
    """A review with agreement, skew, fixes, difficulty corrections and error tags to show."""
    from reviewer.review.annotate import save_annotation
    from reviewer.review.rubric import Draft
    from reviewer.store import ItemQuery

    def rows(name):
        return store.item_page(ItemQuery(dataset_id=store.dataset(name).id), 0, 1000)

    def rate(item_id, who, verdict, checks=GOOD, ambiguity="low", difficulty=None, tags=(), fix=None):
        draft = Draft(verdict, dict(checks), ambiguity, difficulty, list(tags), "", fix)
        save_annotation(store, item_id, who, draft, None)

    bad = dict(GOOD, content_faithfulness=False)
    # Tool selection: nearly everything passes; bob rejects three, carol joins on the first half.
    for i, row in enumerate(rows("sample-tool-selection")):
        rate(row.id, "alice", "pass", ambiguity="medium" if i % 9 == 0 else "low")
        if i in (2, 11, 23):
            rate(row.id, "bob", "reject", bad, "high", tags=("tool_selection",))
        else:
            rate(row.id, "bob", "pass")
        if i < 16:
            rate(row.id, "carol", "reject" if i == 2 else "pass", bad if i == 2 else GOOD,
                 tags=("tool_omission",) if i == 2 else ())
    # Extraction: fixes (some the same, some not) and difficulty tags against the original.
    for i, row in enumerate(rows("sample-extraction")):
        gold = store.item(row.id).gold
        key = next(iter(gold)) if isinstance(gold, dict) and gold else None
        fix_a = fix_b = None
        if key is not None and i < 3:
            fix_a = copy.deepcopy(gold)
            fix_a[key] = "corrected value"
            fix_b = copy.deepcopy(fix_a) if i != 1 else {**copy.deepcopy(gold), key: "another value"}
        hard = "hard" if i % 2 else "medium"
        if fix_a is not None:
            rate(row.id, "alice", "fix", bad, "medium", hard, ("extraction_incomplete",), fix_a)
            rate(row.id, "bob", "fix", bad, "medium", "hard", ("semantic_hallucination",), fix_b)
        else:
            rate(row.id, "alice", "pass", difficulty=hard)
            rate(row.id, "bob", "reject" if i == 5 else "pass", bad if i == 5 else GOOD,
                 "high" if i == 5 else "low", hard, ("type_mismatch",) if i == 5 else ())
    # Call chains: the two review perspectives of paper 004.
    for i, row in enumerate(rows("sample-call-chains")):
        for who in ("alice", "bob"):
            checks = dict(GOOD, chain_matches_tools=i != 5, query_meets_requirements=not (i == 4 and who == "bob"))
            ok = all(checks.values())
            rate(row.id, who, "pass" if ok else "reject", checks, tags=() if ok else ("param_omission",))


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or (len(argv) == 2 and argv[1] not in ("light", "dark")):
        print("usage: python -m tools.agreement_screenshots OUT_DIR [light|dark]", file=sys.stderr)
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, QThreadPool
    from PySide6.QtWidgets import QApplication

    from reviewer.samples import ensure_samples
    from reviewer.store import Store
    from reviewer_ui import theme
    from reviewer_ui.agreement.panel import SCOPE_ALL, AgreementPanel
    from reviewer_ui.runtime.jobs import JobRunner

    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    name = argv[1] if len(argv) == 2 else "light"
    app = QApplication.instance() or QApplication([])
    theme.apply(app, name)

    def wait_for(signal_owner, condition, timeout_s=60.0):
        import time

        end = time.monotonic() + timeout_s
        while not condition():
            if time.monotonic() > end:
                raise TimeoutError(f"{signal_owner}: gave up waiting")
            app.processEvents()
            time.sleep(0.01)

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "agreement.sqlite3"))
        ensure_samples(store)
        annotate_samples(store)
        runner = JobRunner(QThreadPool())
        panel = AgreementPanel(store, runner)
        panel.set_scope(SCOPE_ALL)
        panel.resize(1300, 900)
        panel.show()
        wait_for("panel", lambda: panel.result is not None)
        for i in range(panel.tabs.count()):
            panel.tabs.setCurrentIndex(i)
            app.processEvents()
            slug = panel.tabs.tabText(i).lower().replace("&&", "and").replace(" ", "-")
            panel.grab().save(str(out / f"agreement-{i}-{slug}-{name}.png"))
        # every breakdown of the coefficient tab
        panel.tabs.setCurrentIndex(0)
        for b in range(1, panel.breakdown_box.count()):
            panel.breakdown_box.setCurrentIndex(b)
            app.processEvents()
            slug = panel.breakdown_box.currentData().replace(":", "-")
            panel.grab().save(str(out / f"agreement-0-{slug}-{name}.png"))
        panel.close()

        from reviewer_ui.main_window import MainWindow

        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(store, settings)
        window.resize(1800, 1100)
        window.show()
        wait_for("window", lambda: bool(window.datasets))
        window.select_dataset("sample-tool-selection")
        window.agreement.result = None
        window.agreement_action.trigger()
        wait_for("window", lambda: window.agreement.result is not None)
        app.processEvents()
        window.grab().save(str(out / f"agreement-window-{name}.png"))
        window.close()
        runner.shutdown(10_000)
        store.close()
    print(f"wrote screenshots to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
