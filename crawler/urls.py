"""One canonical form per URL, its fingerprint, and the shapes of URL traps (pure).

Every link the crawler meets goes through :func:`canonicalize` before it is
deduplicated, queued, put in the link graph or indexed, so "the same page" has
one spelling everywhere, and :func:`fingerprint` (MD5 of that spelling) is the
frontier's dedup key; :class:`UrlPolicy` holds the merges a crawl may switch.
:func:`trap_reason` (:class:`TrapRules`) recognises the URL shapes that
crawler traps produce (endless repetition, calendars, runaway length) from the
URL alone, and :func:`url_pattern` gives the shape a pattern's budget counts.
Design: ARCHITECTURE.md, "Design notes by module", ``crawler/urls.py``.

>>> canonicalize("HTTP://Example.COM:80/a/./b/../c%7e?b=2&a=1#top")
'http://example.com/a/c~?a=1&b=2'
>>> canonicalize("../g?utm_source=x", base="http://a/b/c/d;p?q")
'http://a/b/g'
>>> trap_reason("http://example.com/a/b/a/b/a/b")
'repeated_path'
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import ipaddress
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Protocol, cast
from urllib.parse import unquote

import idna

from crawler import settings as defaults
from crawler.sites import DEFAULT_PORTS

__all__ = [
    "UNRESERVED",
    "TrapRules",
    "UrlPolicy",
    "calendar_years",
    "canonicalize",
    "fingerprint",
    "has_userinfo",
    "percent_normalizer",
    "trap_reason",
    "url_pattern",
    "without_userinfo",
]


class SettingsLike(Protocol):
    """What ``from_settings`` needs: Scrapy's ``Settings`` or a plain dict."""

    def get(self, name: str, default: Any = None, /) -> Any: ...


# --- Splitting and resolving (RFC 3986 appendix B and section 5.2) ----------

# The RFC's own regular expression, with the scheme restricted to its grammar
# so that "a.com/x:y" stays a path.  Unlike urlsplit it tells "no query" (None)
# from "empty query" (""), which reference resolution needs ("?" as a link).
_URI_RE = re.compile(
    r"(?:([A-Za-z][A-Za-z0-9+.\-]*):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?",
    re.DOTALL,
)
# Leniency (WHATWG, as browsers and urlsplit do): C0 controls and spaces around
# a link are junk from the HTML, and tabs and newlines inside it are line wraps.
_C0_OR_SPACE = "".join(map(chr, range(0x21)))
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")

_Parts = tuple[str | None, str | None, str, str | None, str | None]


def _split(url: str) -> _Parts:
    """(scheme, authority, path, query, fragment); absent parts are None."""
    url = url.strip(_C0_OR_SPACE)
    if "\t" in url or "\n" in url or "\r" in url:
        url = url.translate(_TAB_NEWLINE)
    return _URI_RE.match(url).groups(default=None)  # type: ignore[union-attr,return-value]


def has_userinfo(url: str) -> bool:
    """Whether ``url`` names a user (and maybe a password) before its host:
    :func:`canonicalize` drops it; the crawl counts the links that had one.

    >>> has_userinfo("http://user:secret@a.test/"), has_userinfo("/p@ge"), has_userinfo("mailto:x@a.test")
    (True, False, False)
    """
    return "@" in url and "@" in (_split(url)[1] or "")


def without_userinfo(url: str) -> str:
    """``url`` without the user and password before its host, otherwise as written.

    >>> without_userinfo("http://user:secret@a.test:8080/p?q#f"), without_userinfo("//u@a.test/@x")
    ('http://a.test:8080/p?q#f', '//a.test/@x')
    """
    if not has_userinfo(url):
        return url
    scheme, authority, path, query, fragment = _split(url)
    return (
        ("" if scheme is None else scheme + ":")
        + "//"
        + (authority or "").rpartition("@")[2]
        + path
        + ("" if query is None else "?" + query)
        + ("" if fragment is None else "#" + fragment)
    )


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4, segment by segment.

    >>> _remove_dot_segments("/a/b/c/./../../g")
    '/a/g'
    >>> _remove_dot_segments("mid/content=5/../6")
    'mid/6'
    """
    absolute = path.startswith("/")
    segments = path.split("/")
    if absolute:
        del segments[0]
    kept: list[str] = []
    for segment in segments:
        if segment == "..":
            if kept:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
    if segments[-1] in (".", ".."):
        kept.append("")  # "/a/b/.." names the directory "/a/"
    return ("/" if absolute else "") + "/".join(kept)


def _directory(base: str) -> str:
    """The part of ``base`` that a reference with a path of its own is
    resolved against (RFC 3986, 5.2.2: the base's query and last segment
    play no part), so that the links of every page of a directory share
    their resolutions.

    >>> _directory("http://a/b/c/d;p?q=/x#f"), _directory("http://a"), _directory("mailto:x")
    ('http://a/b/c/', 'http://a/', 'mailto:x')
    """
    end = len(base)
    for mark in "?#":
        found = base.find(mark)
        if 0 <= found < end:
            end = found
    start = base.find("://")
    if start < 0:
        return base
    slash = base.rfind("/", start + 3, end)
    return base[:end] + "/" if slash < 0 else base[: slash + 1]


def _resolve(base: _Parts, ref: _Parts) -> _Parts:
    """RFC 3986 5.2.2, strict: a reference with a scheme is absolute.

    ``urllib.parse.urljoin`` differs on exactly one of the RFC's examples: it
    reads ``http:g`` against an http base as the relative ``g`` (the RFC's
    "backward compatibility" reading); the strict reading is ``http:g``, an
    http URL without a host, which :func:`canonicalize` then refuses.  An
    absolute reference is returned as it is: canonicalization removes its dot
    segments when its scheme is http(s), and other schemes stay untouched.
    """
    r_scheme, r_authority, r_path, r_query, r_fragment = ref
    if r_scheme is not None:
        return ref
    b_scheme, b_authority, b_path, b_query, _ = base
    if r_authority is not None:
        return b_scheme, r_authority, _remove_dot_segments(r_path), r_query, r_fragment
    if not r_path:
        return b_scheme, b_authority, b_path, b_query if r_query is None else r_query, r_fragment
    if r_path.startswith("/"):
        path = r_path
    elif b_authority is not None and not b_path:
        path = "/" + r_path
    else:
        path = b_path[: b_path.rfind("/") + 1] + r_path
    return b_scheme, b_authority, _remove_dot_segments(path), r_query, r_fragment


def _unsplit(scheme: str, authority: str | None, path: str, query: str | None) -> str:
    return (
        scheme + ":" + ("" if authority is None else "//" + authority) + path + ("" if query is None else "?" + query)
    )


# --- Percent-encoding (RFC 3986 6.2.2.2) -------------------------------------

#: Characters an escape never needs to stand for (RFC 3986 2.3): their escapes
#: are decoded everywhere.
UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_SUB_DELIMS = r"!$&'()*+,;="
# What may stay unescaped in each component.  "[" and "]" are not allowed in a
# path or query by the RFC, but browsers send them raw (PHP's "a[]=1"), so we
# keep them as written instead of inventing an escape the server never sees.
_PATH_CHARS = r"A-Za-z0-9\-._~" + _SUB_DELIMS + r":@/\[\]"
_QUERY_CHARS = _PATH_CHARS + "?"
_USERINFO_CHARS = r"A-Za-z0-9\-._~" + _SUB_DELIMS + ":"


def percent_normalizer(raw: str, decoded: frozenset[str] = UNRESERVED) -> Callable[[str], str]:
    """A function that normalizes the escapes of one URL component: escapes
    of ``decoded`` characters decoded, the other escapes upper-cased,
    characters outside ``raw`` (the body of a regex character class, ``-``
    escaped) escaped as UTF-8, a bare ``%`` escaped.  Reserved escapes such as ``%2F`` keep
    their meaning because they are never decoded.  Text already normal (most
    URLs) costs one regex search.

    Canonical URLs decode only :data:`UNRESERVED`; robots.txt matching
    (:mod:`crawler.robots`) decodes more in a query, and keeps ``*`` and ``$``
    escaped in a URL, where a pattern gives them a meaning.

    >>> _normalize_path("/%7euser/a%2fb/%41 c/%zz/é")
    '/~user/a%2Fb/A%20c/%25zz/%C3%A9'
    >>> percent_normalizer("A-Za-z0-9._~/?=", UNRESERVED | frozenset("/"))("/a%2fb?q=%2f%3d")
    '/a/b?q=/%3D'
    """
    dirty = re.compile(f"[^{raw}]").search
    tokens = re.compile(f"%[0-9A-Fa-f]{{2}}|%|[^{raw}%]+").sub

    def rewrite(match: re.Match[str]) -> str:
        token = match.group()
        if token[0] == "%":
            if len(token) == 1:  # a bare "%" can only mean itself
                return "%25"
            char = chr(int(token[1:], 16))
            return char if char in decoded else token.upper()
        # surrogatepass: a lone surrogate still gets a stable (if invalid) escape
        return "".join([f"%{byte:02X}" for byte in token.encode("utf-8", "surrogatepass")])

    def normalize(text: str) -> str:
        return text if dirty(text) is None else tokens(rewrite, text)

    return normalize


_normalize_path = percent_normalizer(_PATH_CHARS)
_normalize_query = percent_normalizer(_QUERY_CHARS)
_normalize_userinfo = percent_normalizer(_USERINFO_CHARS)


# --- Hosts ---------------------------------------------------------------------

# A registered name is unreserved characters and sub-delims once its escapes
# are decoded (RFC 3986 3.2.2).  Anything else (a space, "<", ":" ...) can
# never be resolved, so such a URL is refused rather than queued.
_BAD_ASCII_HOST = re.compile(r"[^a-z0-9\-._~" + _SUB_DELIMS + "]")
_BAD_UNICODE_HOST = re.compile(r"[^a-z0-9\-._~" + _SUB_DELIMS + r"\x80-\U0010ffff]")
_IPV_FUTURE = re.compile(r"v[0-9a-f]+\.[a-z0-9\-._~" + _SUB_DELIMS + ":]+")


def _split_host_port(hostport: str, url: str) -> tuple[str, str]:
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            raise ValueError(f"unterminated IPv6 literal in {_show(url)}")
        host, rest = hostport[: end + 1], hostport[end + 1 :]
        if rest and rest[0] != ":":
            raise ValueError(f"junk after the IPv6 literal in {_show(url)}")
        return host, rest[1:]
    host, colon, port = hostport.rpartition(":")
    return (host, port) if colon else (hostport, "")


def _canonical_port(port: str, scheme: str, url: str) -> str:
    """``:port`` as a canonical URL ends its authority with, or "" for no
    port or the scheme's default one."""
    if not port:
        return ""
    if not (port.isascii() and port.isdigit()) or int(port) > 65535:
        raise ValueError(f"invalid port {port!r} in {_show(url)}")
    number = int(port)  # "0080" is port 80
    return "" if number == DEFAULT_PORTS[scheme] else ":" + str(number)


def _canonical_host(host: str, url: str, drop_www: bool) -> str:
    """The host as a canonical URL writes it; without ``www.`` when the
    policy drops it (:class:`UrlPolicy`) and a name is left after it."""
    if host.startswith("["):
        return _canonical_ip_literal(host, url)
    if "%" in host:
        host = unquote(host)  # "%41.com" is "A.com"; bad UTF-8 becomes U+FFFD
    host = host.rstrip(".")  # "a.com." is "a.com": the root label is implied
    if host.isascii():
        host = host.lower()
        if not host or _BAD_ASCII_HOST.search(host):
            raise ValueError(f"no valid host in {_show(url)}")
    else:
        encoded = _idna_host(host)
        if encoded is None:
            raise ValueError(f"no valid host in {_show(url)}")
        host = encoded
    if drop_www and host.startswith("www.") and "." in host[4:]:
        return host[4:]
    return host


def _canonical_ip_literal(host: str, url: str) -> str:
    literal = host[1:-1].lower()
    if not _IPV_FUTURE.fullmatch(literal):
        try:
            ipaddress.IPv6Address(literal)
        except ValueError:
            raise ValueError(f"invalid IPv6 literal {host!r} in {_show(url)}") from None
    return "[" + literal + "]"


@functools.lru_cache(maxsize=4096)
def _idna_host(host: str) -> str | None:
    """Punycode under UTS 46 non-transitional processing (IDNA 2008 as browsers
    do it: ``faß.de`` -> ``xn--fa-hia.de``, full-width and upper case folded),
    or None for a name that cannot be a host."""
    try:
        encoded = idna.encode(host, uts46=True, transitional=False).decode("ascii")
    except UnicodeError:  # idna.IDNAError is a UnicodeError
        # Leniency: a name IDNA refuses (an emoji, "_" beside non-ASCII) is
        # still a name.  It is lower-cased and its non-ASCII characters escaped
        # as UTF-8 (RFC 3986 3.2.2), which keeps the output ASCII and maps back
        # to the same name, so canonicalization stays idempotent.
        lowered = host.lower()
        if _BAD_UNICODE_HOST.search(lowered):
            return None
        return _normalize_userinfo(lowered)
    return encoded.rstrip(".") or None  # "a.com。" maps to "a.com."


# --- Policy ----------------------------------------------------------------------

# Session ids are stripped by name *and* value, as Heritrix's rules do: a
# name alone misjudges sites where "sid" is a section or story id ("?sid=7"
# and "?sid=8" are two pages).  A value is a session token when it is a run
# of at least 16 letters and digits, not digits alone (PHP writes 26 or 32,
# Java servlets 32 hex, Heritrix looks for 32), which may carry a server
# route (".node1", "!-12345"), or a UUID; ASP's "ASPSESSIONIDXXXXXXXX" holds
# 24 letters.  ColdFusion's "CFID" and "CFTOKEN" go when both are there.
_SESSION_PARAMS = frozenset("jsessionid phpsessid sid sessionid session_id sessid oscsid zenid".split())
_SESSION_TOKEN = re.compile(
    r"(?=[0-9]*[A-Za-z])[0-9A-Za-z]{16,}(?:[.!][0-9A-Za-z.!-]*)?"
    r"|[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}"
)
_ASP_SESSION_NAME = re.compile(r"aspsessionid[a-z]*")
_ASP_SESSION_TOKEN = re.compile(r"[A-Za-z]{24}")
_CF_SESSION_PAIR = frozenset(["cfid", "cftoken"])
_TRACKING_PARAMS = frozenset(
    """gclid gclsrc dclid gbraid wbraid fbclid msclkid mc_eid mc_cid yclid igshid
    twclid ttclid li_fat_id mkt_tok _hsenc _hsmi __hstc __hssc __hsfp _ga _gl
    srsltid""".split()
)
_TRACKING_PREFIXES = ("utm_",)
# Java servlets put the session in the path: "/cart;jsessionid=1A2B?x=1".
_JSESSIONID_RE = re.compile(r";jsessionid=[^/;]*", re.IGNORECASE)
_INDEX_PAGES = frozenset("index.html index.htm index.php default.aspx default.asp Default.aspx Default.asp".split())


@dataclass(frozen=True)
class UrlPolicy:
    """How aggressively aliases are merged; each flag is a Scrapy setting.

    - ``strip_session_ids`` (``CANONICAL_STRIP_SESSION_IDS``, default True):
      drop query parameters named like session ids (``jsessionid``,
      ``phpsessid``, ``sid``, ``sessionid``, ``session_id``, ``sessid``,
      ``oscsid``, ``zenid``, any case) whose value looks like a session
      token: 16 or more letters and digits, not digits alone, or a UUID
      (``sid=4be0c7a19d2f4e63b8a15c0d7e9f2a31`` goes, ``sid=7`` stays: there
      it names a forum section); ``ASPSESSIONIDxxxxxxxx`` with its 24
      letters; ``cfid`` and ``cftoken`` when both are there; and
      ``;jsessionid=`` path parameters, whatever their value.  A session id
      makes every visit a new URL space (a trap); a short or numeric value is
      more often a page's own id, and merging two pages loses one for good.
    - ``strip_tracking`` (``CANONICAL_STRIP_TRACKING``, default True): drop
      ``utm_*``, ``gclid``, ``fbclid``, ``msclkid``, ``mc_eid``, ``yclid``...
      They never change the page, only the owner's analytics.
    - ``sort_query`` (``CANONICAL_SORT_QUERY``, default True): sort parameters
      by name, stably, so repeated names keep their order (``a=2&a=1`` is not
      ``a=1&a=2`` to most servers).  Almost every server ignores the order of
      distinct names.
    - ``drop_www`` (``CANONICAL_DROP_WWW``, default False): ``www.a.com`` is
      ``a.com``.  Usually true, but it is a server's choice, not syntax.
    - ``drop_index`` (``CANONICAL_DROP_INDEX``, default False): ``/d/index.html``
      (also ``index.htm``, ``index.php``, ``default.aspx``, ``default.asp``) is
      ``/d/``.  Also a server's choice; content fingerprints catch it anyway.

    Each instance memoizes its results (2**16 URLs): a page's links repeat
    across pages, and most calls are then one dictionary lookup.

    >>> UrlPolicy(drop_www=True).canonicalize("https://www.Example.com")
    'https://example.com/'
    """

    strip_session_ids: bool = defaults.CANONICAL_STRIP_SESSION_IDS
    strip_tracking: bool = defaults.CANONICAL_STRIP_TRACKING
    sort_query: bool = defaults.CANONICAL_SORT_QUERY
    drop_www: bool = defaults.CANONICAL_DROP_WWW
    drop_index: bool = defaults.CANONICAL_DROP_INDEX

    _SETTINGS: ClassVar[dict[str, str]] = {
        "strip_session_ids": "CANONICAL_STRIP_SESSION_IDS",
        "strip_tracking": "CANONICAL_STRIP_TRACKING",
        "sort_query": "CANONICAL_SORT_QUERY",
        "drop_www": "CANONICAL_DROP_WWW",
        "drop_index": "CANONICAL_DROP_INDEX",
    }

    @classmethod
    def from_settings(cls, settings: SettingsLike) -> UrlPolicy:
        """Read the ``CANONICAL_*`` settings (strings such as "0" or "true" too).

        >>> UrlPolicy.from_settings({"CANONICAL_DROP_WWW": "1"}).drop_www
        True
        """
        return cls(
            **{
                f.name: _setting_bool(settings, cls._SETTINGS[f.name], cast(bool, f.default))  # each has one
                for f in fields(cls)
            }
        )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_cached", functools.lru_cache(maxsize=2**16)(self._canonicalize))

    def canonicalize(self, url: str, base: str | None = None) -> str:
        """The canonical form of ``url``, resolved against ``base`` if given.

        Raises ValueError when the result is not a URL: no scheme, or an
        http(s) URL without a valid host or port.  Schemes other than http(s)
        come back with the scheme lower-cased and the fragment removed, and
        are otherwise untouched: the spider drops them.

        >>> UrlPolicy().canonicalize("g;x=1/../y", base="http://a/b/c/d;p?q")
        'http://a/b/c/y'
        >>> UrlPolicy().canonicalize("MAILTO:Joe@Example.com#x")
        'mailto:Joe@Example.com'
        """
        if base and url and url[0] not in "?#":
            base = _directory(base)  # the same result, and a page's links share cache entries
        return self._cached(url, base)  # type: ignore[attr-defined]

    def fingerprint(self, url: str) -> bytes:
        """MD5 of the canonical form under this policy (16 bytes).

        >>> UrlPolicy(strip_tracking=False).fingerprint("http://a.com/?utm_source=x") == (
        ...     fingerprint("http://a.com/?utm_source=x"))
        False
        """
        return hashlib.md5(self.canonicalize(url).encode("utf-8"), usedforsecurity=False).digest()

    def _canonicalize(self, url: str, base: str | None = None) -> str:
        """The uncached implementation behind :meth:`canonicalize`."""
        parts = _split(url)
        if base and parts[0] is None:
            parts = _resolve(_split(base), parts)
        scheme, authority, path, query, _ = parts
        if scheme is None:
            raise ValueError(f"not an absolute URL (no scheme): {_show(url)}")
        scheme = scheme.lower()
        if scheme not in DEFAULT_PORTS:
            return _unsplit(scheme, authority, path, query)
        if not authority:
            raise ValueError(f"{scheme} URL without a host: {_show(url)}")

        # The userinfo goes (RFC 9110 4.2.4: not to be sent, and a secret
        # when there is one): it never reaches the frontier, the index or a report.
        _, _, hostport = authority.rpartition("@")
        host, port = _split_host_port(hostport, url)
        netloc = _canonical_host(host, url, self.drop_www) + _canonical_port(port, scheme, url)

        if path:
            path = _normalize_path(path)  # before dots: %2E is "."
            if self.strip_session_ids and ";" in path:
                path = _JSESSIONID_RE.sub("", path)
            if "/." in path:
                path = _remove_dot_segments(path)
            if self.drop_index:
                head, _, last = path.rpartition("/")
                if last in _INDEX_PAGES:
                    path = head + "/"
        else:
            path = "/"

        if query:
            query = self._canonical_query(_normalize_query(query))
        return scheme + "://" + netloc + path + ("?" + query if query else "")

    def _canonical_query(self, query: str) -> str:
        """Split on "&" only (";" belongs to values), drop empty, tracking and
        session parameters, sort stably by name.  "+" and "%20" stay as they
        are: a server may tell them apart, and "+" is only a space in form data."""
        params = [param for param in query.split("&") if param]
        if self.strip_tracking or self.strip_session_ids:
            params = self._without_unwanted(params)
        if self.sort_query and len(params) > 1:
            params.sort(key=_param_name)
        return "&".join(params)

    def _without_unwanted(self, params: list[str]) -> list[str]:
        """``params`` less tracking parameters (by name) and session ids (by
        name and value), as the policy says.

        >>> UrlPolicy()._without_unwanted(["sid=7", "sid=0123456789abcdef0123", "PHPSESSID=42", "utm_id=1"])
        ['sid=7', 'PHPSESSID=42']
        """
        kept = []
        cf_pair: bool | None = None
        for param in params:
            name, _, value = param.partition("=")
            name = name.lower()
            if self.strip_tracking and (name in _TRACKING_PARAMS or name.startswith(_TRACKING_PREFIXES)):
                continue
            if self.strip_session_ids:
                if name in _SESSION_PARAMS:
                    if _SESSION_TOKEN.fullmatch(value):
                        continue
                elif name in _CF_SESSION_PAIR:
                    if cf_pair is None:
                        cf_pair = _CF_SESSION_PAIR <= {other.partition("=")[0].lower() for other in params}
                    if cf_pair:
                        continue
                elif name.startswith("aspsessionid") and _ASP_SESSION_NAME.fullmatch(name):
                    if _ASP_SESSION_TOKEN.fullmatch(value):
                        continue
            kept.append(param)
        return kept


def _param_name(param: str) -> str:
    return param.partition("=")[0]


# --- Traps ------------------------------------------------------------------------

# Calendar dates, read for the far-future rule: every common way a calendar
# writes "which day, week or month" into a URL.  Only the year matters.  A
# year is 1000-9999 after no letter or digit, so neither "/12345/06" nor a
# hash such as "a92999dec1" holds one; what follows it (or, for a month
# name, what precedes it) makes it a date.
_YEAR_TOKEN = re.compile(r"(?:(?<![0-9%])|(?<=%20))[1-9][0-9]{3}")
_MONTH_NAMES = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec"
)
# Separators seen between the parts of a date: "-", "/", "_", ".", a space.
_SEP = r"(?:[-/_.+]|%20)"
_AFTER_YEAR = re.compile(
    "|".join(
        [
            # "/2026/11/", "/2026-11-05", "?date=2026-11", "/2026_11_05.html":
            # a zero-padded month.
            r"[-/_](?:0[1-9]|1[0-2])(?![0-9])",
            # "2026.11.05", "2026-5-7": dots or single-digit parts need the day too.
            r"(?P<sep>[-.])(?:0?[1-9]|1[0-2])(?P=sep)(?:0?[1-9]|[12][0-9]|3[01])(?![0-9])",
            # ISO weeks: "/2026/W07", "2026-W07", "2026W07".
            r"[-/]?w(?:0[1-9]|[1-4][0-9]|5[0-3])(?![0-9])",
            # A month name: "/2026/nov/", "2026-november".
            _SEP + r"?(?:" + _MONTH_NAMES + r")(?![a-z])",
        ]
    ),
    re.IGNORECASE,
)
# A month name before the year: "november-2026", "Nov2026" (searched in the
# dozen characters before a year that no digit follows).
_BEFORE_YEAR = re.compile(r"(?:^|[^0-9a-z])(?:" + _MONTH_NAMES + ")" + _SEP + r"?\Z", re.IGNORECASE)
# Compact "YYYYMMDD" is read only where the URL speaks of dates (a query name
# such as "day" or "date", a path segment such as "calendar" or "events"
# before it): anywhere else an eight-digit number is more often an id
# ("/questions/20351203/...").
_COMPACT_DATE = re.compile(r"([1-9][0-9]{3})(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])(?![0-9])")
_DATE_PARAM = re.compile(r"date|day|when|^(?:d|dt|cal|from|to|start|end|since|until)$")
_CALENDAR_SEGMENT = re.compile(
    r"calendars?|cal|events?|agenda|diary|schedule|archives?|dates?|days?|weeks?|months?",
    re.IGNORECASE,
)
# "?year=2300&month=1": a year parameter read when a month, week or day
# parameter stands beside it ("?year=1850" alone is a history page).
_YEAR_PARAMS = frozenset(["year", "yr", "y", "yyyy"])
_PERIOD_PARAMS = frozenset(["month", "mon", "mo", "m", "mm", "week", "wk", "w", "day", "dd"])
_YEAR_VALUE = re.compile(r"[0-9]{4,6}")
_YEAR_DIGITS = frozenset("123456789")  # a year's first digit


def calendar_years(path: str, query: str = "") -> list[int]:
    """The years of the dates a URL's path and query spell, in any common shape.

    >>> calendar_years("/events/week/2999/W07"), calendar_years("/agenda/month/2750-11")
    ([2999], [2750])
    >>> calendar_years("/cal", "day=23000412"), calendar_years("/questions/23000412/why")
    ([2300], [])
    >>> calendar_years("/archive/1868/05/02/"), calendar_years("/shows/november-2031")
    ([1868], [2031])
    >>> calendar_years("/item/12345/06", "y=5&m=3")
    []
    """
    return _calendar_years(path, query, _query_params(query))


def _query_params(query: str | None) -> list[tuple[str, str, str]]:
    """A query's parameters, each partitioned at its first ``=``; empty ones left out."""
    return [param.partition("=") for param in query.split("&") if param] if query else []


def _calendar_years(path: str, query: str, params: list[tuple[str, str, str]]) -> list[int]:
    years: list[int] = []
    for text in (path, query) if query else (path,):
        for match in _YEAR_TOKEN.finditer(text):
            if _shaped_as_date(text, *match.span()):
                years.append(int(match.group()))
    if "/" in path[1:]:
        years += _compact_years_in_path(path)
    if params:
        years += _years_in_params(params)
    return years


def _shaped_as_date(text: str, start: int, end: int) -> bool:
    """Whether what surrounds the year at ``text[start:end]`` makes it a
    date's: "/2026/11/", "2026-W07", "2026.5.7", "/2026/nov/", "november-2026"."""
    alone = start == 0 or not text[start - 1].isalnum() or text.startswith("%20", start - 3)
    return bool(alone and _AFTER_YEAR.match(text, end)) or (
        not text[end : end + 1].isdigit() and _BEFORE_YEAR.search(text, max(0, start - 13), start) is not None
    )


def _compact_years_in_path(path: str) -> list[int]:
    """Years of "YYYYMMDD" segments after a segment that speaks of dates ("/events/20260412")."""
    years: list[int] = []
    segments = path.split("/")
    for i in range(2, len(segments)):
        segment = segments[i]
        if (
            segment[:1] in _YEAR_DIGITS
            and (compact := _COMPACT_DATE.match(segment))
            and any(_CALENDAR_SEGMENT.fullmatch(before) for before in segments[1:i])
        ):
            years.append(int(compact.group(1)))
    return years


def _years_in_params(params: list[tuple[str, str, str]]) -> list[int]:
    """Years of date parameters ("?day=20260412"), and of a year parameter
    beside a month, week or day parameter ("?year=2300&month=1")."""
    years: list[int] = []
    names: set[str] | None = None
    for name, _, value in params:
        name = name.lower()
        if value[:1] in _YEAR_DIGITS:
            if _DATE_PARAM.search(name) and (compact := _COMPACT_DATE.match(value)):
                years.append(int(compact.group(1)))
            elif name in _YEAR_PARAMS and _YEAR_VALUE.fullmatch(value):
                if names is None:
                    names = {other.lower() for other, _, _ in params}
                if names & _PERIOD_PARAMS:
                    years.append(int(value))
    return years


@dataclass(frozen=True)
class TrapRules:
    """Shapes of URLs that a crawler trap generates; each limit is a setting.

    Each rule can refuse a legitimate page, so the limits are generous and
    :meth:`reason` names the rule, which the spider counts as
    ``traps/<reason>`` and logs once per site.

    - ``max_url_length`` (``TRAPS_MAX_URL_LENGTH``, default 1024): bytes of
      the URL.  Nonsense URLs grow without bound; real ones rarely pass 1 KB.
    - ``max_repeats`` (``TRAPS_MAX_REPEATS``, default 3) and ``max_period``
      (``TRAPS_MAX_PERIOD``, default 5): a run of 1 to ``max_period`` path
      segments repeated ``max_repeats`` times in a row (``/a/a/a``,
      ``/a/b/a/b/a/b``) is a symbolic-link or relative-link loop.  Two in a
      row (``/a/a``, ``/2024/01/01``) are common in real sites and pass.
    - ``max_segments`` (``TRAPS_MAX_SEGMENTS``, default 20): non-empty path
      segments.
    - ``calendar_years_ahead`` (``TRAPS_CALENDAR_YEARS_AHEAD``, default 3): a
      date in the path or query more than that many years after this year is
      an endless "next month" calendar.  Every common shape is read (see
      :func:`calendar_years`): year and month or full dates with any usual
      separator ("/2199/05", "2199-05-01", "?month=2199-05"), ISO weeks
      ("/2999/W07", "2999-W07"), month names ("/2750/nov", "november-2750"),
      compact "YYYYMMDD" where the URL speaks of dates ("?day=23000412"),
      and "?year=2300&month=1".  Real pages are rarely dated more than a
      year or two ahead (scheduled events).
    - ``calendar_years_back`` (``TRAPS_CALENDAR_YEARS_BACK``, default 0: off):
      dates more than that many years before this year refused too.  Off,
      because old dates are history, not traps: a newspaper's or a library's
      archive of 1868 is content.  A calendar walking backwards is stopped
      by what stops any chain of pages: content fingerprints (its empty
      months are duplicates) and the pattern budget.  Opt in with a wide
      window (500) for a site whose calendar invents pages for any year.
    - ``max_param_repeats`` (``TRAPS_MAX_PARAM_REPEATS``, default 5): one query
      parameter name repeated more often than this (filters appended forever).

    >>> TrapRules().reason("http://a.com/calendar/2199/05")
    'calendar'
    >>> TrapRules().reason("http://a.com/docs/2.0/docs/api") is None
    True
    """

    max_url_length: int = defaults.TRAPS_MAX_URL_LENGTH
    max_repeats: int = defaults.TRAPS_MAX_REPEATS
    max_period: int = defaults.TRAPS_MAX_PERIOD
    max_segments: int = defaults.TRAPS_MAX_SEGMENTS
    calendar_years_ahead: int = defaults.TRAPS_CALENDAR_YEARS_AHEAD
    calendar_years_back: int = defaults.TRAPS_CALENDAR_YEARS_BACK
    max_param_repeats: int = defaults.TRAPS_MAX_PARAM_REPEATS

    _SETTINGS: ClassVar[dict[str, str]] = {
        "max_url_length": "TRAPS_MAX_URL_LENGTH",
        "max_repeats": "TRAPS_MAX_REPEATS",
        "max_period": "TRAPS_MAX_PERIOD",
        "max_segments": "TRAPS_MAX_SEGMENTS",
        "calendar_years_ahead": "TRAPS_CALENDAR_YEARS_AHEAD",
        "calendar_years_back": "TRAPS_CALENDAR_YEARS_BACK",
        "max_param_repeats": "TRAPS_MAX_PARAM_REPEATS",
    }

    @classmethod
    def from_settings(cls, settings: SettingsLike) -> TrapRules:
        """Read the ``TRAPS_*`` settings (strings such as "512" too).

        >>> TrapRules.from_settings({"TRAPS_MAX_URL_LENGTH": "512"}).max_url_length
        512
        """
        return cls(
            **{
                f.name: _setting_int(settings, cls._SETTINGS[f.name], cast(int, f.default))  # each has one
                for f in fields(cls)
            }
        )

    def __post_init__(self) -> None:
        if self.max_repeats < 2:
            raise ValueError(f"max_repeats must be at least 2, not {self.max_repeats}")
        for f in fields(self):
            if getattr(self, f.name) < 0:
                raise ValueError(f"{f.name} must not be negative")

    def reason(self, url: str, *, now: datetime.date | None = None) -> str | None:
        """Why ``url`` looks like a trap, or None.  ``url`` should be canonical
        (the length limit counts the canonical form); ``now`` (default today)
        dates the calendar rule.  Cheap checks come first; the first hit wins.

        >>> TrapRules().reason("http://a.com/?y=2300&m=1", now=datetime.date(2025, 1, 1))
        'calendar'
        """
        size = len(url) if url.isascii() else len(url.encode("utf-8", "surrogatepass"))
        if size > self.max_url_length:
            return "url_too_long"
        _, _, path, query, _ = _split(url)
        segments = [segment for segment in path.split("/") if segment]
        if len(segments) > self.max_segments:
            return "too_many_segments"
        params = _query_params(query)
        if params and max(Counter(name for name, _, _ in params).values()) > self.max_param_repeats:
            return "repeated_param"
        if self._has_far_date(path, query or "", params, now or datetime.date.today()):
            return "calendar"
        if len(segments) >= self.max_repeats and self._has_repeated_run(segments):
            return "repeated_path"
        return None

    def _has_far_date(self, path: str, query: str, params: list[tuple[str, str, str]], now: datetime.date) -> bool:
        back = self.calendar_years_back
        return any(
            year - now.year > self.calendar_years_ahead or (back and now.year - year > back)
            for year in _calendar_years(path, query, params)
        )

    def _has_repeated_run(self, segments: list[str]) -> bool:
        """A block of ``period`` segments repeated ``max_repeats`` times shows
        up as ``period * (max_repeats - 1)`` consecutive positions where a
        segment equals the one ``period`` places later."""
        for period in range(1, self.max_period + 1):
            needed = period * (self.max_repeats - 1)
            run = 0
            for i in range(len(segments) - period):
                run = run + 1 if segments[i] == segments[i + period] else 0
                if run >= needed:
                    return True
        return False


# --- Settings ---------------------------------------------------------------------

_TRUE = frozenset(["1", "true", "yes", "on"])
_FALSE = frozenset(["0", "false", "no", "off", ""])


def _setting_bool(settings: SettingsLike, name: str, default: bool) -> bool:
    """Like ``Settings.getbool``, for any mapping: "-s NAME=0" arrives as a string."""
    value = settings.get(name, default)
    if value is None:
        return default
    if isinstance(value, (bool, int)):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError(f"setting {name}={value!r} is not a boolean")


def _setting_int(settings: SettingsLike, name: str, default: int) -> int:
    """Like ``Settings.getint``, for any mapping."""
    value = settings.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"setting {name}={value!r} is not an integer")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"setting {name}={value!r} is not an integer") from None


def _show(url: str) -> str:
    return repr(url if len(url) <= 200 else url[:200] + "...")


# --- The defaults -------------------------------------------------------------------

_DEFAULT_POLICY = UrlPolicy()
_DEFAULT_TRAPS = TrapRules()


def canonicalize(url: str, base: str | None = None) -> str:
    """The canonical form of ``url`` under the default :class:`UrlPolicy`.

    >>> canonicalize("http://faß.de/%7Ea/%2f?b=%20&a=+")
    'http://xn--fa-hia.de/~a/%2F?a=+&b=%20'
    """
    return _DEFAULT_POLICY.canonicalize(url, base)


def fingerprint(url: str) -> bytes:
    """The frontier's dedup key: MD5 of the canonical URL (16 bytes).

    >>> fingerprint("http://A.com:80/") == fingerprint("http://a.com")
    True
    """
    return _DEFAULT_POLICY.fingerprint(url)


def trap_reason(url: str) -> str | None:
    """Why ``url`` (canonicalized first) is a likely trap under the default
    :class:`TrapRules`, or None.  Raises ValueError as :func:`canonicalize`.

    >>> trap_reason("http://a.com/x/" + "y/" * 25)
    'too_many_segments'
    """
    return _DEFAULT_TRAPS.reason(canonicalize(url))


_DIGITS = re.compile(r"[0-9]+")


def url_pattern(url: str) -> str:
    """The shape of a (canonical) URL: digit runs in the path and every query
    value masked, so that the pages a calendar or a page counter generates
    share one pattern, which a budget can then bound.

    >>> url_pattern("http://a.com/calendar/2024/06/?view=month&sid=3")
    'http://a.com/calendar/N/N/?view=*&sid=*'
    >>> url_pattern("http://a.com/docs/json.html")
    'http://a.com/docs/json.html'
    """
    scheme, authority, path, query, _ = _split(url)
    shape = f"{scheme}://{authority}{_DIGITS.sub('N', path)}"
    if query:
        shape += "?" + "&".join(param.partition("=")[0] + "=*" for param in query.split("&"))
    return shape
