"""The kappa paradox: high raw agreement with a low kappa because one category dominates.

Kappa and alpha discount agreement expected by chance, and with skewed
prevalence almost all agreement is "expected", so they fall even when the
annotators rarely disagree (NOTES.md: 91.5% raw, kappa 0.30, alpha 0.28,
AC1 0.90). The report then says so and points to AC1 and PABAK, which do
not depend on prevalence that way.
"""

from __future__ import annotations

import numpy as np

from reviewer.agreement.estimate import GroupStats
from reviewer.agreement.table import MISSING, RatingTable, variable_label

# "High" raw agreement; with two balanced categories 85% raw gives kappa 0.70.
HIGH_RAW_AGREEMENT = 0.85
# Below "substantial" (Landis & Koch 1977): at 85%+ raw agreement only skew gets kappa this low.
LOW_KAPPA = 0.60


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def skew_warnings(stats: GroupStats, tables: dict[str, RatingTable]) -> list[str]:
    """One message per variable whose raw agreement is high but whose kappa is low."""
    out = []
    for name, coefs in stats.items():
        raw = coefs["percent_agreement"].value
        kappa_name = "cohen_kappa" if coefs["cohen_kappa"].value is not None else "fleiss_kappa"
        kappa = coefs[kappa_name].value
        if raw is None or kappa is None or raw < HIGH_RAW_AGREEMENT or kappa >= LOW_KAPPA:
            continue
        table = tables[name]
        given = table.codes[table.codes != MISSING]
        counts = np.bincount(given.astype(np.intp), minlength=len(table.categories))
        top = int(counts.argmax())
        kappa_label = "Cohen's kappa" if kappa_name == "cohen_kappa" else "Fleiss' kappa"
        out.append(
            f"{variable_label(name)}: raw agreement {raw:.1%} but {kappa_label} {_fmt(kappa)} "
            f"(Krippendorff's alpha {_fmt(coefs['krippendorff_alpha'].value)}). "
            f"{table.categories[top]!r} is {counts[top] / counts.sum():.1%} of the ratings, so chance "
            f"agreement is high and kappa-type coefficients stay low even though the annotators rarely "
            f"disagree; read Gwet's AC1 ({_fmt(coefs['gwet_ac1'].value)}) and PABAK "
            f"({_fmt(coefs['pabak'].value)}) beside them."
        )
    return out
