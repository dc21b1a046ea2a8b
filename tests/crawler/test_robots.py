"""Tests for crawler.robots: RFC 9309 rules, fetch outcomes and cache expiry."""

from __future__ import annotations

import re
import time
from email.utils import formatdate
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from protego import Protego

from crawler import robots
from crawler.robots import (
    MAX_ROBOTS_BYTES,
    MIN_EXPIRY_SECONDS,
    Outcome,
    RobotsRules,
    Rule,
    allowed,
    expiry_seconds,
    looks_like_robots,
    outcome,
)


def checks(name: str, robots_txt: str, user_agent: str, *urls: tuple[str, bool]) -> list:
    """One robots.txt, one crawler, several URLs: one test case each."""
    return [
        pytest.param(robots_txt, user_agent, url, expected, id=f"{name}[{user_agent} {url}]") for url, expected in urls
    ]


# --- RFC 9309 -------------------------------------------------------------------------

# Section 5.1, verbatim, "EOF" line included.
RFC_5_1 = """\
User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
"""

# Section 5.2, verbatim.
RFC_5_2 = """\
User-Agent: foobot
Allow: /example/page/
Disallow: /example/page/disallowed.gif
"""

# Section 2.2.1, figure 1: groups, one of them for two agents, one empty.
RFC_FIGURE_1 = """\
user-agent: a
disallow: /c

user-agent: b
disallow: /d

user-agent: e
user-agent: f
disallow: /g

user-agent: h
"""

# Section 2.2.1, figure 2: two groups for one agent are merged.
RFC_FIGURE_2 = """\
user-agent: ExampleBot
disallow: /foo
disallow: /bar

user-agent: ExampleBot
disallow: /baz
"""

RFC_UA_HEADER = "Mozilla/5.0 (compatible; ExampleBot/0.1; https://www.example.com/bot.html)"

# Section 2.2.3, figure 5 (special characters), each example as an Allow
# carved out of a Disallow so that the Allow is observable.
RFC_FIGURE_5 = """\
user-agent: *
disallow: /
allow: /open # comment in line

# comment on its own line
allow: /this/path/exactly$
"""
RFC_FIGURE_5_STAR = "user-agent: *\ndisallow: /\nallow: /this/*/exactly\n"

RFC_CASES = [
    *checks(
        "rfc5.1",
        RFC_5_1,
        "otherbot",
        ("https://www.example.com/", True),
        ("/example/", False),
        ("/example/page.html", False),
        ("/publications/", True),
        ("/publications/a.gif", True),  # the Allow is longer than *.gif$
        ("/images/cat.gif", False),
        ("/images/cat.gif?size=2", True),  # "$" ends the whole path and query
        ("/cat.GIF", True),
    ),
    *checks(
        "rfc5.1",
        RFC_5_1,
        "foobot",
        ("/", False),
        ("/example/page.html", True),
        ("/example/allowed.gif", True),
        ("/example/other.html", False),
        ("/publications/", False),
    ),
    *checks(
        "rfc5.1",
        RFC_5_1,
        "barbot",
        ("/example/page.html", False),
        ("/example/other.html", True),
        ("/images/cat.gif", True),  # not governed by the * group
    ),
    *checks("rfc5.1", RFC_5_1, "bazbot", ("/example/page.html", False), ("/", True)),
    *checks("rfc5.1", RFC_5_1, "quxbot", ("/example/page.html", True), ("/a.gif", True)),
    *checks(
        "rfc5.2",
        RFC_5_2,
        "foobot",
        ("/example/page/", True),
        ("/example/page/disallowed.gif", False),
        ("/example/page/other.gif", True),
    ),
    *checks("rfc2.2.1-fig1", RFC_FIGURE_1, "a", ("/c", False), ("/d", True), ("/g", True)),
    *checks("rfc2.2.1-fig1", RFC_FIGURE_1, "b", ("/d", False), ("/c", True)),
    *checks("rfc2.2.1-fig1", RFC_FIGURE_1, "e", ("/g", False), ("/c", True)),
    *checks("rfc2.2.1-fig1", RFC_FIGURE_1, "f", ("/g", False)),
    *checks("rfc2.2.1-fig1", RFC_FIGURE_1, "h", ("/c", True), ("/g", True)),
    # no group for the agent and no * group: no rules apply
    *checks("rfc2.2.1-fig1", RFC_FIGURE_1, "z", ("/c", True)),
    *checks(
        "rfc2.2.1-fig2",
        RFC_FIGURE_2,
        "ExampleBot",
        ("/foo", False),
        ("/bar", False),
        ("/baz", False),
        ("/qux", True),
    ),
    # the product token of a browser-style header, matched case-insensitively
    *checks(
        "rfc2.2.1-header",
        "user-agent: examplebot\ndisallow: /foo\n",
        RFC_UA_HEADER,
        ("/foo", False),
        ("/bar", True),
    ),
    *checks(
        "rfc2.2.1-star-fallback",
        "user-agent: *\ndisallow: /x\n\nuser-agent: OtherBot\ndisallow: /y\n",
        "ExampleBot",
        ("/x", False),
        ("/y", True),
    ),
    # 2.2.2: /robots.txt is implicitly allowed
    *checks(
        "rfc2.2.2-robots.txt",
        "user-agent: *\ndisallow: /\n",
        "ExampleBot",
        ("/robots.txt", True),
        ("http://example.com/robots.txt", True),
        ("/robots.txt.bak", False),
        ("/robots.txt?x=1", False),  # only the file itself
        ("/robots%2Etxt", True),
        ("/", False),
    ),
    # 2.2.2: rules outside any group are ignored
    *checks(
        "rfc2.2.2-no-group",
        "disallow: /\nuser-agent: *\nallow: /x\n",
        "ExampleBot",
        ("/y", True),
    ),
    # 2.2.2: matching is case-sensitive, starts at the first octet of the path
    *checks(
        "rfc2.2.2-case",
        "user-agent: *\ndisallow: /x/\n",
        "ExampleBot",
        ("/x/", False),
        ("/X/", True),
        ("/a/x/", True),
    ),
    # 2.2.2: the most specific (longest) match wins, Allow wins a tie
    *checks(
        "rfc2.2.2-tie",
        "user-agent: *\ndisallow: /folder\nallow: /folder\n",
        "ExampleBot",
        ("/folder", True),
        ("/folder/page", True),
    ),
    *checks(
        "rfc2.2.2-longest",
        "user-agent: *\nallow: /page\ndisallow: /*.html\n",
        "ExampleBot",
        ("/page.html", False),  # 7 octets beat 5
        ("/page", True),
    ),
    *checks(
        "rfc2.2.2-longest-allow",
        "user-agent: *\nallow: /x/page.\ndisallow: /*.html\n",
        "ExampleBot",
        ("/x/page.html", True),  # 8 octets beat 7
    ),
    *checks(
        "rfc2.2.2-anchor-longest",
        "user-agent: *\nallow: /$\ndisallow: /\n",
        "ExampleBot",
        ("/", True),
        ("/page.html", False),
    ),
    # 2.2.2, figure 4: percent-encoding (rule, URL both ways)
    *checks(
        "rfc2.2.2-fig4-row1",
        "user-agent: *\ndisallow: /foo/bar?baz=quz\n",
        "ExampleBot",
        ("/foo/bar?baz=quz", False),
        ("/foo/bar?baz=quux", True),
    ),
    *checks(
        "rfc2.2.2-fig4-row2",
        "user-agent: *\ndisallow: /foo/bar?baz=https://foo.bar\n",
        "ExampleBot",
        ("/foo/bar?baz=https%3A%2F%2Ffoo.bar", False),
        ("/foo/bar?baz=https://foo.bar", False),
        ("/foo/bar?baz=https%3a%2f%2ffoo.bar", False),
    ),
    *checks(
        "rfc2.2.2-fig4-row2-reverse",
        "user-agent: *\ndisallow: /foo/bar?baz=https%3A%2F%2Ffoo.bar\n",
        "ExampleBot",
        ("/foo/bar?baz=https://foo.bar", False),
    ),
    *checks(
        "rfc2.2.2-fig4-row3",
        "user-agent: *\ndisallow: /foo/bar/\u30c4\n",
        "ExampleBot",
        ("/foo/bar/%E3%83%84", False),
        ("/foo/bar/%e3%83%84", False),
        ("/foo/bar/\u30c4", False),
    ),
    *checks(
        "rfc2.2.2-fig4-row4",
        "user-agent: *\ndisallow: /foo/bar/%E3%83%84\n",
        "ExampleBot",
        ("/foo/bar/%E3%83%84", False),
        ("/foo/bar/\u30c4", False),
    ),
    *checks(
        "rfc2.2.2-fig4-row5",
        "user-agent: *\ndisallow: /foo/bar/%62%61%7A\n",
        "ExampleBot",
        ("/foo/bar/baz", False),
        ("/foo/bar/%62%61%7A", False),
        ("/foo/bar/ba", True),
    ),
    # 2.2.3, figure 5: "#", "$" and "*"
    *checks(
        "rfc2.2.3-fig5",
        RFC_FIGURE_5,
        "ExampleBot",
        ("/open", True),
        ("/open/door", True),
        ("/this/path/exactly", True),
        ("/this/path/exactly/more", False),
        ("/this/path/exactly?q", False),
        ("/other", False),
    ),
    *checks(
        "rfc2.2.3-fig5-star",
        RFC_FIGURE_5_STAR,
        "ExampleBot",
        ("/this/path/exactly", True),
        ("/this/a/b/exactly", True),
        ("/this//exactly", True),
        ("/this/exactly", False),
        ("/this/path/exact", False),
    ),
    # 2.2.3, figure 6: an escaped special character matches it literally
    *checks(
        "rfc2.2.3-fig6",
        "user-agent: *\ndisallow: /path/file-with-a-%2A.html\ndisallow: /path/foo-%24\n",
        "ExampleBot",
        ("https://www.example.com/path/file-with-a-*.html", False),
        ("https://www.example.com/path/file-with-a-%2a.html", False),
        ("https://www.example.com/path/file-with-a-b.html", True),
        ("https://www.example.com/path/foo-$", False),
        ("https://www.example.com/path/foo-", True),
    ),
]

# --- ARCHITECTURE.md, items 15 and 16 ---------------------------------------------------------

SEED_RECORDS = """\
# robots.txt for http://www.example.com/

User-Agent: SearchBot
User-Agent: Harvester # two agents, one record
Disallow: /private   # a comment after a rule
# a comment between rules
Disallow: /tmp/
Flavour: vanilla

User-Agent: *
Disallow: /
"""

SEED_CASES = [
    *checks(
        "seed15-records",
        SEED_RECORDS,
        "SearchBot/1.0",
        ("/private", False),
        ("/private/x.html", False),
        ("/privately", False),  # a prefix of the path
        ("/Private", True),  # paths are case-sensitive
        ("/tmp/", False),
        ("/tmp", True),
        ("/index.html", True),
    ),
    *checks("seed15-records", SEED_RECORDS, "harvester", ("/tmp/a", False), ("/b", True)),
    *checks("seed15-records", SEED_RECORDS, "OtherBot", ("/index.html", False)),
    *checks(
        "seed15-escapes",
        "User-agent: *\nDisallow: /%7Ejoe/\nDisallow: /a%2Fb\nDisallow: /c/d\n",
        "SearchBot",
        ("/~joe/index.html", False),
        ("/%7ejoe/", False),
        ("/a%2Fb", False),
        ("/a%2fb/c", False),
        ("/a/b", True),  # %2F never equals "/"
        ("/c%2Fd", True),
        ("/c/d", False),
    ),
    *checks(
        "seed15-empty-disallow",
        "User-agent: *\nDisallow:\n",
        "SearchBot",
        ("/", True),
        ("/anything", True),
    ),
    *checks(
        "seed16-upper-case",
        "USER-AGENT: *\nDISALLOW: /a\nALLOW: /a/b\n",
        "SearchBot",
        ("/a", False),
        ("/a/b", True),
    ),
    *checks(
        "seed16-mixed-case",
        "uSeR-aGeNt: SEARCHBOT\ndIsAlLoW: /a\n",
        "SearchBot",
        ("/a", False),
    ),
    *checks(
        "seed16-leading-space",
        "   User-agent: *\n\tDisallow: /a\n  Allow: /a/b\n",
        "SearchBot",
        ("/a", False),
        ("/a/b", True),
    ),
    *checks(
        "seed16-space-before-colon",
        "User-agent : *\nDisallow : /a\n",
        "SearchBot",
        ("/a", False),
    ),
    *checks(
        "seed16-several-paths",
        "User-agent: *\nDisallow: /a /b\t/c\n",
        "SearchBot",
        ("/a", False),
        ("/b/x", False),
        ("/c", False),
        ("/d", True),
    ),
    *checks(
        "seed16-missing-slash",
        "User-agent: *\nDisallow: private/\nDisallow: tmp\n",
        "SearchBot",
        ("/private/x", False),
        ("/x/private/", True),
        ("/tmpfile", False),
    ),
    *checks(
        "seed16-not-a-path",
        "User-agent: *\nDisallow: ?x\nDisallow: $\n",
        "SearchBot",
        ("/?x", True),
        ("/", True),
    ),
    *checks(
        "seed16-html",
        "<!DOCTYPE html>\n<html><head><title>Robots</title></head><body><pre>\n"
        "User-agent: *\nDisallow: /\n</pre></body></html>\n",
        "SearchBot",
        ("/", True),
        ("/page", True),
    ),
    *checks(
        "seed16-html-soft-404",
        "<html>\n<p>User-agent: *</p>\n<p>Disallow: /</p>\n</html>\n",
        "SearchBot",
        ("/page", True),
    ),
]

# --- Groups and agents (the rules) --------------------------------------------

PRODUCT_TOKEN = """\
User-agent: foobot
Disallow: /foo

User-agent: FooBot-News
Disallow: /news

User-agent: *
Disallow: /star
"""

GROUP_CASES = [
    *checks(
        "token",
        PRODUCT_TOKEN,
        "FooBot/1.0",
        ("/foo", False),
        ("/news", True),
        ("/star", True),
    ),
    *checks("token", PRODUCT_TOKEN, "FOOBOT", ("/foo", False)),
    *checks(
        "token",
        PRODUCT_TOKEN,
        "FooBot-News/2.1 (+https://example.com/news-bot)",
        ("/news", False),
        ("/foo", True),
        ("/star", True),
    ),
    *checks(
        "token",
        PRODUCT_TOKEN,
        "FooBotter/1.0",
        ("/foo", True),
        ("/star", False),
    ),
    *checks("token", PRODUCT_TOKEN, "Foo_Bot", ("/foo", True), ("/star", False)),
    *checks(
        "token-group-only-foobot",
        "User-agent: FooBot\nDisallow: /\n",
        "FooBot-News/1.0",
        ("/x", True),
    ),
    *checks(
        "token-group-version",
        "User-agent: FooBot/2.1\nDisallow: /x\nUser-agent: *\nDisallow: /y\n",
        "FooBot/1.0",
        ("/x", False),
        ("/y", True),
    ),
    *checks(
        "token-group-star-suffix",
        "User-agent: FooBot*\nDisallow: /x\n",
        "FooBot",
        ("/x", False),
    ),
    *checks(
        "merge",
        "User-agent: FooBot\nDisallow: /a\n\nUser-agent: *\nDisallow: /c\n\nUser-agent: foobot\nDisallow: /b\n",
        "FooBot/1.0",
        ("/a", False),
        ("/b", False),
        ("/c", True),
    ),
    *checks(
        "merge-star",
        "User-agent: *\nDisallow: /a\n\nUser-agent: other\nDisallow: /b\n\nUser-agent: *\nDisallow: /c\n",
        "FooBot",
        ("/a", False),
        ("/b", True),
        ("/c", False),
    ),
    *checks(
        "star-among-agents",
        "User-agent: other\nUser-agent: *\nDisallow: /a\n",
        "FooBot",
        ("/a", False),
    ),
    *checks(
        "blank-line-between-agents",
        "User-agent: a\n\nUser-agent: b\nDisallow: /x\n",
        "a",
        ("/x", False),
    ),
    *checks(
        "crawl-delay-between-agents",
        "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /x\n",
        "a",
        ("/x", False),
    ),
    *checks(
        "unknown-between-agents",
        "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n",
        "FooBot",
        ("/x", False),
    ),
    *checks(
        "sitemap-between-agents",
        "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n",
        "BarBot",
        ("/x", False),
    ),
    *checks(
        "sitemap-inside-rules",
        "User-agent: a\nDisallow: /x\nSitemap: https://e.com/s.xml\nDisallow: /y\n",
        "a",
        ("/y", False),
    ),
    *checks(
        "agent-after-rule-starts-group",
        "User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /y\n",
        "a",
        ("/x", False),
        ("/y", True),
    ),
    *checks(
        "empty-disallow-closes-agents",
        "User-agent: a\nDisallow:\nUser-agent: b\nDisallow: /\n",
        "a",
        ("/x", True),
    ),
    *checks(
        "google-groups",
        "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\n"
        "disallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\n"
        "allow: /z/\ndisallow: /\n",
        "FooBot",
        ("/x/b", True),
        ("/z/d", True),
        ("/y/c", False),
        ("/foo/bar/", False),
    ),
    *checks(
        "bom",
        "\ufeffUser-agent: *\nDisallow: /\n",
        "SearchBot",
        ("/x", False),
    ),
    *checks(
        "crlf-and-cr",
        "User-agent: *\r\nDisallow: /a\rDisallow: /b\r\n",
        "SearchBot",
        ("/a", False),
        ("/b", False),
        ("/c", True),
    ),
    *checks(
        "missing-colon",
        "User-agent *\nDisallow /a\nDisallow everything\n",
        "SearchBot",
        ("/a", False),
        ("/everything", True),
    ),
    *checks("misspelled", "User-agent: *\nDissallow: /a\n", "SearchBot", ("/a", False)),
    # RFC 9309 reading (and Google's, google/robotstxt#51): a Crawl-delay does
    # not end the agent list, so * shares badbot's rules
    *checks(
        "crawl-delay-only-group",
        "User-agent: *\nCrawl-delay: 10\n\nUser-agent: badbot\nDisallow: /\n",
        "SearchBot",
        ("/", False),
    ),
    *checks(
        "empty-agent-names-nobody",
        "User-agent:\nDisallow: /x\nUser-agent: *bot\nDisallow: /z\nUser-agent: *\nDisallow: /y\n",
        "SearchBot",
        ("/x", True),
        ("/z", True),
        ("/y", False),
    ),
    *checks("empty-file", "", "SearchBot", ("/", True)),
    *checks("comments-only", "# nothing here\n\n#\n", "SearchBot", ("/", True)),
]

# --- Paths and patterns ---------------------------------------------------------------

PATTERN_CASES = [
    *checks(
        "url-forms",
        "User-agent: *\nDisallow: /a\nDisallow: /$\n",
        "SearchBot",
        ("http://example.com/a/b?c#d", False),
        ("HTTPS://Example.com:8443/a", False),
        ("//example.com/a", False),
        ("http://example.com", False),  # the path is "/"
        ("http://example.com?x=1", True),
        ("http://example.com/#/a", False),
        ("/b#/a", True),
        ("", False),
        ("a", False),  # a relative path, read from the root
    ),
    *checks(
        "query",
        "User-agent: *\nDisallow: /*?\nAllow: /*?page=\n",
        "SearchBot",
        ("/a", True),
        ("/a?", False),
        ("/a?b=1", False),
        ("/a?page=2", True),
        ("/a%3Fb", True),  # an escaped "?" is part of the path
    ),
    *checks(
        "reserved-escapes",
        "User-agent: *\nDisallow: /a%3Db\nDisallow: /q?x%26y\n",
        "SearchBot",
        ("/a=b", True),
        ("/a%3db", False),
        ("/q?x&y", True),
        ("/q?x%26y", False),
    ),
    *checks(
        "path-escapes",
        "User-agent: *\nDisallow: /a%20b\nDisallow: /caf%C3%A9\nDisallow: /100%\n",
        "SearchBot",
        ("/a b", False),
        ("/a%20b", False),
        ("/caf\u00e9", False),
        ("/caf%c3%a9/menu", False),
        ("/100%25", False),
        ("/100%", False),
    ),
    *checks(
        "wildcards",
        "User-agent: *\nDisallow: /fish*.php\nDisallow: /*.pdf$\nDisallow: /**/print\n",
        "SearchBot",
        ("/fish.php", False),
        ("/fishheads/catfish.php?parameters", False),
        ("/Fish.PHP", True),
        ("/fish", True),
        ("/doc.pdf", False),
        ("/doc.pdf?download=1", True),
        ("/doc.pdf.html", True),
        ("/a/b/print", False),
        ("/print", True),
    ),
    *checks(
        "star-everything",
        "User-agent: *\nDisallow: *\nAllow: /ok\n",
        "SearchBot",
        ("/", False),
        ("/ok/x", True),
    ),
    *checks(
        "dollar-literal-inside",
        "User-agent: *\nDisallow: /a$b\nDisallow: /c$\n",
        "SearchBot",
        ("/a$b", False),
        ("/a%24b", False),
        ("/c", False),
        ("/c$", True),
        ("/cd", True),
    ),
    *checks(
        "star-then-anchor",
        "User-agent: *\nDisallow: /*/exactly$\nAllow: /x\n",
        "SearchBot",
        ("/a/b/exactly", False),
        ("/a/exactly/no", True),
        ("/x/exactly", False),  # "/*/exactly$" (11) beats "/x" (2)
    ),
    *checks(
        "absolute-url-rule",
        "User-agent: *\nDisallow: http://example.com/private\n",
        "SearchBot",
        ("/private/a", False),
        ("/public", True),
    ),
    *checks(
        "no-index-html-extension",
        "User-agent: *\nDisallow: /\nAllow: /d/index.html\n",
        "SearchBot",
        ("/d/index.html", True),
        ("/d/", False),  # RFC 9309 has no implicit "/d/" (Protego and Google do)
    ),
]

ALL_CASES = RFC_CASES + SEED_CASES + GROUP_CASES + PATTERN_CASES


@pytest.mark.parametrize("robots_txt, user_agent, url, expected", ALL_CASES)
def test_allowed(robots_txt: str, user_agent: str, url: str, expected: bool) -> None:
    assert allowed(robots_txt, user_agent, url) is expected


@pytest.mark.parametrize("robots_txt, user_agent, url, expected", ALL_CASES)
def test_bytes_parse_as_text(robots_txt: str, user_agent: str, url: str, expected: bool) -> None:
    rules = RobotsRules.parse(robots_txt.encode("utf-8"), user_agent)
    assert rules.allowed(url) is expected


def test_the_table_is_large_enough() -> None:
    assert len(ALL_CASES) >= 100
    ids = [case.id for case in ALL_CASES]
    assert len(ids) == len(set(ids))


# --- The 500 KiB limit, bytes and the BOM ---------------------------------------------


@pytest.mark.parametrize(
    "robots_txt, expected",
    [
        pytest.param(
            "User-agent: *\nDisallow: /a\n" + "#" * MAX_ROBOTS_BYTES + "\nDisallow: /b\n",
            {"/a": False, "/b": True},
            id="rule-after-limit-ignored",
        ),
        pytest.param(
            "User-agent: *\n" + "# x\n" * ((MAX_ROBOTS_BYTES - 40) // 4) + "Disallow: /b\n",
            {"/b": False},
            id="rule-just-inside-limit",
        ),
        pytest.param(
            "User-agent: *\n" + "#" * (MAX_ROBOTS_BYTES - 30) + "\nDisallow: /private\n",
            {"/priv": True, "/private": True},
            id="line-cut-by-limit-dropped",
        ),
        pytest.param(
            "User-agent: *\nDisallow: /a\n# " + "\u00e9" * MAX_ROBOTS_BYTES + "\nDisallow: /b\n",
            {"/a": False, "/b": True},
            id="limit-counts-bytes-not-characters",
        ),
    ],
)
def test_size_limit(robots_txt: str, expected: dict[str, bool]) -> None:
    for body in (robots_txt, robots_txt.encode("utf-8")):
        rules = RobotsRules.parse(body, "SearchBot")
        assert {url: rules.allowed(url) for url in expected} == expected


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"\xef\xbb\xbfUser-agent: *\nDisallow: /\n", id="utf8-bom"),
        pytest.param(b"User-agent: *\nDisallow: /\n# caf\xe9\n", id="latin1-comment"),
        pytest.param(b"User-agent: *\r\nDisallow: /\r\n", id="crlf"),
        pytest.param(bytearray(b"User-agent: *\nDisallow: /\n"), id="bytearray"),
    ],
)
def test_bytes(body: bytes) -> None:
    assert RobotsRules.parse(body, "SearchBot").allowed("/x") is False


def test_bad_utf8_in_a_path_is_replaced_not_fatal() -> None:
    rules = RobotsRules.parse(b"User-agent: *\nDisallow: /a\xff\nDisallow: /b\n", "SearchBot")
    assert rules.allowed("/a\ufffd") is False
    assert rules.allowed("/b") is False


# --- The RobotsRules object -----------------------------------------------------------


def test_allow_all_and_disallow_all() -> None:
    assert RobotsRules.allow_all().allowed("/anything") is True
    assert RobotsRules.allow_all().rules == ()
    everything = RobotsRules.disallow_all()
    assert everything.allowed("/") is False
    assert everything.allowed("http://a.com/x?y") is False
    assert everything.allowed("/robots.txt") is True
    assert everything.crawl_delay is None and everything.sitemaps == []


def test_rules_are_normalized_deduplicated_and_best_first() -> None:
    rules = RobotsRules.parse(
        "User-agent: *\nDisallow: /a\nDisallow: /%61\nAllow: /a\nDisallow: /b*$\nDisallow: /cccc\n",
        "x",
    )
    assert rules.rules == (
        Rule(allow=False, pattern="/cccc"),
        Rule(allow=False, pattern="/b*$"),
        Rule(allow=True, pattern="/a"),
        Rule(allow=False, pattern="/a"),
    )
    assert rules.decisive_rule("/a/x") == Rule(True, "/a")
    assert rules.decisive_rule("/zzz") is None
    assert rules.decisive_rule("/robots.txt") is None


def test_equal_rules_compare_equal_and_objects_are_read_only() -> None:
    first = RobotsRules.parse("User-agent: *\nDisallow: /a\nDisallow: /b\n", "x")
    second = RobotsRules.parse("User-agent: x\nDisallow: /b\n\nUser-agent: x\nDisallow: /a", "x")
    assert first == second and hash(first) == hash(second)
    assert first != RobotsRules.allow_all()
    with pytest.raises(AttributeError):
        first.crawl_delay = 5  # type: ignore[misc]
    first.sitemaps.append("https://evil.example/")
    assert first.sitemaps == []


def test_the_constructor_normalizes_rules() -> None:
    rules = RobotsRules([Rule(False, "private/%7e"), Rule(False, "?junk"), Rule(True, "")])
    assert rules.rules == (Rule(False, "/private/~"),)


def test_many_rules_are_matched_like_few() -> None:
    """Past the chunk size and the quick-reject limit the answers stay the same."""
    lines = ["User-agent: *"]
    for i in range(300):
        lines.append(f"Disallow: /plain/{i}/")
        lines.append(f"Disallow: /wild/*/{i}$")
        lines.append(f"Allow: /plain/{i}/open")
    rules = RobotsRules.parse("\n".join(lines), "x")
    assert rules.allowed("/plain/7/x") is False
    assert rules.allowed("/plain/7/open") is True
    assert rules.allowed("/plain/300/x") is True
    assert rules.allowed("/wild/a/b/299") is False
    assert rules.allowed("/wild/a/b/299/") is True
    assert rules.allowed("/other") is True


def _reference_allowed(rules: tuple[Rule, ...], path: str) -> bool:
    """RFC 9309 2.2.2 read literally: try every rule, keep the longest, Allow on a tie."""
    best: Rule | None = None
    for rule in rules:
        anchored = rule.pattern.endswith("$")
        body = rule.pattern[:-1] if anchored else rule.pattern
        regex = ".*".join(map(re.escape, body.split("*"))) + (r"\Z" if anchored else "")
        if re.match(regex, path, re.DOTALL) and (
            best is None or (rule.priority, rule.allow) > (best.priority, best.allow)
        ):
            best = rule
    return best is None or best.allow


_rule_sets = st.lists(
    st.builds(
        Rule,
        st.booleans(),
        st.builds(
            lambda path, anchor: "/" + path + anchor,
            st.text("ab/*", min_size=1, max_size=6),
            st.sampled_from(["", "$"]),
        ),
    ),
    max_size=40,
)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(_rule_sets, st.text("ab/", max_size=10).map(lambda p: "/" + p))
def test_indexes_find_the_rule_a_linear_scan_finds(rules: list[Rule], path: str) -> None:
    """Small chunks and a small quick-reject limit, so every index is exercised."""
    with mock.patch.object(robots, "_CHUNK", 3), mock.patch.object(robots, "_QUICK_REJECT", 4):
        compiled = RobotsRules(rules)
    # a full URL, since a bare "//a" would be a scheme-relative URL
    expected = _reference_allowed(compiled.rules, path)
    assert compiled.allowed("http://example.com" + path) is expected


def test_wildcards_do_not_backtrack_exponentially() -> None:
    rules = RobotsRules.parse("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*b\n", "x")
    start = time.perf_counter()
    assert rules.allowed("/" + "a" * 5000) is True
    assert rules.allowed("/" + "a" * 5000 + "b") is False
    assert time.perf_counter() - start < 0.5


# --- Crawl-delay and sitemaps ---------------------------------------------------------


@pytest.mark.parametrize(
    "robots_txt, user_agent, expected",
    [
        pytest.param("User-agent: *\nCrawl-delay: 2.5\n", "x", 2.5, id="decimal"),
        pytest.param("User-agent: *\nCrawl-delay: 10\n", "x", 10.0, id="integer"),
        pytest.param("User-agent: *\nCrawl-delay: .5\n", "x", 0.5, id="leading-dot"),
        pytest.param("User-agent: *\nCrawl-delay: 0\n", "x", 0.0, id="zero"),
        pytest.param("User-agent: *\nCrawl-delay: 10 seconds\n", "x", 10.0, id="unit-word"),
        pytest.param("User-agent: *\nCrawl-delay: 3 # be nice\n", "x", 3.0, id="comment"),
        pytest.param("User-agent: *\nCRAWL-DELAY: 4\n", "x", 4.0, id="upper-case"),
        pytest.param("User-agent: *\nCrawl-delay: -1\n", "x", None, id="negative"),
        pytest.param("User-agent: *\nCrawl-delay: soon\n", "x", None, id="junk"),
        pytest.param("User-agent: *\nCrawl-delay: 1e3\n", "x", None, id="exponent"),
        pytest.param("User-agent: *\nCrawl-delay: 1_0\n", "x", None, id="underscore"),
        pytest.param("User-agent: *\nCrawl-delay: nan\n", "x", None, id="nan"),
        pytest.param("User-agent: *\nCrawl-delay: inf\n", "x", None, id="inf"),
        pytest.param("User-agent: *\nCrawl-delay: " + "9" * 400 + "\n", "x", None, id="overflow"),
        pytest.param("User-agent: *\nCrawl-delay:\n", "x", None, id="empty"),
        pytest.param("User-agent: *\nDisallow: /\n", "x", None, id="absent"),
        pytest.param("Crawl-delay: 5\nUser-agent: *\n", "x", None, id="outside-any-group"),
        pytest.param(
            "User-agent: *\nCrawl-delay: 1\n\nUser-agent: FooBot\nCrawl-delay: 7\n",
            "FooBot/1.0",
            7.0,
            id="own-group",
        ),
        pytest.param(
            "User-agent: *\nCrawl-delay: 1\n\nUser-agent: FooBot\nCrawl-delay: 7\n",
            "BarBot",
            1.0,
            id="star-group",
        ),
        pytest.param(
            "User-agent: FooBot\nCrawl-delay: 2\n\nUser-agent: FooBot\nCrawl-delay: 5\n",
            "FooBot",
            5.0,
            id="merged-groups-take-the-largest",
        ),
        pytest.param(
            "User-agent: a\nCrawl-delay: 3\nUser-agent: b\nDisallow: /x\n",
            "a",
            3.0,
            id="delay-between-agents-is-for-the-agents-above",
        ),
        pytest.param(
            "User-agent: a\nCrawl-delay: 3\nUser-agent: b\nDisallow: /x\n",
            "b",
            None,
            id="delay-between-agents-is-not-for-the-agents-below",
        ),
        pytest.param(
            "User-agent: a\nUser-agent: b\nDisallow: /x\nCrawl-delay: 4\n",
            "b",
            4.0,
            id="delay-after-rules-is-for-the-group",
        ),
        pytest.param(
            "User-agent: *\nDisallow: /cache/\n\nUser-agent: bingbot\nCrawl-delay: 30\n\n"
            "User-agent: AhrefsBot\nDisallow: /\n",
            "AhrefsBot",
            None,
            id="crawl-delay-only-group-then-a-disallowed-bot",
        ),
        pytest.param("User-agent: *\nCrawl-delay: 1,5\n", "x", None, id="comma"),
    ],
)
def test_crawl_delay(robots_txt: str, user_agent: str, expected: float | None) -> None:
    assert RobotsRules.parse(robots_txt, user_agent).crawl_delay == expected


@pytest.mark.parametrize(
    "robots_txt, expected",
    [
        pytest.param(
            "Sitemap: https://a.com/s.xml\nUser-agent: *\nDisallow: /\nsitemap: http://a.com/t.xml\n",
            ["https://a.com/s.xml", "http://a.com/t.xml"],
            id="anywhere-any-case",
        ),
        pytest.param("Sitemap: /sitemap.xml\n", [], id="relative-dropped"),
        pytest.param("Sitemap: ftp://a.com/s.xml\n", [], id="other-scheme-dropped"),
        pytest.param("Sitemap https://a.com/s.xml\n", ["https://a.com/s.xml"], id="no-colon"),
        pytest.param(
            "Sitemap: https://a.com/1.xml https://a.com/2.xml\n",
            ["https://a.com/1.xml", "https://a.com/2.xml"],
            id="two-on-a-line",
        ),
        pytest.param(
            "Sitemap: https://a.com/s.xml\nSitemap: https://a.com/s.xml\n",
            ["https://a.com/s.xml"],
            id="repeats-dropped",
        ),
        pytest.param("Site-map: https://a.com/s.xml\n", ["https://a.com/s.xml"], id="misspelled"),
        pytest.param("Sitemap: https://a.com/s.xml # x\n", ["https://a.com/s.xml"], id="comment"),
        pytest.param("Sitemap:\n", [], id="empty"),
        pytest.param(
            "User-agent: OtherBot\nSitemap: https://a.com/o.xml\n",
            ["https://a.com/o.xml"],
            id="in-another-agents-group",
        ),
        pytest.param("<html>Sitemap: https://a.com/s.xml</html>", [], id="html-page"),
    ],
)
def test_sitemaps(robots_txt: str, expected: list[str]) -> None:
    assert RobotsRules.parse(robots_txt, "SearchBot").sitemaps == expected


# --- Fetch outcomes -------------------------------------------------------------------


@pytest.mark.parametrize(
    "status, policy, expected",
    [
        (200, "disallow", Outcome.PARSE),
        (203, "disallow", Outcome.PARSE),
        (204, "disallow", Outcome.PARSE),
        (299, "disallow", Outcome.PARSE),
        (301, "disallow", Outcome.ALLOW_ALL),
        (302, "disallow", Outcome.ALLOW_ALL),
        (308, "disallow", Outcome.ALLOW_ALL),
        (400, "disallow", Outcome.ALLOW_ALL),
        (401, "disallow", Outcome.DISALLOW_ALL),
        (403, "disallow", Outcome.DISALLOW_ALL),
        (404, "disallow", Outcome.ALLOW_ALL),
        (410, "disallow", Outcome.ALLOW_ALL),
        (418, "disallow", Outcome.ALLOW_ALL),
        (451, "disallow", Outcome.ALLOW_ALL),
        (429, "disallow", Outcome.RETRY),
        (500, "disallow", Outcome.RETRY),
        (502, "disallow", Outcome.RETRY),
        (503, "disallow", Outcome.RETRY),
        (599, "disallow", Outcome.RETRY),
        (None, "disallow", Outcome.RETRY),
        (100, "disallow", Outcome.RETRY),
        (0, "disallow", Outcome.RETRY),
        (600, "disallow", Outcome.RETRY),
        (200, "allow", Outcome.PARSE),
        (401, "allow", Outcome.ALLOW_ALL),
        (403, "allow", Outcome.ALLOW_ALL),
        (404, "allow", Outcome.ALLOW_ALL),
        (429, "allow", Outcome.RETRY),
        (503, "allow", Outcome.RETRY),
        (None, "allow", Outcome.RETRY),
    ],
    ids=lambda value: str(value),
)
def test_outcome(status: int | None, policy: str, expected: Outcome) -> None:
    assert outcome(status, policy) is expected


def test_outcome_defaults_to_the_seeds_rule_and_refuses_unknown_policies() -> None:
    assert outcome(403) is Outcome.DISALLOW_ALL
    with pytest.raises(ValueError, match="policy_4xx"):
        outcome(403, "deny")


ROBOTS_BODY = b"User-agent: *\nDisallow: /private/\n"
HTML_PAGE = b"<!DOCTYPE html>\n<html><head><title>Not found</title></head><body>Oops</body></html>"


@pytest.mark.parametrize(
    "body, content_type, expected",
    [
        pytest.param(ROBOTS_BODY, "text/plain", True, id="text-plain"),
        pytest.param(ROBOTS_BODY, "text/plain; charset=utf-8", True, id="charset"),
        pytest.param(ROBOTS_BODY, None, True, id="no-type"),
        pytest.param(ROBOTS_BODY, "application/octet-stream", True, id="octet-stream"),
        pytest.param(b"", "text/plain", True, id="empty"),
        pytest.param(b"\xef\xbb\xbf" + ROBOTS_BODY, "text/plain", True, id="bom"),
        pytest.param(b"# \xd6\xd0\xce\xc4 (GBK)\n" + ROBOTS_BODY, "text/plain", True, id="gbk-comment"),
        pytest.param(b"# <html> docs\n" + ROBOTS_BODY, "text/plain", True, id="tag-in-comment"),
        pytest.param(HTML_PAGE, "text/html", False, id="html"),
        pytest.param(HTML_PAGE, "text/plain", False, id="html-as-text-plain"),
        pytest.param(HTML_PAGE, None, False, id="html-no-type"),
        pytest.param(b"\n\n   <html><body>x</body></html>", None, False, id="html-after-space"),
        pytest.param(b"<?xml version='1.0'?><error/>", "text/plain", False, id="xml"),
        pytest.param(b"User-agent: *\nDisallow: /\n<body>hello</body>", "text/plain", False, id="body-tag"),
        pytest.param(b"\xef\xbb\xbf<!doctype html><p>User-agent: *", "text/plain", False, id="bom-html"),
        pytest.param(ROBOTS_BODY, "text/html", True, id="robots-sent-as-html"),
        pytest.param(ROBOTS_BODY, "TEXT/HTML; charset=UTF-8", True, id="robots-sent-as-HTML"),
        pytest.param(b"\xef\xbb\xbfUser-agent: *\nDisallow: /\n", "text/html", True, id="robots-html-bom"),
        pytest.param(b"Hello, world.\n", "text/html", False, id="html-type-no-agent"),
        pytest.param(ROBOTS_BODY, "application/xhtml+xml", True, id="robots-sent-as-xhtml"),
        pytest.param(b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4, None, False, id="gzip"),
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png", False, id="png"),
        pytest.param(ROBOTS_BODY.decode().encode("utf-16"), "text/plain", False, id="utf-16"),
        pytest.param(b"User-agent: *\x00\nDisallow: /\n", "text/plain", False, id="nul"),
        pytest.param(bytes([1, 2, 3, 4, 5, 6]) * 10 + ROBOTS_BODY, None, False, id="controls"),
    ],
)
def test_looks_like_robots(body: bytes, content_type: str | None, expected: bool) -> None:
    assert looks_like_robots(body, content_type) is expected


# --- Cache expiry ---------------------------------------------------------------------

NOW = 1_700_000_000.0


def http_date(timestamp: float) -> str:
    return formatdate(timestamp, usegmt=True)


@pytest.mark.parametrize(
    "headers, kwargs, expected",
    [
        pytest.param({}, {}, 86400.0, id="nothing-default"),
        pytest.param({}, {"default": 3600}, 3600.0, id="custom-default"),
        pytest.param({}, {"default": 10}, MIN_EXPIRY_SECONDS, id="default-raised-to-minimum"),
        pytest.param({}, {"default": 100000}, 86400.0, id="default-capped"),
        pytest.param({"Cache-Control": "max-age=3600"}, {}, 3600.0, id="max-age"),
        pytest.param({"cache-control": "public, max-age=7200"}, {}, 7200.0, id="lower-case-name"),
        pytest.param({"CACHE-CONTROL": "Max-Age=7200"}, {}, 7200.0, id="upper-case"),
        pytest.param({"Cache-Control": 'max-age="600"'}, {}, 600.0, id="quoted"),
        pytest.param({"Cache-Control": "max-age=604800"}, {}, 86400.0, id="capped-at-24h"),
        pytest.param({"Cache-Control": "max-age=604800"}, {"maximum": 3600}, 3600.0, id="custom-maximum"),
        pytest.param({"Cache-Control": "max-age=0"}, {}, MIN_EXPIRY_SECONDS, id="max-age-zero"),
        pytest.param({"Cache-Control": "max-age=10"}, {}, MIN_EXPIRY_SECONDS, id="below-minimum"),
        pytest.param({"Cache-Control": "max-age=soon"}, {}, MIN_EXPIRY_SECONDS, id="max-age-junk"),
        pytest.param({"Cache-Control": "max-age=-5"}, {}, MIN_EXPIRY_SECONDS, id="negative"),
        pytest.param({"Cache-Control": "max-age=600, s-maxage=1200"}, {}, 1200.0, id="s-maxage-first"),
        pytest.param({"Cache-Control": "no-cache"}, {}, MIN_EXPIRY_SECONDS, id="no-cache"),
        pytest.param({"Cache-Control": "no-store, max-age=3600"}, {}, MIN_EXPIRY_SECONDS, id="no-store"),
        pytest.param(
            {"Cache-Control": 'no-cache="Set-Cookie", max-age=3600'},
            {},
            3600.0,
            id="qualified-no-cache",
        ),
        pytest.param({"Cache-Control": "max-age=3600", "Age": "1000"}, {}, 2600.0, id="age-subtracted"),
        pytest.param({"Cache-Control": "max-age=3600", "Age": "junk"}, {}, 3600.0, id="age-junk-ignored"),
        pytest.param({"Expires": http_date(NOW + 7200), "Date": http_date(NOW)}, {}, 7200.0, id="expires"),
        pytest.param(
            {"Expires": http_date(NOW + 7200), "Date": http_date(NOW - 1000)},
            {},
            8200.0,
            id="expires-relative-to-date",
        ),
        pytest.param({"Expires": http_date(NOW + 7200)}, {}, 7200.0, id="expires-without-date"),
        pytest.param(
            {"Expires": http_date(NOW + 7200), "Date": "garbage"},
            {},
            7200.0,
            id="expires-bad-date",
        ),
        pytest.param(
            {"Expires": "Sunday, 06-Nov-94 08:49:37 GMT", "Date": "Sun Nov  6 07:49:37 1994"},
            {},
            3600.0,
            id="obsolete-date-formats",
        ),
        pytest.param({"Expires": http_date(NOW - 60)}, {}, MIN_EXPIRY_SECONDS, id="expired"),
        pytest.param({"Expires": "0"}, {}, MIN_EXPIRY_SECONDS, id="expires-invalid"),
        pytest.param(
            {"Expires": http_date(NOW + 10**6), "Date": http_date(NOW)},
            {},
            86400.0,
            id="expires-capped",
        ),
        pytest.param(
            {"Cache-Control": "max-age=600", "Expires": http_date(NOW + 7200)},
            {},
            600.0,
            id="max-age-beats-expires",
        ),
        pytest.param(
            {"Cache-Control": "public", "Expires": http_date(NOW + 7200)},
            {},
            7200.0,
            id="other-directives-ignored",
        ),
        pytest.param({}, {"maximum": 30}, 30.0, id="maximum-below-minimum"),
    ],
)
def test_expiry_seconds(headers: dict[str, str], kwargs: dict, expected: float) -> None:
    result = expiry_seconds(headers, now=NOW, **kwargs)
    assert result == expected
    assert isinstance(result, float)


# --- Protego: where it is right we agree, where it is wrong we differ -----------------

# (robots.txt, user agent, url, what Protego 0.7.0 says, what RFC 9309 says)
PROTEGO_GAPS = [
    pytest.param("User-agent: FooBot\nDisallow: /\n", "FooBot-News/1.0", "/x", False, True,
                 id="agent-prefix-is-not-the-token"),
    pytest.param("User-agent: foo\nDisallow: /\n", "Foo_Bar", "/x", False, True,
                 id="agent-underscore-is-part-of-the-token"),
    pytest.param("\ufeffUser-agent: *\nDisallow: /\n", "x", "/x", True, False, id="bom"),
    pytest.param("User-agent: FooBot\nFoo: bar\nUser-agent: *\nDisallow: /\n", "FooBot", "/x",
                 True, False, id="unknown-line-splits-group"),
    pytest.param("User-agent: FooBot\nCrawl-delay: 5\nUser-agent: *\nDisallow: /\n", "FooBot",
                 "/x", True, False, id="crawl-delay-splits-group"),
    pytest.param("User-agent: *\nDisallow: /a%3Db\n", "x", "/a=b", False, True,
                 id="reserved-escape-decoded"),
    pytest.param("User-agent: *\nDisallow: /a%3Fb\n", "x", "/a?b", False, True,
                 id="escaped-question-mark-is-a-query"),
    pytest.param("User-agent: *\nDisallow: /foo/bar?baz=https://foo.bar\n", "x",
                 "/foo/bar?baz=https%3A%2F%2Ffoo.bar", True, False, id="rfc-figure-4-row-2"),
    pytest.param("User-agent: *\nDisallow: /a$\n", "x", "/a$b", False, True,
                 id="dollar-anchor-also-literal"),
    pytest.param("User-agent: *\nDisallow: /\nAllow: /d/index.html\n", "x", "/d/", True, False,
                 id="index-html-allows-directory"),
    pytest.param("User-agent: *\nDisallow: /a /b\n", "x", "/b", True, False,
                 id="several-paths-on-a-line"),
    pytest.param("User-agent: *\nDisallow: private/\n", "x", "/private/x", True, False,
                 id="missing-slash"),
    pytest.param("User-agent: *\nDisallow: /*?\nAllow: /*$\n", "x", "/?", False, True,
                 id="length-counted-with-question-mark-escaped"),
]  # fmt: skip


@pytest.mark.parametrize("robots_txt, user_agent, url, protego_says, rfc_says", PROTEGO_GAPS)
def test_protego_gaps_are_fixed(robots_txt: str, user_agent: str, url: str, protego_says: bool, rfc_says: bool) -> None:
    """Each gap ARCHITECTURE.md lists ("Known pitfalls", Protego), as measured
    on the pinned Protego. If Protego's answer changes after an upgrade, its
    gap list needs a look."""
    assert Protego.parse(robots_txt).can_fetch(url, user_agent) is protego_says
    assert allowed(robots_txt, user_agent, url) is rfc_says


# Inputs on which RFC 9309 and Protego agree: one * group, paths of letters,
# "/", "?", "=" and "." (no escapes, no "$" inside, no index.html), and no "?"
# in rules (Protego measures a rule's length with "?" escaped to "%3F").
_paths = st.text("ab/?=.", max_size=8).map(lambda p: "/" + p)
_patterns = st.builds(
    lambda path, star, anchor: path + star + anchor,
    st.text("ab/=.", max_size=5).map(lambda p: "/" + p),
    st.sampled_from(["", "*", "*a", "*.b", "*="]),
    st.sampled_from(["", "$"]),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), _patterns), max_size=6), _paths)
def test_agrees_with_protego_where_protego_is_right(rules: list[tuple[bool, str]], path: str) -> None:
    robots_txt = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules
    )
    expected = Protego.parse(robots_txt).can_fetch(path, "SearchBot")
    assert allowed(robots_txt, "SearchBot", path) is expected


# --- Robustness -----------------------------------------------------------------------

_robots_lines = st.lists(
    st.one_of(
        st.text(max_size=40),
        st.builds(
            lambda field, value: f"{field}:{value}",
            st.sampled_from(["User-agent", "Allow", "Disallow", "Crawl-delay", "Sitemap", "Host"]),
            st.text(max_size=30),
        ),
    ),
    max_size=15,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(_robots_lines, st.binary(max_size=300)),
    st.text(max_size=20),
    st.lists(st.text(max_size=40), max_size=5),
)
@pytest.mark.slow
def test_never_raises(robots_txt: str | bytes, user_agent: str, urls: list[str]) -> None:
    rules = RobotsRules.parse(robots_txt, user_agent)
    for url in urls + ["/", "/robots.txt"]:
        assert isinstance(rules.allowed(url), bool)
        assert rules.decisive_rule(url) is None or isinstance(rules.decisive_rule(url), Rule)
    assert rules.crawl_delay is None or rules.crawl_delay >= 0
    if isinstance(robots_txt, bytes):
        assert isinstance(looks_like_robots(robots_txt, None), bool)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(_robots_lines, st.text(max_size=30))
def test_a_url_and_its_path_get_the_same_answer(robots_txt: str, path: str) -> None:
    rules = RobotsRules.parse(robots_txt, "SearchBot")
    path = "/" + path.replace("#", "")
    assert rules.allowed("https://example.com" + path) is rules.allowed(path)


def _spelled_as_rule(path: str) -> str:
    """``path`` as a robots.txt rule would spell it: the characters a rule
    cannot hold raw (whitespace, ``#``, ``*``, ``$``) escaped."""
    return "".join(
        "".join(f"%{b:02X}" for b in char.encode("utf-8", "surrogatepass")) if char.isspace() or char in "#*$" else char
        for char in path
    )


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20).map(lambda p: "/" + p.replace("#", "").lstrip("/")))
@example("/<HTML>")  # a path that holds a tag's name is a rule, not an HTML page
@example("/a/<body/x")
def test_a_rule_spelled_like_the_url_matches_it(path: str) -> None:
    """Both sides are normalized alike, whatever the escapes, case or script."""
    rules = RobotsRules.parse(f"User-agent: *\nDisallow: {_spelled_as_rule(path)}\n", "x")
    assert rules.allowed(path) is (robots._request_target(path) == "/robots.txt")


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(_robots_lines)
def test_str_and_utf8_bytes_parse_alike(robots_txt: str) -> None:
    text = robots_txt.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    assert RobotsRules.parse(text, "x") == RobotsRules.parse(text.encode("utf-8"), "x")


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=15), st.text(max_size=40), max_size=6), st.floats(0, 2e9))
def test_expiry_is_always_within_bounds(headers: dict[str, str], now: float) -> None:
    assert MIN_EXPIRY_SECONDS <= expiry_seconds(headers, now) <= 86400
