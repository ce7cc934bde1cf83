"""Screenshots of the Runs dock on the bundled samples:
``python -m tools.runs_screenshots OUT_DIR [light|dark]``.

Imports the samples into a throw-away SQLite store, scores both runs of the
tool-response QA sample, makes a short rerun against the project's loopback
server (so the report shows an endpoint adaptation and an error), and saves
PNGs of the runs panel with results and chart, the rerun dialog and the
compare view. Runs offscreen; nothing is written outside OUT_DIR and a temp folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

DATASET = "sample-tool-qa"


def wait_until(app, condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("screenshots: timed out waiting for the panel")
        app.processEvents()
        time.sleep(0.01)


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or (len(argv) == 2 and argv[1] not in ("light", "dark")):
        print("usage: python -m tools.runs_screenshots OUT_DIR [light|dark]", file=sys.stderr)
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, QThreadPool
    from PySide6.QtWidgets import QApplication

    from reviewer.samples import ensure_samples
    from reviewer.store import Store
    from reviewer.testing.openai_server import OpenAIServer, Reply
    from reviewer_ui import theme
    from reviewer_ui.runtime.jobs import JobRunner
    from reviewer_ui.runs.panel import RunsPanel

    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication([])
    theme.apply(app, argv[1] if len(argv) == 2 else "light")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "db.sqlite3")
        ensure_samples(store)
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        runner = JobRunner(QThreadPool())
        panel = RunsPanel(store, runner, settings)
        panel.resize(900, 1000)
        panel.show()
        panel.set_dataset(store.dataset(DATASET))
        wait_until(app, lambda: panel.runs_table.rowCount() == 2)
        panel.score([r.id for r in panel.runs], "faithful")
        wait_until(app, lambda: panel.results.table.rowCount() > 0 and not runner.is_running("runs:work"))

        with OpenAIServer(responder=lambda body: Reply(text="42"), reject={"tool_choice"}) as server:
            server.script(Reply.server_error())
            dialog = panel.open_rerun_dialog()
            dialog.run_name.setCurrentText("local-llama answer")
            dialog.base_url.setText(server.base_url)
            dialog.model.setText("llama-3.1-8b-instruct")
            dialog.key_source.setCurrentIndex(dialog.key_source.findData("env"))
            dialog.key_name.setText("LOCAL_LLM_KEY")
            dialog.retries.setValue(0)
            dialog.cache.setChecked(False)
            dialog.adjustSize()
            app.processEvents()
            dialog.grab().save(str(out / "runs_rerun_dialog.png"))
            os.environ.setdefault("LOCAL_LLM_KEY", "screenshot-placeholder")
            dialog.accept()
            wait_until(app, lambda: panel.last_outcome is not None)
        panel.score([panel.last_outcome.report.run_id], "faithful")
        wait_until(app, lambda: not runner.is_running("runs:work") and len(panel.results.shown()) == 3)
        wait_until(app, lambda: panel.runs_table.rowCount() == 3 and all(
            panel.runs_table.item(r, 5).text() != "—" for r in range(3)))
        app.processEvents()
        panel.grab().save(str(out / "runs_panel.png"))

        panel.tabs.setCurrentWidget(panel.compare)
        panel.compare.choose(panel.runs[0].id, panel.runs[1].id, "faithful")
        panel.compare.request()
        wait_until(app, lambda: panel.compare.table.rowCount() > 0)
        app.processEvents()
        panel.grab().save(str(out / "runs_compare.png"))
        runner.shutdown(5000)
        store.close()
    for name in ("runs_panel.png", "runs_rerun_dialog.png", "runs_compare.png"):
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
