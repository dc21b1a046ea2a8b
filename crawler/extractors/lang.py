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

__all__ = ["cjk_ratio", "contained_languages", "guess_lang"]

# A language as tags and URLs name it: in crawler.languages, which search and
# the indexer's schema import without this package's extractors.

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


def _english(sample: str, least: int = _ENGLISH_MIN_WORDS) -> bool:
    words = _LATIN_WORD.findall(sample.lower())[:_ENGLISH_SAMPLE]
    if len(words) < least:
        return False
    return sum(1 for word in words if word in _ENGLISH_WORDS) >= _ENGLISH_SHARE * len(words)


_CONTAINED_SAMPLE = 20000
# The share of a page's text that must be running text in another language:
# half-translated pages are about half; a Chinese manual's preface quoting
# its English original (a third) or its commands and file names are not.
_CONTAINED_SHARE = 0.4
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_MIN_SENTENCE_WORDS = 4


def contained_languages(text: str, lang: str) -> list[str]:
    """Languages a page holds running text in besides its own ``lang``: "en"
    for a Chinese page whose translation is half done (English sentences
    make up ``_CONTAINED_SHARE`` of it, not only the commands and file names
    every Chinese manual quotes), the CJK language of as much of a
    Latin-script page. A query in one of them is in a language the page
    contains.

    >>> contained_languages("软件包管理。" * 30 + "This section is not translated yet, and the text of the "
    ...                     "original is shown in its place until it is done. " * 4, "zh-cn")
    ['en']
    >>> contained_languages("软件包管理 apt-get install dpkg -i /etc/apt/sources.list 。" * 30, "zh-cn")
    []
    >>> contained_languages("Tea is grown on the hills. " * 3 + "西湖龙井是中国著名的绿茶。" * 20, "en")
    ['zh']
    >>> contained_languages("Tea is grown on the hills. " * 800, "en")
    []
    """
    sample = text[:_CONTAINED_SAMPLE]
    if not sample.strip():
        return []
    primary = lang.split("-")[0]
    cjk_page = primary in _CJK_PRIMARIES
    if not cjk_page and _CJK.search(sample) is None:
        return []  # no sentence of it can be in another script: one search, not one a sentence
    other = 0
    for sentence in _SENTENCE_END.split(sample):
        has_cjk = _CJK.search(sentence) is not None
        if cjk_page and not has_cjk and _english(sentence, _MIN_SENTENCE_WORDS):
            other += len(sentence)
        elif not cjk_page and has_cjk and cjk_ratio(sentence) > _CJK_SHARE:
            other += len(sentence)
    if other < _CONTAINED_SHARE * len(sample):
        return []
    if cjk_page:
        return ["en"]
    guessed = guess_lang("".join(_CJK.findall(sample)))
    return [guessed] if guessed and guessed != primary else []


_CJK_PRIMARIES = frozenset(["zh", "ja", "ko"])
