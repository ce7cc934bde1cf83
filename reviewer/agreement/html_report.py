"""The report as one self-contained HTML file with inline SVG charts."""

from __future__ import annotations

from html import escape

from reviewer.agreement.coefficients import LABELS
from reviewer.agreement.document import Block, Bullets, Heading, Paragraph, build_document, primary_kappa
from reviewer.agreement.estimate import Estimate, GroupStats
from reviewer.agreement.report import Report
from reviewer.agreement.svg import Point, forest_plot, heatmap, stacked_bars
from reviewer.agreement.table import TAG_PREFIX, variable_label

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 75em; color: #222; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
figure { margin: 1em 0; }
li { margin: 0.3em 0; }
"""


def _point(est: Estimate) -> Point:
    return Point(est.value, est.low, est.high)


def _forest(title: str, groups: dict[str, GroupStats], variable: str, coefs: list[str]) -> str:
    rows = [(label, [_point(stats[variable][c]) for c in coefs]) for label, stats in groups.items()]
    return forest_plot(title, rows, [LABELS[c] for c in coefs])


def charts(report: Report) -> dict[str, list[str]]:
    """SVG charts keyed by the anchor of the heading they follow."""
    kappa = primary_kappa(report)
    out: dict[str, list[str]] = {}
    main = [v for v in report.overall if not v.startswith(TAG_PREFIX)]
    coefs = [kappa, "krippendorff_alpha", "gwet_ac1"]
    out["overall"] = [
        forest_plot(
            "Overall agreement with 95% intervals",
            [(variable_label(v), [_point(report.overall[v][c]) for c in coefs]) for v in main],
            [LABELS[c] for c in coefs],
        )
    ]
    for key, groups in report.by_stratum.items():
        out[f"stratum:{key}"] = [_forest(f"Verdict agreement by {key}", groups, "verdict", [kappa, "gwet_ac1"])]
    if report.by_pair:
        pairs = {label: p.stats for label, p in report.by_pair.items()}
        out["pairs"] = [_forest("Verdict agreement by annotator pair", pairs, "verdict", ["cohen_kappa", "gwet_ac1"])]
        for pair in report.by_pair.values():
            cm = pair.confusion
            out["pairs"].append(
                heatmap(
                    f"Verdicts: {cm.annotators[0]} vs {cm.annotators[1]} ({cm.total} items)",
                    cm.counts,
                    cm.categories,
                    cm.categories,
                    cm.annotators[0],
                    cm.annotators[1],
                )
            )
    for anchor, dist in (("verdicts", report.verdicts), ("ambiguity", report.ambiguity)):
        rows = [("all annotators", dist.overall), *dist.per_annotator.items()]
        out[anchor] = [stacked_bars(f"{anchor.capitalize()} distribution", rows, dist.categories)]
    if report.error_tags:
        tag_coefs = [kappa, "gwet_ac1", "nestools_p"]
        rows = [(t.tag, [_point(report.overall[TAG_PREFIX + t.tag][c]) for c in tag_coefs]) for t in report.error_tags]
        out["tags"] = [forest_plot("Agreement per error tag", rows, [LABELS[c] for c in tag_coefs])]
    return out


def _html_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{escape(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        return f"<p>{escape(block.text)}</p>"
    if isinstance(block, Bullets):
        return "<ul>" + "".join(f"<li>{escape(i)}</li>" for i in block.items) + "</ul>"
    head = "".join(f"<th>{escape(h)}</th>" for h in block.headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in block.rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render_html(report: Report) -> str:
    """A standalone page: the same sections as the Markdown report, each followed by its charts."""
    figures = charts(report)
    parts = []
    for block in build_document(report):
        parts.append(_html_block(block))
        if isinstance(block, Heading) and block.anchor in figures:
            parts += [f"<figure>{svg}</figure>" for svg in figures[block.anchor]]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>Annotation agreement report</title>"
        f"<style>{STYLE}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n"
    )
