"""The report laid out as headings, paragraphs, tables and lists.

Text, Markdown and HTML all render this one layout, so the three never
disagree on what the report says; only ``render_csv``/``render_json``
serialise the data directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewer.agreement.coefficients import LABELS
from reviewer.agreement.estimate import Estimate, GroupStats
from reviewer.agreement.report import Report
from reviewer.agreement.table import PERSPECTIVE_PREFIX, TAG_PREFIX, variable_label


@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""  # HTML places charts after the heading with this anchor


@dataclass
class Paragraph:
    text: str


@dataclass
class Bullets:
    items: list[str]


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]


Block = Heading | Paragraph | Bullets | Table

# Columns of the breakdown tables: a compact subset, the full set is in CSV/JSON.
BREAKDOWN_COEFFICIENTS = ("percent_agreement", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "pabak")


def primary_kappa(report: Report) -> str:
    """Cohen's kappa for a two-annotator review, Fleiss' kappa otherwise."""
    return "cohen_kappa" if len(report.annotators) == 2 else "fleiss_kappa"


def fmt_number(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def fmt_share(count: int, total: int) -> str:
    return f"{count} ({count / total:.1%})" if total else str(count)


def fmt_estimate(est: Estimate) -> str:
    """ "0.646 [0.632, 0.661]", or "undefined" (the reason is listed under the table)."""
    if est.value is None:
        return "undefined"
    if est.low is None:
        return fmt_number(est.value)
    return f"{est.value:.3f} [{est.low:.3f}, {est.high:.3f}]"


def _notes_for(cells: list[tuple[str, str, Estimate]]) -> list[str]:
    """Why cells are undefined (or how their intervals were made), one line per distinct reason.

    ``cells`` are (where, coefficient, estimate); places sharing a reason are listed together.
    """
    places: dict[tuple[str, str], list[str]] = {}
    for where, coef, est in cells:
        note = est.reason if est.value is None else (est.ci_note if est.low is not None else None)
        if note:
            places.setdefault((coef, note), []).append(where)
    # Coefficients undefined in the same places for the same reason share one line.
    coefs: dict[tuple[tuple[str, ...], str], list[str]] = {}
    for (coef, note), where in places.items():
        coefs.setdefault((tuple(where), note), []).append(LABELS[coef])
    return [f"{', '.join(names)} for {', '.join(where)}: {note}" for (where, note), names in coefs.items()]


def _stats_table(stats: GroupStats, variables: list[str]) -> tuple[Table, list[str]]:
    """Variables as rows, every coefficient as a column; plus the notes on undefined cells."""
    coefs = [c for c in LABELS if any(c in stats[v] for v in variables)]
    rows, cells = [], []
    for v in variables:
        row = [variable_label(v), str(next(iter(stats[v].values())).n_items)]
        for c in coefs:
            est = stats[v].get(c)
            row.append("" if est is None else fmt_estimate(est))
            if est is not None:
                cells.append((variable_label(v), c, est))
        rows.append(row)
    return Table(["variable", "items", *(LABELS[c] for c in coefs)], rows), _notes_for(cells)


def _breakdown_table(title: str, groups: dict[str, GroupStats], variables: list[str], coefs: list[str]) -> list[Block]:
    """Rows of (group, variable) with a compact set of coefficients, and notes on undefined cells."""
    rows, cells = [], []
    for group, stats in groups.items():
        for v in variables:
            ests = stats[v]
            rows.append([group, variable_label(v), str(next(iter(ests.values())).n_items)])
            rows[-1] += [fmt_estimate(ests[c]) for c in coefs]
            cells += [(f"{group} / {variable_label(v)}", c, ests[c]) for c in coefs]
    blocks: list[Block] = [Table([title, "variable", "items", *(LABELS[c] for c in coefs)], rows)]
    notes = _notes_for(cells)
    return blocks + [Bullets(notes)] if notes else blocks


def build_document(report: Report) -> list[Block]:
    """Lay the report out, section by section."""
    blocks: list[Block] = [Heading(1, "Annotation agreement report")]
    blocks.append(
        Paragraph(
            f"{report.n_items} items, {report.n_ratings} ratings by {len(report.annotators)} annotators "
            f"({', '.join(report.annotators)}). "
            + ("Values in brackets are 95% bootstrap intervals." if report.n_resamples
               else "No bootstrap was run (0 resamples): no intervals are given.")
        )
    )
    if report.notes:
        blocks.append(Bullets(list(report.notes)))
    if report.warnings:
        blocks += [Heading(2, "Warnings"), Bullets(list(report.warnings))]

    main_vars = [v for v in report.overall if not v.startswith(TAG_PREFIX)]
    blocks.append(Heading(2, "Overall agreement", "overall"))
    table, reasons = _stats_table(report.overall, main_vars)
    blocks.append(table)
    if reasons:
        blocks.append(Bullets(reasons))
    blocks += _analytic_blocks(report.overall, main_vars)

    # Cohen's kappa needs exactly two annotators: with more, strata show Fleiss' kappa only.
    coefs = [c for c in BREAKDOWN_COEFFICIENTS if c != "cohen_kappa" or len(report.annotators) == 2]
    for key, groups in report.by_stratum.items():
        blocks.append(Heading(2, f"Agreement by {key}", f"stratum:{key}"))
        blocks += _breakdown_table(key, groups, main_vars, coefs)

    if report.by_pair:
        blocks.append(Heading(2, "Agreement by annotator pair", "pairs"))
        pairs = {label: pair.stats for label, pair in report.by_pair.items()}
        blocks += _breakdown_table("pair", pairs, main_vars, list(BREAKDOWN_COEFFICIENTS))
        for label, pair in report.by_pair.items():
            cm = pair.confusion
            blocks.append(Heading(3, f"Verdict confusion: {cm.annotators[0]} (rows) vs {cm.annotators[1]} (columns)"))
            blocks.append(
                Table(
                    [f"{cm.annotators[0]} \\ {cm.annotators[1]}", *cm.categories],
                    [[c, *map(str, row)] for c, row in zip(cm.categories, cm.counts)],
                )
            )

    blocks += _distribution_blocks("Verdicts", report.verdicts, "verdicts")
    blocks += _distribution_blocks("Ambiguity", report.ambiguity, "ambiguity")
    blocks += _difficulty_blocks(report)
    blocks += _tag_blocks(report)
    blocks += _fix_blocks(report)
    blocks += _disagreement_blocks(report)
    return blocks


def _analytic_blocks(stats: GroupStats, variables: list[str]) -> list[Block]:
    """irrCAC's analytic standard errors and t intervals beside the bootstrap intervals, one row per figure."""
    rows = []
    for v in variables:
        for c in LABELS:
            est = stats[v].get(c)
            if est is None or est.se is None:
                continue
            boot = "" if est.low is None else f"[{est.low:.3f}, {est.high:.3f}]"
            rows.append([variable_label(v), LABELS[c], fmt_number(est.value), f"{est.se:.4f}",
                         f"[{est.se_low:.3f}, {est.se_high:.3f}]", boot])
    if not rows:
        return []
    beside = ", beside the bootstrap intervals" if any(row[-1] for row in rows) else ""
    return [
        Heading(3, "Analytic standard errors (irrCAC)"),
        Paragraph(
            "Gwet's linearised standard errors as irrCAC computes them, with 95% t intervals "
            f"(n - 1 degrees of freedom, upper end capped at 1){beside}. "
            "The (irrCAC) coefficients average each item's category shares over every rated item and "
            "give each annotator their own marginals (Conger); the plain ones use pooled shares of items "
            "rated twice or more (Fleiss) and the items both annotators rated (Cohen). "
            "With complete ratings both agree."
        ),
        Table(["variable", "coefficient", "value", "SE", "95% t interval", "bootstrap interval"], rows),
    ]


def _distribution_blocks(title: str, dist, anchor: str) -> list[Block]:
    def row(name: str, counts: dict[str, int]) -> list[str]:
        total = sum(counts.values())
        return [name, str(total), *(fmt_share(counts[c], total) for c in dist.categories)]

    rows = [row("all annotators", dist.overall)]
    rows += [row(a, counts) for a, counts in dist.per_annotator.items()]
    return [Heading(2, title, anchor), Table(["annotator", "rated", *dist.categories], rows)]


def _difficulty_blocks(report: Report) -> list[Block]:
    d = report.difficulty
    out: list[Block] = [Heading(2, "Difficulty tags against the original difficulty")]
    if not d.n_tagged:
        out.append(Paragraph("No rating tags a difficulty on an item with a known original difficulty."))
        return out
    tagged = sorted({t for row in d.transitions.values() for t in row})
    out.append(
        Paragraph(
            f"{fmt_share(d.n_corrected, d.n_tagged)} of {d.n_tagged} difficulty tags differ from the "
            f"original; {len(d.consensus)} items have a correction all their annotators agree on."
            + (
                f" {d.n_without_original} tags are on items without an original difficulty."
                if d.n_without_original
                else ""
            )
        )
    )
    out.append(
        Table(
            ["original \\ tagged", *tagged],
            [[orig, *(str(row.get(t, 0)) for t in tagged)] for orig, row in sorted(d.transitions.items())],
        )
    )
    out.append(
        Table(
            ["annotator", "tagged", "corrected"],
            [[a, str(v["tagged"]), fmt_share(v["corrected"], v["tagged"])] for a, v in d.per_annotator.items()],
        )
    )
    if d.consensus:
        shown = list(d.consensus.items())[:20]
        more = f" (and {len(d.consensus) - len(shown)} more)" if len(d.consensus) > len(shown) else ""
        out.append(Paragraph("Agreed corrections: " + ", ".join(f"{i} → {t}" for i, t in shown) + more))
    return out


def _perspective_blocks(report: Report) -> list[Block]:
    """NesTools' final agreement, when perspectives were given."""
    final = report.nestools_final
    if final is None:
        return []
    parts = []
    for name, tags in report.perspectives.items():
        p = report.overall[PERSPECTIVE_PREFIX + name]["nestools_p"]
        parts.append(f"'{name}' ({', '.join(tags) or 'no tags'}): {fmt_estimate(p)}")
    reason = f" ({final.reason})" if final.value is None else ""
    text = (
        f"Final agreement as NesTools reports it, p averaged over {len(parts)} perspectives: "
        f"{fmt_estimate(final)}{reason}. Per perspective: " + "; ".join(parts) + "."
    )
    return [Paragraph(text)]


def _tag_blocks(report: Report) -> list[Block]:
    out: list[Block] = [Heading(2, "Error tags", "tags")]
    out += _perspective_blocks(report)
    if not report.error_tags:
        out.append(Paragraph("No error tags were used."))
        return out
    coefs = ("percent_agreement", primary_kappa(report), "gwet_ac1", "nestools_p")
    rows = []
    for t in report.error_tags:
        stats = report.overall[TAG_PREFIX + t.tag]
        rows.append([t.tag, str(t.n_ratings), str(t.n_items), *(fmt_estimate(stats[c]) for c in coefs)])
    out.append(Table(["tag", "ratings", "items", *(LABELS[c] for c in coefs)], rows))
    out.append(
        Paragraph(
            "p = (N_T + N_F) / N as in NesTools (paper 004, A.4): N_T items every annotator left untagged, "
            "N_F items every annotator tagged, N items rated by two or more annotators."
        )
    )
    return out


def _fix_blocks(report: Report) -> list[Block]:
    f = report.fixes
    out: list[Block] = [Heading(2, "Agreement on fixes")]
    if f.gold_equal_rate is None:
        out.append(Paragraph(f"Not computed: {f.reason}."))
        return out
    text = (
        f"{f.n_items} items were fixed by two or more annotators ({len(f.pairs)} pairs of fixes). "
        f"The resulting gold is identical in {f.gold_equal_rate:.1%} of pairs; "
    )
    if f.mean_jaccard is None:
        text += f"patch overlap is undefined: {f.reason}."
    else:
        text += f"the patches' changed JSON paths overlap by {f.mean_jaccard:.3f} on average (Jaccard)."
    out.append(Paragraph(text))
    return out


def _disagreement_blocks(report: Report) -> list[Block]:
    out: list[Block] = [Heading(2, "Representative disagreements")]
    if not report.disagreements:
        out.append(Paragraph("No item has annotators disagreeing on a rubric field."))
        return out
    rows = []
    for d in report.disagreements:
        fields = "; ".join(
            f"{f}: " + ", ".join(f"{a}={v}" for a, v in values.items()) for f, values in d.fields.items()
        )
        verdicts = ", ".join(f"{a}={v}" for a, v in d.verdicts.items())
        rows.append([d.item_id, str(d.n_fields), fields, verdicts])
    out.append(Table(["item", "fields", "disagreements", "verdicts"], rows))
    return out
