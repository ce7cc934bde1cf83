"""Speed of the structural JSON diff and the side-by-side layout.

Pairs of generated filings documents (reviewer.jsondiff.synthetic) that differ
in 20 scalar values: ~5 MB (3,000 nested records) and ~60 KB; and the 5 MB
pair with 15,000 changed values. Prints one figure
per line as ``name: value unit``; medians of several runs. Target: the 5 MB
diff in <= 100 ms. Run with ``--without-orjson`` to measure the json-module
fallback (the script also runs itself that way unless ``--only-current``).

``--helper-threshold``: instead, for pairs from ~16 KB to ~1 MB, the time until the diff view
has the whole layout, made in the app (reviewer_ui.diffdoc) and made in the helper process
(reviewer_ui.diffproc, the worker showing the first rows meanwhile), with the worker thread's
CPU: where the round trip stops costing more than it saves (reviewer_ui.diffdoc.IN_HELPER_FROM).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

if "--without-orjson" in sys.argv:
    sys.modules["orjson"] = None  # makes "import orjson" fail: the fallback path

from reviewer.jsondiff import align, diff  # noqa: E402
from reviewer.jsondiff.canonical import orjson  # noqa: E402
from reviewer.jsondiff.synthetic import filings_pair  # noqa: E402

DIFF_TARGET_MS = 100.0


def median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def first_rows_ms(left, right, changes) -> float:
    """Until the layout hands over its first 2,000 rows, as the diff view asks (the whole if shorter)."""
    start, seen = time.perf_counter(), []
    align(left, right, changes, as_text=True, first_rows=2000, on_first_rows=lambda doc: seen.append(time.perf_counter()))
    return ((seen[0] if seen else time.perf_counter()) - start) * 1000


def measure(label: str, records: int, n_changes: int, runs: int, suffix: str) -> None:
    left, right, changed = filings_pair(records=records, changes=n_changes, seed=42)
    pretty = json.dumps(left, indent=2, ensure_ascii=False)
    changes = diff(left, right)
    assert [c.path for c in changes] == changed, "the diff must find exactly the changed values"
    diff_ms = median_ms(lambda: diff(left, right), runs)
    align_ms = median_ms(lambda: align(left, right, changes), runs)
    align_text_ms = median_ms(lambda: align(left, right, changes, as_text=True), runs)  # what the diff view uses
    first_ms = statistics.median(first_rows_ms(left, right, changes) for _ in range(runs))
    # Baselines on the same document: parsing it, and pretty-printing it with json.
    compact = json.dumps(left)
    parse_ms = median_ms(lambda: json.loads(compact), runs)
    pretty_ms = median_ms(lambda: json.dumps(left, indent=2, ensure_ascii=False), runs)
    doc = align(left, right, changes)
    print(f"{label}_document_size{suffix}: {len(pretty.encode()) / 1e6:.2f} MB")
    print(f"{label}_aligned_rows{suffix}: {len(doc)} rows")
    print(f"{label}_diff{suffix}: {diff_ms:.1f} ms")
    print(f"{label}_align{suffix}: {align_ms:.1f} ms")
    print(f"{label}_align_as_text{suffix}: {align_text_ms:.1f} ms")
    print(f"{label}_align_as_text_vs_lines{suffix}: {align_text_ms / align_ms:.2f} ratio")
    print(f"{label}_align_first_rows{suffix}: {first_ms:.1f} ms")  # the diff view's first screen (2,000 rows)
    print(f"{label}_align_first_rows_vs_whole{suffix}: {first_ms / align_text_ms:.3f} ratio")
    print(f"{label}_json_parse{suffix}: {parse_ms:.1f} ms")
    print(f"{label}_json_pretty_print{suffix}: {pretty_ms:.1f} ms")
    print(f"{label}_diff_vs_json_parse{suffix}: {diff_ms / parse_ms:.2f} ratio")
    print(f"{label}_align_vs_json_pretty_print{suffix}: {align_ms / pretty_ms:.2f} ratio")
    if label == "5mb":
        print(f"{label}_diff_vs_target{suffix}: {diff_ms / DIFF_TARGET_MS:.2f} ratio")


def helper_threshold(runs: int = 7) -> None:
    from reviewer_ui import diffproc
    from reviewer_ui.diffdoc import IN_HELPER_FROM, _build_diff, _compact_pair
    from reviewer_ui.runtime import parsepool

    parsepool.run(len, "")  # started, as at app start-up

    def timed(fn) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), time.thread_time()
        fn()
        return (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000

    def shown(partial) -> None:  # the first rows, "painted" at once (the in-app layout waits for that)
        if partial.shown is not None:
            partial.shown.set()

    print(f"in_helper_from: {IN_HELPER_FROM / 1024:.0f} KB")
    for records in (10, 40, 80, 160, 320, 640):
        left, right, _ = filings_pair(records=records, changes=20, seed=42)
        size = sum(map(len, _compact_pair(left, right))) / 1024
        here, there = [], []
        for _ in range(runs):  # alternating, so load drifts hit both
            here.append(timed(lambda: _build_diff(None, left, right, None, shown)))
            there.append(timed(lambda: diffproc.diff_in_helper(None, left, right, _compact_pair(left, right), None,
                                                               shown)))
        h = statistics.median(w for w, _ in here), statistics.median(c for _, c in here)
        t = statistics.median(w for w, _ in there), statistics.median(c for _, c in there)
        print(f"pair_{size:.0f}kb_in_app: {h[0]:.1f} ms (worker CPU {h[1]:.1f} ms)")
        print(f"pair_{size:.0f}kb_in_helper: {t[0]:.1f} ms (worker CPU {t[1]:.1f} ms; {t[0] / h[0]:.2f} of in-app)")


def main() -> None:
    if "--helper-threshold" in sys.argv:
        helper_threshold()
        return
    suffix = "_json_fallback" if orjson is None else ""
    print(f"orjson{suffix}: {0 if orjson is None else 1} available")
    measure("5mb", records=3000, n_changes=20, runs=7, suffix=suffix)
    measure("60kb", records=36, n_changes=20, runs=50, suffix=suffix)
    # The worst common case for the layout: changes everywhere.
    measure("5mb_15000_changes", records=3000, n_changes=15000, runs=3, suffix=suffix)
    if orjson is not None and "--only-current" not in sys.argv:
        sys.stdout.flush()
        subprocess.run([sys.executable, __file__, "--without-orjson", "--only-current"], check=True)


if __name__ == "__main__":
    main()
