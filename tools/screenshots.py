"""``python -m tools.screenshots OUT_DIR [--theme dark] [--samples]``: PNGs of the main
window showing an item of each kind (offscreen, from a store in a temp folder
holding ui.demo's items, or with ``--samples`` the bundled sample datasets)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def wait_until(app, condition, timeout: float = 10.0) -> bool:
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return False


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m tools.screenshots OUT_DIR [--theme dark|light]", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    theme_name = argv[argv.index("--theme") + 1] if "--theme" in argv else "light"

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from reviewer.store import Store
    from reviewer_ui import theme
    from tools.demo import build_demo_store
    from reviewer_ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    theme.apply(app, theme_name)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "demo.sqlite3"))
        if "--samples" in argv:
            from reviewer.samples import ensure_samples

            ensure_samples(store)
        else:
            build_demo_store(store)
        datasets = {d.kind: d.name for d in store.datasets()}
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(store, settings)
        window.resize(1800, 1000)
        window.show()
        wait_until(app, lambda: window.datasets)
        tabs_to_show = {"tool_qa": ["Output", "Gold vs output"], "extraction": ["Gold vs output"], "call_chain": ["Calls", "Graph"],
                        "schema_gen": ["Validation"], "tool_select": ["Selection"], "function_call": ["Gold vs output"]}
        for kind, dataset in datasets.items():
            window.select_dataset(dataset)
            wait_until(app, lambda kind=kind: window.item_view.bundle is not None
                       and window.item_view.bundle.detail.kind == kind)
            layout = window.item_view.current_layout()
            for tab in tabs_to_show.get(kind, ["Output"]):
                for i in range(layout.tabs.count()):
                    if layout.tabs.tabText(i) == tab:
                        layout.tabs.setCurrentIndex(i)
                if tab == "Gold vs output":
                    wait_until(app, lambda layout=layout: layout.diff.result is not None, 5)
                    layout.diff.next_change()
                for _ in range(5):
                    app.processEvents()
                name = out / f"{dataset}-{tab.lower().replace(' ', '_')}-{theme_name}.png"
                window.grab().save(str(name))
                print(name)
        window.close()
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
