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

__all__ = [
    "LANGUAGES",
    "cjk_ratio",
    "contained_languages",
    "guess_lang",
    "language_tag",
    "url_language",
    "without_language",
]

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


#: ISO 639-1 codes: what a URL's language segment may be (``/fr/``,
#: ``/zh-CN/``, ``.pt-br.html``). A two-letter directory that is no
#: language (``/js/``, ``/db/``) never names one.
LANGUAGES = frozenset(
    """aa ab af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz
    ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik
    io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml
    mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd
    se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi
    vo wa wo xh yi yo za zh zu""".split()
)
# BCP 47 in outline: a primary language (or x-, i- for private and
# grandfathered ones) and up to seven subtags.
_LANGUAGE_TAG = re.compile(r"(?:[a-z]{2,3}|[xi])(?:-[a-z0-9]{1,8}){0,7}")
# A language tag as URLs write it: a code, then a region or script
# (``zh-CN``, ``zh_TW``, ``pt-br``, ``sr-Latn``).
_TAG = r"([a-z]{2})(?:[-_]([a-z]{2}|[a-z]{4}|\d{3}))?"
_SEGMENT = re.compile(rf"(?i)^{_TAG}$")
# ``name.fr.html``, ``name.zh-cn.html``, ``name.html.fr`` (Apache's MultiViews).
_SUFFIX = re.compile(rf"(?i)(?P<stem>[^/]+?)\.{_TAG}(?P<ext>\.x?html?)$|(?P<stem2>[^/]+?\.x?html?)\.{_TAG}$")
_QUERY_NAMES = frozenset(["lang", "hl", "locale", "language"])


def language_tag(declared: str) -> str:
    """A language as declared anywhere (``<html lang>``, ``Content-Language``,
    ``hreflang``) as one tag, lower case, hyphenated, as the index keeps it
    and a result shows it; "" for a value that is no language tag.

    >>> language_tag("EN_us "), language_tag("zh-Hant-TW"), language_tag("de")
    ('en-us', 'zh-hant-tw', 'de')
    >>> language_tag("<b>English</b>"), language_tag("english please"), language_tag("e"), language_tag("fr;q=1")
    ('', '', '', '')
    """
    tag = declared.strip().lower().replace("_", "-")
    return tag if _LANGUAGE_TAG.fullmatch(tag) else ""


def _tag(code: str, region: str | None) -> str:
    return f"{code}-{region}".lower() if region else code.lower()


def _path_language(path: str) -> tuple[str, int, int] | None:
    """The language a path names, and where its segment starts and ends."""
    start = 0
    for segment in path.split("/")[:-1]:  # directories: a last segment ``de`` may be a page on Germany
        end = start + len(segment)
        match = _SEGMENT.match(segment)
        if match and match.group(1).lower() in LANGUAGES:
            return _tag(match.group(1), match.group(2)), start, end
        start = end + 1
    name_start = path.rfind("/") + 1
    match = _SUFFIX.match(path, name_start)
    if match:
        if match.group("stem") is not None:  # name.fr.html: from the dot before fr to the extension
            code, region = match.group(2), match.group(3)
            cut, end = match.end("stem"), match.start("ext")
        else:  # name.html.fr
            code, region = match.group(6), match.group(7)
            cut, end = match.end("stem2"), match.end()
        if code.lower() in LANGUAGES:
            return _tag(code, region), cut, end
    return None


def url_language(url: str) -> str:
    """The language a URL names by its language segment: a directory
    (``/zh-CN/``, ``/zh_CN/``, ``/fr/``), a file name's suffix
    (``.zh-cn.html``, ``.html.fr``) or a query parameter (``?lang=fr``);
    "" when it names none.

    >>> url_language("http://a.test/zh_CN/ch02.html"), url_language("http://a.test/ch02.pt-br.html")
    ('zh-cn', 'pt-br')
    >>> url_language("http://a.test/doc/index.html.fr"), url_language("http://a.test/p?id=3&lang=de")
    ('fr', 'de')
    >>> url_language("http://a.test/js/app.html"), url_language("http://a.test/countries/de")
    ('', '')
    """
    path, _, query = url.partition("?")
    path = path.split("#")[0]
    scheme_end = path.find("://")
    host_end = path.find("/", scheme_end + 3) if scheme_end >= 0 else 0
    found = _path_language(path[host_end:]) if host_end >= 0 else None
    if found:
        return found[0]
    for pair in query.split("#")[0].split("&"):
        name, _, value = pair.partition("=")
        if name.lower() in _QUERY_NAMES:
            match = _SEGMENT.match(value)
            if match and match.group(1).lower() in LANGUAGES:
                return _tag(match.group(1), match.group(2))
    return ""


def without_language(url: str) -> str | None:
    """``url`` with its language segment taken out: what the page's
    translations have in common (``ch02.fr.html`` and ``ch02.en.html`` are
    both ``ch02.html``; ``/fr/docs/x`` is ``/docs/x``, the original's URL
    when it has no segment); None when the URL names no language.

    >>> without_language("http://a.test/fr/docs/x.html"), without_language("http://a.test/ch02.zh-cn.html")
    ('http://a.test/docs/x.html', 'http://a.test/ch02.html')
    >>> without_language("http://a.test/x.html.de"), without_language("http://a.test/p?lang=de&id=3")
    ('http://a.test/x.html', 'http://a.test/p?id=3')
    >>> without_language("http://a.test/about.html") is None
    True
    """
    base, hash_, fragment = url.partition("#")
    path, question, query = base.partition("?")
    scheme_end = path.find("://")
    host_end = path.find("/", scheme_end + 3) if scheme_end >= 0 else -1
    if host_end >= 0:
        found = _path_language(path[host_end:])
        if found:
            _, start, end = found
            start, end = host_end + start, host_end + end
            if path[start - 1 : start] == "/" and (end == len(path) or path[end] == "/"):
                path = path[: start - 1] + path[end:]  # a directory: drop it and its slash
            else:
                path = path[:start] + path[end:]
            return path + question + query + hash_ + fragment
    pairs = query.split("&") if query else []
    kept = [pair for pair in pairs if pair.partition("=")[0].lower() not in _QUERY_NAMES]
    if len(kept) == len(pairs):
        return None
    return path + ("?" + "&".join(kept) if kept else "") + hash_ + fragment


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
    """
    sample = text[:_CONTAINED_SAMPLE]
    if not sample.strip():
        return []
    primary = lang.split("-")[0]
    cjk_page = primary in _CJK_PRIMARIES
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
