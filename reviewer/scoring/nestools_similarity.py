"""NesTools parameter similarity: how much of a gold parameter value a predicted value gets.

Reproduces the official ``check_score`` (paper 004's evaluation script) and the
ROUGE-L F it relies on, which comes from the ``rouge`` 1.0.1 package. That
package's ROUGE-L is not the textbook one, and the official numbers depend on
its details, so they are reproduced here:

- text is split into "sentences" on every "." (so "3.5" is two sentences and a
  whitespace-only piece between dots counts as a sentence holding one empty word);
- words are counted as a SET: m and n are the numbers of distinct words;
- the overlap is the number of distinct words in the union of the LCSs of every
  (candidate sentence, reference sentence) pair, each LCS rebuilt by the same
  tie-breaking walk as the package;
- F = 2PR / (P + R + 1e-8), so two different strings never score exactly 1
  (only Python equality does);
- an empty candidate or reference (nothing left after splitting) raises, and
  the official script turns any raised error into a score of 0.

Not reproduced: the package reconstructs LCSs recursively and fails with
RecursionError (so score 0) on sentences of roughly 1,000 words or more.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any


class SimilarityError(ValueError):
    """A comparison the official scorer fails on; it scores 0."""


def _sentences(text: str) -> list[list[str]]:
    pieces = [" ".join(p.split()) for p in text.split(".") if len(p) > 0]
    return [p.split(" ") for p in pieces]


def _lcs_words(ref: list[str], cand: list[str]) -> set[str]:
    """Words of the LCS of ``ref`` and ``cand``, rebuilt as the ``rouge`` package does."""
    n, m = len(ref), len(cand)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        row, prev = table[i], table[i - 1]
        r = ref[i - 1]
        for j in range(1, m + 1):
            if r == cand[j - 1]:
                row[j] = prev[j - 1] + 1
            else:
                row[j] = prev[j] if prev[j] > row[j - 1] else row[j - 1]
    words: set[str] = set()
    i, j = n, m
    while i > 0 and j > 0:
        if ref[i - 1] == cand[j - 1]:
            words.add(ref[i - 1])
            i -= 1
            j -= 1
        elif table[i - 1][j] > table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return words


def rouge_l_f(candidate: str, reference: str) -> float:
    """ROUGE-L F of ``candidate`` against ``reference``, as ``rouge`` 1.0.1 computes it.

    Raises SimilarityError when either side has no sentence.
    """
    cand = _sentences(candidate)
    ref = _sentences(reference)
    if not cand or not ref:
        raise SimilarityError("empty text has no ROUGE-L score")
    m = len({w for s in ref for w in s})
    n = len({w for s in cand for w in s})
    union: set[str] = set()
    for ref_sentence in ref:
        for cand_sentence in cand:
            union |= _lcs_words(ref_sentence, cand_sentence)
    overlap = len(union)
    recall = overlap / m
    precision = overlap / n
    return 2.0 * ((precision * recall) / (precision + recall + 1e-8))


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_LONG_DATE = re.compile(r"\b[A-Za-z]+ \d+(st|nd|rd|th)?, \d{4}\b")
_DAY = re.compile(r"\b(\d+)(st|nd|rd|th)?\b")
_ORDINAL = re.compile(r"(\d+)(st|nd|rd|th)")
_RIGHT_SUFFIX = {1: "st", 21: "st", 31: "st", 2: "nd", 22: "nd", 3: "rd", 23: "rd"}


def normalize_date(text: str) -> str:
    """Rewrite "March 3rd, 2024" or "2024-03-03" as "2024-03-03"; anything else as is.

    Mirrors the official helper, including its oddities: the day is the first
    number in the text; a wrong ordinal suffix ("3th") leaves the text alone;
    a text that merely contains a long date comes back with its ordinal
    suffixes removed ("on March 3rd, 2024" → "on March 3, 2024").
    """
    try:
        if _ISO_DATE.match(text):
            return datetime.strptime(text, "%Y-%m-%d").strftime("%Y-%m-%d")
        if not _LONG_DATE.search(text):
            return text
        day_match = _DAY.search(text)
        if not day_match:
            return text
        day, suffix = int(day_match.group(1)), day_match.group(2)
        if suffix and suffix != _RIGHT_SUFFIX.get(day, "th" if 4 <= day <= 30 else None):
            return text
        text = _ORDINAL.sub(r"\1", text)
        return datetime.strptime(text, "%B %d, %Y").strftime("%Y-%m-%d")
    except ValueError:
        return text


def _normalised_key(key: Any) -> str:
    return "".join(ch for ch in str(key).lower() if ch not in "_ ")


def value_score(gold: Any, predicted: Any) -> float:
    """Credit (0..1) for one predicted parameter value against the gold value.

    Equal values score 1; two strings score the better of ROUGE-L F on the
    lowercased texts and on their date-normalised forms; two numbers score 1
    or 0; equal-length lists the mean of their elements' scores; dicts of the
    same size the sum of value scores over keys paired BY POSITION whose names
    agree after lowercasing and dropping "_" and " ", divided by the size.
    Anything else scores 0. Raises SimilarityError where the official scorer
    raises (an empty string inside a list or dict); callers score that 0.
    """
    if gold == predicted:
        return 1.0
    if isinstance(gold, str) and isinstance(predicted, str):
        score = rouge_l_f(predicted.lower(), gold.lower())
        dated = rouge_l_f(normalize_date(predicted).lower(), normalize_date(gold).lower())
        return max(score, dated)
    if isinstance(gold, (int, float)) and isinstance(predicted, (int, float)):
        return 0.0  # equal numbers were caught above (bools are ints here too)
    if isinstance(gold, list) and isinstance(predicted, list):
        if len(gold) != len(predicted):
            return 0.0
        return sum(value_score(g, p) for g, p in zip(gold, predicted)) / len(gold)
    if isinstance(gold, dict) and isinstance(predicted, dict):
        if len(gold) != len(predicted):
            return 0.0
        total = 0.0
        for (gk, gv), (pk, pv) in zip(gold.items(), predicted.items()):
            if _normalised_key(gk) == _normalised_key(pk):
                total += value_score(gv, pv)
        return total / len(predicted)
    return 0.0


def safe_value_score(gold: Any, predicted: Any) -> float:
    """``value_score`` with failures scored 0, as the official script does."""
    try:
        return value_score(gold, predicted)
    except (SimilarityError, ValueError, TypeError, RecursionError):
        return 0.0
