"""The report in every format: same figures, undefined shown as such, files chosen by suffix."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET

import pytest

from reviewer.agreement import (
    build_report,
    render_csv,
    render_html,
    render_json,
    render_markdown,
    render_text,
    write_report,
)
from reviewer.errors import ReviewerError

from .factories import random_review, rating, verdict_ratings


@pytest.fixture(scope="module")
def report():
    return build_report(random_review(80, seed=9), bootstrap=100, seed=1)


def _no_nan(name):
    raise AssertionError(f"JSON contains {name}")


def test_json_carries_irrcac_analytic_standard_errors(report):
    data = json.loads(render_json(report), parse_constant=_no_nan)
    ac1 = report.overall["verdict"]["gwet_ac1"]
    assert ac1.se is not None and ac1.se > 0 and ac1.se_low < ac1.value < ac1.se_high
    assert data["overall"]["verdict"]["gwet_ac1"]["se"] == ac1.se
    assert data["overall"]["verdict"]["cohen_kappa_irrcac"]["se"] is not None


def test_json_round_trips_every_figure_without_nan(report):
    data = json.loads(render_json(report), parse_constant=_no_nan)
    kappa = report.overall["verdict"]["cohen_kappa"]
    assert data["overall"]["verdict"]["cohen_kappa"] == {
        "value": kappa.value,
        "n_items": kappa.n_items,
        "reason": None,
        "low": kappa.low,
        "high": kappa.high,
        "ci_note": kappa.ci_note,
        "se": None,  # the analytic SE is irrCAC's; Cohen's kappa on items both rated has none
        "se_low": None,
        "se_high": None,
    }
    assert data["verdicts"]["overall"] == report.verdicts.overall
    assert set(data["by_stratum"]) == {"category", "difficulty"}


def test_csv_has_one_row_per_figure(report):
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    [row] = [
        r for r in rows if r["section"] == "overall" and r["variable"] == "verdict" and r["statistic"] == "gwet_ac1"
    ]
    est = report.overall["verdict"]["gwet_ac1"]
    assert float(row["value"]) == pytest.approx(est.value)
    assert float(row["ci_low"]) == pytest.approx(est.low) and float(row["ci_high"]) == pytest.approx(est.high)
    assert int(row["n_items"]) == est.n_items
    strata = {(r["breakdown"], r["group"]) for r in rows if r["section"] == "stratum"}
    assert ("category", "EXTRACTIVE") in strata and ("difficulty", "Hard") in strata
    counts = {r["statistic"]: int(r["value"]) for r in rows if r["section"] == "verdicts" and r["group"] == "all"}
    assert counts == {f"count:{k}": v for k, v in report.verdicts.overall.items()}


def test_undefined_values_are_words_with_reasons_in_every_format():
    report = build_report(verdict_ratings([("pass", "pass")] * 6), bootstrap=20)
    md = render_markdown(report)
    assert not re.search(r"\bnan\b", md, re.I)
    assert "undefined" in md and "every rating is 'pass'" in md
    assert "undefined" in render_text(report)
    [row] = [
        r
        for r in csv.DictReader(io.StringIO(render_csv(report)))
        if r["section"] == "overall" and r["variable"] == "verdict" and r["statistic"] == "cohen_kappa"
    ]
    assert row["value"] == "" and "every rating is 'pass'" in row["note"]


def test_markdown_and_text_show_the_same_sections(report):
    md, text = render_markdown(report), render_text(report)
    for title in (
        "Overall agreement",
        "Agreement by category",
        "Verdicts",
        "Ambiguity",
        "Error tags",
        "Agreement on fixes",
        "Representative disagreements",
    ):
        assert f"## {title}" in md
        assert f"{title}\n{'-' * len(title)}" in text
    kappa = report.overall["verdict"]["cohen_kappa"]
    cell = f"{kappa.value:.3f} [{kappa.low:.3f}, {kappa.high:.3f}]"
    assert cell in md and cell in text
    assert re.search(r"^\| verdict \| 80 \|", md, re.M)


def test_html_report_embeds_valid_svg_charts(tmp_path, report):
    path = write_report(report, tmp_path / "report.html")
    html = path.read_text(encoding="utf-8")
    svgs = re.findall(r"<svg.*?</svg>", html, re.S)
    titles = [ET.fromstring(s).get("aria-label") for s in svgs]
    assert "Overall agreement with 95% intervals" in titles
    assert "Verdict agreement by category" in titles
    assert "Verdicts distribution" in titles
    assert any(t.startswith("Verdicts: a vs b") for t in titles)  # the confusion heatmap
    # The heatmap writes every count of the confusion matrix.
    heat = ET.fromstring(svgs[titles.index(next(t for t in titles if t.startswith("Verdicts: a vs b")))])
    texts = [t.text for t in heat.iter("{http://www.w3.org/2000/svg}text")]
    for row in report.by_pair["a vs b"].confusion.counts:
        for count in row:
            assert str(count) in texts


def test_html_escapes_names(tmp_path):
    ratings = [
        rating("<script>x</script>", "a&b", "pass"),
        rating("<script>x</script>", "c", "fix", schema_conformance=False),
    ]
    html = write_report(build_report(ratings, bootstrap=0), tmp_path / "r.htm").read_text()
    assert "<script>" not in html and "&lt;script&gt;" in html
    for svg in re.findall(r"<svg.*?</svg>", html, re.S):
        ET.fromstring(svg)


@pytest.mark.parametrize(
    "suffix,marker",
    [
        (".md", "# Annotation agreement report"),
        (".markdown", "| variable |"),
        (".txt", "=========="),
        (".csv", "section,breakdown"),
        (".json", '"overall"'),
    ],
)
def test_write_report_picks_the_format_from_the_suffix(tmp_path, report, suffix, marker):
    assert marker in write_report(report, tmp_path / f"r{suffix}").read_text(encoding="utf-8")


def test_unknown_suffix_is_a_clear_error(tmp_path, report):
    with pytest.raises(ReviewerError, match=r"r\.pdf.*\.html"):
        write_report(report, tmp_path / "r.pdf")


def test_charts_write_undefined_instead_of_plotting_a_number():
    ratings = verdict_ratings([("pass", "pass")] * 10, strata={"category": "A"})
    ratings += verdict_ratings([("pass", "fix"), ("fix", "fix"), ("reject", "pass")] * 5, strata={"category": "B"})
    for r in ratings:
        r.item_id = r.strata["category"] + r.item_id
    report = build_report(ratings, bootstrap=50)
    assert report.by_stratum["category"]["A"]["verdict"]["cohen_kappa"].value is None
    [chart] = [s for s in re.findall(r"<svg.*?</svg>", render_html(report), re.S) if "by category" in s]
    texts = [t.text for t in ET.fromstring(chart).iter("{http://www.w3.org/2000/svg}text")]
    assert "undefined: Cohen's kappa" in texts
    # Category B's kappa and both AC1 values are drawn; A's kappa is not.
    points = [
        c.find("{http://www.w3.org/2000/svg}title").text
        for c in ET.fromstring(chart).iter("{http://www.w3.org/2000/svg}circle")
        if c.find("{http://www.w3.org/2000/svg}title") is not None
    ]
    assert sorted(p.split(":")[0] for p in points) == ["Cohen's kappa", "Gwet's AC1", "Gwet's AC1"]
