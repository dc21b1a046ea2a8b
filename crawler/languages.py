"""A language as tags and URLs name it (pure, and light: search imports it).

:func:`language_tag` is the one normal form of a declared language
(``<html lang>``, ``Content-Language``, ``hreflang``); :func:`url_language`
reads the language segment a URL names (``/zh-CN/``, ``.fr.html``,
``?lang=``); :func:`without_language` is what a page's translations' URLs
have in common; :func:`kept_copy` is which of a page's copies under two
language segments is the page. The page's language as a whole (declared,
then these, then its text) is :mod:`crawler.extractors.lang`'s.
"""

from __future__ import annotations

import functools
import re

__all__ = ["LANGUAGES", "kept_copy", "language_tag", "url_language", "without_language"]

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


@functools.lru_cache(maxsize=65536)  # search asks it of every candidate, query after query
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


def kept_copy(first: str, other: str, lang: str) -> str:
    """Which of two URLs with the same content keeps the page: ``first``,
    the URL that had it first, unless the two differ only by a language
    segment (:func:`without_language`); then the one whose segment names
    the page's language ``lang`` when the other's does not, else the
    shorter (``first`` on a tie).

    A manual whose untranslated pages are links to the English ones
    (Debian's) serves the English page under ``/da/`` and ``/es/`` too:
    whichever the crawl met first would be the page, an English page under
    a Danish URL with its original hidden as a copy. A URL without a
    segment is taken to name English: on sites that publish copies under
    language segments, the unmarked URL is the English original. An
    unknown language (``""``) matches no URL, and the shorter is kept.

    >>> kept_copy("http://d.test/da/faq/", "http://d.test/faq/", "en")
    'http://d.test/faq/'
    >>> kept_copy("http://d.test/faq/", "http://d.test/da/faq/", "en")
    'http://d.test/faq/'
    >>> kept_copy("http://d.test/faq/", "http://d.test/da/faq/", "da")
    'http://d.test/da/faq/'
    >>> kept_copy("http://d.test/en/faq/", "http://d.test/faq/", "en-us")  # both name English: the shorter
    'http://d.test/faq/'
    >>> kept_copy("http://d.test/es/intro.html", "http://d.test/intro.html", "")
    'http://d.test/intro.html'
    >>> kept_copy("http://d.test/zh-tw/a.html", "http://d.test/zh-cn/a.html", "zh-cn")
    'http://d.test/zh-cn/a.html'
    >>> kept_copy("http://d.test/de/a.html", "http://d.test/fr/a.html", "")  # a tie: the first
    'http://d.test/de/a.html'
    >>> kept_copy("http://d.test/da/faq/", "http://d.test/faq/index.html", "en")  # not only a segment apart
    'http://d.test/da/faq/'
    """
    if first == other or (without_language(first) or first) != (without_language(other) or other):
        return first
    first_fits, other_fits = _names(first, lang), _names(other, lang)
    if first_fits != other_fits:
        return other if other_fits else first
    return other if len(other) < len(first) else first


def _names(url: str, lang: str) -> bool:
    """Whether ``url`` names the language ``lang`` (a URL without a segment
    names English); a region or script on one side only does not count
    (``en`` is ``en-us``; ``zh-cn`` is not ``zh-tw``)."""
    if not lang:
        return False
    named = url_language(url) or "en"
    if named == lang:
        return True
    mine, _, my_region = named.partition("-")
    theirs, _, their_region = lang.partition("-")
    return mine == theirs and not (my_region and their_region)
