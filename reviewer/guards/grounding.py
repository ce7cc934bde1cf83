"""Text grounding probe (paper 001, Appendix D): every gold value is searched in the source.

A leaf of the gold (a string or number; booleans and nulls state nothing to find)
is grounded when the source text holds a span that says the same thing:

* text: the same words ignoring case and runs of white space (whole words when the
  value starts/ends with a Latin letter or digit; CJK text has no word boundaries);
* numbers: any number written in the text with the same value (1,234 = 1234 = 1.2e3 /
  1.234e3; 12.50 = 12.5);
* dates: any common written form of the same day (2021-03-05 = 5 March 2021 =
  March 5, 2021 = 03/05/2021 = 2021年3月5日);
* times of day: the same times close together (10:00-23:30 = "10:00 AM to 11:30 PM");
* failing those, a multi-word Latin value whose words all occur close together
  ("8:00 AM - 5:00 PM" in "opens at 8:00 AM ... until 5:00 PM"), reported as "parts"
  so the reviewer sees it was not found as written.

The result lists, per leaf, the span found (character offsets in the source, for
highlighting) or none; one leaf without support fails the item ("flag for review").
Tool QA answers are grounded in the tool response: a filtering answer's list
("a, b, c") is split into its values; an aggregation answer is computed, not
quoted, so it is not probed.
"""

from __future__ import annotations

import itertools
import math
import re

from reviewer.errors import json_path
from reviewer.guards.base import FAIL, PASS, SKIP, GuardItem, GuardResult, leaves
from reviewer.guards.normalise import NUMBER_RE, SCALES, date_variants, find_dates, parse_number
from reviewer.guards.settings import Settings

MAX_SPANS_PER_LEAF = 3
_WORDY = re.compile(r"[A-Za-z0-9]")
_TOKEN = re.compile(r"[a-z0-9]+")


def _norm_value(value: str) -> str:
    return re.sub(r"\s+", " ", value.strip().lower())


def _text_spans(source: str, needle: str, lowered: bool = False) -> list[tuple[int, int]]:
    """Where ``needle`` (lower case) is written in ``source``, ignoring case and the width of white
    space. ``lowered``: ``source`` is already lower case with the same offsets (much faster: a
    case-insensitive Unicode pattern costs milliseconds to compile)."""
    if not needle:
        return []
    left = r"(?<![A-Za-z0-9])" if _WORDY.match(needle[0]) else ""
    right = r"(?![A-Za-z0-9])" if _WORDY.match(needle[-1]) else ""
    body = _needle_pattern(needle)
    pattern = re.compile(left + body + right, 0 if lowered else re.IGNORECASE)
    return [m.span() for m in itertools.islice(pattern.finditer(source), MAX_SPANS_PER_LEAF)]


# ASCII punctuation and the full-width forms CJK text writes it in ("(" and "（").
_FULL_WIDTH = {c: chr(ord(c) + 0xFEE0) for c in "()[]:;,.!?%&+-/"}
_FULL_WIDTH.update({'"': "“”＂", "'": "‘’＇"})


def _needle_pattern(needle: str) -> str:
    """A regex for ``needle`` where white space may vary in width (and may be absent next to
    punctuation: "X (Y)" matches "X（Y）") and punctuation may be written full-width."""
    out = []
    for i, c in enumerate(needle):
        if c == " ":
            prev, nxt = needle[i - 1] if i else "", needle[i + 1] if i + 1 < len(needle) else ""
            out.append(r"\s*" if prev in _FULL_WIDTH or nxt in _FULL_WIDTH else r"\s+")
        elif c in _FULL_WIDTH:
            out.append("[" + re.escape(c + _FULL_WIDTH[c]) + "]")
        else:
            out.append(re.escape(c))
    return "".join(out)


_TIME = re.compile(r"(?<!\d)(\d{1,2})[:：](\d{2})(?::\d{2})?\s*(a\.m\.|p\.m\.|am|pm)?(?![\d])", re.I)
_TIME_ONLY = re.compile(r"^[\s\-–—~to,/|]*$", re.I)


def _minutes(m: re.Match) -> int | None:
    hour, minute, half = int(m.group(1)), int(m.group(2)), (m.group(3) or "").lower().replace(".", "")
    if minute > 59 or hour > 24 or (half and not 1 <= hour <= 12):
        return None
    if half == "pm" and hour != 12:
        hour += 12
    elif half == "am" and hour == 12:
        hour = 0
    return hour * 60 + minute


class SourceIndex:
    """The source read once: normalised text, every number and every date in it."""

    def __init__(self, source: str):
        self.source = source
        lowered = source.lower()
        # str.lower keeps offsets for nearly every text; when it does not ("İ"), search case-insensitively.
        self.lowered = lowered if len(lowered) == len(source) else None
        self.text = self.lowered if self.lowered is not None else source
        self.numbers: dict[float, list[tuple[int, int]]] = {}
        for m in NUMBER_RE.finditer(source):
            value = parse_number(m.group("num"))
            if value is None or not math.isfinite(value):
                continue
            self.numbers.setdefault(value, []).append(m.span("num"))
            if m.group("scale"):  # "4.8 million" states 4800000 (and 4.8)
                scaled = round(value * SCALES[m.group("scale").lower()], 6)
                self.numbers.setdefault(scaled, []).append(m.span())
        self.times: dict[int, list[int]] = {}
        for m in _TIME.finditer(source):
            minutes = _minutes(m)
            if minutes is not None:
                self.times.setdefault(minutes, []).append(m.start())
        self.dates: dict = {}
        for start, end, dates in find_dates(source):
            for d in dates:
                self.dates.setdefault(d, []).append((start, end))

    def find(self, value) -> tuple[list[tuple[int, int]], str | None]:
        """Spans supporting ``value`` and how they matched ("text", "number", "date"), or ([], None)."""
        if isinstance(value, str):
            spans = _text_spans(self.text, _norm_value(value), self.lowered is not None)
            if spans:
                return spans, "text"
            for d in date_variants(value):
                if d in self.dates:
                    return self.dates[d][:MAX_SPANS_PER_LEAF], "date"
        number = parse_number(value)
        if number is not None and math.isfinite(number):
            spans = self.numbers.get(number)
            if spans:
                return spans[:MAX_SPANS_PER_LEAF], "number"
        if isinstance(value, str):
            span = self._times(value)
            if span:
                return [span], "time"
            span = self._parts(_norm_value(value))
            if span:
                return [span], "parts"
        return [], None

    def _times(self, value: str) -> tuple[int, int] | None:
        """Times of day written another way ("10:00-23:30" in "from 10:00 AM to 11:30 PM"):
        every time the value states, close together in the source."""
        found = list(_TIME.finditer(value))
        if not found or not _TIME_ONLY.match(_TIME.sub(" ", value)):
            return None
        wanted = [_minutes(m) for m in found]
        if None in wanted or not all(w in self.times for w in wanted):
            return None
        for anchor in self.times[wanted[0]][:50]:
            near = [min(self.times[w], key=lambda p: abs(p - anchor)) for w in wanted]
            if max(abs(p - anchor) for p in near) <= 150:
                end = max(near)
                m = _TIME.match(self.source, end)
                return min(near), (m.end() if m else end + 5)
        return None

    def _parts(self, needle: str) -> tuple[int, int] | None:
        """A passage holding every word of a multi-word value, close together ("8:00 AM - 5:00 PM"
        against "opens at 8:00 AM ... until 5:00 PM"): the span from its first to its last word."""
        tokens = list(dict.fromkeys(t for t in _TOKEN.findall(needle) if len(t) > 1 or t.isdigit()))
        if len(tokens) < 2 or not all(_WORDY.match(t) for t in tokens):
            return None
        window = max(150, 3 * len(needle))
        flags = 0 if self.lowered is not None else re.I
        hits = {t: [m.start() for m in re.finditer(rf"(?<![a-z0-9]){re.escape(t)}(?![a-z0-9])", self.text, flags)]
                for t in tokens}
        if not all(hits.values()):
            return None
        rarest = min(tokens, key=lambda t: len(hits[t]))
        for anchor in hits[rarest][:50]:
            chosen = [anchor]
            for t in tokens:
                near = [p for p in hits[t] if abs(p - anchor) <= window]
                if not near:
                    break
                chosen.append(min(near, key=lambda p: abs(p - anchor)))
            else:
                end_token = max(chosen)
                last = next(t for t in tokens if end_token in hits[t])
                return min(chosen), end_token + len(last)
        return None


def gold_values(item: GuardItem) -> list[tuple[str, object]]:
    """(JSON path, value) of every gold value that should be found in the source."""
    gold = item.gold
    if item.kind == "tool_qa" and isinstance(gold, str):
        if (item.category or "").upper() == "FILTERING":
            parts = [p.strip() for p in gold.split(",") if p.strip()]
            return [(f"$[{i}]", p) for i, p in enumerate(parts)]
        return [("$", gold.strip())]
    return [(json_path(p), v) for p, v in leaves(gold) if v is not None and not isinstance(v, bool)
            and not (isinstance(v, str) and not v.strip())]


def probe(source: str, values: list[tuple[str, object]]) -> list[dict]:
    index = SourceIndex(source)
    out = []
    for path, value in values:
        spans, how = index.find(value)
        out.append({"path": path, "value": value, "spans": [list(s) for s in spans], "how": how})
    return out


class GroundingGuard:
    name = "grounding"
    label = "Grounding"
    version = 2  # 2: full-width punctuation, times of day

    def applies(self, item: GuardItem, settings: Settings) -> bool:
        if item.kind not in ("extraction", "tool_qa") or not item.source or item.gold in (None, ""):
            return False
        return not (item.kind == "tool_qa" and (item.category or "").upper() == "AGGREGATION")

    def inputs(self, item: GuardItem, settings: Settings):
        return [item.gold, item.source, item.category]

    def check(self, item: GuardItem, settings: Settings) -> GuardResult:
        values = gold_values(item)
        if not values:
            return GuardResult(self.name, SKIP, "the gold states no value to look for")
        found = probe(item.source, values)
        missing = [f for f in found if not f["spans"]]
        details = {"values": found, "missing": [f["path"] for f in missing]}
        if not missing:
            return GuardResult(self.name, PASS, f"all {len(found)} gold value(s) found in the source", details)
        shown = ", ".join(f"{f['path']} = {str(f['value'])[:40]!r}" for f in missing[:3])
        more = f" (+{len(missing) - 3} more)" if len(missing) > 3 else ""
        return GuardResult(self.name, FAIL, f"no evidence for {len(missing)} of {len(found)} value(s): {shown}{more}",
                           details)
