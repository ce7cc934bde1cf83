"""Constraint checker (paper 001, Appendix D): a dataset's own JSON-path rules on the gold.

One rule per line of the dataset's settings. Forms::

    $.start_date <= $.end_date          compare (<, <=, >, >=, ==, !=) two paths or a path and a literal
    $..price >= 0                        every value the path names
    $..age between 0 and 130             a range, bounds included
    $..height unit in ["cm", "m"]        the unit written after the number ("180 cm")
    $..order.customer_id in $..customers[*].id    id links: every value must occur among the others
    $..status in ["open", "closed"]      a value from a list

Values are compared as numbers when both read as numbers ("1,234" == 1234), else as
dates when both read as dates ("5 March 2021" < "2021-04-01"), else as text (only
== and != then). When both sides are paths naming several values, they pair in
order (the i-th start with the i-th end); one value pairs with all of the other side.
A path that names nothing makes the rule not apply to the item. A violated rule
names the rule, the paths and the values.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from reviewer.errors import ReviewerError
from reviewer.guards import jsonpath
from reviewer.guards.base import ERROR, FAIL, PASS, SKIP, GuardItem, GuardResult
from reviewer.guards.normalise import parse_date, parse_number
from reviewer.guards.settings import Settings

COMPARATORS = ("<=", ">=", "==", "!=", "<", ">")
_UNIT_RE = re.compile(r"^\s*[-+]?[\d.,]+(?:[eE][-+]?\d+)?\s*(?P<unit>[^\d\s].*?)\s*$")
MAX_VIOLATIONS = 20


class RuleError(ReviewerError):
    pass


@dataclass(frozen=True)
class Operand:
    path: str | None = None  # a JSON path, or None for a literal
    literal: Any = None

    def values(self, doc: Any) -> list[tuple[str | None, Any]]:
        if self.path is None:
            return [(None, self.literal)]
        return jsonpath.find(doc, self.path)


@dataclass(frozen=True)
class Rule:
    text: str
    op: str  # a comparator, "between", "in", "unit in"
    left: Operand
    right: Operand | None = None
    low: Any = None
    high: Any = None


def _top_level_split(text: str, token: str) -> int:
    """Index of ``token`` outside quotes and brackets, or -1."""
    depth, quote, i = 0, None, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif depth == 0 and text.startswith(token, i):
            return i
        i += 1
    return -1


def _literal(text: str, where: str) -> Any:
    text = text.strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    if re.fullmatch(r"[-\w./: ]+", text) and (parse_date(text) or parse_number(text) is not None):
        return text  # an unquoted date or number such as 2020-01-01 or 1,234
    raise RuleError(f"{where}: {text!r} is neither a JSON path ($...) nor a JSON literal (quote text: \"like this\")")


def _operand(text: str, where: str) -> Operand:
    text = text.strip()
    if not text:
        raise RuleError(f"{where}: a side of the rule is empty")
    if text.startswith("$"):
        try:
            jsonpath.parse(text)
        except jsonpath.PathError as exc:
            raise RuleError(f"{where}: {exc}") from None
        return Operand(path=text)
    return Operand(literal=_literal(text, where))


def parse_rule(text: str, where: str = "rule") -> Rule:
    """Parse one rule; RuleError names the rule and what is wrong."""
    rule = text.strip()
    if not rule:
        raise RuleError(f"{where} is empty")
    where = f"{where} {rule!r}"
    for word in (" unit in ", " between ", " not in ", " in "):
        at = _top_level_split(rule, word)
        if at < 0:
            continue
        left = _operand(rule[:at], where)
        if left.path is None:
            raise RuleError(f"{where}: the left side must be a JSON path")
        rest = rule[at + len(word):]
        if word == " between ":
            split = _top_level_split(rest, " and ")
            if split < 0:
                raise RuleError(f"{where}: write 'PATH between LOW and HIGH'")
            return Rule(rule, "between", left, low=_literal(rest[:split], where), high=_literal(rest[split + 5:], where))
        right = _operand(rest, where)
        if right.path is None and not isinstance(right.literal, list):
            raise RuleError(f"{where}: after '{word.strip()}' comes a JSON path or a list like [\"a\", \"b\"]")
        return Rule(rule, word.strip(), left, right)
    for op in COMPARATORS:
        at = _top_level_split(rule, op)
        if at >= 0:
            return Rule(rule, op, _operand(rule[:at], where), _operand(rule[at + len(op):], where))
    raise RuleError(f"{where}: no comparison found (use one of {', '.join(COMPARATORS)}, between, in, unit in)")


def _comparable(a: Any, b: Any) -> tuple[Any, Any, str] | None:
    na, nb = parse_number(a), parse_number(b)
    if na is not None and nb is not None:
        return na, nb, "number"
    da, db = parse_date(a), parse_date(b)
    if da is not None and db is not None:
        return da, db, "date"
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return (json.dumps(a, sort_keys=True), json.dumps(b, sort_keys=True), "json")
    return (str(a).strip().lower() if a is not None else None,
            str(b).strip().lower() if b is not None else None, "text")


def compare(op: str, a: Any, b: Any) -> bool | None:
    """The comparison's truth, or None when the values cannot be ordered (text with <)."""
    pair = _comparable(a, b)
    x, y, how = pair
    if op == "==":
        return x == y
    if op == "!=":
        return x != y
    if how in ("text", "json") or x is None or y is None:
        return None
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]


def _unit(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    m = _UNIT_RE.match(value)
    return m.group("unit").strip().lower() if m else None


def _pairs(left, right, rule: Rule):
    if len(right) == 1:
        return [(lv, right[0]) for lv in left]
    if len(left) == 1:
        return [(left[0], rv) for rv in right]
    if len(left) == len(right):
        return list(zip(left, right))
    raise RuleError(f"rule {rule.text!r}: the two paths name {len(left)} and {len(right)} values; "
                    "they pair only when the counts are equal or one side names a single value")


def violations(rule: Rule, doc: Any) -> list[dict]:
    """What the rule finds wrong in ``doc`` (empty = holds or does not apply)."""
    left = rule.left.values(doc)
    if not left:
        return []
    out = []
    if rule.op == "between":
        for path, value in left:
            lo, hi = compare(">=", value, rule.low), compare("<=", value, rule.high)
            if lo is not True or hi is not True:
                out.append({"rule": rule.text, "path": path, "value": value,
                            "expected": f"between {rule.low} and {rule.high}"})
        return out
    if rule.op in ("in", "not in"):
        pool = [v for _, v in rule.right.values(doc)] if rule.right.path else rule.right.literal
        for path, value in left:
            found = any(compare("==", value, p) for p in pool)
            if found != (rule.op == "in"):
                shown = pool if len(pool) <= 10 else pool[:10] + ["…"]
                out.append({"rule": rule.text, "path": path, "value": value,
                            "expected": f"{rule.op} {rule.right.path or ''} {json.dumps(shown, ensure_ascii=False)}".replace("  ", " ")})
        return out
    if rule.op == "unit in":
        allowed = {str(u).strip().lower() for u in rule.right.literal} if rule.right.path is None else \
            {str(v).strip().lower() for _, v in rule.right.values(doc)}
        for path, value in left:
            unit = _unit(value)
            if unit not in allowed:
                out.append({"rule": rule.text, "path": path, "value": value,
                            "expected": f"a unit in {sorted(allowed)}" + ("" if unit else " (no unit written)")})
        return out
    right = rule.right.values(doc)
    if not right:
        return []
    for (lp, lv), (rp, rv) in _pairs(left, right, rule):
        ok = compare(rule.op, lv, rv)
        if ok is not True:
            item = {"rule": rule.text, "path": lp, "value": lv, "other": rv}
            if rp:
                item["other_path"] = rp
            if ok is None:
                item["problem"] = "the values cannot be ordered (neither both numbers nor both dates)"
            out.append(item)
    return out


def describe(v: dict) -> str:
    other = ""
    if "other" in v:
        other = f" vs {v.get('other_path', 'literal')} = {json.dumps(v['other'], ensure_ascii=False)}"
    elif "expected" in v:
        other = f", expected {v['expected']}"
    return f"{v['rule']}: {v['path']} = {json.dumps(v['value'], ensure_ascii=False)}{other}"


class ConstraintGuard:
    name = "constraints"
    label = "Constraints"
    version = 1

    def applies(self, item: GuardItem, settings: Settings) -> bool:
        return bool(settings.rules) and item.gold is not None

    def inputs(self, item: GuardItem, settings: Settings):
        return [item.gold, settings.rules]

    def check(self, item: GuardItem, settings: Settings) -> GuardResult:
        found, problems = [], []
        for n, text in enumerate(settings.rules):
            try:
                found += violations(parse_rule(text, f"rule {n + 1}"), item.gold)
            except RuleError as exc:
                problems.append(str(exc))
        if problems:
            return GuardResult(self.name, ERROR, problems[0], {"errors": problems, "violations": found[:MAX_VIOLATIONS]})
        if not found:
            return GuardResult(self.name, PASS, f"{len(settings.rules)} rule(s) hold")
        more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
        return GuardResult(self.name, FAIL, describe(found[0])[:300] + more,
                           {"violations": found[:MAX_VIOLATIONS], "count": len(found)})


__all__ = ["ConstraintGuard", "Rule", "RuleError", "SKIP", "parse_rule", "violations"]
