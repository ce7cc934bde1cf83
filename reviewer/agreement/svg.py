"""Small self-contained SVG charts (no plotting dependency): a forest plot of
estimates with intervals, 100% stacked bars and a heatmap.

Every function returns an ``<svg>`` element as a string; all text is escaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

FONT = 'font-family="system-ui, sans-serif" font-size="12"'
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
LABEL_WIDTH = 220
PLOT_WIDTH = 420
ROW_HEIGHT = 26
NOTE_WIDTH = 260  # right of a forest plot: which series are undefined in a row
CHAR_WIDTH = 7  # a generous average advance of the 12 px font, to size columns to their text
LEGEND_COLUMNS = 2


def _text_width(texts) -> float:
    return max((len(t) for t in texts), default=0) * CHAR_WIDTH + 16


def _text(x: float, y: float, text: str, anchor: str = "start", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" {FONT} {extra}>{escape(text)}</text>'


@dataclass
class Point:
    """One estimate: None value means undefined (drawn as the word, never as a number)."""

    value: float | None
    low: float | None = None
    high: float | None = None


def forest_plot(
    title: str, rows: list[tuple[str, list[Point]]], series: list[str], lo: float = -1.0, hi: float = 1.0
) -> str:
    """Each row a label and one point per series, with its interval as a whisker, on a lo..hi axis.

    The label column, the legend and the notes column are as wide as their text."""
    label_width = max(LABEL_WIDTH, _text_width(label for label, _ in rows))
    notes = ["undefined: " + ", ".join(series[s] for s, p in enumerate(points) if p.value is None)
             for _, points in rows]
    note_width = max(NOTE_WIDTH, _text_width(n for n in notes if n != "undefined: ") + 20)
    legend_step = _text_width(series) + 14
    top = 40 + 18 * ((len(series) + LEGEND_COLUMNS - 1) // LEGEND_COLUMNS)
    height = top + ROW_HEIGHT * len(rows) + 40
    width = max(label_width + PLOT_WIDTH + note_width, 10 + LEGEND_COLUMNS * legend_step)

    def x(v: float) -> float:
        v = min(max(v, lo), hi)
        return label_width + (v - lo) / (hi - lo) * PLOT_WIDTH

    parts = [_text(10, 20, title, extra='font-weight="bold"')]
    for s, name in enumerate(series):
        lx, ly = 10 + (s % LEGEND_COLUMNS) * legend_step, 38 + 18 * (s // LEGEND_COLUMNS)
        parts.append(f'<circle cx="{lx + 5}" cy="{ly - 4}" r="5" fill="{PALETTE[s % len(PALETTE)]}"/>')
        parts.append(_text(lx + 14, ly, name))
    bottom = top + ROW_HEIGHT * len(rows)
    for tick in (lo + (hi - lo) * f for f in (0, 0.25, 0.5, 0.75, 1)):
        parts.append(f'<line x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{bottom}" stroke="#ccc"/>')
        parts.append(_text(x(tick), bottom + 16, f"{tick:g}", "middle"))
    for r, (label, points) in enumerate(rows):
        y0 = top + r * ROW_HEIGHT
        parts.append(_text(label_width - 8, y0 + ROW_HEIGHT / 2 + 4, label, "end"))
        undefined = []
        for s, p in enumerate(points):
            colour = PALETTE[s % len(PALETTE)]
            y = y0 + (s + 1) * ROW_HEIGHT / (len(points) + 1)
            if p.value is None:
                undefined.append(series[s])
                continue
            if p.low is not None and p.high is not None:
                parts.append(
                    f'<line x1="{x(p.low):.1f}" y1="{y:.1f}" x2="{x(p.high):.1f}" y2="{y:.1f}" '
                    f'stroke="{colour}" stroke-width="2"/>'
                )
            parts.append(
                f'<circle cx="{x(p.value):.1f}" cy="{y:.1f}" r="4" fill="{colour}">'
                f"<title>{escape(series[s])}: {p.value:.3f}</title></circle>"
            )
        if undefined:
            parts.append(
                _text(label_width + PLOT_WIDTH + 20, y0 + 16, "undefined: " + ", ".join(undefined), extra='fill="#a00"')
            )
    return _svg(width, height, parts, title)


def stacked_bars(title: str, rows: list[tuple[str, dict[str, int]]], categories: tuple[str, ...]) -> str:
    """One 100% bar per row, split by category, with the share written in each wide enough segment."""
    top = 48
    height = top + ROW_HEIGHT * len(rows) + 10
    width = LABEL_WIDTH + PLOT_WIDTH + 30
    parts = [_text(10, 20, title, extra='font-weight="bold"')]
    for c, name in enumerate(categories):
        parts.append(f'<rect x="{10 + c * 120}" y="28" width="10" height="10" fill="{PALETTE[c % len(PALETTE)]}"/>')
        parts.append(_text(24 + c * 120, 37, name))
    for r, (label, counts) in enumerate(rows):
        y = top + r * ROW_HEIGHT
        total = sum(counts.values())
        parts.append(_text(LABEL_WIDTH - 8, y + 15, f"{label} (n={total})", "end"))
        if not total:
            parts.append(_text(LABEL_WIDTH, y + 15, "no ratings"))
            continue
        offset = 0.0
        for c, name in enumerate(categories):
            share = counts.get(name, 0) / total
            w = share * PLOT_WIDTH
            if w > 0:
                parts.append(
                    f'<rect x="{LABEL_WIDTH + offset:.1f}" y="{y + 3}" width="{w:.1f}" height="{ROW_HEIGHT - 6}" '
                    f'fill="{PALETTE[c % len(PALETTE)]}"><title>{escape(name)}: {counts.get(name, 0)} '
                    f"({share:.1%})</title></rect>"
                )
                if w > 34:
                    parts.append(_text(LABEL_WIDTH + offset + w / 2, y + 17, f"{share:.0%}", "middle", 'fill="#fff"'))
            offset += w
    return _svg(width, height, parts, title)


def heatmap(
    title: str, counts: list[list[int]], rows: tuple[str, ...], cols: tuple[str, ...], row_title: str, col_title: str
) -> str:
    """A count matrix as shaded cells with the count in each; darker is more."""
    cell = 56
    left, top = 150, 62
    width = left + cell * len(cols) + 20
    height = top + cell * len(rows) + 20
    peak = max((v for row in counts for v in row), default=0) or 1
    parts = [_text(10, 20, title, extra='font-weight="bold"')]
    parts.append(_text(left + cell * len(cols) / 2, 40, f"{col_title} →", "middle"))
    parts.append(_text(10, top - 6, f"{row_title} ↓"))
    for j, name in enumerate(cols):
        parts.append(_text(left + j * cell + cell / 2, top - 6, name, "middle"))
    for i, name in enumerate(rows):
        y = top + i * cell
        parts.append(_text(left - 8, y + cell / 2 + 4, name, "end"))
        for j, value in enumerate(counts[i]):
            shade = value / peak
            fill = f"rgb({int(255 - 224 * shade)},{int(255 - 136 * shade)},{int(255 - 75 * shade)})"
            ink = "#fff" if shade > 0.55 else "#000"
            parts.append(
                f'<rect x="{left + j * cell}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#fff"/>'
            )
            parts.append(_text(left + j * cell + cell / 2, y + cell / 2 + 4, str(value), "middle", f'fill="{ink}"'))
    return _svg(width, height, parts, title)


def _svg(width: float, height: float, parts: list[str], title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(title)}">' + "".join(parts) + "</svg>"
    )
