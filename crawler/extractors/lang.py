"""Which language a page is in, as far as the indexer needs to know (pure).

The indexer segments Chinese and Japanese text (no spaces between words), so
what matters is telling CJK scripts apart cheaply, not identifying every
language: a declared language wins (``<html lang>``, set by the extractor),
and undeclared text gets "zh", "ja" or "ko" when more than 30% of its first
2000 characters are CJK: "ja" when kana make up over a tenth of them (every
Japanese sentence has kana, Chinese has none), "ko" when Hangul outnumbers
Han characters, else "zh". Anything else stays "" (the analyzer's default).
"""

from __future__ import annotations

import re

__all__ = ["cjk_ratio", "guess_lang"]

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_SAMPLE = 2000
_CJK_SHARE = 0.3


def cjk_ratio(text: str) -> float:
    """The share of non-space characters that are Chinese, Japanese or Korean.

    >>> cjk_ratio("西湖 ab")
    0.5
    """
    chars = len(text) - text.count(" ")
    return len(_CJK.findall(text)) / chars if chars else 0.0


def guess_lang(text: str) -> str:
    """"zh", "ja" or "ko" for mostly-CJK text, else "".

    >>> guess_lang("西湖龙井是中国著名的绿茶。"), guess_lang("東京は日本の首都です。")
    ('zh', 'ja')
    >>> guess_lang("서울은 대한민국의 수도입니다."), guess_lang("Plain English.")
    ('ko', '')
    """
    sample = text[:_SAMPLE]
    cjk = len(_CJK.findall(sample))
    chars = len(sample) - sample.count(" ")
    if not chars or cjk <= _CJK_SHARE * chars:
        return ""
    kana = len(_KANA.findall(sample))
    if kana * 10 > cjk:
        return "ja"
    hangul = len(_HANGUL.findall(sample))
    return "ko" if hangul * 2 > cjk else "zh"
