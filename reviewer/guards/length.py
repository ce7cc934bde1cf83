"""Length compliance (paper 001, Appendix D): the source has at least N words (1,500 in the paper).

Words are runs of non-space characters, except that each CJK ideograph, kana or
hangul syllable counts as one word (Chinese and Japanese do not separate words by
spaces; a character count is the usual length measure there). The threshold is the
dataset's ``min_words`` setting (1,500 for text-to-JSON extraction, off elsewhere).
"""

from __future__ import annotations

import re

from reviewer.guards.base import FAIL, PASS, GuardItem, GuardResult
from reviewer.guards.settings import Settings

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD = re.compile(rf"[{_CJK}]|[^\s{_CJK}]+")


def word_count(text: str) -> int:
    return sum(1 for _ in _WORD.finditer(text or ""))


class LengthGuard:
    name = "length"
    label = "Length"
    version = 1

    def applies(self, item: GuardItem, settings: Settings) -> bool:
        return settings.min_words_for(item.kind) > 0

    def inputs(self, item: GuardItem, settings: Settings):
        return [item.source, settings.min_words_for(item.kind)]

    def check(self, item: GuardItem, settings: Settings) -> GuardResult:
        need, words = settings.min_words_for(item.kind), word_count(item.source)
        details = {"words": words, "min_words": need}
        if words >= need:
            return GuardResult(self.name, PASS, f"{words:,} words (at least {need:,})", details)
        return GuardResult(self.name, FAIL, f"the source has {words:,} words, fewer than {need:,}: Fix or Reject",
                           details)
