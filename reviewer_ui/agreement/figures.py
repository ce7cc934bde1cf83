"""The report's coefficients as table cells and forest plots, per breakdown.

Qt-free helpers of the panel: a breakdown is "overall" (every variable as a
row), "stratum:<key>" (one row per category/difficulty/domain/dataset value)
or "pairs" (one row per annotator pair). Undefined coefficients read
"undefined" with the reason as the tooltip, never NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from reviewer.agreement.coefficients import LABELS
from reviewer.agreement.document import BREAKDOWN_COEFFICIENTS, fmt_estimate, primary_kappa
from reviewer.agreement.estimate import Estimate, GroupStats
from reviewer.agreement.report import Report
from reviewer.agreement.svg import Point, forest_plot
from reviewer.agreement.table import TAG_PREFIX, variable_label

OVERALL = "overall"
PAIRS = "pairs"
STRATUM = "stratum:"


@dataclass
class Cell:
    text: str
    tooltip: str = ""
    undefined: bool = False


def breakdowns(report: Report) -> list[tuple[str, str]]:
    """(key, label) of every breakdown the report has, overall first."""
    out = [(OVERALL, "Overall")]
    out += [(STRATUM + key, f"By {key}") for key in report.by_stratum]
    if report.by_pair:
        out.append((PAIRS, "By annotator pair"))
    return out


def main_variables(report: Report) -> list[str]:
    """The verdict and rubric variables (error tags have their own tab)."""
    return [v for v in report.overall if not v.startswith(TAG_PREFIX)]


def groups_of(report: Report, breakdown: str) -> dict[str, GroupStats]:
    if breakdown == PAIRS:
        return {label: pair.stats for label, pair in report.by_pair.items()}
    if breakdown.startswith(STRATUM):
        return report.by_stratum[breakdown[len(STRATUM):]]
    raise KeyError(breakdown)


def cell(est: Estimate | None) -> Cell:
    if est is None:
        return Cell("")
    if est.value is None:
        return Cell("undefined", est.reason or "undefined", True)
    tip = f"{est.value:.4f} over {est.n_items} items"
    if est.low is not None:
        tip += f"; 95% interval {est.low:.4f} to {est.high:.4f}"
    if est.ci_note:
        tip += f" ({est.ci_note})"
    return Cell(fmt_estimate(est), tip)


def coefficient_columns(report: Report, breakdown: str) -> list[str]:
    if breakdown == OVERALL:
        present = {c for v in main_variables(report) for c in report.overall[v]}
        if len(report.annotators) != 2:  # undefined everywhere; the notes point to the pairs
            present.discard("cohen_kappa")
        return [c for c in LABELS if c in present]
    # Cohen's kappa needs exactly two annotators: a pair always has them, strata only in a two-person review.
    return [c for c in BREAKDOWN_COEFFICIENTS
            if c != "cohen_kappa" or breakdown == PAIRS or len(report.annotators) == 2]


def coefficient_table(report: Report, breakdown: str, variable: str = "verdict") -> tuple[list[str], list[list[Cell]]]:
    """Headers and rows: variables (overall) or groups (a breakdown, for ``variable``) x coefficients."""
    coefs = coefficient_columns(report, breakdown)
    headers = ["items", *(LABELS[c] for c in coefs)]
    if breakdown == OVERALL:
        rows = [(variable_label(v), report.overall[v]) for v in main_variables(report)]
        headers.insert(0, "variable")
    else:
        rows = [(group, stats[variable]) for group, stats in groups_of(report, breakdown).items()]
        headers.insert(0, breakdown.removeprefix(STRATUM) if breakdown != PAIRS else "pair")
    table = []
    for label, ests in rows:
        n_items = next(iter(ests.values())).n_items
        table.append([Cell(label), Cell(str(n_items)), *(cell(ests.get(c)) for c in coefs)])
    return headers, table


def chart_coefficients(report: Report) -> list[str]:
    return [primary_kappa(report), "krippendorff_alpha", "gwet_ac1"]


def coefficient_chart(report: Report, breakdown: str, variable: str = "verdict") -> str:
    """A forest plot of the chosen breakdown (the same chart the HTML report draws)."""
    coefs = chart_coefficients(report)
    if breakdown == OVERALL:
        title = "Overall agreement with 95% intervals"
        rows = [(variable_label(v), [_point(report.overall[v][c]) for c in coefs]) for v in main_variables(report)]
    else:
        if breakdown == PAIRS:
            coefs = ["cohen_kappa", "krippendorff_alpha", "gwet_ac1"]
        what = breakdown.removeprefix(STRATUM) if breakdown != PAIRS else "annotator pair"
        title = f"{variable_label(variable).capitalize()} agreement by {what}"
        rows = [(_fit(g), [_point(s[variable][c]) for c in coefs]) for g, s in groups_of(report, breakdown).items()]
    return forest_plot(title, rows, [chart_label(c) for c in coefs])


CHART_LABEL_CHARS = 30  # what fits the forest plot's 220-pixel label column at 12 px


def _fit(label: str) -> str:
    """Long group names (domains such as "Industrial Engineering/Predictive Maintenance") shortened
    from the middle, so both ends stay readable; the table beside the chart has them in full."""
    if len(label) <= CHART_LABEL_CHARS:
        return label
    half = (CHART_LABEL_CHARS - 1) // 2
    return label[:half] + "…" + label[-half:]


def chart_label(coef: str) -> str:
    """Legend names short enough for the chart's 200-pixel legend slots."""
    return LABELS[coef].removesuffix(" (nominal)")


def _point(est: Estimate) -> Point:
    return Point(est.value, est.low, est.high)


SKEW_MARK = ": raw agreement "  # how skew.skew_warnings words its messages: "<variable>: raw agreement ..."
SHOWN_IN_FULL = 1


def warning_html(warnings: list[str], expanded: bool = False) -> str:
    """The warnings as rich text, short unless ``expanded``.

    Skew warnings (one per variable) repeat the same advice, so the short form
    gives the advice once, the first message in full and the other variables
    by name, with a "details" link (href "#toggle") to the full list.
    """
    skewed = [w for w in warnings if SKEW_MARK in w]
    other = [w for w in warnings if SKEW_MARK not in w]
    parts = [f"<p>⚠ {escape(w)}</p>" for w in other]
    if skewed:
        parts.append(
            f"<p><b>⚠ Skewed prevalence in {len(skewed)} variable{'s' if len(skewed) > 1 else ''}:</b> "
            "high raw agreement with low kappa and alpha because one category dominates; "
            "read Gwet's AC1 and PABAK beside them.</p>"
        )
        shown = skewed if expanded else skewed[:SHOWN_IN_FULL]
        parts.append("<ul>" + "".join(f"<li>{escape(w)}</li>" for w in shown) + "</ul>")
        rest = [w.split(SKEW_MARK, 1)[0] for w in skewed[len(shown):]]
        if rest:
            parts.append(f"<p>Also: {escape(', '.join(rest))}. <a href='#toggle'>Details</a></p>")
        elif expanded and len(skewed) > SHOWN_IN_FULL:
            parts.append("<p><a href='#toggle'>Less</a></p>")
    return "".join(parts)
