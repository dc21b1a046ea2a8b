"""Which language a page is in, as far as the indexer needs to know (pure).

Search prefers pages in the query's language (an English query on a site
with a Chinese edition should not get the Chinese pages, which share its
command and file names), and the indexer segments Chinese and Japanese text,
so what matters is telling scripts apart cheaply and English from the rest,
not identifying every language. A declared language wins (``<html lang>``,
``<meta http-equiv=content-language>``, then the ``Content-Language``
header); undeclared text gets "zh", "ja" or "ko" when more than 30% of its
first 2000 characters are CJK: "ja" when kana make up over a tenth of them
(every Japanese sentence has kana, Chinese has none), "ko" when Hangul
outnumbers Han characters, else "zh"; "en" when English function words
make up an eighth of its first 300 words (they are a third to a half of
running English text, and rare in other languages). Anything else stays "".
"""

from __future__ import annotations

import re

__all__ = ["cjk_ratio", "guess_lang"]

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_SAMPLE = 2000
_CJK_SHARE = 0.3
_CJK_MIN = 20
_LATIN_WORD = re.compile(r"[a-z]+")
_ENGLISH_WORDS = frozenset(
    """the of and to in is that for it with as on are this be by or an not you
    can from which if at was we your have will all has more when use one""".split()
)
_ENGLISH_SAMPLE = 300
_ENGLISH_SHARE = 0.125
_ENGLISH_MIN_WORDS = 12


def cjk_ratio(text: str) -> float:
    """The share of non-space characters that are Chinese, Japanese or Korean.

    >>> cjk_ratio("西湖 ab")
    0.5
    """
    chars = len(text) - text.count(" ")
    return len(_CJK.findall(text)) / chars if chars else 0.0


def guess_lang(text: str) -> str:
    """ "zh", "ja" or "ko" for mostly-CJK text, "en" for English, else "".

    >>> guess_lang("西湖龙井是中国著名的绿茶。"), guess_lang("東京は日本の首都です。")
    ('zh', 'ja')
    >>> guess_lang("서울은 대한민국의 수도입니다."), guess_lang("Plain English.")
    ('ko', '')
    >>> guess_lang("The lighthouse stands on the cliff, and its keeper is in the tower at night. "
    ...            "It was built in 1870 for the ships that come to the harbour.")
    'en'
    >>> guess_lang("debian/control 文件 debian/rules 文件 dh_make 设置软件包的名称和版本")
    'zh'
    >>> guess_lang("Le phare se dresse sur la falaise et son gardien est dans la tour la nuit.")
    ''
    """
    sample = text[:_SAMPLE]
    cjk = len(_CJK.findall(sample))
    chars = len(sample) - sample.count(" ")
    # A Chinese manual quotes file names and commands: its Latin letters may
    # outnumber its characters, not its Latin words a character each.
    if not chars or (cjk <= _CJK_SHARE * chars and cjk < max(_CJK_MIN, len(_LATIN_WORD.findall(sample.lower())))):
        return "en" if _english(sample) else ""
    kana = len(_KANA.findall(sample))
    if kana * 10 > cjk:
        return "ja"
    hangul = len(_HANGUL.findall(sample))
    return "ko" if hangul * 2 > cjk else "zh"


def _english(sample: str) -> bool:
    words = _LATIN_WORD.findall(sample.lower())[:_ENGLISH_SAMPLE]
    if len(words) < _ENGLISH_MIN_WORDS:
        return False
    return sum(1 for word in words if word in _ENGLISH_WORDS) >= _ENGLISH_SHARE * len(words)
