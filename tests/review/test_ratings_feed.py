"""Annotations in the store feed the agreement report (and `reviewer agree`)."""

from __future__ import annotations

import subprocess
import sys

from reviewer.agreement.report import build_report
from reviewer.review.annotate import save_annotation
from reviewer.review.ratings import ratings_for
from reviewer.review.rubric import Draft
from reviewer.samples import ensure_samples
from reviewer.store import ItemQuery

CHECKS = {"schema_conformance": True, "content_faithfulness": True, "cross_field_consistency": True}


def _annotate_chains(store):
    ds = store.dataset("sample-call-chains")
    rows = store.item_page(ItemQuery(dataset_id=ds.id), 0, 100)
    # alice and bob agree that items 0-3 are fine; on item 4 only bob finds the query inadequate;
    # on item 5 both find the chain inconsistent with the tools
    for i, row in enumerate(rows):
        for who in ("alice", "bob"):
            checks = dict(CHECKS, chain_matches_tools=i != 5,
                          query_meets_requirements=not (i == 4 and who == "bob"))
            verdict = "pass" if all(checks.values()) else "reject"
            save_annotation(store, row.id, who, Draft(verdict=verdict, checks=checks, ambiguity="low",
                                                      difficulty="medium"), None)
    return ds, rows


def test_call_chain_reviews_give_paper_004_agreement(store):
    ensure_samples(store)
    ds, rows = _annotate_chains(store)
    ratings, perspectives = ratings_for(store, [ds.id])
    assert len(ratings) == 12 and set(perspectives) == {"call chain", "query"}
    assert all(r.strata["dataset"] == "sample-call-chains" for r in ratings)
    report = build_report(ratings, bootstrap=0, perspectives=perspectives)
    # p = (N_T + N_F) / N per perspective: chain 6/6 (5 error-free by both, 1 erroneous by both),
    # query 5/6 (bob alone flags item 4); the final agreement averages them
    assert report.nestools_final.value == (1.0 + 5 / 6) / 2


def test_agree_command_writes_an_html_report_with_charts(store, tmp_path, db_url):
    ensure_samples(store)
    _annotate_chains(store)
    out = tmp_path / "report.html"
    proc = subprocess.run(
        [sys.executable, "-m", "reviewer.cli", "agree", "sample-call-chains", "--db", db_url, "--bootstrap", "50",
         "--output", str(out)], capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    assert "<svg" in html and "verdict" in html.lower()
    md = subprocess.run(
        [sys.executable, "-m", "reviewer.cli", "agree", "--db", db_url, "--format", "markdown", "--bootstrap", "0"],
        capture_output=True, text=True, timeout=120,
    )
    assert md.returncode == 0 and "| verdict" in md.stdout
