"""Reading numbers and dates written in different ways, for grounding and rules.

``parse_number`` reads "1,234", "1234", "1.2e3", "-3.5", "12%" (as 12) and
"1 234" but not "1.2.3"; ``parse_date`` reads ISO dates and the common written
forms ("5 March 2021", "March 5, 2021", "2021/03/05", "05.03.2021", "2021年3月5日");
numeric day/month orders that are ambiguous (03/05/2021) read month first (US), and
``date_variants`` also offers the day-first reading so grounding finds either.
"""

from __future__ import annotations

import re
from datetime import date

# A number in running text: digits may touch letters or CJK (units: "256GB", "850毫克"), not other
# digits, a decimal point or a thousands group; an optional scale word follows ("4.8 million", "3764.10万").
NUMBER_RE = re.compile(
    r"(?<![\d.,])(?P<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\d]|[.,]\d)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|[千万亿]))?", re.I)
SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "千": 1e3, "万": 1e4, "亿": 1e8}
_FULL_NUMBER = re.compile(r"^\s*[-+]?(?:\d{1,3}(?:[, ]\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?\s*%?\s*$")

MONTHS = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"])}
MONTHS.update({m[:3]: n for m, n in list(MONTHS.items())})
MONTHS["sept"] = 9
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"

# Each pattern: regex, and the group order (y, m, d) it yields.
DATE_PATTERNS = [
    (re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)"), "ymd"),
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"), "ymd"),
    (re.compile(r"(?<!\d)(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?!\d)"), "mdy"),
    (re.compile(r"(?<!\d)(\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(\d{4})(?!\d)", re.I), "dMy"),
    (re.compile(r"(?<![a-z])" + _MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?!\d)", re.I), "Mdy"),
]


def parse_number(value) -> float | None:
    """The number a value states, or None. Booleans are not numbers."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str) or not _FULL_NUMBER.match(value) or not re.search(r"\d", value):
        return None
    text = value.strip().rstrip("%").strip().replace(",", "").replace(" ", "")
    try:
        return float(text)
    except ValueError:
        return None


def _make(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _from_match(groups: tuple, order: str) -> list[date]:
    """The dates a match can mean (two for an ambiguous numeric day/month)."""
    if order == "ymd":
        d = _make(int(groups[0]), int(groups[1]), int(groups[2]))
        return [d] if d else []
    if order == "mdy":
        a, b, y = int(groups[0]), int(groups[1]), int(groups[2])
        found = [d for d in (_make(y, a, b), _make(y, b, a)) if d]
        return list(dict.fromkeys(found))
    if order == "dMy":
        d = _make(int(groups[2]), MONTHS[groups[1].lower()[:3]], int(groups[0]))
        return [d] if d else []
    if order == "Mdy":
        d = _make(int(groups[2]), MONTHS[groups[0].lower()[:3]], int(groups[1]))
        return [d] if d else []
    return []


def find_dates(text: str) -> list[tuple[int, int, list[date]]]:
    """Every date written in ``text``: (start, end, the dates it can mean)."""
    out = []
    for pattern, order in DATE_PATTERNS:
        for m in pattern.finditer(text):
            dates = _from_match(m.groups(), order)
            if dates:
                out.append((m.start(), m.end(), dates))
    return sorted(out, key=lambda t: (t[0], -t[1]))


def date_variants(value) -> list[date]:
    """The dates a whole value states (empty when it is not a date)."""
    if not isinstance(value, str) or len(value) > 40:
        return []
    text = value.strip()
    for start, end, dates in find_dates(text):
        # The date must be the whole value, possibly with a time after it ("2021-03-05T10:00:00").
        if start == 0 and (end == len(text) or re.match(r"^[T ]\d{1,2}:\d{2}", text[end:])):
            return dates
    return []


def parse_date(value) -> date | None:
    dates = date_variants(value)
    return dates[0] if dates else None
