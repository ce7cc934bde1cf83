"""Speed of the agreement statistics on a 10,000-item, two-annotator review.

Target: every coefficient of every variable (verdict, five rubric fields, any
error and each error tag) with 95% intervals from 1,000 bootstrap resamples
in at most 2 s. Prints one figure per line as ``name: value unit`` (medians
of --repeat runs), then the other parts of a full report, and ratios that
stay meaningful on a slower or busier machine.

    .venv/bin/python bench/agreement_bench.py [--items 10000] [--resamples 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from reviewer.agreement import Rating, build_report, render_csv, render_json, render_markdown, write_report
from reviewer.agreement.bootstrap import rng_for
from reviewer.agreement.breakdown import by_pair, by_stratum
from reviewer.agreement.coefficients import profile
from reviewer.agreement.estimate import estimate_group
from reviewer.agreement.model import validate_ratings
from reviewer.agreement.table import build_rating_set

TAGS = ("missing_field", "wrong_type", "hallucination", "bad_nesting", "unit_error", "wrong_id")


def synthetic_review(n_items: int, seed: int = 1) -> list[Rating]:
    """Two annotators who agree on most verdicts, with rubric, tags, fixes and four strata."""
    rnd = random.Random(seed)
    out = []
    for i in range(n_items):
        strata = {
            "category": rnd.choice(["EXTRACTIVE", "FILTERING", "AGGREGATION"]),
            "difficulty": rnd.choice(["Medium", "Hard"]),
            "domain": rnd.choice(["finance", "sports", "travel", "health"]),
            "dataset": "bench",
        }
        truth = rnd.choices(["pass", "fix", "reject"], [0.7, 0.2, 0.1])[0]
        for who in ("ann", "bob"):
            verdict = truth if rnd.random() < 0.85 else rnd.choice(["pass", "fix", "reject"])
            rubric = {
                "schema_conformance": rnd.random() < 0.9,
                "content_faithfulness": rnd.random() < 0.9,
                "cross_field_consistency": rnd.random() < 0.95,
                "ambiguity": rnd.choice(["low", "low", "medium", "high"]),
                "difficulty": rnd.choice(["medium", "hard"]),
            }
            tags = [t for t in TAGS if rnd.random() < 0.05]
            fixed = verdict == "fix"
            patch = [{"op": "replace", "path": f"/f{rnd.randrange(3)}", "value": 1}] if fixed else None
            out.append(Rating(f"i{i}", who, verdict, rubric, tags, {"f": 1} if fixed else None, patch, strata))
    return out


def median_time(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n, b, rep = args.items, args.resamples, args.repeat
    ratings = synthetic_review(n)

    def prepare():
        rating_set = build_rating_set(validate_ratings(ratings))
        return rating_set, {name: profile(t) for name, t in rating_set.tables.items()}

    t_prepare, (rating_set, profiles) = median_time(prepare, rep)
    t_point, _ = median_time(lambda: estimate_group(rating_set.tables, profiles), rep)
    t_boot, overall = median_time(
        lambda: estimate_group(rating_set.tables, profiles, None, b, rng_for(0, "overall")), rep
    )
    t_strata, _ = median_time(lambda: by_stratum(rating_set, profiles, overall, b, 0), rep)
    t_pairs, _ = median_time(lambda: by_pair(rating_set, overall, b, 0), rep)
    t_report, report = median_time(lambda: build_report(ratings, bootstrap=b, seed=0), rep)
    t_md, _ = median_time(lambda: render_markdown(report), rep)
    t_csv, _ = median_time(lambda: render_csv(report), rep)
    t_json, _ = median_time(lambda: render_json(report), rep)
    with tempfile.TemporaryDirectory() as tmp:
        t_html, _ = median_time(lambda: write_report(report, Path(tmp) / "r.html"), rep)

    k = f"{n // 1000}k" if n % 1000 == 0 else str(n)
    variables = len(rating_set.tables)
    coefficients = sum(len(v) for v in overall.values())
    print(f"agreement_{k}_all_coefficients_{b}_boot: {t_prepare + t_boot:.3f} s")
    print(f"agreement_variables: {variables} count")
    print(f"agreement_coefficients_with_intervals: {coefficients} count")
    print(f"agreement_validate_and_tabulate: {t_prepare:.3f} s")
    print(f"agreement_point_estimates_only: {t_point:.4f} s")
    print(f"agreement_bootstrap_all_coefficients: {t_boot:.3f} s")
    print(f"agreement_bootstrap_per_resample: {t_boot / b * 1000:.3f} ms")
    print(f"agreement_bootstrap_vs_point_estimate: {t_boot / t_point:.0f} x")
    print(f"agreement_target_share: {(t_prepare + t_boot) / 2.0:.2f} of the 2 s budget")
    print(f"agreement_breakdown_by_stratum_4_keys: {t_strata:.3f} s")
    print(f"agreement_breakdown_by_pair: {t_pairs:.3f} s")
    print(f"agreement_build_report_total: {t_report:.3f} s")
    print(f"agreement_report_vs_overall: {t_report / (t_prepare + t_boot):.2f} x")
    print(f"agreement_render_markdown: {t_md:.3f} s")
    print(f"agreement_render_csv: {t_csv:.3f} s")
    print(f"agreement_render_json: {t_json:.3f} s")
    print(f"agreement_write_html: {t_html:.3f} s")


if __name__ == "__main__":
    main()
