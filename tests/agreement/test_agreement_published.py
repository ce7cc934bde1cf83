"""Coefficients against published worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from reviewer.agreement import coefficients as C
from reviewer.agreement.table import RatingTable


def _value(table: RatingTable, fn) -> float:
    p = C.profile(table)
    return float(fn(p, p.item_weights()))


def _from_counts(counts: list[list[int]]) -> RatingTable:
    """Items given as how many raters chose each category (Fleiss' layout)."""
    k = len(counts[0])
    cats = [str(c) for c in range(k)]
    rows = [[cats[c] for c in range(k) for _ in range(row[c])] for row in counts]
    return RatingTable.from_labels(rows, cats)


# Fleiss (1971), Table 1: 30 patients, 6 psychiatrists, 5 diagnoses; kappa = 0.430.
FLEISS_1971 = [
    [4, 4, 4, 4, 4, 4],
    [2, 2, 2, 5, 5, 5],
    [2, 3, 3, 3, 3, 5],
    [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4],
    [1, 1, 3, 3, 3, 3],
    [3, 3, 3, 3, 5, 5],
    [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4],
    [5, 5, 5, 5, 5, 5],
    [1, 4, 4, 4, 4, 4],
    [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3],
    [1, 4, 4, 4, 4, 4],
    [2, 2, 4, 4, 4, 5],
    [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5],
    [1, 1, 1, 1, 1, 2],
    [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5],
    [2, 4, 4, 4, 4, 4],
    [2, 2, 4, 5, 5, 5],
    [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5],
    [2, 2, 2, 2, 2, 4],
    [1, 1, 1, 1, 5, 5],
    [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3],
    [5, 5, 5, 5, 5, 5],
]


def test_fleiss_1971_diagnoses_give_0_430():
    table = RatingTable.from_labels([[str(d) for d in row] for row in FLEISS_1971], list("12345"))
    assert _value(table, C.fleiss_kappa) == pytest.approx(0.430, abs=5e-4)


def test_fleiss_wikipedia_example_gives_0_210():
    # Wikipedia "Fleiss' kappa" worked example: 10 subjects, 14 raters, 5 categories.
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    table = _from_counts(counts)
    assert _value(table, C.percent_agreement) == pytest.approx(0.378, abs=5e-4)
    assert _value(table, C.fleiss_kappa) == pytest.approx(0.210, abs=5e-4)


# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers, 12 units, gaps.
KRIPPENDORFF_2011 = [
    "1 2 3 3 2 1 4 1 2 . . .",
    "1 2 3 3 2 2 4 1 2 5 . 3",
    ". 3 3 3 2 3 4 2 2 5 1 .",
    "1 2 3 3 2 4 4 1 2 5 1 .",
]


def _krippendorff_table() -> RatingTable:
    observers = [[None if v == "." else v for v in line.split()] for line in KRIPPENDORFF_2011]
    return RatingTable.from_labels([list(unit) for unit in zip(*observers)], list("12345"), ordinal=True)


def test_krippendorff_canonical_example_nominal_0_743():
    assert _value(_krippendorff_table(), C.krippendorff_alpha) == pytest.approx(0.743, abs=5e-4)


def test_krippendorff_canonical_example_ordinal_0_815():
    assert _value(_krippendorff_table(), C.krippendorff_alpha_ordinal) == pytest.approx(0.815, abs=5e-4)


def _two_rater_table(cells: dict[tuple[str, str], int], cats: list[str]) -> RatingTable:
    rows = [[a, b] for (a, b), n in cells.items() for _ in range(n)]
    return RatingTable.from_labels(rows, cats)


def test_cohen_classic_yes_no_example():
    # The textbook example (Wikipedia "Cohen's kappa"): 50 proposals, p_o = 0.7, p_e = 0.5, kappa = 0.4.
    table = _two_rater_table({("yes", "yes"): 20, ("yes", "no"): 5, ("no", "yes"): 10, ("no", "no"): 15}, ["yes", "no"])
    assert _value(table, C.percent_agreement) == pytest.approx(0.7)
    assert _value(table, C.cohen_kappa) == pytest.approx(0.4)
    assert _value(table, C.pabak) == pytest.approx(0.4)  # 2 * 0.7 - 1


def skewed_reference_table() -> RatingTable:
    """NOTES.md's skewed case: 91.5% raw agreement, kappa 0.30, alpha 0.28, AC1 0.90 (200 items)."""
    return _two_rater_table({("yes", "yes"): 179, ("no", "no"): 4, ("yes", "no"): 17}, ["yes", "no"])


def test_skewed_reference_case_matches_the_published_figures():
    table = skewed_reference_table()
    assert _value(table, C.percent_agreement) == pytest.approx(0.915)
    assert _value(table, C.cohen_kappa) == pytest.approx(0.30, abs=0.005)
    assert _value(table, C.krippendorff_alpha) == pytest.approx(0.28, abs=0.005)
    assert _value(table, C.gwet_ac1) == pytest.approx(0.90, abs=0.005)
    assert _value(table, C.pabak) == pytest.approx(0.83)


def test_gwet_ac1_two_raters_by_hand():
    # AC1 = (p_a - p_e) / (1 - p_e), p_e = sum(pi_c (1 - pi_c)) / (q - 1), pi_c the mean marginal.
    table = _two_rater_table({("yes", "yes"): 20, ("yes", "no"): 5, ("no", "yes"): 10, ("no", "no"): 15}, ["yes", "no"])
    pi_yes = (25 / 50 + 30 / 50) / 2
    pe = 2 * pi_yes * (1 - pi_yes)
    assert _value(table, C.gwet_ac1) == pytest.approx((0.7 - pe) / (1 - pe))


def test_ac1_and_pabak_count_unused_allowed_categories():
    # Same ratings, a third allowed category nobody used: PABAK and AC1 change, kappa does not.
    two = _two_rater_table({("yes", "yes"): 20, ("yes", "no"): 5, ("no", "yes"): 10, ("no", "no"): 15}, ["yes", "no"])
    three = _two_rater_table(
        {("yes", "yes"): 20, ("yes", "no"): 5, ("no", "yes"): 10, ("no", "no"): 15}, ["yes", "no", "maybe"]
    )
    assert _value(three, C.cohen_kappa) == pytest.approx(_value(two, C.cohen_kappa))
    assert _value(three, C.pabak) == pytest.approx((3 * 0.7 - 1) / 2)
    assert _value(three, C.gwet_ac1) != pytest.approx(_value(two, C.gwet_ac1))


def test_vectorised_weights_give_one_value_per_row():
    table = _krippendorff_table()
    p = C.profile(table)
    w = np.stack([p.item_weights(), 2 * p.item_weights()])
    values = C.krippendorff_alpha(p, w)
    assert values.shape == (2,)
    assert values[0] == pytest.approx(0.743, abs=5e-4)
