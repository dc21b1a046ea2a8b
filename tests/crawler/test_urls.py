"""Tests for crawler.urls: canonical URLs, fingerprints and trap shapes."""

from __future__ import annotations

import datetime
import doctest
import hashlib
import ipaddress
from urllib.parse import urlsplit

import idna
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from crawler import urls
from crawler.urls import TrapRules, UrlPolicy, canonicalize, fingerprint, trap_reason

RFC_BASE = "http://a/b/c/d;p?q"

# RFC 3986 5.4.1 and 5.4.2: (reference, resolved as the RFC says, canonical).
# None as the canonical form means canonicalize() refuses it.
RFC_EXAMPLES = [
    # 5.4.1 normal examples
    ("g:h", "g:h", "g:h"),
    ("g", "http://a/b/c/g", "http://a/b/c/g"),
    ("./g", "http://a/b/c/g", "http://a/b/c/g"),
    ("g/", "http://a/b/c/g/", "http://a/b/c/g/"),
    ("/g", "http://a/g", "http://a/g"),
    ("//g", "http://g", "http://g/"),
    ("?y", "http://a/b/c/d;p?y", "http://a/b/c/d;p?y"),
    ("g?y", "http://a/b/c/g?y", "http://a/b/c/g?y"),
    ("#s", "http://a/b/c/d;p?q#s", "http://a/b/c/d;p?q"),
    ("g#s", "http://a/b/c/g#s", "http://a/b/c/g"),
    ("g?y#s", "http://a/b/c/g?y#s", "http://a/b/c/g?y"),
    (";x", "http://a/b/c/;x", "http://a/b/c/;x"),
    ("g;x", "http://a/b/c/g;x", "http://a/b/c/g;x"),
    ("g;x?y#s", "http://a/b/c/g;x?y#s", "http://a/b/c/g;x?y"),
    ("", "http://a/b/c/d;p?q", "http://a/b/c/d;p?q"),
    (".", "http://a/b/c/", "http://a/b/c/"),
    ("./", "http://a/b/c/", "http://a/b/c/"),
    ("..", "http://a/b/", "http://a/b/"),
    ("../", "http://a/b/", "http://a/b/"),
    ("../g", "http://a/b/g", "http://a/b/g"),
    ("../..", "http://a/", "http://a/"),
    ("../../", "http://a/", "http://a/"),
    ("../../g", "http://a/g", "http://a/g"),
    # 5.4.2 abnormal examples
    ("../../../g", "http://a/g", "http://a/g"),
    ("../../../../g", "http://a/g", "http://a/g"),
    ("/./g", "http://a/g", "http://a/g"),
    ("/../g", "http://a/g", "http://a/g"),
    ("g.", "http://a/b/c/g.", "http://a/b/c/g."),
    (".g", "http://a/b/c/.g", "http://a/b/c/.g"),
    ("g..", "http://a/b/c/g..", "http://a/b/c/g.."),
    ("..g", "http://a/b/c/..g", "http://a/b/c/..g"),
    ("./../g", "http://a/b/g", "http://a/b/g"),
    ("./g/.", "http://a/b/c/g/", "http://a/b/c/g/"),
    ("g/./h", "http://a/b/c/g/h", "http://a/b/c/g/h"),
    ("g/../h", "http://a/b/c/h", "http://a/b/c/h"),
    ("g;x=1/./y", "http://a/b/c/g;x=1/y", "http://a/b/c/g;x=1/y"),
    ("g;x=1/../y", "http://a/b/c/y", "http://a/b/c/y"),
    ("g?y/./x", "http://a/b/c/g?y/./x", "http://a/b/c/g?y/./x"),
    ("g?y/../x", "http://a/b/c/g?y/../x", "http://a/b/c/g?y/../x"),
    ("g#s/./x", "http://a/b/c/g#s/./x", "http://a/b/c/g"),
    ("g#s/../x", "http://a/b/c/g#s/../x", "http://a/b/c/g"),
    # strict parser: urljoin gives the "backward compatible" http://a/b/c/g;
    # the strict result has no host, so it is not a URL we can crawl
    ("http:g", "http:g", None),
]


def _unsplit_with_fragment(parts: tuple) -> str:
    scheme, authority, path, query, fragment = parts
    return urls._unsplit(scheme, authority, path, query) + ("" if fragment is None else "#" + fragment)


@pytest.mark.parametrize(("ref", "resolved", "_"), RFC_EXAMPLES, ids=lambda v: repr(v))
def test_resolution_follows_rfc3986_examples(ref, resolved, _):
    parts = urls._resolve(urls._split(RFC_BASE), urls._split(ref))
    assert _unsplit_with_fragment(parts) == resolved


@pytest.mark.parametrize(("ref", "_", "canonical"), RFC_EXAMPLES, ids=lambda v: repr(v))
def test_canonicalize_resolves_rfc3986_examples(ref, _, canonical):
    if canonical is None:
        with pytest.raises(ValueError, match="without a host"):
            canonicalize(ref, base=RFC_BASE)
    else:
        assert canonicalize(ref, base=RFC_BASE) == canonical


CANONICAL = [
    # scheme, host, port
    ("HTTP://Example.COM/", "http://example.com/", "case-scheme-host"),
    ("http://example.com:80/", "http://example.com/", "default-port-http"),
    ("https://example.com:443/", "https://example.com/", "default-port-https"),
    ("http://example.com:443/", "http://example.com:443/", "https-port-on-http"),
    ("https://example.com:80/", "https://example.com:80/", "http-port-on-https"),
    ("http://example.com:/", "http://example.com/", "empty-port"),
    ("http://example.com:0080/", "http://example.com/", "port-leading-zeros"),
    ("http://example.com:8080", "http://example.com:8080/", "other-port"),
    ("http://example.com./a", "http://example.com/a", "trailing-dot"),
    ("http://example.com", "http://example.com/", "empty-path"),
    ("http://example.com?x=1", "http://example.com/?x=1", "empty-path-with-query"),
    ("http://User:PaSS@Example.com/", "http://example.com/", "userinfo-dropped"),
    ("http://www.google.com@evil.test/", "http://evil.test/", "userinfo-posing-as-host"),
    ("http://@a.com/", "http://a.com/", "empty-userinfo"),
    ("http://%61.com/", "http://a.com/", "escaped-host"),
    # IDN under UTS 46 non-transitional
    ("http://faß.de/", "http://xn--fa-hia.de/", "idn-sharp-s"),
    ("http://BÜCHER.example/", "http://xn--bcher-kva.example/", "idn-upper-case"),
    ("http://ﬁle.example/", "http://file.example/", "idn-compatibility-ligature"),
    ("http://ｅｘａｍｐｌｅ．com/", "http://example.com/", "idn-fullwidth"),
    ("http://例え.テスト/", "http://xn--r8jz45g.xn--zckzah/", "idn-japanese"),
    ("http://b%C3%BCcher.example/", "http://xn--bcher-kva.example/", "idn-escaped"),
    ("http://💩.la/", "http://%F0%9F%92%A9.la/", "idn-invalid-falls-back"),
    ("http://My_Host.ü/", "http://my_host.%C3%BC/", "idn-invalid-lowercased"),
    ("http://under_score.example.com/", "http://under_score.example.com/", "underscore-host"),
    # IP literals
    ("http://[2001:DB8::1]:80/", "http://[2001:db8::1]/", "ipv6"),
    ("http://[::FFFF:1.2.3.4]:8080/x", "http://[::ffff:1.2.3.4]:8080/x", "ipv6-port"),
    ("http://192.168.0.1:80/", "http://192.168.0.1/", "ipv4"),
    # percent-escapes
    ("http://a.com/%7euser/%41%2d%2E%5F", "http://a.com/~user/A-._", "decode-unreserved"),
    ("http://a.com/a%2fb", "http://a.com/a%2Fb", "upper-case-2f"),
    ("http://a.com/%e2%82%ac", "http://a.com/%E2%82%AC", "upper-case-utf8"),
    ("http://a.com/%2F%3F%23%25%26%3D%2B%3B", "http://a.com/%2F%3F%23%25%26%3D%2B%3B", "reserved"),
    ("http://a.com/?%2f%3f%23%25%26%3d%2b%3b", "http://a.com/?%2F%3F%23%25%26%3D%2B%3B", "reserved-query"),
    ("http://a.com/%3a%40%21%24", "http://a.com/%3A%40%21%24", "reserved-sub-delims"),
    ("http://a.com/100%/%zz/%4", "http://a.com/100%25/%25zz/%254", "bare-percent"),
    ("http://a.com/a b/é", "http://a.com/a%20b/%C3%A9", "escape-space-non-ascii"),
    ('http://a.com/"<>\\^`{|}', "http://a.com/%22%3C%3E%5C%5E%60%7B%7C%7D", "escape-unsafe-ascii"),
    ("http://a.com/a\x01b", "http://a.com/a%01b", "escape-control"),
    ("http://a.com/?q=a+b&r=a%20b", "http://a.com/?q=a+b&r=a%20b", "plus-and-%20-kept"),
    ("http://a.com/?q=a b", "http://a.com/?q=a%20b", "query-space"),
    ("http://a.com/?a[]=1&a[]=2", "http://a.com/?a[]=1&a[]=2", "brackets-kept"),
    ("http://a.com/a/%2E%2e/b", "http://a.com/b", "escaped-dot-segments"),
    # structure
    ("http://a.com/a/./b/../c/", "http://a.com/a/c/", "dot-segments"),
    ("http://a.com/a#frag", "http://a.com/a", "fragment"),
    ("http://a.com/a?", "http://a.com/a", "empty-query"),
    ("http://a.com/a?&&", "http://a.com/a", "only-empty-params"),
    ("http://a.com/?a=1&&b=2", "http://a.com/?a=1&b=2", "empty-param"),
    ("http://a.com/?flag&a=1", "http://a.com/?a=1&flag", "param-without-equals"),
    ("http://a.com/?a=&b", "http://a.com/?a=&b", "empty-value-kept"),
    ("http://a.com/?b=1;c=2&a=3", "http://a.com/?a=3&b=1;c=2", "semicolon-in-value"),
    ("http://a.com/?a=2&b=1&a=1", "http://a.com/?a=2&a=1&b=1", "stable-sort"),
    ("http://a.com/?b=x&B=y&a=z", "http://a.com/?B=y&a=z&b=x", "sort-case-sensitive"),
    ("http://a.com//x//y", "http://a.com//x//y", "empty-segments-kept"),
    ("  http://a.com/a\n b\t \x00", "http://a.com/a%20b", "whitespace"),
    # other schemes: scheme lower-cased, fragment gone, nothing else
    ("MAILTO:Joe@Example.COM#x", "mailto:Joe@Example.COM", "mailto"),
    ("JavaScript:void(0)", "javascript:void(0)", "javascript"),
    ("ftp://Example.com:21/a/../b", "ftp://Example.com:21/a/../b", "ftp"),
    ("data:text/plain,A%20b#f", "data:text/plain,A%20b", "data"),
]


@pytest.mark.parametrize(("url", "expected"), [c[:2] for c in CANONICAL], ids=[c[2] for c in CANONICAL])
def test_canonicalize(url, expected):
    assert canonicalize(url) == expected
    assert canonicalize(expected) == expected


RELATIVE = [
    ("HTTP://Other.com/x", "http://a.com/b", "http://other.com/x"),
    ("//b.com", "https://a.com/x", "https://b.com/"),
    ("../../..", "http://a.com/b/c", "http://a.com/"),
    ("?", "http://a.com/b?q", "http://a.com/b"),
    ("g", "http://a.com", "http://a.com/g"),
    ("  page.html  ", "http://a.com/dir/", "http://a.com/dir/page.html"),
    ("mailto:x@y", "http://a.com/", "mailto:x@y"),
    ("../c", "ftp://h/a/b", "ftp://h/c"),
]


@pytest.mark.parametrize(("url", "base", "expected"), RELATIVE, ids=[r[0] for r in RELATIVE])
def test_canonicalize_relative(url, base, expected):
    assert canonicalize(url, base=base) == expected


MUST_NOT_MERGE = [
    ("http://a.com/A", "http://a.com/a"),
    ("http://a.com/?q=A", "http://a.com/?q=a"),
    ("http://a.com/?a=1&a=2", "http://a.com/?a=2&a=1"),
    ("http://a.com/", "https://a.com/"),
    ("http://a.com/", "http://a.com:8080/"),
    ("http://a.com/a", "http://a.com/a/"),
    ("http://a.com/a/b", "http://a.com/a%2Fb"),
    ("http://a.com/?q=a+b", "http://a.com/?q=a%20b"),
    ("http://a.com/?q=a&b", "http://a.com/?q=a%26b"),
    ("http://a.com/?q=1", "http://a.com/?q=1;r=2"),
    ("http://a.com/a?b", "http://a.com/a%3Fb"),
    ("http://faß.de/", "http://fass.de/"),
    ("http://www.a.com/", "http://a.com/"),
    ("http://a.com/d/index.html", "http://a.com/d/"),
    ("http://a.com/?A=1", "http://a.com/?a=1"),
]


@pytest.mark.parametrize(("one", "other"), MUST_NOT_MERGE, ids=[a for a, _ in MUST_NOT_MERGE])
def test_distinct_urls_stay_distinct(one, other):
    assert canonicalize(one) != canonicalize(other)
    assert fingerprint(one) != fingerprint(other)


# A session token as servers write them (32 hex digits).
TOKEN = "4F1A0C9E7B2D4E8FA3C5B6D7E8F90A1B"

STRIPPED = [
    (f"http://a.com/?jsessionid={TOKEN}&x=2", "http://a.com/?x=2"),
    (f"http://a.com/?PHPSESSID={TOKEN.lower()}", "http://a.com/"),
    (f"http://a.com/?sid={TOKEN}&session_id={TOKEN}&sessionid={TOKEN}&x=1", "http://a.com/?x=1"),
    ("http://a.com/?ASPSESSIONIDQQGGQSRT=EOHBLBDDPFCLHKPGGKLILNAM&CFID=1&CFTOKEN=2&y", "http://a.com/?y"),
    ("http://a.com/cart;jsessionid=1A2B?x=1", "http://a.com/cart?x=1"),
    ("http://a.com/a;JSESSIONID=1A2B/b;v=1", "http://a.com/a/b;v=1"),
    ("http://a.com/?utm_source=x&utm_Medium=y&id=3", "http://a.com/?id=3"),
    ("http://a.com/?gclid=1&fbclid=2&msclkid=3&mc_eid=4&yclid=5", "http://a.com/"),
    ("http://a.com/?utm%5Fsource=x&id=3", "http://a.com/?id=3"),
    ("http://a.com/?sidebar=1&utm=2", "http://a.com/?sidebar=1&utm=2"),
]


@pytest.mark.parametrize(("url", "expected"), STRIPPED, ids=[s[0] for s in STRIPPED])
def test_session_and_tracking_parameters_are_stripped(url, expected):
    assert canonicalize(url) == expected


POLICIES = [
    ({}, f"http://www.a.com/d/index.html?utm_source=x&sid={TOKEN}&b=1&a=2", "http://www.a.com/d/index.html?a=2&b=1"),
    (
        {"CANONICAL_DROP_WWW": True, "CANONICAL_DROP_INDEX": "1"},
        "http://www.a.com/d/index.html?b=1",
        "http://a.com/d/?b=1",
    ),
    ({"CANONICAL_DROP_WWW": "true"}, "http://www.com/", "http://www.com/"),
    ({"CANONICAL_DROP_INDEX": "True"}, "http://a.com/Default.aspx", "http://a.com/"),
    ({"CANONICAL_DROP_INDEX": "yes"}, "http://a.com/x/index.php?p=1", "http://a.com/x/?p=1"),
    ({"CANONICAL_DROP_INDEX": True}, "http://a.com/index.html/x", "http://a.com/index.html/x"),
    ({"CANONICAL_SORT_QUERY": "0"}, "http://a.com/?b=1&a=2", "http://a.com/?b=1&a=2"),
    ({"CANONICAL_STRIP_TRACKING": "false"}, f"http://a.com/?utm_source=x&sid={TOKEN}", "http://a.com/?utm_source=x"),
    (
        {"CANONICAL_STRIP_SESSION_IDS": 0},
        "http://a.com/p;jsessionid=1?sid=1&gclid=2",
        "http://a.com/p;jsessionid=1?sid=1",
    ),
    ({"CANONICAL_STRIP_SESSION_IDS": None}, f"http://a.com/?sid={TOKEN}", "http://a.com/"),
]


@pytest.mark.parametrize(("settings_", "url", "expected"), POLICIES, ids=[p[1] for p in POLICIES])
def test_policy_from_settings(settings_, url, expected):
    assert UrlPolicy.from_settings(settings_).canonicalize(url) == expected


def test_policy_defaults_match_settings_defaults():
    assert UrlPolicy.from_settings({}) == UrlPolicy()
    assert UrlPolicy() == UrlPolicy(True, True, True, False, False)


@pytest.mark.parametrize("value", ["maybe", 1.5, []])
def test_policy_rejects_bad_setting(value):
    with pytest.raises(ValueError, match="CANONICAL_DROP_WWW"):
        UrlPolicy.from_settings({"CANONICAL_DROP_WWW": value})


NOT_URLS = [
    ("", "no scheme"),
    ("example.com/a", "no scheme"),
    ("//example.com/a", "no scheme"),
    ("/relative/path", "no scheme"),
    ("http://", "without a host"),
    ("http:///a", "without a host"),
    ("https:g", "without a host"),
    ("http://user@/a", "no valid host"),
    ("http://:80/", "no valid host"),
    ("http://./", "no valid host"),
    ("http://exa mple.com/", "no valid host"),
    ("http://a.com:8o/", "invalid port"),
    ("http://a.com:99999/", "invalid port"),
    ("http://[::1/", "unterminated IPv6"),
    ("http://[::1]x/", "junk after"),
    ("http://[nonsense]/", "invalid IPv6"),
]


@pytest.mark.parametrize(("url", "message"), NOT_URLS, ids=[n[0] or "empty" for n in NOT_URLS])
def test_not_a_url_raises(url, message):
    with pytest.raises(ValueError, match=message):
        canonicalize(url)


def test_relative_url_against_relative_base_raises():
    with pytest.raises(ValueError, match="no scheme"):
        canonicalize("g", base="/a/b")


ALIASES = [
    ("HTTP://A.com:80/a/./b/../c?b=2&a=1#x", "http://a.com/a/c?a=1&b=2"),
    ("https://faß.de", "https://xn--fa-hia.de/"),
    ("http://a.com/%7Ea?utm_source=x", "http://a.com/~a"),
]


@pytest.mark.parametrize(("alias", "canonical"), ALIASES, ids=[a[1] for a in ALIASES])
def test_fingerprint_is_md5_of_canonical_form(alias, canonical):
    assert len(fingerprint(alias)) == 16
    assert fingerprint(alias) == fingerprint(canonical)
    assert fingerprint(alias) == hashlib.md5(canonical.encode("utf-8")).digest()


# --- Traps --------------------------------------------------------------------

NOW = datetime.date(2025, 6, 1)

TRAPS = [
    ("http://a.com/" + "x" * 1100, "url_too_long"),
    ("http://a.com/?q=" + "é" * 400, "url_too_long"),
    ("http://a.com/a/a/a", "repeated_path"),
    ("http://a.com/a/a/a/", "repeated_path"),
    ("http://a.com/x/a/a/a/y", "repeated_path"),
    ("http://a.com/a/b/a/b/a/b", "repeated_path"),
    ("http://a.com/x/a/b/c/a/b/c/a/b/c", "repeated_path"),
    ("http://a.com/1/2/3/4/5/1/2/3/4/5/1/2/3/4/5", "repeated_path"),
    ("http://a.com/a//a//a/", "repeated_path"),
    ("http://a.com/subdir/subdir/subdir/page.html", "repeated_path"),
    ("http://a.com/" + "/".join(f"s{i}" for i in range(21)), "too_many_segments"),
    ("http://a.com/" + "a/" * 30, "too_many_segments"),
    ("http://a.com/calendar/2199/05", "calendar"),
    ("http://a.com/2199/05/", "calendar"),
    ("http://a.com/cal?year=2300&month=1", "calendar"),
    ("http://a.com/cal?Y=2300&M=12", "calendar"),
    ("http://a.com/cal?month=2041-07&x=1", "calendar"),
    ("http://a.com/cal?month=2036-01", "calendar"),
    ("http://a.com/?f=1&f=2&f=3&f=4&f=5&f=6", "repeated_param"),
    ("http://a.com/?tag=a&x=1&tag=b&tag=c&tag=d&tag=e&tag=f", "repeated_param"),
]


@pytest.mark.parametrize(("url", "reason"), TRAPS, ids=[f"{r}:{u[:60]}" for u, r in TRAPS])
def test_trap_positives(url, reason):
    assert TrapRules().reason(canonicalize(url), now=NOW) == reason


NOT_TRAPS = [
    "http://a.com/",
    "http://a.com/a/a",
    "http://a.com/a/a/b/b/c/c",
    "http://a.com/a/b/a/b",
    "http://a.com/foo/bar/foo/bar/foo",
    "http://a.com/docs/2.0/docs/api",
    "http://a.com/a/b/c/d/e/f/g",
    "http://a.com/2024/01/01/",
    "http://a.com/2025/05/05/hello",
    "http://a.com/2026/11/",
    "http://a.com/calendar/2027/12",
    "http://a.com/calendar/2015/01",
    "http://a.com/2010/05/an-old-post",
    "http://a.com/news/1999/05/older-still",
    "http://a.com/events/2024-12-31",
    "http://a.com/events/1850-01-01",
    "http://a.com/cal?date=1850-01-01",
    "http://a.com/cal/1990/01",
    "http://a.com/cal?year=2027&month=1",
    "http://a.com/cal?month=2027-07",
    "http://a.com/history?year=1850",
    "http://a.com/map?y=5&m=3",
    "http://a.com/thread/2000/2",
    "http://a.com/item/12345/06",
    "http://a.com/v/1.2/13",
    "http://a.com/?f=1&f=2&f=3&f=4&f=5",
    "http://a.com/" + "/".join(f"s{i}" for i in range(20)),
    "http://a.com/" + "x" * 1000,
    "http://a.com/static/js/js/app.js",
    "http://a.com/a///a",
]


@pytest.mark.parametrize("url", NOT_TRAPS, ids=[u[:60] for u in NOT_TRAPS])
def test_trap_negatives(url):
    assert TrapRules().reason(canonicalize(url), now=NOW) is None


def test_trap_reason_canonicalizes_first():
    assert trap_reason("http://a.com/a/./a/%61/a") == "repeated_path"
    assert trap_reason("http://a.com/" + "x" * 1000 + "?utm_source=" + "y" * 50) is None
    assert trap_reason("http://a.com/calendar/2199/05") == "calendar"
    assert trap_reason("http://a.com/docs/") is None
    with pytest.raises(ValueError):
        trap_reason("not a url")


def test_calendar_window_follows_now():
    rules = TrapRules(calendar_years_ahead=10, calendar_years_back=10)
    url = "http://a.com/calendar/2040/01"
    assert rules.reason(url, now=datetime.date(2025, 1, 1)) == "calendar"
    assert rules.reason(url, now=datetime.date(2030, 1, 1)) is None
    assert rules.reason(url, now=datetime.datetime(2050, 12, 31, 23, 59)) is None
    assert rules.reason(url, now=datetime.date(2051, 1, 1)) == "calendar"
    assert TrapRules(calendar_years_ahead=5).reason("http://a.com/?month=2031-07", now=NOW) == "calendar"


def test_calendar_refuses_the_far_future_only_unless_told():
    rules = TrapRules()
    assert rules.reason("http://a.com/2000/01/post", now=NOW) is None
    assert rules.reason("http://a.com/cal/1066/10", now=NOW) is None
    assert rules.reason(f"http://a.com/cal/{NOW.year + 3}/01", now=NOW) is None
    assert rules.reason(f"http://a.com/cal/{NOW.year + 4}/01", now=NOW) == "calendar"
    assert TrapRules(calendar_years_back=500).reason("http://a.com/archive/1868/05/02/", now=NOW) is None
    assert TrapRules(calendar_years_back=500).reason("http://a.com/cal/1066/10", now=NOW) == "calendar"


def test_checks_run_cheapest_first():
    long_and_repeated = "http://a.com/" + "a/" * 600
    assert TrapRules().reason(long_and_repeated) == "url_too_long"
    assert TrapRules().reason("http://a.com/" + "a/" * 25) == "too_many_segments"


TRAP_SETTINGS = [
    ({"TRAPS_MAX_URL_LENGTH": "30"}, "http://a.com/" + "x" * 20, "url_too_long"),
    ({"TRAPS_MAX_REPEATS": "2"}, "http://a.com/a/a", "repeated_path"),
    ({"TRAPS_MAX_PERIOD": 1}, "http://a.com/a/b/a/b/a/b", None),
    ({"TRAPS_MAX_SEGMENTS": "3"}, "http://a.com/a/b/c/d", "too_many_segments"),
    ({"TRAPS_CALENDAR_YEARS_AHEAD": "500"}, "http://a.com/calendar/2199/05", None),
    ({"TRAPS_CALENDAR_YEARS_BACK": "5"}, "http://a.com/2010/05/post", "calendar"),
    ({"TRAPS_MAX_PARAM_REPEATS": "1"}, "http://a.com/?a=1&a=2", "repeated_param"),
]


@pytest.mark.parametrize(("settings_", "url", "reason"), TRAP_SETTINGS, ids=[next(iter(t[0])) for t in TRAP_SETTINGS])
def test_trap_rules_from_settings(settings_, url, reason):
    assert TrapRules.from_settings(settings_).reason(url, now=NOW) == reason


def test_trap_rules_defaults_and_validation():
    assert TrapRules.from_settings({}) == TrapRules()
    with pytest.raises(ValueError, match="TRAPS_MAX_SEGMENTS"):
        TrapRules.from_settings({"TRAPS_MAX_SEGMENTS": "lots"})
    with pytest.raises(ValueError, match="max_repeats"):
        TrapRules(max_repeats=1)


def test_docstring_examples():
    failures, _ = doctest.testmod(urls)
    assert failures == 0


# --- Properties -----------------------------------------------------------------

_ASCII_LABEL = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9-]{0,8}[A-Za-z0-9])?", fullmatch=True)
_IDN_LABEL = st.sampled_from(["faß", "BÜCHER", "ﬁle", "例え", "テスト", "ΑΒΓ", "ǅemal", "café"])
_NAME_HOST = st.builds(
    lambda labels, tld, dot: ".".join([*labels, tld]) + dot,
    st.lists(st.one_of(_ASCII_LABEL, _IDN_LABEL), min_size=1, max_size=3),
    st.sampled_from(["com", "DE", "example", "xn--zckzah"]),
    st.sampled_from(["", "."]),
)
_IPV4 = st.integers(0, 2**32 - 1).map(lambda n: str(ipaddress.IPv4Address(n)))
_IPV6 = st.builds(
    lambda n, upper: (str.upper if upper else str)(f"[{ipaddress.IPv6Address(n)}]"),
    st.integers(0, 2**128 - 1),
    st.booleans(),
)
_HOST = st.one_of(_NAME_HOST, _IPV4, _IPV6)
_PORT = st.one_of(
    st.sampled_from(["", ":", ":80", ":443", ":080"]),
    st.integers(0, 65535).map(lambda p: f":{p}"),
)
_TRICKY = [".", "..", "%2e", "%2E%2e", "%41", "%2f", "%7e", "%zz", "%", "+", "%20", " ", "é"]
_PIECE = st.one_of(
    st.text(max_size=6),
    st.sampled_from([*_TRICKY, ";jsessionid=1", "index.html"]),
)
_PATH = st.lists(_PIECE, max_size=6).map(lambda segments: "/" + "/".join(segments))
_PARAM = st.one_of(
    st.builds(lambda k, v: f"{k}={v}", _PIECE, _PIECE),
    _PIECE,
    st.sampled_from(["utm_source=x", "sid=1", "a=1", "a=2", "b", ""]),
)
_QUERY = st.one_of(st.just(""), st.lists(_PARAM, max_size=5).map(lambda ps: "?" + "&".join(ps)))
_FRAGMENT = st.one_of(st.just(""), st.text(max_size=5).map(lambda f: "#" + f))
_SCHEME = st.sampled_from(["http", "https", "HTTP", "hTTps"])
_USERINFO = st.one_of(
    st.just(""),
    st.text(st.characters(blacklist_characters="/?#"), max_size=5).map(lambda u: u + "@"),
)


@st.composite
def _http_urls(draw: st.DrawFn) -> tuple[str, str, str]:
    scheme, host = draw(_SCHEME), draw(_HOST)
    rest = draw(_PORT) + draw(_PATH) + draw(_QUERY) + draw(_FRAGMENT)
    return f"{scheme}://{draw(_USERINFO)}{host}{rest}", scheme, host


_ANY_URL = st.one_of(
    _http_urls().map(lambda t: t[0]),
    st.builds(
        lambda start, rest: start + rest,
        st.sampled_from(["http://", "https://", "mailto:", "ftp://", "HTTP://a.com/"]),
        st.text(),
    ),
    st.text(),
)
_POLICY = st.builds(UrlPolicy, *[st.booleans()] * 5)
_FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@_FAST
@given(_ANY_URL, _POLICY)
def test_canonicalize_is_idempotent(url, policy):
    try:
        once = policy._canonicalize(url)
    except ValueError:
        return
    assert policy._canonicalize(once) == once


@pytest.mark.slow
@_FAST
@given(_http_urls())
def test_canonical_http_url_is_ascii_and_keeps_scheme_and_host(case):
    url, scheme, host = case
    try:
        canonical = canonicalize(url)
    except ValueError:
        assume(False)
    assert canonical.isascii()
    parts = urlsplit(canonical)
    assert parts.scheme == scheme.lower()
    assert parts.hostname
    assert not parts.fragment
    if host.startswith("["):
        assert parts.hostname == host[1:-1].lower()
    elif host.isascii():
        assert parts.hostname == host.lower().rstrip(".")
    else:
        try:
            expected = idna.encode(host.rstrip("."), uts46=True, transitional=False).decode()
        except idna.IDNAError:
            return  # the lenient fallback: checked for ASCII above
        assert parts.hostname == expected
