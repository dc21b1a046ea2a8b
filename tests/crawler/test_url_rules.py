"""Two URL rules that must refuse traps, not history or distinct pages.

Calendars are judged by the shape of their dates and only into the far
future (an archive of 1868 is content); session ids are stripped by name
*and* value (``?sid=7`` is a forum section, ``?sid=<32 hex>`` a session).
"""

from __future__ import annotations

import datetime
import re
import secrets
from collections import Counter
from urllib.parse import urlsplit

import pytest

from crawler.urls import TrapRules, calendar_years, canonicalize, fingerprint
from tests.commands import crawl
from tests.webserver import Reply, page, serve_site

NOW = datetime.date(2025, 6, 1)  # TRAPS_CALENDAR_YEARS_AHEAD 3: 2029 and later are refused

# --- Calendars: every shape, refused far ahead, kept near and in the past -------

# (shape, far future: refused, near future: kept, long past: kept)
CALENDAR_SHAPES = [
    ("Y/M/D path", "/events/2999/02/14/", "/events/2027/02/14/", "/archive/1868/05/02/"),
    ("Y-M-D path", "/events/2999-02-14", "/events/2027-02-14", "/archive/1868-05-02"),
    ("Y-M-D query", "/cal?date=2999-02-14", "/cal?date=2027-02-14", "/cal?date=1868-05-02"),
    ("Y_M_D path", "/diary/2999_02_14.html", "/diary/2027_02_14.html", "/diary/1868_05_02.html"),
    ("Y.M.D path", "/diary/2999.02.14", "/diary/2027.02.14", "/diary/1868.05.02"),
    ("Y-M-D unpadded", "/cal?d=2999-2-4", "/cal?d=2027-2-4", "/cal?d=1868-5-2"),
    ("Y-M path", "/agenda/month/2750-11", "/agenda/month/2027-11", "/agenda/month/1868-05"),
    ("Y-M path, a thousand years on", "/calendar/month/3001-01", "/calendar/month/2027-01", "/calendar/month/1868-05"),
    ("Y/M/D path, year 9999", "/events/9999/12/31/", "/events/2027/12/31/", "/archive/1868/12/31/"),
    ("YYYYMMDD path, year 5000", "/events/day/50000412", "/events/day/20270412", "/events/day/18680502"),
    ("year and month params, year 4000", "/cal?year=4000&month=1", "/cal?year=2027&month=1", "/cal?year=1868&month=5"),
    ("Y/M path", "/agenda/2750/11/", "/agenda/2027/11/", "/agenda/1868/05/"),
    ("Y-M query", "/agenda?month=2750-11", "/agenda?month=2027-11", "/agenda?month=1868-05"),
    ("YYYYMMDD query", "/cal?day=23000412", "/cal?day=20270412", "/cal?day=18680502"),
    ("YYYYMMDD query date", "/list?from_date=23000412", "/list?from_date=20270412", "/list?from_date=18680502"),
    ("YYYYMMDD path", "/events/day/23000412", "/events/day/20270412", "/events/day/18680502"),
    ("YYYYMMDD file", "/calendar/23000412.html", "/calendar/20270412.html", "/calendar/18680502.html"),
    ("Y/Www path", "/events/week/2999/W07", "/events/week/2027/W07", "/events/week/1868/W07"),
    ("Y/www lower", "/events/week/2999/w07", "/events/week/2027/w07", "/events/week/1868/w07"),
    ("Y-Www path", "/events/2999-W07", "/events/2027-W07", "/events/1868-W07"),
    ("Y-Www query", "/events?week=2999-W52", "/events?week=2027-W52", "/events?week=1868-W52"),
    ("YWww path", "/events/2999W07", "/events/2027W07", "/events/1868W07"),
    ("Y/month name", "/agenda/2750/november/", "/agenda/2027/november/", "/agenda/1868/november/"),
    ("Y/mon", "/agenda/2750/nov", "/agenda/2027/nov", "/agenda/1868/nov"),
    ("month-Y", "/shows/november-2750", "/shows/november-2027", "/shows/november-1868"),
    ("MonY", "/shows/Nov2750", "/shows/Nov2027", "/shows/Nov1868"),
    ("month+Y query", "/shows?when=sept+2750", "/shows?when=sept+2027", "/shows?when=sept+1868"),
    ("month Y escaped", "/shows/May%202750", "/shows/May%202027", "/shows/May%201868"),
    ("year and month params", "/cal?year=2300&month=1", "/cal?year=2027&month=1", "/cal?year=1868&month=5"),
    ("year and week params", "/cal?w=7&y=2300", "/cal?w=7&y=2027", "/cal?w=7&y=1868"),
]


@pytest.mark.parametrize(("shape", "far", "near", "past"), CALENDAR_SHAPES, ids=[c[0] for c in CALENDAR_SHAPES])
def test_a_far_future_date_is_refused_in_every_shape(shape, far, near, past):
    rules = TrapRules()
    assert rules.reason(canonicalize("http://a.test" + far), now=NOW) == "calendar"
    assert rules.reason(canonicalize("http://a.test" + near), now=NOW) is None
    assert rules.reason(canonicalize("http://a.test" + past), now=NOW) is None


@pytest.mark.parametrize(("shape", "far", "near", "past"), CALENDAR_SHAPES, ids=[c[0] for c in CALENDAR_SHAPES])
def test_every_shape_is_read_as_its_year(shape, far, near, past):
    for url in (far, near, past):
        path, _, query = url.partition("?")
        assert len(calendar_years(path, query)) == 1, url


NOT_DATES = [
    "/questions/23000412/why-is-the-sky-blue",  # eight digits without a word of dates: an id
    "/item/23000412",
    "/p?id=23000412",
    "/static/app.a92999dec1.js",  # a hash that holds "2999dec"
    "/static/b2999-05.css",
    "/thread/2999/5",  # a thread and its page, not a month
    "/shop?price=2999.12",
    "/2999/wonders",
    "/products/2999-decks",
    "/history?year=2999",  # a year alone is a history page
    "/map?y=5&m=3",
    "/v/2999.1",
    "/thread/4999/5",
    "/products/5000-decks",
    "/item/50000412",
    "/static/b9999-05.css",
]


@pytest.mark.parametrize("path", NOT_DATES)
def test_numbers_that_are_not_dates_are_kept(path):
    assert TrapRules().reason(canonicalize("http://a.test" + path), now=NOW) is None


OLD_ARCHIVES = [
    "http://news.test/archive/1868/05/02/",
    "http://library.test/catalogue?date=1850-01-01",
    "http://news.test/1923/12/31/the-harbour-fire.html",
    "http://library.test/scans/18680502.pdf",
    "http://library.test/calendar/1701-W12",
]


@pytest.mark.parametrize("url", OLD_ARCHIVES)
def test_old_archives_are_content_by_default(url):
    assert TrapRules().reason(canonicalize(url), now=NOW) is None
    assert TrapRules.from_settings({}).reason(canonicalize(url), now=NOW) is None


def test_the_years_back_window_is_opt_in():
    wide = TrapRules.from_settings({"TRAPS_CALENDAR_YEARS_BACK": "500"})
    assert wide.reason("http://news.test/archive/1868/05/02/", now=NOW) is None
    assert wide.reason("http://a.test/cal/1066/10/", now=NOW) == "calendar"
    assert wide.reason("http://a.test/events/1066-W07", now=NOW) == "calendar"


# --- Session ids: by name and value ------------------------------------------------

HEX32 = "9f2c4e1ab0d3478c95e6f1a2b3c4d5e6"

SESSION_STRIPPED = [
    (f"http://a.test/forum?sid={HEX32}&f=2", "http://a.test/forum?f=2"),
    (f"http://a.test/forum?SID={HEX32.upper()}", "http://a.test/forum"),
    ("http://a.test/shop?sid=k3l9m2n8p4q7r1s6t0u5v2a9bc", "http://a.test/shop"),  # PHP's 26 characters
    (f"http://a.test/?PHPSESSID={HEX32}&q=tide", "http://a.test/?q=tide"),
    (f"http://a.test/app?jsessionid={HEX32.upper()}.node1", "http://a.test/app"),  # Tomcat's route
    ("http://a.test/app?jsessionid=node0x1abc2def3ghi4jkl5mno6.node0", "http://a.test/app"),  # Jetty
    ("http://a.test/?sessionid=3f2a9c1e-7b4d-4e8f-a1c2-9d8e7f6a5b4c&p=1", "http://a.test/?p=1"),  # a UUID
    (f"http://a.test/?session_id={HEX32}&sessid={HEX32}&oscsid={HEX32}&zenid={HEX32}", "http://a.test/"),
    ("http://a.test/?ASPSESSIONIDQQGGQSRT=EOHBLBDDPFCLHKPGGKLILNAM&x=1", "http://a.test/?x=1"),
    ("http://a.test/?CFID=12345&CFTOKEN=67890123&x=1", "http://a.test/?x=1"),
    ("http://a.test/cart;jsessionid=7?x=1", "http://a.test/cart?x=1"),  # a path parameter is always a session
]


@pytest.mark.parametrize(("url", "expected"), SESSION_STRIPPED, ids=[s[0][14:60] for s in SESSION_STRIPPED])
def test_session_tokens_are_stripped(url, expected):
    assert canonicalize(url) == expected


SESSION_KEPT = [
    "http://a.test/forum?sid=7",
    "http://a.test/forum?sid=8",
    "http://a.test/story?sid=12345678901234567890",  # digits alone: a story number
    "http://a.test/story?sid=ab12cd",
    "http://a.test/story?sid=the-long-story-of-the-harbour",
    "http://a.test/?PHPSESSID=42",
    "http://a.test/?sessionid=1",
    "http://a.test/?ASPSESSIONIDQQGGQSRT=short",
    "http://a.test/?CFID=12345",  # without its CFTOKEN
    f"http://a.test/?sidebar={HEX32}",  # not a session name
    f"http://a.test/?session={HEX32}",
]


@pytest.mark.parametrize("url", SESSION_KEPT, ids=[u[14:60] for u in SESSION_KEPT])
def test_short_or_numeric_values_are_kept(url):
    assert canonicalize(url) == url


def test_two_sections_named_by_sid_stay_two_pages():
    assert fingerprint("http://a.test/forum?sid=7") != fingerprint("http://a.test/forum?sid=8")
    assert fingerprint(f"http://a.test/forum?sid={HEX32}") == fingerprint("http://a.test/forum?sid=" + "0a" * 16)


# --- A web that hands out a fresh session id on every link ---------------------------

SECTIONS = {"7": "harbour news", "8": "lighthouse keepers"}


def _session_web(path: str) -> Reply | None:
    """Ten pages and two forum sections; every link carries a new session id."""
    parts = urlsplit(path)
    query = [param for param in parts.query.split("&") if param and not re.fullmatch(r"sid=[0-9a-f]{32}", param)]
    links = " ".join(f'<a href="/p/{n}?sid={secrets.token_hex(16)}">page {n}</a>' for n in range(10))
    links += "".join(f' <a href="/forum?sid={sid}">{name}</a>' for sid, name in SECTIONS.items())
    if parts.path == "/" or re.fullmatch(r"/p/[0-9]", parts.path):
        return page(f"<title>Page {parts.path}</title><p>Words of {parts.path} alone, {parts.path} again.</p>" + links)
    if parts.path == "/forum" and len(query) == 1 and query[0][4:] in SECTIONS:
        name = SECTIONS[query[0][4:]]
        return page(f"<title>Forum: {name}</title><p>Threads about {name}.</p>{links}")
    return None


def test_a_fresh_session_id_on_every_link_costs_one_fetch_a_page(tmp_path):
    routes = {"/robots.txt": Reply(b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})}
    with serve_site(routes, default=_session_web) as site:
        done = crawl(
            [site.url("/")], tmp_path, "DOWNLOAD_DELAY=0", "TRAPS_MAX_PAGES_PER_PATTERN=40", "CLOSESPIDER_PAGECOUNT=200"
        )
        paths = Counter(site.paths())
    assert done.returncode == 0, done.stderr[-3000:]
    assert "closespider_pagecount" not in done.stderr, "the session ids made a trap"
    pages = {path: n for path, n in paths.items() if path == "/" or path.startswith(("/p/", "/forum"))}
    assert pages == {"/": 1, **{f"/p/{n}": 1 for n in range(10)}, "/forum?sid=7": 1, "/forum?sid=8": 1}
    assert "traps/pattern_budget" not in done.stderr
