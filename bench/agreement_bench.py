"""Speed of the agreement report on a two-annotator review of 1k/10k/100k items.

Target (issue 14): at 100k items, every coefficient of every variable (verdict,
five rubric fields, any error and each error tag) with 95% intervals from 1,000
bootstrap resamples, from the rating records, in at most 3 s -- the whole
report as the Agreement dock and ``reviewer agree`` compute it (overall, every
stratum and annotator pair, distributions, fixes, disagreements).

Prints ``name: value unit`` lines (medians of --repeat runs; wall and CPU, the
machine is shared), each with its ratio to the 3 s target, and in the same run:
- the bootstrap's pattern counts for the overall group and every stratum group
  drawn as before issue 14 (item indices with replacement, counted by joint
  pattern: reviewer.testing.agreement.index_resampled_weights) against now
  (multinomial pattern counts per variable);
- a naive bootstrap that recomputes every coefficient from the resampled items
  per replicate, timed on a few replicates and scaled to all of them;
- the cost per item at each size (linear growth = the same per-item cost).
--full adds the parts of a report at the largest size.

    .venv/bin/python bench/agreement_bench.py [--sizes 1000,10000,100000] [--resamples 1000] [--repeat 3] [--full]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from reviewer.agreement import build_report, render_csv, render_json, render_markdown, write_report
from reviewer.agreement.bootstrap import resampled_weights, rng_for
from reviewer.agreement.breakdown import by_pair, by_stratum, stratum_groups
from reviewer.agreement.coefficients import profile
from reviewer.agreement.estimate import estimate_group
from reviewer.agreement.model import validate_ratings
from reviewer.agreement.table import build_rating_set
from reviewer.testing.agreement import index_resampled_weights, synthetic_review

TARGET_S = 3.0
NAIVE_REPLICATES = 3


def median_time(fn, repeat: int) -> tuple[float, float, object]:
    """(median wall s, median CPU s, last result) of ``repeat`` calls."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def size_label(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def bootstrap_groups(rating_set) -> list[np.ndarray | None]:
    """The item groups a report bootstraps: all items, then every stratum value's items."""
    n = len(rating_set.item_ids)
    groups = [items for values in stratum_groups(rating_set).values() for items in values.values()]
    return [None] + [items for items in groups if len(items) < n]


def counts_now(profiles, groups, b: int) -> None:
    for k, items in enumerate(groups):
        rng = rng_for(0, f"group{k}")
        for p in profiles:
            resampled_weights([p], items, b, rng)


def counts_before(profiles, groups, b: int) -> None:
    for k, items in enumerate(groups):
        index_resampled_weights(profiles, items, b, rng_for(0, f"group{k}"))


def naive_seconds(rating_set, groups, b: int) -> float:
    """Per-replicate recomputation: draw items, rebuild each group's tables and profiles, compute
    every coefficient; timed on NAIVE_REPLICATES replicates per group, scaled to ``b``."""
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for items in groups:
        items = np.arange(len(rating_set.item_ids)) if items is None else items
        for _ in range(NAIVE_REPLICATES):
            drawn = items[rng.integers(0, len(items), len(items))]
            tables = {n: t.subset(drawn) for n, t in rating_set.tables.items()}
            estimate_group(tables, {n: profile(t) for n, t in tables.items()})
    return (time.perf_counter() - start) * b / NAIVE_REPLICATES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="item counts, comma-separated")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--full", action="store_true", help="also time the parts of a report at the largest size")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    b, rep = args.resamples, args.repeat
    print(f"load_average_1min: {os.getloadavg()[0]:.2f}")
    per_item = []
    for n in sizes:
        k = size_label(n)
        ratings = synthetic_review(n)
        wall, cpu, _ = median_time(lambda: build_report(ratings, bootstrap=b, seed=0), rep)
        per_item.append(wall / n)
        rating_set = build_rating_set(validate_ratings(ratings))
        profiles = [profile(t) for t in rating_set.tables.values()]
        groups = bootstrap_groups(rating_set)
        new_wall, _, _ = median_time(lambda: counts_now(profiles, groups, b), rep)
        old_wall, _, _ = median_time(lambda: counts_before(profiles, groups, b), rep)
        naive = naive_seconds(rating_set, groups, b)
        print(f"agreement_{k}_full_report_{b}_boot: {wall:.3f} s (target {TARGET_S:g} s: {wall / TARGET_S:.2f} of it; "
              f"naive per-replicate recompute {naive:.1f} s: {naive / wall:.0f} x ours)")
        print(f"agreement_{k}_full_report_{b}_boot_cpu: {cpu:.3f} s (target {TARGET_S:g} s: {cpu / TARGET_S:.2f} of it)")
        print(f"agreement_{k}_bootstrap_counts_{len(groups)}_groups: {new_wall:.3f} s "
              f"(previous implementation, item-index draws: {old_wall:.3f} s, {old_wall / new_wall:.1f} x ours)")
        print(f"agreement_{k}_naive_per_replicate_recompute: {naive:.1f} s "
              f"(scaled from {NAIVE_REPLICATES} replicates per group; {naive / wall:.0f} x our full report)")
        print(f"agreement_{k}_full_report_per_item: {wall / n * 1e6:.1f} us")
    if len(sizes) > 1:
        base = 1 if len(sizes) > 2 else 0
        print(f"agreement_full_report_growth_per_item_{size_label(sizes[-1])}_vs_{size_label(sizes[base])}: "
              f"{per_item[-1] / per_item[base]:.2f} x (1.0 = linear)")
    if args.full:
        parts(ratings, b, rep)


def parts(ratings, b: int, rep: int) -> None:
    """Where a report's time goes, at the largest size."""
    t_validate, _, ratings = median_time(lambda: validate_ratings(ratings), rep)
    t_table, _, rating_set = median_time(lambda: build_rating_set(ratings), rep)
    t_profile, _, profiles = median_time(lambda: {n: profile(t) for n, t in rating_set.tables.items()}, rep)
    t_point, _, _ = median_time(lambda: estimate_group(rating_set.tables, profiles), rep)
    t_boot, _, overall = median_time(
        lambda: estimate_group(rating_set.tables, profiles, None, b, rng_for(0, "overall")), rep
    )
    t_strata, _, _ = median_time(lambda: by_stratum(rating_set, profiles, overall, b, 0), rep)
    t_pairs, _, _ = median_time(lambda: by_pair(rating_set, overall, b, 0), rep)
    _, _, report = median_time(lambda: build_report(ratings, bootstrap=b, seed=0), 1)
    t_md, _, _ = median_time(lambda: render_markdown(report), rep)
    t_csv, _, _ = median_time(lambda: render_csv(report), rep)
    t_json, _, _ = median_time(lambda: render_json(report), rep)
    with tempfile.TemporaryDirectory() as tmp:
        t_html, _, _ = median_time(lambda: write_report(report, Path(tmp) / "r.html"), rep)
    print(f"agreement_variables: {len(rating_set.tables)} count")
    print(f"agreement_coefficients_with_intervals: {sum(len(v) for v in overall.values())} count")
    print(f"agreement_validate: {t_validate:.3f} s")
    print(f"agreement_tabulate: {t_table:.3f} s")
    print(f"agreement_profiles: {t_profile:.3f} s")
    print(f"agreement_point_estimates_only: {t_point:.4f} s")
    print(f"agreement_overall_with_bootstrap: {t_boot:.3f} s")
    print(f"agreement_breakdown_by_stratum_4_keys: {t_strata:.3f} s")
    print(f"agreement_breakdown_by_pair: {t_pairs:.3f} s")
    print(f"agreement_render_markdown: {t_md:.3f} s")
    print(f"agreement_render_csv: {t_csv:.3f} s")
    print(f"agreement_render_json: {t_json:.3f} s")
    print(f"agreement_write_html: {t_html:.3f} s")


if __name__ == "__main__":
    main()
