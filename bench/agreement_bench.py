"""Speed of the agreement statistics on a two-annotator review of 1k/10k/100k items.

Target (issue 14): at 100k items, every coefficient of every variable (verdict,
five rubric fields, any error and each error tag) with 95% intervals from 1,000
bootstrap resamples, from the rating records, in at most 3 s. Prints one figure
per line as ``name: value unit`` (medians of --repeat runs), the old resampling
path (item multiplicities times a per-item one-hot) timed in the same run, and
the cost per item at each size (linear growth = the same per-item cost).
--full adds the other parts of a report at the largest size.

    .venv/bin/python bench/agreement_bench.py [--sizes 1000,10000,100000] [--resamples 1000] [--repeat 3] [--full]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from reviewer.agreement import build_report, render_csv, render_json, render_markdown, write_report
from reviewer.agreement.bootstrap import resampled_weights, rng_for
from reviewer.agreement.breakdown import by_pair, by_stratum
from reviewer.agreement.coefficients import profile
from reviewer.agreement.estimate import estimate_group
from reviewer.agreement.model import validate_ratings
from reviewer.agreement.table import build_rating_set
from reviewer.testing.agreement import index_resampled_weights, synthetic_review

def median_time(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def size_label(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def overall(ratings, b: int, rep: int) -> tuple[float, float, float, object, object]:
    """(validate+tabulate+profile, bootstrap with all coefficients, total) medians, the rating set, profiles."""

    def prepare():
        rating_set = build_rating_set(validate_ratings(ratings))
        return rating_set, {name: profile(t) for name, t in rating_set.tables.items()}

    def everything():
        rating_set, profiles = prepare()
        return estimate_group(rating_set.tables, profiles, None, b, rng_for(0, "overall"))

    t_prepare, (rating_set, profiles) = median_time(prepare, rep)
    t_boot, _ = median_time(lambda: estimate_group(rating_set.tables, profiles, None, b, rng_for(0, "overall")), rep)
    t_total, _ = median_time(everything, rep)
    return t_prepare, t_boot, t_total, rating_set, profiles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="item counts, comma-separated")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--full", action="store_true", help="also time the breakdowns and renderers at the largest size")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    b, rep = args.resamples, args.repeat
    print(f"load_average_1min: {os.getloadavg()[0]:.2f}")
    per_item, report_per_item = [], []
    for n in sizes:
        k = size_label(n)
        ratings = synthetic_review(n)
        t_prepare, t_boot, t_total, rating_set, profiles = overall(ratings, b, rep)
        names = list(rating_set.tables)
        t_new_draws, _ = median_time(
            lambda: resampled_weights([profiles[x] for x in names], None, b, rng_for(0, "overall")), rep
        )
        t_old_draws, _ = median_time(
            lambda: index_resampled_weights([profiles[x] for x in names], None, b, rng_for(0, "overall")), rep
        )
        per_item.append(t_total / n)
        # The whole report, as the Agreement dock and `reviewer agree` compute it: overall,
        # every stratum and pair, distributions, fixes.
        t_report, _ = median_time(lambda: build_report(ratings, bootstrap=b, seed=0), rep)
        report_per_item.append(t_report / n)
        print(f"agreement_{k}_full_report_{b}_boot: {t_report:.3f} s (target 3 s: {t_report / 3.0:.2f} of it)")
        print(f"agreement_{k}_all_coefficients_{b}_boot: {t_total:.3f} s (target 3 s: {t_total / 3.0:.2f} of it)")
        print(f"agreement_{k}_validate_tabulate_profile: {t_prepare:.3f} s")
        print(f"agreement_{k}_coefficients_and_bootstrap: {t_boot:.3f} s")
        print(f"agreement_{k}_resample_counts: {t_new_draws:.3f} s")
        print(f"agreement_{k}_resample_counts_old_path: {t_old_draws:.3f} s ({t_old_draws / t_new_draws:.2f} x ours)")
        print(f"agreement_{k}_per_item: {t_total / n * 1e6:.1f} us")
    if len(sizes) > 1:
        print(f"agreement_growth_per_item_{size_label(sizes[-1])}_vs_{size_label(sizes[1 if len(sizes) > 2 else 0])}: "
              f"{per_item[-1] / per_item[1 if len(sizes) > 2 else 0]:.2f} x (1.0 = linear)")
    if len(sizes) > 1:
        base = 1 if len(sizes) > 2 else 0
        print(f"agreement_full_report_growth_per_item_{size_label(sizes[-1])}_vs_{size_label(sizes[base])}: "
              f"{report_per_item[-1] / report_per_item[base]:.2f} x (1.0 = linear)")
    if not args.full:
        return
    t_point, _ = median_time(lambda: estimate_group(rating_set.tables, profiles), rep)
    t_boot, overall_stats = median_time(
        lambda: estimate_group(rating_set.tables, profiles, None, b, rng_for(0, "overall")), rep
    )
    t_strata, _ = median_time(lambda: by_stratum(rating_set, profiles, overall_stats, b, 0), rep)
    t_pairs, _ = median_time(lambda: by_pair(rating_set, overall_stats, b, 0), rep)
    t_report, report = median_time(lambda: build_report(ratings, bootstrap=b, seed=0), rep)
    t_md, _ = median_time(lambda: render_markdown(report), rep)
    t_csv, _ = median_time(lambda: render_csv(report), rep)
    t_json, _ = median_time(lambda: render_json(report), rep)
    with tempfile.TemporaryDirectory() as tmp:
        t_html, _ = median_time(lambda: write_report(report, Path(tmp) / "r.html"), rep)
    variables = len(rating_set.tables)
    coefficients = sum(len(v) for v in overall_stats.values())
    print(f"agreement_variables: {variables} count")
    print(f"agreement_coefficients_with_intervals: {coefficients} count")
    print(f"agreement_point_estimates_only: {t_point:.4f} s")
    print(f"agreement_bootstrap_per_resample: {t_boot / b * 1000:.3f} ms")
    print(f"agreement_bootstrap_vs_point_estimate: {t_boot / t_point:.0f} x")
    print(f"agreement_breakdown_by_stratum_4_keys: {t_strata:.3f} s")
    print(f"agreement_breakdown_by_pair: {t_pairs:.3f} s")
    print(f"agreement_build_report_total: {t_report:.3f} s")
    print(f"agreement_render_markdown: {t_md:.3f} s")
    print(f"agreement_render_csv: {t_csv:.3f} s")
    print(f"agreement_render_json: {t_json:.3f} s")
    print(f"agreement_write_html: {t_html:.3f} s")


if __name__ == "__main__":
    main()
