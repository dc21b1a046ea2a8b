"""robots.txt rules for one crawler (RFC 9309), and what a fetch of it means (pure).

:class:`RobotsRules` is built once per site from the robots.txt body and asked
:meth:`~RobotsRules.allowed` for every URL of that site; :func:`allowed` does
both for one URL.  :func:`outcome`, :func:`decode_robots`,
:func:`looks_like_robots` and :func:`expiry_seconds` decide what a fetch of
robots.txt means (parse it, allow all, disallow all, retry), what its text
is, and how long it is good for; :func:`page_directives` reads robots META
and ``X-Robots-Tag``.  The middleware that fetches and caches is glue around
them.  Each leniency is written where it happens.
Design: ARCHITECTURE.md, "robots.txt".

>>> rules = RobotsRules.parse("User-agent: *\\nDisallow: /a/\\nAllow: /a/ok", "Bot/1.0")
>>> rules.allowed("http://a.com/a/x"), rules.allowed("/a/ok.html")
(False, True)
>>> allowed("User-agent: foobot\\nDisallow: /", "FooBot-News/2.0", "/x")
True
"""

from __future__ import annotations

import codecs
import enum
import functools
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from crawler.httpdate import parse_http_date
from crawler.urls import UNRESERVED, SettingsLike, percent_normalizer

__all__ = [
    "MAX_ROBOTS_BYTES",
    "MIN_EXPIRY_SECONDS",
    "Outcome",
    "RobotsRules",
    "Rule",
    "allowed",
    "decode_robots",
    "expiry_seconds",
    "looks_like_robots",
    "outcome",
    "page_directives",
    "robots_agent",
]

# RFC 9309 2.5: a parsing limit must be at least 500 KiB; what follows is ignored.
MAX_ROBOTS_BYTES = 500 * 1024

# The shortest time a robots.txt is cached, even under "no-cache" or an expired
# date: refetching it before every request would double the requests a site
# gets.  A minute is short enough for an owner's change to take effect at once.
MIN_EXPIRY_SECONDS = 60.0


# --- Lines ----------------------------------------------------------------------------

# Field names as written, lower-cased, to the field they mean.  The
# misspellings and spaced forms are Protego's list: real files use them.
_FIELDS = {
    "user-agent": "user-agent",
    "useragent": "user-agent",
    "user agent": "user-agent",
    "allow": "allow",
    "disallow": "disallow",
    "dissallow": "disallow",
    "dissalow": "disallow",
    "disalow": "disallow",
    "diasllow": "disallow",
    "disallaw": "disallow",
    "crawl-delay": "crawl-delay",
    "crawl delay": "crawl-delay",
    "sitemap": "sitemap",
    "sitemaps": "sitemap",
    "site-map": "sitemap",
}
# RFC 9309 2.1: lines end with CR, LF or CRLF, and with nothing else
# (str.splitlines would also split on form feeds and U+2028).
_LINE_BREAK = re.compile(r"\r\n?|\n")


def _directives(text: str) -> Iterator[tuple[str, str]]:
    """(directive, value) for each line that names a directive we know; comments,
    blank lines and unknown fields are skipped (RFC 9309 2.2.4)."""
    for line in _LINE_BREAK.split(text):
        line = line.partition("#")[0]
        name, colon, value = line.partition(":")
        directive = _FIELDS.get(name.strip().lower()) if colon else None
        if directive is None:
            directive, value = _without_colon(line)
            if directive is None:
                continue
        yield directive, value.strip()


def _without_colon(line: str) -> tuple[str | None, str]:
    """Leniency (Protego's): ``Disallow /x``, ``User agent foo`` and
    ``Sitemap https://...`` (whose own colon is not the separator).  An
    Allow or Disallow read this way must start like a path, so that a line
    of prose ("Disallow everything") is not taken for a rule."""
    words = line.split()
    for count in (2, 1):
        directive = _FIELDS.get(" ".join(words[:count]).lower())
        if directive is not None and len(words) > count:
            value = " ".join(words[count:])
            if directive in ("allow", "disallow") and value[0] not in "/*":
                return None, ""
            return directive, value
    return None, ""


def _decode(robots_txt: str | bytes) -> str:
    """The text that is parsed: UTF-8 (bad bytes replaced), the first
    :data:`MAX_ROBOTS_BYTES` only, without a BOM.  When the limit cuts the
    file, the cut line is dropped too: half a path is a different rule."""
    if isinstance(robots_txt, str) and len(robots_txt) * 4 <= MAX_ROBOTS_BYTES:
        text = robots_txt  # 4 bytes a character at most: within the limit
    else:
        if isinstance(robots_txt, str):
            data = robots_txt.encode("utf-8", "surrogatepass")
        else:
            data = bytes(robots_txt)
        text = data[:MAX_ROBOTS_BYTES].decode("utf-8", "replace")
        if len(data) > MAX_ROBOTS_BYTES:
            text = text[: max(text.rfind("\n"), text.rfind("\r")) + 1]
    return text[1:] if text.startswith("\ufeff") else text


# Byte order marks, longest first (UTF-32 LE starts like UTF-16 LE).
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
_WIDE = ("utf-16", "utf-32")
_CHARSET = re.compile(r";\s*charset\s*=\s*[\"']?([^\s;\"']+)", re.IGNORECASE)
# Characters a text robots.txt never holds many of: NUL, other controls, and
# U+FFFD, what undecodable bytes become.
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f\ufffd]")


def _utf16_by_nuls(head: bytes) -> str | None:
    """ "utf-16-le" or "-be" when every other byte is NUL (ASCII text in UTF-16), else None."""
    pairs = len(head) // 2
    if pairs < 2:
        return None
    low, high = head[1 : 2 * pairs : 2].count(0), head[0 : 2 * pairs : 2].count(0)
    if low * 10 >= pairs * 3 and high * 10 < pairs:
        return "utf-16-le"
    if high * 10 >= pairs * 3 and low * 10 < pairs:
        return "utf-16-be"
    return None


def _robots_encoding(body: bytes, content_type: str | None) -> tuple[str, int, bool]:
    """(codec, bytes of BOM to skip, whether the body said so itself: BOM or charset)."""
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return codec, len(bom), True
    head = body[:_SNIFF_CHARS]
    sniffed = _utf16_by_nuls(head)
    declared = None
    match = _CHARSET.search(content_type or "")
    if match:
        try:
            declared = codecs.lookup(match.group(1)).name
        except LookupError:
            declared = None  # a name Python does not know: as if none
    if sniffed:  # NULs say UTF-16 louder than any label; a label may give the byte order
        return (declared if declared in ("utf-16-le", "utf-16-be") else sniffed), 0, True
    if declared and declared.startswith(_WIDE):
        if b"\x00" not in head:
            return "utf-8", 0, False  # labelled wide, yet ASCII-compatible text: the label is wrong
        return (declared if declared.endswith(("-le", "-be")) else declared + "-le"), 0, True
    return declared or "utf-8", 0, False


_DIRECTIVE_LINE = re.compile(
    r"^[ \t]*(?:user[- ]?agent|allow|disallow|sitemap|crawl[- ]?delay)[ \t]*:", re.IGNORECASE | re.MULTILINE
)


def _reads_as_robots(text: str) -> bool:
    """Text in the encoding it was decoded with: few broken characters, and a
    directive line unless it is all comments (UTF-16 read from other bytes
    is CJK-looking noise without one)."""
    head = text[:_SNIFF_CHARS]
    if "\x00" in head or len(_NOT_TEXT.findall(head)) * 20 > len(head):
        return False
    return _DIRECTIVE_LINE.search(text) is not None or not _COMMENT.sub("", text).strip()


def decode_robots(body: bytes, content_type: str | None = None, cut: bool = False) -> str | None:
    """The text of a fetched robots.txt: its first :data:`MAX_ROBOTS_BYTES`
    decoded, or None when the body names an encoding it cannot be read in.

    The encoding is the byte order mark's (UTF-8, UTF-16, UTF-32), else
    UTF-16 when every other byte is NUL (whatever the label says), else the
    ``charset`` of ``Content-Type``, else UTF-8 (RFC 9309 2.3).  Bad bytes are
    replaced: the directives are ASCII, and a Latin-1 byte in a comment must
    not cost a site its rules.  When the limit cuts the file, or it was cut
    off before it reached us (``cut``), the cut line is dropped too: half a
    path is a different rule.

    None, for the caller to fail closed (never "allow all"): a UTF-16 or
    UTF-32 body, by its mark, its NULs or its label, that does not read as
    robots.txt in it (NULs or broken characters in its first 8 KiB, or text
    without one directive line that is not all comments).  Binary junk that
    claims nothing is left for :func:`looks_like_robots`.

    >>> decode_robots("User-agent: *\\nDisallow: /x\\n".encode("utf-16"))
    'User-agent: *\\nDisallow: /x\\n'
    >>> decode_robots("Disallow: /é\\n".encode("utf-16-be"), "text/plain; charset=UTF-16BE")
    'Disallow: /é\\n'
    >>> decode_robots(b"\\xff\\xfe" + bytes(range(256)) * 4) is None
    True
    """
    codec, skip, said = _robots_encoding(body, content_type)
    data = body[skip : skip + MAX_ROBOTS_BYTES]
    cut = cut or len(body) - skip > MAX_ROBOTS_BYTES
    if codec.startswith(_WIDE):
        unit = 4 if codec.startswith("utf-32") else 2
        data = data[: len(data) - len(data) % unit]
    text = data.decode(codec, "replace")
    if cut:
        text = text[: max(text.rfind("\n"), text.rfind("\r")) + 1]
    if said and codec.startswith(_WIDE) and not _reads_as_robots(text):
        return None
    return text[1:] if text.startswith("\ufeff") else text


# Enough of the start of a body to tell text from binary, HTML from robots.txt.
_SNIFF_CHARS = 8192
_HTML_TAG = re.compile(r"<(?:!doctype|html|head|body)[\s>/]", re.IGNORECASE)
_COMMENT = re.compile(r"#[^\r\n]*")
# A line that is a rule: what follows its colon is a path or a name, where
# ``<html`` is a URL's text, not markup.
_RULE_LINE = re.compile(r"(?im)^[ \t]*(?:user-agent|allow|disallow|crawl-delay|sitemap|host)[ \t]*:[^\r\n]*")


def _is_markup(text: str) -> bool:
    """Is this the start of an HTML page (a soft 404, a CMS page) rather than
    robots.txt?  It starts with ``<``, which no robots.txt line does, or it
    has ``<!doctype``, ``<html``, ``<head`` or ``<body`` outside ``#``
    comments and rule lines.  Such a page blocks nothing, even if a ``<pre>``
    in it holds lines that look like rules (a leniency the seed asks for).

    >>> _is_markup("\\n  <!DOCTYPE html>"), _is_markup("User-agent: * # see <html> docs")
    (True, False)
    >>> _is_markup("User-agent: *\\nDisallow: /<html>\\n")
    False
    """
    head = text[:_SNIFF_CHARS]
    if head.lstrip().startswith("<"):
        return True
    return _HTML_TAG.search(_RULE_LINE.sub("", _COMMENT.sub("", head))) is not None


# --- User agents (RFC 9309 2.2.1) -----------------------------------------------------

_PRODUCT_TOKEN = re.compile(r"[A-Za-z_-]+")
# A browser-style header names the crawler after "compatible;" (the RFC's own
# example: "Mozilla/5.0 (compatible; ExampleBot/0.1; ...)").
_COMPATIBLE = re.compile(r"\(compatible;\s*([A-Za-z_-]+)", re.IGNORECASE)


def robots_agent(settings: SettingsLike) -> str:
    """The name this crawler reads robots.txt, and robots META tags, for:
    ``ROBOTSTXT_USER_AGENT`` (Scrapy's setting), else ``CRAWLER_PRODUCT``,
    the product its ``User-Agent`` header names.  Scrapy's settings or a
    plain mapping (a rebuild's recorded settings).

    >>> robots_agent({"ROBOTSTXT_USER_AGENT": "", "CRAWLER_PRODUCT": "LanternBot/0.1"})
    'LanternBot/0.1'
    """
    return settings.get("ROBOTSTXT_USER_AGENT") or settings.get("CRAWLER_PRODUCT")


def _product_token(user_agent: str) -> str:
    """The crawler's name as groups are matched against it, lower-cased.

    >>> _product_token("FooBot/1.0 (+http://foo.example/bot)")
    'foobot'
    >>> _product_token("Mozilla/5.0 (compatible; ExampleBot/0.1; https://example.com/bot.html)")
    'examplebot'
    """
    found = _COMPATIBLE.search(user_agent)
    if found:
        return found.group(1).lower()
    found = _PRODUCT_TOKEN.match(user_agent.strip())
    return found.group().lower() if found else ""


def _group_name(value: str) -> str | None:
    """The agent a ``User-agent`` line names: ``*`` or a lower-cased token.

    Leniency (as Google's parser): the name ends where the token characters
    end, so ``FooBot/1.0`` and ``FooBot*`` name ``foobot``.  A value that
    starts with anything else (``*bot``, ``"FooBot"``) names nobody.
    """
    if value == "*" or value.startswith(("* ", "*\t")):
        return "*"
    found = _PRODUCT_TOKEN.match(value)
    return found.group().lower() if found else None


# --- Paths and patterns (RFC 9309 2.2.2 and 2.2.3) ------------------------------------

# In a query ":", "/", "?" and "@" delimit nothing, so their escapes are
# decoded there (RFC 9309's example: "/foo/bar?baz=https://foo.bar" matches
# "/foo/bar?baz=https%3A%2F%2Ffoo.bar").  In the path they are never decoded:
# "/a%2Fb" is one segment, "/a/b" two.
_QUERY_DECODED = UNRESERVED | frozenset(":/?@")
# What stands for itself on both sides: unreserved, sub-delims except "*" and
# "$" (special in patterns, so a URL's literal ones are compared escaped:
# "%2A" in a rule matches "*" in a URL, RFC 9309 2.2.3), ":", "@", "/", and
# "[" "]" which browsers send raw.  Everything else is escaped as UTF-8.
_RAW = r"A-Za-z0-9\-._~!&'()+,;=:@/\[\]"

_URL_PATH = percent_normalizer(_RAW)
_URL_QUERY = percent_normalizer(_RAW + "?", _QUERY_DECODED)
_PATTERN_PATH = percent_normalizer(_RAW + "*")
_PATTERN_QUERY = percent_normalizer(_RAW + "?*", _QUERY_DECODED)

# The scheme and authority of an absolute or scheme-relative URL.
_AUTHORITY = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.\-]*:)?//[^/?#]*")


def _request_target(url: str) -> str:
    """The path and query of ``url`` (a URL or a path), normalized.  As in
    RFC 3986, ``//host/x`` is a URL without its scheme, not a path.

    >>> _request_target("HTTP://a.com?q=%2f%7e")
    '/?q=/~'
    >>> _request_target("/a%2fb/%7e*$/é#frag")
    '/a%2Fb/~%2A%24/%C3%A9'
    """
    if url[:1] != "/" or url[1:2] == "/":
        authority = _AUTHORITY.match(url)
        if authority:
            url = url[authority.end() :]
    url = url.partition("#")[0]
    path, question, query = url.partition("?")
    path = _URL_PATH(path)
    if path[:1] != "/":
        path = "/" + path
    return path + "?" + _URL_QUERY(query) if question else path


# A rule path missing its leading slash (leniency) starts like a path
# segment; anything else ("?x", "$", "<p>") is not a path and is ignored.
_SEGMENT_START = re.compile(r"[\w\-.~%!&'()+,;=:@]")
_ABSOLUTE_URL = re.compile(r"https?://[^/?#\s]+", re.IGNORECASE)
_STARS = re.compile(r"\*{2,}")


def _pattern(path: str) -> str | None:
    """A rule's path, normalized as URLs are; a final ``$`` stays as the anchor.

    >>> _pattern("/fish%2a*.php$"), _pattern("private/"), _pattern("?x")
    ('/fish%2A*.php$', '/private/', None)
    """
    absolute = _ABSOLUTE_URL.match(path)
    if absolute:  # leniency: the owner meant the path of that URL
        path = path[absolute.end() :]
        if path[:1] != "/":
            path = "/" + path
    if path[:1] not in ("/", "*"):
        if not _SEGMENT_START.match(path):
            return None
        path = "/" + path  # leniency: "Disallow: private/" means "/private/"
    anchored = path.endswith("$")
    if anchored:
        path = path[:-1]
    if "**" in path:
        path = _STARS.sub("*", path)
    path, question, query = path.partition("?")
    pattern = _PATTERN_PATH(path) + ("?" + _PATTERN_QUERY(query) if question else "")
    return pattern + "$" if anchored else pattern


def _regex(pattern: str) -> str:
    """A pattern as a regex to match at the start of a request target.

    Each ``*`` finds the leftmost occurrence of the text after it and commits
    to it (an atomic group): that is correct for patterns made only of
    literals and ``*``, and a failing match costs one scan per ``*``, where
    plain ``.*?`` would try every combination (``/*a*a*a*a*b`` against
    ``/aaaa...``).
    """
    anchored = pattern.endswith("$")
    parts = (pattern[:-1] if anchored else pattern).split("*")
    regex = [re.escape(parts[0])]
    for part in parts[1:-1] if anchored else parts[1:]:
        if part:
            regex.append(f"(?>.*?{re.escape(part)})")
    if anchored:
        if len(parts) > 1:
            regex.append(".*" + re.escape(parts[-1]))
        regex.append(r"\Z")
    return "".join(regex)


# --- Rules ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One Allow or Disallow line (one of its paths), normalized.

    ``pattern`` is compared with URLs normalized the same way (see
    :func:`_request_target`); a final ``$`` anchors it.
    """

    allow: bool
    pattern: str

    @property
    def priority(self) -> int:
        """RFC 9309 2.2.2: the most specific rule, the one with the most
        octets, wins; ``*`` and ``$`` count as one octet each."""
        return len(self.pattern)


@dataclass
class _Group:
    """One group as read: its agents, its rules (raw values) and its delays
    (each with the agents it is for).  ``closed`` once a rule is read: the
    next User-agent line starts a new group."""

    agents: set[str] = field(default_factory=set)
    rules: list[tuple[bool, str]] = field(default_factory=list)
    delays: list[tuple[frozenset[str], float]] = field(default_factory=list)
    closed: bool = False


def _read_groups(text: str) -> tuple[list[_Group], list[str]]:
    """The groups of a robots.txt, in file order, and its sitemaps."""
    groups: list[_Group] = []
    agents: set[str] = set()  # named since the current group's last other line
    sitemaps: list[str] = []
    for directive, value in _directives(text):
        if directive == "user-agent":
            if not groups or groups[-1].closed:
                groups.append(_Group())
                agents = set()
            name = _group_name(value)
            if name:
                groups[-1].agents.add(name)
                agents.add(name)
        elif directive == "sitemap":
            # leniency: several URLs on one line
            sitemaps.extend(url for url in value.split() if _ABSOLUTE_URL.match(url))
        elif not groups:
            continue  # RFC 9309 2.2.2: a rule in no group is ignored
        elif directive == "crawl-delay":
            delay = _crawl_delay(value)
            if delay is not None:
                groups[-1].delays.append((frozenset(agents or groups[-1].agents), delay))
            agents = set()
        else:
            groups[-1].closed = True
            groups[-1].rules.append((directive == "allow", value))
            agents = set()
    return groups, sitemaps


def _groups_for(user_agent: str, groups: list[_Group]) -> tuple[str, list[_Group]]:
    """The name the crawler answers to in this file (its product token when a
    group names it, else ``*``) and the groups of that name."""
    token = _product_token(user_agent)
    name = token if any(token in group.agents for group in groups) else "*"
    return name, [group for group in groups if name in group.agents]


# Wildcard rules per compiled alternation.  The re module slows down on long
# alternations (20,000 rules: 0.3 ms a check in chunks of 32, 2.8 ms in chunks
# of 512), and a chunk is skipped when its best rule cannot win.
_CHUNK = 32
# Up to this many plain prefixes, one startswith() rejects a URL that matches
# none of them (0.2 us for 40) before the per-length probes (1.2 us for 18).
_QUICK_REJECT = 128


def _key(rule: Rule) -> tuple[int, bool]:
    """What decides between two matching rules: length, then Allow."""
    return rule.priority, rule.allow


class RobotsRules:
    """The rules one crawler obeys on one site, ready to check URLs fast.

    Built by :meth:`parse` (or :meth:`allow_all` / :meth:`disallow_all` for a
    fetch that says so), then read-only.  The winning rule is found in three
    indexes, so a check costs a few lookups whatever the file's size:
    plain prefixes in a dict by pattern, probed with the target's prefixes
    of each rule length, longest first; ``$``-anchored plain patterns in a
    dict probed with the whole target; rules with ``*`` in regex
    alternations ordered by priority, Allow before Disallow of the same
    length, so the first alternative that matches is the best of them.

    >>> rules = RobotsRules.parse(b"User-agent: *\\nCrawl-delay: 2.5\\nDisallow: /*.gif$", "bot")
    >>> rules.allowed("/a.gif"), rules.allowed("/a.gif?x=1"), rules.crawl_delay
    (False, True, 2.5)
    """

    __slots__ = (
        "_any_prefix",
        "_crawl_delay",
        "_exact",
        "_lengths",
        "_prefixes",
        "_rules",
        "_sitemaps",
        "_wildcards",
    )

    def __init__(
        self,
        rules: Iterable[Rule] = (),
        crawl_delay: float | None = None,
        sitemaps: Iterable[str] = (),
    ) -> None:
        normalized = {Rule(rule.allow, p) for rule in rules if (p := _pattern(rule.pattern))}
        # Best first: by priority, Allow first on a tie, then by pattern so
        # that equal rule sets compare equal.
        ordered = sorted(normalized, key=lambda r: (-r.priority, not r.allow, r.pattern))
        self._rules = tuple(ordered)
        self._crawl_delay = crawl_delay
        self._sitemaps = tuple(dict.fromkeys(sitemaps))
        self._prefixes: dict[str, Rule] = {}
        self._exact: dict[str, Rule] = {}
        wildcards = []
        for rule in ordered:  # setdefault: Allow wins over the same Disallow
            if "*" in rule.pattern:
                wildcards.append(rule)
            elif rule.pattern.endswith("$"):
                self._exact.setdefault(rule.pattern[:-1], rule)
            else:
                self._prefixes.setdefault(rule.pattern, rule)
        self._lengths = sorted({len(prefix) for prefix in self._prefixes}, reverse=True)
        # Most URLs match no plain prefix; one C-level startswith over a few
        # dozen of them says so faster than probing every length.  ("" starts
        # every string: past _QUICK_REJECT prefixes the probe always runs.)
        quick = len(self._prefixes) <= _QUICK_REJECT
        self._any_prefix = tuple(self._prefixes) if quick else ("",)
        self._wildcards = [
            (
                re.compile("|".join(f"({_regex(r.pattern)})" for r in chunk), re.DOTALL).match,
                chunk,
            )
            for chunk in (wildcards[i : i + _CHUNK] for i in range(0, len(wildcards), _CHUNK))
        ]

    @classmethod
    def parse(cls, robots_txt: str | bytes, user_agent: str) -> RobotsRules:
        """The rules of the groups that apply to ``user_agent`` (RFC 9309 2.2.1).

        Groups naming the crawler's product token (case-insensitive, whole
        token) are merged; if there are none, the ``*`` groups are; if there
        are none either, nothing is disallowed.  A group is one or more
        ``User-agent`` lines and the lines that follow; only an Allow or
        Disallow line (even an empty one) closes the agent list, so blank
        lines, comments, ``Crawl-delay`` or ``Sitemap`` between agents do not.
        Rules before any ``User-agent`` belong to no group and are ignored.

        ``crawl_delay`` is the largest valid ``Crawl-delay`` (seconds; decimals
        allowed, junk and negative values ignored) for the crawler's agent name
        (or ``*``) in those groups.  A delay belongs to the agents named just
        above it, or to the whole group when a rule comes between: since a
        delay does not close the agent list, ``User-agent: bingbot /
        Crawl-delay: 30 / User-agent: AhrefsBot / Disallow: /`` is one group
        (RFC 9309 and Google's parser agree), but the delay is bingbot's only.
        ``sitemaps`` are all absolute ``Sitemap`` URLs, in any group or none.

        >>> text = "user-agent: a\\ncrawl-delay: 3\\nuser-agent: b\\ndisallow: /"
        >>> rules = RobotsRules.parse(text, "A")
        >>> rules.rules, rules.crawl_delay
        ((Rule(allow=False, pattern='/'),), 3.0)
        """
        text = _decode(robots_txt)
        if _is_markup(text):
            return cls()
        groups, sitemaps = _read_groups(text)
        name, chosen = _groups_for(user_agent, groups)
        rules = [
            # leniency: "Disallow: /a /b" is two rules (a path has no spaces)
            Rule(allow, path)
            for group in chosen
            for allow, value in group.rules
            for path in value.split()
        ]
        delays = [delay for group in chosen for names, delay in group.delays if name in names]
        return cls(rules, max(delays) if delays else None, sitemaps)

    @classmethod
    def allow_all(cls) -> RobotsRules:
        """No rules: for a robots.txt that is missing (404) or not one (HTML)."""
        return cls()

    @classmethod
    def disallow_all(cls) -> RobotsRules:
        """Everything but ``/robots.txt`` itself is off limits.

        >>> nothing = RobotsRules.disallow_all()
        >>> nothing.allowed("/"), nothing.allowed("/robots.txt")
        (False, True)
        """
        return cls([Rule(False, "/")])

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules that apply, normalized, best first."""
        return self._rules

    @property
    def crawl_delay(self) -> float | None:
        """Seconds between requests the site asks of this crawler, if any."""
        return self._crawl_delay

    @property
    def sitemaps(self) -> list[str]:
        """Absolute sitemap URLs, in file order, without repeats (a copy)."""
        return list(self._sitemaps)

    def allowed(self, url: str) -> bool:
        """May the crawler fetch ``url`` (a full URL or a path with query)?"""
        target = _request_target(url)
        if target == "/robots.txt":  # RFC 9309 2.2.2: implicitly allowed
            return True
        rule = self._decide(target)
        return rule is None or rule.allow

    def decisive_rule(self, url: str) -> Rule | None:
        """The rule that decides ``url``, or None when none matches (allowed):
        what a log line or a ``robots/denied`` stat can name.

        >>> rules = RobotsRules.parse("User-agent: *\\nDisallow: /a\\nAllow: /a/b", "x")
        >>> rules.decisive_rule("/a/c")
        Rule(allow=False, pattern='/a')
        """
        target = _request_target(url)
        return None if target == "/robots.txt" else self._decide(target)

    def _decide(self, target: str) -> Rule | None:
        # An anchored plain pattern equal to the target is longer (by its "$")
        # than any plain prefix of it.
        best = self._exact.get(target)
        if best is None and target.startswith(self._any_prefix):
            size = len(target)
            for length in self._lengths:
                if length <= size:
                    best = self._prefixes.get(target[:length])
                    if best is not None:
                        break
        for match, chunk in self._wildcards:
            if best is not None and _key(best) >= _key(chunk[0]):
                break
            found = match(target)
            if found:
                rule = chunk[found.lastindex - 1]  # type: ignore[operator]
                if best is None or _key(rule) > _key(best):
                    best = rule
                break
        return best

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RobotsRules):
            return NotImplemented
        return (self._rules, self._crawl_delay, self._sitemaps) == (
            other._rules,
            other._crawl_delay,
            other._sitemaps,
        )

    def __hash__(self) -> int:
        return hash((self._rules, self._crawl_delay, self._sitemaps))

    def __repr__(self) -> str:
        return (
            f"RobotsRules({len(self._rules)} rules, crawl_delay={self._crawl_delay!r}, "
            f"sitemaps={list(self._sitemaps)!r})"
        )


_DELAY = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def _crawl_delay(value: str) -> float | None:
    """Seconds from a ``Crawl-delay`` value; None for junk, negative or
    infinite values.  Leniency: words after the number ("10 seconds") are
    ignored.  Stricter than ``float``: ``1e3``, ``1_0``, ``nan`` are junk.

    >>> _crawl_delay("2.5"), _crawl_delay("10 # s"), _crawl_delay("-1"), _crawl_delay("1e3")
    (2.5, 10.0, None, None)
    """
    words = value.split()
    if not words or not _DELAY.fullmatch(words[0]):
        return None
    delay = float(words[0])
    return delay if math.isfinite(delay) else None


@functools.lru_cache(maxsize=64)
def _parse_cached(robots_txt: str, user_agent: str) -> RobotsRules:
    return RobotsRules.parse(robots_txt, user_agent)


def allowed(robots_txt: str, user_agent: str, url: str) -> bool:
    """May ``user_agent`` fetch ``url`` under ``robots_txt``?  (RFC 9309)

    A convenience for one-off checks: a crawler keeps the
    :class:`RobotsRules` of each site instead.  The last 64 parses are cached.

    >>> allowed("User-agent: *\\nDisallow: /", "FooBot/1.0", "http://a.com/robots.txt")
    True
    >>> allowed("User-agent: *\\nDisallow: /a%2Fb", "FooBot", "/a/b")
    True
    """
    return _parse_cached(robots_txt, user_agent).allowed(url)


# --- Fetch outcomes -------------------------------------------------------------------


class Outcome(enum.Enum):
    """What a fetch of robots.txt means for the site."""

    PARSE = "parse"  # the body is the rules
    ALLOW_ALL = "allow_all"  # there are no rules
    DISALLOW_ALL = "disallow_all"  # the site is off limits
    RETRY = "retry"  # the site waits; robots.txt is fetched again with backoff


def outcome(status: int | None, policy_4xx: str = "disallow") -> Outcome:
    """The outcome of a robots.txt fetch that ended with ``status`` (after
    the fetcher followed up to five redirects), or with a network error
    (``None``).

    - 2xx: parse the body (then see :func:`looks_like_robots`).
    - 3xx here means too many redirects: RFC 9309 2.3.1.2 lets the crawler
      treat the file as unavailable, like a 404.
    - 404, 410 and other 4xx: no robots.txt, no rules (RFC 9309 2.3.1.3).
    - 401, 403: the seed's rule (``policy_4xx="disallow"``, the default)
      says the site is off limits; ``"allow"`` follows RFC 9309 (any 4xx is
      "unavailable").
    - 429, 5xx and network errors: RFC 9309 2.3.1.4 says assume complete
      disallow for now, so the site waits and robots.txt is retried.
    - 1xx or a number outside 100-599 cannot end a fetch; retry.

    >>> [outcome(status).name for status in (200, 301, 403, 404, 429, 503, None)]
    ['PARSE', 'ALLOW_ALL', 'DISALLOW_ALL', 'ALLOW_ALL', 'RETRY', 'RETRY', 'RETRY']
    >>> outcome(403, policy_4xx="allow").name
    'ALLOW_ALL'
    """
    if policy_4xx not in ("disallow", "allow"):
        raise ValueError(f"policy_4xx must be 'disallow' or 'allow', not {policy_4xx!r}")
    if status is None or status == 429:
        return Outcome.RETRY
    if 200 <= status <= 299:
        return Outcome.PARSE
    if 300 <= status <= 399:
        return Outcome.ALLOW_ALL
    if 400 <= status <= 499:
        if status in (401, 403) and policy_4xx == "disallow":
            return Outcome.DISALLOW_ALL
        return Outcome.ALLOW_ALL
    return Outcome.RETRY


_HTML_TYPES = frozenset(["text/html", "application/xhtml+xml"])
_USER_AGENT_LINE = re.compile(rb"^[ \t]*user[- ]?agent[ \t]*:", re.IGNORECASE | re.MULTILINE)
# Bytes that never occur in text in an ASCII-compatible encoding.
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")


def looks_like_robots(body: bytes, content_type: str | None) -> bool:
    """Is a 2xx body a robots.txt file?  If not it blocks nothing (ALLOW_ALL).

    Not robots.txt: binary junk (a NUL byte, or more than 5% control bytes in
    the first 8 KiB, as a gzip body without its Content-Encoding has); HTML
    (the body starts with ``<``, or has ``<!doctype``, ``<html``, ``<head`` or
    ``<body`` in its first 8 KiB outside ``#`` comments), whatever the
    Content-Type says.  A ``text/html`` body without markup is robots.txt when
    it has a ``User-agent:`` line: some servers send the wrong type.  Text in
    other encodings than UTF-8 (GBK comments) is not junk: the directives
    are ASCII.  UTF-16 has NULs and counts as junk here: the middleware
    decodes a body with :func:`decode_robots` first and asks about its UTF-8.

    >>> looks_like_robots(b"<!DOCTYPE html><title>Not found</title>", "text/plain")
    False
    >>> looks_like_robots(b"User-agent: *\\nDisallow: /x\\n", "text/html; charset=utf-8")
    True
    """
    if body.startswith(b"\xef\xbb\xbf"):
        body = body[3:]
    head = body[:_SNIFF_CHARS]
    if b"\x00" in head or len(_CONTROL.findall(head)) * 20 > len(head):
        return False
    if _is_markup(head.decode("latin-1")):
        return False
    media_type = (content_type or "").partition(";")[0].strip().lower()
    if media_type in _HTML_TYPES:
        return _USER_AGENT_LINE.search(body, 0, MAX_ROBOTS_BYTES) is not None
    return True


# --- Cache expiry ---------------------------------------------------------------------


def expiry_seconds(
    headers: Mapping[str, str],
    now: float,
    default: float = 86400,
    maximum: float = 86400,
) -> float:
    """How long a fetched robots.txt may be used, from its response headers.

    ``Cache-Control: no-store`` or ``no-cache``: :data:`MIN_EXPIRY_SECONDS`.
    Else ``s-maxage`` (our cache is shared by the crawl's nodes), else
    ``max-age``, less ``Age``; else ``Expires`` less ``Date`` (less ``Age``),
    or less ``now`` without a ``Date``; else ``default``.  An invalid value
    means already stale (RFC 9111 4.2.1, 5.3).  The result is at least
    :data:`MIN_EXPIRY_SECONDS` and at most ``maximum`` (RFC 9309 2.4: no
    more than 24 hours).  Header names are case-insensitive.

    >>> expiry_seconds({"cache-control": "public, max-age=3600", "Age": "600"}, now=0)
    3000.0
    >>> expiry_seconds({"Cache-Control": "max-age=604800"}, now=0)
    86400.0
    >>> expiry_seconds({"Cache-Control": "no-cache"}, now=0)
    60.0
    """
    fields = {name.lower(): value for name, value in headers.items()}
    lifetime = _freshness(fields, now)
    if lifetime is None:
        lifetime = default
    return float(min(max(lifetime, MIN_EXPIRY_SECONDS), maximum))


def _freshness(fields: Mapping[str, str], now: float) -> float | None:
    directives = {}
    for directive in fields.get("cache-control", "").split(","):
        name, _, value = directive.partition("=")
        directives[name.strip().lower()] = value.strip().strip('"')
    # "no-cache=field" only restricts that field, so only the bare one counts
    if "no-store" in directives or directives.get("no-cache", None) == "":
        return 0.0
    age = _delta_seconds(fields.get("age", "0")) or 0
    for name in ("s-maxage", "max-age"):
        if name in directives:
            seconds = _delta_seconds(directives[name])
            return 0.0 if seconds is None else seconds - age
    if "expires" in fields:
        expires = parse_http_date(fields["expires"])
        if expires is None:
            return 0.0
        date = parse_http_date(fields.get("date", ""))
        return expires - now if date is None else expires - date - age
    return None


def _delta_seconds(value: str) -> int | None:
    value = value.strip()
    return int(value) if value.isascii() and value.isdigit() else None


# --- Per page: robots META tags and X-Robots-Tag (ARCHITECTURE.md, item 18) ---------------

_PAGE_DIRECTIVES = frozenset(["index", "noindex", "follow", "nofollow", "noarchive", "all", "none"])


def page_directives(metas: Mapping[str, str], headers: Iterable[str], user_agent: str) -> frozenset[str]:
    """What a page allows: a subset of ``noindex``, ``nofollow``, ``noarchive``.

    ``metas`` maps the page's meta names (lower-case) to their contents;
    those of ``<meta name="robots">`` and ``<meta name="BOTNAME">`` (our
    product token) count. ``headers`` are the values of its
    ``X-Robots-Tag`` headers, where a value may name one crawler
    (``lanternbot: noindex``) and then applies to that crawler only. Values
    are comma-separated and case-insensitive; ``all`` is index,follow and
    ``none`` is noindex,nofollow. Unknown values are ignored; the defaults
    are index,follow.

    >>> sorted(page_directives({"robots": "NONE"}, [], "LanternBot/0.1"))
    ['nofollow', 'noindex']
    >>> sorted(page_directives({"lanternbot": "noindex", "otherbot": "nofollow"}, [], "LanternBot"))
    ['noindex']
    >>> sorted(page_directives({}, ["otherbot: noindex", "lanternbot: nofollow, noarchive"], "LanternBot"))
    ['noarchive', 'nofollow']
    """
    token = _product_token(user_agent)
    found: set[str] = set()
    values = [content for name, content in metas.items() if name in ("robots", token)]
    for header in headers:
        name, colon, rest = header.partition(":")
        name = name.strip().lower()
        if colon and name not in _PAGE_DIRECTIVES and " " not in name:
            if name == token:
                values.append(rest)
        else:
            values.append(header)
    for value in values:
        for directive in value.lower().split(","):
            directive = directive.strip()
            if directive == "none":
                found.update(("noindex", "nofollow"))
            elif directive in ("noindex", "nofollow", "noarchive"):
                found.add(directive)
    return frozenset(found)
