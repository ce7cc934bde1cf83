"""Speed of the leakage audit: 100,000 item sources scanned against themselves.

Target (issue 15): at most 60 s on the 2-core machine for the one-pass near-duplicate
scan (shingling, MinHash signatures, LSH candidates, verification, best match per
item). Documents are synthetic: ``--words`` words each (default 1,000, about the
median DeepJSONEval source) drawn from a Zipf vocabulary, with 1% planted near-
duplicates (a copy with a few words changed) whose recall is reported.

Peers measured in the same run on a sample and scaled linearly (they are linear
per document): datasketch 2.0's MinHash (``update_batch`` on the same words) and a
naive exact scan (Python sets of shingles, every pair compared; quadratic, so its
100k figure is scaled by the square of the size ratio).

Prints ``name: value unit`` lines (medians of --repeat runs) and ratios.

    .venv/bin/python bench/leakage_bench.py [--items 100000] [--words 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from reviewer.guards import leakage

TARGET_S = 60.0


def corpus(n: int, words: int, seed: int = 1) -> tuple[list[str], list[tuple[int, int]]]:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(60_000)]
    ids = (rng.zipf(1.2, size=(n, words)) - 1) % len(vocab)
    texts = [" ".join(map(vocab.__getitem__, row)) for row in ids.tolist()]
    planted = []
    rnd = random.Random(seed)
    for copy in rnd.sample(range(n), n // 100):
        original = rnd.randrange(n)
        if original == copy:
            continue
        w = texts[original].split()
        for _ in range(max(1, words // 200)):  # ~0.5% of the words changed
            w[rnd.randrange(len(w))] = "edited"
        texts[copy] = " ".join(w)
        planted.append((copy, original))
    return texts, planted


def scan(texts: list[str], threshold: float) -> dict:
    sig = leakage.signatures(texts)
    return leakage.best_matches(sig, None, threshold)


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def cpu_timed(fn, *args):
    """(wall seconds, CPU seconds of this process, result): on a shared machine the CPU time shows
    how much of the wall time was waiting for a core."""
    c, t = time.process_time(), time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, time.process_time() - c, out


def peer_datasketch(texts: list[str]) -> float | None:
    try:
        from datasketch import MinHash
    except ImportError:
        return None
    t = time.perf_counter()
    for text in texts:
        w = text.lower().split()
        m = MinHash(num_perm=128)
        m.update_batch([" ".join(w[i:i + 5]).encode() for i in range(len(w) - 4)])
    return time.perf_counter() - t


def naive_exact(texts: list[str]) -> float:
    t = time.perf_counter()
    sets = []
    for text in texts:
        w = text.lower().split()
        sets.append({" ".join(w[i:i + 5]) for i in range(len(w) - 4)})
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            len(sets[i] & sets[j]) / max(1, len(sets[i] | sets[j]))
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--words", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threshold", type=float, default=0.8)
    args = ap.parse_args()

    t0 = time.perf_counter()
    texts, planted = corpus(args.items, args.words)
    mb = sum(len(t) for t in texts) / 1e6
    print(f"corpus_build: {time.perf_counter() - t0:.1f} s ({args.items} docs, {args.words} words, {mb:.0f} MB)")

    times, cpus, matches = [], [], {}
    for _ in range(args.repeat):
        seconds, cpu, matches = cpu_timed(scan, texts, args.threshold)
        times.append(seconds)
        cpus.append(cpu)
    median = statistics.median(times)
    found = sum(1 for c, o in planted if matches.get(c) and matches[c].index == o)
    print(f"leakage_scan_{args.items}: {median:.1f} s (runs: {', '.join(f'{t:.1f}' for t in times)})")
    print(f"leakage_scan_cpu_{args.items}: {statistics.median(cpus):.1f} s (CPU time of the process; "
          f"wall minus CPU is time spent waiting for a core on a shared machine)")
    print(f"leakage_scan_vs_target: {median / TARGET_S:.2f} x of {TARGET_S:.0f} s")
    print(f"leakage_throughput: {args.items / median:.0f} docs/s, {mb / median:.1f} MB/s")
    print(f"planted_recall: {found / max(1, len(planted)):.3f} ({found} of {len(planted)} near-duplicates found)")
    print(f"flagged_items: {len(matches)}")

    sample = texts[:1000]
    sig_s, _ = timed(leakage.signatures, sample)
    ds = peer_datasketch(sample)
    if ds is not None:
        ds_100k = ds * args.items / len(sample)
        print(f"peer_datasketch_sketch_{args.items}: {ds_100k:.0f} s (scaled from {len(sample)} docs: {ds:.1f} s)")
        print(f"ratio_datasketch_to_ours_sketching: {ds / sig_s:.0f} x")
    naive_n = 300
    naive = naive_exact(texts[:naive_n])
    naive_full = naive * (args.items / naive_n) ** 2
    print(f"naive_exact_pairs_{args.items}: {naive_full / 3600:.0f} h (scaled from {naive_n} docs: {naive:.1f} s)")
    print(f"ratio_naive_to_ours: {naive_full / median:.0f} x")


if __name__ == "__main__":
    main()
