"""Render a ``Report`` as text, Markdown, CSV or JSON, and write it to a file by suffix."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from reviewer.agreement.document import Block, Bullets, Heading, Paragraph, build_document
from reviewer.agreement.estimate import GroupStats
from reviewer.agreement.html_report import render_html
from reviewer.agreement.report import Report, report_to_dict
from reviewer.errors import ReviewerError


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown_block(block: Block) -> str:
    if isinstance(block, Heading):
        return "#" * block.level + " " + block.text
    if isinstance(block, Paragraph):
        return block.text
    if isinstance(block, Bullets):
        return "\n".join(f"- {item}" for item in block.items)
    lines = ["| " + " | ".join(map(_markdown_cell, block.headers)) + " |"]
    lines.append("|" + "|".join("---" for _ in block.headers) + "|")
    lines += ["| " + " | ".join(map(_markdown_cell, row)) + " |" for row in block.rows]
    return "\n".join(lines)


def render_markdown(report: Report) -> str:
    return "\n\n".join(_markdown_block(b) for b in build_document(report)) + "\n"


def _text_block(block: Block) -> str:
    if isinstance(block, Heading):
        rule = "=" if block.level == 1 else "-"
        return f"{block.text}\n{rule * len(block.text)}"
    if isinstance(block, Paragraph):
        return block.text
    if isinstance(block, Bullets):
        return "\n".join(f"* {item}" for item in block.items)
    widths = [max(len(r[i]) for r in [block.headers, *block.rows]) for i in range(len(block.headers))]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(block.headers), line(["-" * w for w in widths]), *map(line, block.rows)])


def render_text(report: Report) -> str:
    return "\n\n".join(_text_block(b) for b in build_document(report)) + "\n"


def render_json(report: Report) -> str:
    """Every figure of the report; undefined values are null beside a reason, never NaN."""
    return json.dumps(report_to_dict(report), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


CSV_COLUMNS = [
    "section",
    "breakdown",
    "group",
    "variable",
    "statistic",
    "value",
    "ci_low",
    "ci_high",
    "n_items",
    "note",
    "se",
    "se_ci_low",
    "se_ci_high",
]


def _stat_rows(section: str, breakdown: str, group: str, stats: GroupStats) -> list[list]:
    rows = []
    for variable, coefs in stats.items():
        for name, e in coefs.items():
            note = e.reason if e.value is None else (e.ci_note or "")
            rows.append([section, breakdown, group, variable, name, e.value, e.low, e.high, e.n_items, note,
                         e.se, e.se_low, e.se_high])
    return rows


def render_csv(report: Report) -> str:
    """One row per figure (long format), so that a spreadsheet can pivot it any way.

    Coefficients have statistic = coefficient name (``coefficients.LABELS``) with the
    bootstrap interval, item count and, where irrCAC defines one, the analytic
    standard error and t interval (``se``, ``se_ci_low``, ``se_ci_high``); distributions have statistic "count:<category>".
    Undefined values are empty with the reason in ``note``.
    """
    rows = _stat_rows("overall", "", "all", report.overall)
    for key, groups in report.by_stratum.items():
        for group, stats in groups.items():
            rows += _stat_rows("stratum", key, group, stats)
    for label, pair in report.by_pair.items():
        rows += _stat_rows("pair", "annotators", label, pair.stats)
        cm = pair.confusion
        for a, counts in zip(cm.categories, cm.counts):
            for b, count in zip(cm.categories, counts):
                rows.append(["confusion", "annotators", label, "verdict", f"count:{a}->{b}", count, "", "", "", ""])
    for section, dist in (("verdicts", report.verdicts), ("ambiguity", report.ambiguity)):
        groups = {"all": dist.overall, **dist.per_annotator}
        for group, counts in groups.items():
            for category, count in counts.items():
                rows.append([section, "annotator", group, section, f"count:{category}", count, "", "", "", ""])
    for original, tagged in report.difficulty.transitions.items():
        for tag, count in tagged.items():
            rows.append(["difficulty", "", "all", "difficulty", f"count:{original}->{tag}", count, "", "", "", ""])
    for t in report.error_tags:
        rows.append(["error_tags", "", "all", t.tag, "ratings", t.n_ratings, "", "", "", ""])
        rows.append(["error_tags", "", "all", t.tag, "items", t.n_items, "", "", "", ""])
    f = report.fixes
    for name, value in (("gold_equal_rate", f.gold_equal_rate), ("mean_jaccard", f.mean_jaccard)):
        rows.append(["fixes", "", "all", "fix", name, value, "", "", f.n_items, f.reason if value is None else ""])
    for d in report.disagreements:
        rows.append(
            [
                "disagreements",
                "",
                d.item_id,
                "rubric",
                "fields_disagreeing",
                d.n_fields,
                "",
                "",
                "",
                ", ".join(d.fields),
            ]
        )
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    width = len(CSV_COLUMNS)  # rows without standard errors get empty trailing cells
    writer.writerows([["" if v is None else v for v in row] + [""] * (width - len(row)) for row in rows])
    return out.getvalue()


RENDERERS = {
    ".html": render_html,
    ".htm": render_html,
    ".md": render_markdown,
    ".markdown": render_markdown,
    ".txt": render_text,
    ".csv": render_csv,
    ".json": render_json,
}


def write_report(report: Report, path: str | Path) -> Path:
    """Write the report in the format the suffix names (.html/.htm, .md/.markdown, .txt, .csv, .json).

    Raises ``ReviewerError`` for any other suffix.
    """
    path = Path(path)
    render = RENDERERS.get(path.suffix.lower())
    if render is None:
        raise ReviewerError(
            f"{path}: cannot tell the report format from the suffix {path.suffix!r}; use one of {', '.join(RENDERERS)}"
        )
    path.write_text(render(report), encoding="utf-8")
    return path
