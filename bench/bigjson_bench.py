"""Opening a very big tool response (0.5 / 5 / 50 / 100 MB of compact JSON) in the viewer.

Each size runs in a fresh process (so that peak memory is its own) and prints:
- bigjson_<size>_first_screen: from asking for the text until the viewer has painted
  its first screen (target 300 ms);
- bigjson_<size>_whole: until the whole pretty-printed document is shown;
- bigjson_<size>_max_stall: longest gap of a 10 ms GUI timer beyond its period, from the
  request until the whole document is shown and scrolled to its end (target 50 ms);
- bigjson_<size>_peak_rss_growth: peak resident memory of the app process (VmHWM) minus
  its size before the file was read, so the text itself counts (target 3x the file);
- bigjson_<size>_helper_peak_rss: peak of the helper process that parses and prints, and the
  growth over its idle size as a ratio to the file (target 3x as well);
- bigjson_<size>_tree_first_rows / _tree_helper_peak_rss: then opening the tree of the response
  and reading its top rows and the first 200 records, and the helper's peak after that;
- peer_<size>_*: the same text pretty-printed beforehand and put in a plain QPlainTextEdit
  (setPlainText until the first paint; the GUI is blocked all that time).
Ratios to the targets and to the peer are printed beside the figures; ``*_per_mb`` rows show
whether the cost grows linearly.

Run: .venv/bin/python bench/bigjson_bench.py [--sizes 0.5,5,50,100] [--no-peer]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

FIRST_SCREEN_TARGET_MS, STALL_TARGET_MS, RSS_TARGET_X = 300.0, 50.0, 3.0
PEER_TIMEOUT_S = 240


def status_kb(field: str, pid: str = "self") -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def document_file(size_mb: float) -> Path:
    """A compact JSON file of about ``size_mb`` MB (cached between runs)."""
    import orjson

    from viewer_bench import make_document

    path = Path(tempfile.gettempdir()) / f"reviewer-bench-bigjson-{size_mb:g}mb.json"
    if not path.exists():
        records = max(1, int(size_mb * 1e6 / 467))
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(orjson.dumps(make_document(records)))
        tmp.rename(path)
    return path


def one(size_mb: float) -> None:
    from PySide6.QtCore import QThreadPool
    from PySide6.QtWidgets import QApplication

    from viewer_bench import StallMeter, settle, spin_until

    app = QApplication.instance() or QApplication([])
    from reviewer_ui import theme
    from reviewer_ui.runtime import parsepool
    from reviewer_ui.runtime.jobs import JobRunner
    from reviewer_ui.textdoc import ensure_value, prepare_json_text
    from reviewer_ui.treeindex import rows
    from reviewer_ui.widgets.line_view import LineView

    theme.apply(app, "light")
    parsepool.run(len, "")  # the helper is started at app start
    path = document_file(size_mb)
    runner = JobRunner(QThreadPool())
    view = LineView()
    view.resize(900, 700)
    view.show()
    settle(app)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the peak (VmHWM) to the current size
    rss0 = status_kb("VmRSS")
    helper0 = reset_helper_peak_mb()
    text = path.read_text(encoding="utf-8")
    file_mb = path.stat().st_size / 1e6
    painted, completed = [], []
    view.painted.connect(lambda: painted.append(time.perf_counter()) if len(view.document()) else None)
    view.completed.connect(lambda: completed.append(time.perf_counter()))
    meter = StallMeter()
    meter.start()
    t0 = time.perf_counter()
    opened = []
    runner.start("open", lambda ctx, t: prepare_json_text(t, "the response"), text,
                 on_result=lambda parsed: (opened.append(parsed), view.set_document(parsed.document)))
    spin_until(app, lambda: bool(painted), timeout=120)
    first = (painted[0] - t0) * 1000
    spin_until(app, lambda: view.document().pending is None and bool(painted), timeout=300)
    whole = ((completed[0] if completed else painted[0]) - t0) * 1000
    bar = view.verticalScrollBar()
    for value in (bar.maximum() // 2, bar.maximum()):  # what a user does next: look further down
        bar.setValue(value)
        app.processEvents()
    settle(app, 0.2)
    stall = meter.stop()
    lines = len(view.document())
    assert view.document().lines[lines - 1] == "}", "the last line of the document is shown"
    peak = (status_kb("VmHWM") - rss0) / 1024
    helper = helper_peak_mb()
    # What a user does next: the tree of the response, its top rows and the records' first ones.
    t1 = time.perf_counter()
    remote = ensure_value(None, opened[0])
    top = parsepool.quick(rows, remote.key, (), 0, 200).result()
    records = parsepool.quick(rows, remote.key, ("records",), 0, 200).result()
    tree_ms = (time.perf_counter() - t1) * 1000
    assert [row[0] for row in top] == ["meta", "records"] and len(records) == 200, "the tree shows the rows"
    tree_helper = helper_peak_mb()
    tag = f"bigjson_{size_mb:g}mb"
    print(f"{tag}_file_size: {file_mb:.1f} MB")
    print(f"{tag}_lines: {lines} lines")
    print(f"{tag}_first_screen: {first:.1f} ms")
    print(f"{tag}_first_screen_vs_target: {first / FIRST_SCREEN_TARGET_MS:.2f} ratio")
    print(f"{tag}_whole: {whole:.1f} ms")
    print(f"{tag}_whole_per_mb: {whole / file_mb:.1f} ms/MB")
    print(f"{tag}_max_stall: {stall:.1f} ms")
    print(f"{tag}_max_stall_vs_target: {stall / STALL_TARGET_MS:.2f} ratio")
    print(f"{tag}_peak_rss_growth: {peak:.1f} MB")
    print(f"{tag}_peak_rss_growth_vs_file: {peak / file_mb:.2f} x (target {RSS_TARGET_X:g})")
    print(f"{tag}_helper_peak_rss: {helper:.1f} MB (idle {helper0:.1f} MB)")
    print(f"{tag}_helper_peak_rss_growth_vs_file: {(helper - helper0) / file_mb:.2f} x (target {RSS_TARGET_X:g})")
    print(f"{tag}_tree_first_rows: {tree_ms:.1f} ms")
    print(f"{tag}_tree_helper_peak_rss: {tree_helper:.1f} MB")
    print(f"{tag}_tree_helper_peak_rss_growth_vs_file: {(tree_helper - helper0) / file_mb:.2f} x (target {RSS_TARGET_X:g})")
    sys.stdout.flush()
    runner.shutdown(10000)
    parsepool.shutdown()


def helper_pids() -> list[str]:
    from reviewer_ui.runtime import parsepool

    executor = parsepool.executor()
    return [] if executor is None else [str(proc.pid) for proc in list(executor._processes.values())]


def helper_peak_mb() -> float:
    """Peak resident size (VmHWM) of the helper process, in MB."""
    return max((status_kb("VmHWM", pid) / 1024 for pid in helper_pids()), default=0.0)


def reset_helper_peak_mb() -> float:
    """Reset the helper's peak to its current size, which is returned (MB)."""
    for pid in helper_pids():
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
    return helper_peak_mb()


def peer(size_mb: float) -> None:
    """A plain QPlainTextEdit given the same document, pretty-printed before the clock starts."""
    import orjson
    from PySide6.QtWidgets import QApplication, QPlainTextEdit

    app = QApplication.instance() or QApplication([])
    path = document_file(size_mb)
    pretty = orjson.dumps(orjson.loads(path.read_bytes()), option=orjson.OPT_INDENT_2).decode()
    edit = QPlainTextEdit()
    edit.setReadOnly(True)
    edit.resize(900, 700)
    edit.show()
    app.processEvents()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    rss0 = status_kb("VmRSS")
    t0 = time.perf_counter()
    edit.setPlainText(pretty)
    edit.viewport().repaint()
    app.processEvents()
    elapsed = (time.perf_counter() - t0) * 1000
    peak = (status_kb("VmHWM") - rss0) / 1024
    tag = f"peer_{size_mb:g}mb"
    print(f"{tag}_qplaintextedit_to_visible: {elapsed:.1f} ms")
    print(f"{tag}_qplaintextedit_rss_growth: {peak:.1f} MB")


def main() -> int:
    if "--one" in sys.argv:
        one(float(sys.argv[sys.argv.index("--one") + 1]))
        return 0
    if "--peer" in sys.argv:
        peer(float(sys.argv[sys.argv.index("--peer") + 1]))
        return 0
    sizes = [0.5, 5.0, 50.0, 100.0]
    if "--sizes" in sys.argv:
        sizes = [float(s) for s in sys.argv[sys.argv.index("--sizes") + 1].split(",")]
    for size in sizes:
        document_file(size)
        out = subprocess.run([sys.executable, __file__, "--one", str(size)], capture_output=True, text=True)
        sys.stdout.write(out.stdout)
        if out.returncode:
            print(f"bigjson_{size:g}mb_failed: 1 ({out.stderr.strip().splitlines()[-1:]})")
            continue
        if "--no-peer" in sys.argv:
            continue
        try:
            peer_out = subprocess.run([sys.executable, __file__, "--peer", str(size)], capture_output=True,
                                      text=True, timeout=PEER_TIMEOUT_S)
            sys.stdout.write(peer_out.stdout)
            figures = dict(line.split(": ", 1) for line in (out.stdout + peer_out.stdout).splitlines() if ": " in line)
            tag = f"{size:g}mb"
            ours = float(figures[f"bigjson_{tag}_first_screen"].split()[0])
            theirs = float(figures[f"peer_{tag}_qplaintextedit_to_visible"].split()[0])
            print(f"bigjson_{tag}_first_screen_vs_peer: {ours / theirs:.3f} ratio")
        except subprocess.TimeoutExpired:
            print(f"peer_{size:g}mb_qplaintextedit_to_visible: >{PEER_TIMEOUT_S * 1000} ms (timed out)")
        except (KeyError, ValueError):
            print(f"peer_{size:g}mb_failed: 1")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
