"""Sections of the core's report layout (``document.build_document``) as Qt rich text.

The panel shows the prose sections (difficulty corrections, error tags, fixes)
exactly as the exported report words them: it takes the blocks under one
level-2 heading and writes them in the HTML subset QTextBrowser renders
(attributes, not CSS, for table borders).
"""

from __future__ import annotations

from html import escape

from reviewer.agreement.document import Block, Bullets, Heading, Paragraph, Table, build_document
from reviewer.agreement.report import Report


def sections(report: Report) -> dict[str, list[Block]]:
    """Blocks after each level-2 heading, keyed by the heading's text (level-3 headings stay inside)."""
    out: dict[str, list[Block]] = {}
    current: list[Block] | None = None
    for block in build_document(report):
        if isinstance(block, Heading) and block.level <= 2:
            current = out.setdefault(block.text, []) if block.level == 2 else None
        elif current is not None:
            current.append(block)
    return out


def rich_text(blocks: list[Block]) -> str:
    parts = []
    for block in blocks:
        if isinstance(block, Heading):
            parts.append(f"<h4>{escape(block.text)}</h4>")
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{escape(block.text)}</p>")
        elif isinstance(block, Bullets):
            parts.append("<ul>" + "".join(f"<li>{escape(i)}</li>" for i in block.items) + "</ul>")
        else:
            head = "".join(f"<th align='left'>{escape(h)}</th>" for h in block.headers)
            body = "".join(
                "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in block.rows
            )
            parts.append(f"<table border='1' cellspacing='0' cellpadding='4'><tr>{head}</tr>{body}</table>")
    return "\n".join(parts)


FIX_PAIRS_SHOWN = 50


def fix_pairs_html(report: Report, limit: int = FIX_PAIRS_SHOWN) -> str:
    """Pairs of fixes of one item: same resulting gold? how much do the patches overlap?

    Pairs whose golds differ come first (they are the ones to look at); at
    most ``limit`` are listed, the exports have them all.
    """
    ordered = sorted(report.fixes.pairs, key=lambda p: p.gold_equal)  # stable: store order within each group
    pairs = ordered[:limit]
    if not pairs:
        return ""
    rows = [
        [p.item_id, " & ".join(p.annotators), "yes" if p.gold_equal else "no",
         f"{p.jaccard:.3f}" if p.jaccard is not None else f"undefined ({p.jaccard_reason})"]
        for p in pairs
    ]
    more = len(ordered) - len(pairs)
    note = [Paragraph(f"… and {more} more pairs (every pair is in the CSV and JSON exports).")] if more else []
    return "<h4>Pairs of fixes (different golds first)</h4>" + rich_text(
        [Table(["item", "annotators", "same gold", "changed paths overlap (Jaccard)"], rows), *note]
    )


# The panel's prose, by where it goes; built on the worker with the report.
SECTION_TEXTS = {
    "difficulty": ("Difficulty tags against the original difficulty",),
    "tags": ("Error tags",),
    "fixes": ("Agreement on fixes",),
}


def panel_texts(report: Report) -> dict[str, str]:
    """Rich text of the panel's prose sections, keyed "difficulty", "tags", "fixes"."""
    found = sections(report)
    out = {
        key: "\n".join(f"<h3>{escape(t)}</h3>{rich_text(found[t])}" for t in titles if t in found)
        for key, titles in SECTION_TEXTS.items()
    }
    out["fixes"] += fix_pairs_html(report)
    return out
