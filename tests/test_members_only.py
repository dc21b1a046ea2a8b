"""Members-only areas (ARCHITECTURE.md, item 12): crawled with a site owner's credentials, searched without them.

A real ``scrapy crawl`` of a local site with an HTTP Basic area, a Digest
area and a login form whose sessions last a few pages (tests/members_site.py),
beside another site on another port of the same host. The servers record
every request with its headers: the ground truth of where credentials went.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from indexer.layout import stored_documents
from indexer.packing import UNPACK_ERRORS, Packer
from tests import browser
from tests.commands import ROOT, crawl, run
from tests.members_site import ADMIN_PAGES, COOKIE, PASSWORD, TOKEN, USER, MembersSite, serve_members
from tests.search.test_web import _get, serving
from tests.webserver import Site, page, serve_site

# Politeness off (the sites are ours and local), two requests at a time per
# site as by default, and every request logged: no secret may show even there.
SETTINGS = ("DOWNLOAD_DELAY=0", "LOG_LEVEL=DEBUG")
REPORT_1 = "/basic/report-1.html"
SENTENCE = "Ferry revenue grew by a third in the northern district this quarter."


@dataclass
class Crawled:
    site: MembersSite
    other: Site
    data: Path
    log: str


def _other_site() -> dict:
    return {
        path: page(f"<title>Partner {path}</title><p>A partner page: {path}.</p>")
        for path in ("/from-basic.html", "/from-digest.html", "/from-form.html", "/landing.html", "/landing-form.html")
    }


def _credentials(
    path: Path, site: MembersSite, password: str = PASSWORD, token: str = TOKEN, cookie: str = COOKIE
) -> Path:
    path.write_text(
        json.dumps(
            {
                site.url("/basic/"): {"basic": {"user": USER, "password": password}},
                site.url("/digest/"): {"digest": {"user": USER, "password": password}},
                site.url("/form/"): {
                    "form": {
                        "login_url": site.url("/login"),
                        "fields": {"user": USER, "pass": password},
                        "logged_in": "css:a.logout",
                    }
                },
                site.url("/api/"): {"header": {"Authorization": f"Bearer {token}"}},
                site.url("/premium/"): {"cookie": {"session": cookie}},
            }
        )
    )
    path.chmod(0o600)
    return path


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawled]:
    root = tmp_path_factory.mktemp("members")
    with serve_site(_other_site()) as other, serve_members(other.base) as site:
        credentials = _credentials(root / "credentials.json", site)
        done = crawl([site.url("/")], root / "data", *SETTINGS, f"CRAWLER_CREDENTIALS_FILE={credentials}")
    assert done.returncode == 0, done.stderr[-3000:]
    yield Crawled(site, other, root / "data", done.stdout + done.stderr)


def _stat(log: str, name: str) -> int:
    found = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(found.group(1)) if found else 0


def _search(data: Path, *args: str) -> dict:
    done = run("search", "--data", str(data), "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# --- the crawl -------------------------------------------------------------------------


def test_every_members_page_is_indexed_and_marked_and_public_pages_are_not(crawled: Crawled) -> None:
    site, other = crawled.site, crawled.other
    documents = {url: stored for url, stored in stored_documents(crawled.data).items() if stored.get("crawled")}
    for url in site.members_urls():
        assert documents.get(url, {}).get("members_only") is True, url
    public = [
        site.url("/"),
        site.url("/public.html"),
        site.url("/login"),
        *(
            other.url(path)
            for path in (
                "/from-basic.html",
                "/from-digest.html",
                "/from-form.html",
                "/landing.html",
                "/landing-form.html",
            )
        ),
    ]
    for url in public:
        assert url in documents and not documents[url].get("members_only"), url
    # robots.txt and noindex rule the members' area as they rule everywhere.
    assert "/basic/private/minutes.html" not in [request.path for request in site.requests]
    assert site.url("/basic/noindex.html") not in documents
    assert _stat(crawled.log, "auth/failed") == 0


def test_sessions_and_challenges_are_renewed(crawled: Crawled) -> None:
    site, log = crawled.site, crawled.log
    assert site.logins >= 2 and site.failed_logins == 0  # a session lasts four pages: logged in again
    assert _stat(log, "auth/login") == site.logins
    assert _stat(log, "auth/logged_out") >= 1
    assert site.stale_nonces >= 1 and _stat(log, "auth/challenged") >= 2  # the first challenge, then a stale nonce
    assert site.logouts_with_session == 0  # the crawl never logged itself out
    assert _stat(log, "auth/forbidden") == len(ADMIN_PAGES)  # sent to the login page even when logged in


def test_credentials_go_to_their_area_only(crawled: Crawled) -> None:
    site, other = crawled.site, crawled.other
    areas = ("/basic/", "/digest/", "/form/", "/api/", "/premium/")
    for request in site.requests:
        authorization, cookie = request.headers.get("Authorization"), request.headers.get("Cookie")
        if request.path.startswith("/api/"):
            assert authorization == f"Bearer {TOKEN}" and cookie is None, request
        elif request.path.startswith("/premium/"):
            assert cookie == f"session={COOKIE}" and authorization is None, request
        elif request.path.startswith("/basic/"):  # Basic once the site asked for it (a 401 to /basic/)
            assert (authorization or "Basic ").startswith("Basic ") and cookie is None, request
        elif request.path.startswith("/digest/"):
            assert (authorization is None or authorization.startswith("Digest ")) and cookie is None, request
        elif request.path.startswith("/form/"):
            assert authorization is None, request
            assert cookie is None or request.path != "/form/logout", request
        else:
            assert authorization is None and cookie is None, request
    assert any(request.path == "/form/logout" for request in site.requests)  # fetched, without a session
    basic = [request for request in site.requests if request.path.startswith("/basic/")]
    assert basic[0].status == 401 and "Authorization" not in basic[0].headers
    assert all(request.headers.get("Authorization") for request in basic[1:])
    # The other port of the same host gets no credentials, by link or by redirect,
    # and learns no members-only address from a Referer.
    assert {request.path for request in other.requests} >= {
        "/from-basic.html",
        "/from-digest.html",
        "/from-form.html",
        "/landing.html",
        "/landing-form.html",
    }
    for request in other.requests:
        assert "Authorization" not in request.headers and "Cookie" not in request.headers, request
        referer = request.headers.get("Referer", "")
        assert PASSWORD not in referer and not any(site.url(area) in referer for area in areas), request


def _readable(path: Path) -> bytes:
    """A file's bytes, and what they hold compressed: gzip members, SQLite's compressed blobs."""
    raw = path.read_bytes()
    parts = [raw]
    if raw[:2] == b"\x1f\x8b":
        parts.append(gzip.decompress(raw))
    if raw.startswith(b"SQLite format 3"):
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = [table for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            # The page store's blobs: zlib's, or zstd's with one of its dictionaries.
            dictionaries = dict(db.execute("SELECT id, data FROM dictionaries")) if "dictionaries" in tables else {}
            packer = Packer(dictionaries.get)
            for table in tables:
                for row in db.execute(f'SELECT * FROM "{table}"'):
                    for value in row:
                        if isinstance(value, bytes):
                            try:
                                parts.append(packer.unpack(value))
                            except UNPACK_ERRORS:
                                parts.append(value)
                        elif isinstance(value, str):
                            parts.append(value.encode())
        finally:
            db.close()
    return b"\n".join(parts)


def test_no_credential_is_kept_or_logged_anywhere(crawled: Crawled) -> None:
    secrets = [PASSWORD, base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode(), TOKEN, COOKIE, *crawled.site.issued]
    assert len(secrets) >= 6
    files = [path for path in crawled.data.rglob("*") if path.is_file()]
    assert any(path.suffix == ".aof" or "appendonly" in path.name for path in files)  # Redis' log is read too
    archive = b""
    for path in files:
        content = _readable(path)
        if path.name.endswith(".warc.gz"):
            archive += content
        for secret in secrets:
            assert secret.encode() not in content, (secret, path)
    for secret in secrets:
        assert secret not in crawled.log, secret
    # The members' pages are archived, their credentials redacted, and marked for a rebuild.
    assert b"Authorization: [redacted]" in archive and b"lantern-members-only: true" in archive
    assert b"Ferry revenue grew by a third" in archive


def test_pages_that_print_the_credentials_back_are_kept_and_shown_without_them(crawled: Crawled) -> None:
    site = crawled.site
    secrets = [PASSWORD, base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode(), TOKEN, COOKIE, *site.issued]
    echoes = {site.url(f"/{area}/echo.html") for area in ("basic", "form", "api", "premium")}
    served = [request for request in site.requests if request.path.endswith("/echo.html") and request.status == 200]
    assert {site.url(request.path) for request in served} == echoes  # each was fetched logged in, and said it all
    results = _search(crawled.data, "--members-snippet", "short", "authorization", "cookie")["results"]
    shown = {result["url"]: result["snippet"] for result in results if result["url"] in echoes}
    assert set(shown) == echoes, results
    for url, snippet in shown.items():
        assert "[redacted]" in snippet, (url, snippet)
        assert not [secret for secret in secrets if secret in snippet], (url, snippet)
    assert _stat(crawled.log, "auth/redacted") == len(echoes)


def test_a_rebuild_keeps_the_marks(crawled: Crawled, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(crawled.data, data)
    done = run("indexer", "rebuild", "--data", str(data), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    documents = stored_documents(data)
    for url in crawled.site.members_urls():
        assert documents[url].get("members_only") is True, url
    assert not documents[crawled.site.url("/public.html")].get("members_only")


def test_purge_removes_a_members_page(crawled: Crawled, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(crawled.data, data)
    url = crawled.site.url(REPORT_1)
    assert url in [result["url"] for result in _search(data, "ferry", "revenue", "northern")["results"]]
    done = run("indexer", "purge", "--data", str(data), url)
    assert done.returncode == 0, done.stderr
    assert url not in [result["url"] for result in _search(data, "ferry", "revenue", "northern")["results"]]


# --- search ------------------------------------------------------------------------------


def test_results_are_marked_and_their_snippets_short(crawled: Crawled) -> None:
    first = _search(crawled.data, "ferry", "revenue", "northern")["results"][0]
    assert first["url"] == first["page"] == crawled.site.url(REPORT_1)  # the site itself, where members log in
    assert first["members_only"] is True
    assert first["snippet"].replace("**", "") == SENTENCE  # one sentence, not the report
    public = _search(crawled.data, "public", "timetable")["results"][0]
    assert public["url"] == crawled.site.url("/public.html") and public["members_only"] is False
    none = _search(crawled.data, "--members-snippet", "none", "ferry", "revenue", "northern")["results"][0]
    assert none["members_only"] is True and none["snippet"] == ""
    text = run("search", "--data", str(crawled.data), "ferry", "revenue", "northern")
    assert text.returncode == 0 and "Report 1 [members only]" in text.stdout
    assert "The board approved" not in text.stdout


def test_a_link_only_members_pages_carry_is_members_only_text(crawled: Crawled) -> None:
    minutes = crawled.site.url("/basic/private/minutes.html")  # robots.txt keeps it out: known by its link alone
    short = next(r for r in _search(crawled.data, "board", "minutes")["results"] if r["url"] == minutes)
    assert short["members_only"] is True and short["snippet"] == "Not fetched; linked as: **Board** **minutes**"
    none = _search(crawled.data, "--members-snippet", "none", "board", "minutes")["results"]
    assert [(r["members_only"], r["snippet"]) for r in none if r["url"] == minutes] == [(True, "")]


@pytest.fixture(scope="module")
def base(crawled: Crawled, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serving(crawled.data, tmp_path_factory)


def test_the_search_page_marks_them_and_serves_no_copy(crawled: Crawled, base: str) -> None:
    url = crawled.site.url(REPORT_1)
    status, _, body = _get(base + "?q=ferry+revenue+northern")
    html = body.decode()
    assert status == 200
    item = html.split("<li>", 2)[1]  # the first result
    assert f'href="{url}"' in item and '<span class="members"' in item and "members only</span>" in item
    assert "/cached?" not in item
    assert (
        "<mark>Ferry</mark> <mark>revenue</mark> grew by a third in the <mark>northern</mark> district this quarter."
    ) in item
    status, _, body = _get(base + "cached?" + urllib.parse.urlencode({"url": url}))
    assert status == 403 and "members only" in body.decode() and "Ferry revenue" not in body.decode()
    status, _, body = _get(base + "cached?" + urllib.parse.urlencode({"url": crawled.site.url("/public.html")}))
    assert status == 200 and "Ferries leave at nine" in body.decode()
    status, _, body = _get(base + "api/search?q=ferry+revenue+northern")
    assert status == 200 and json.loads(body)["results"][0]["members_only"] is True


def test_the_mark_and_the_short_snippet_in_a_browser(crawled: Crawled, base: str, tmp_path: Path) -> None:
    browser.chromium()
    address = base + "?q=ferry+revenue+northern"
    dom = browser.dump_dom(address, tmp_path)
    first = dom.split("<li>", 2)[1]
    assert "members only</span>" in first and "cached" not in first
    assert "The board approved" not in dom
    shot = browser.screenshot(address, tmp_path / "members.png", tmp_path)
    width, _, rows = browser.png_rows(shot)
    channels = len(rows[0]) // width
    badge = bytes((0xFF, 0xF3, 0xE0))  # the tag's background: it is drawn, not only in the markup
    assert any(row[x : x + 3] == badge for row in rows for x in range(0, len(row), channels))


# --- what goes wrong --------------------------------------------------------------------


def test_one_basic_key_for_the_whole_site_marks_only_the_pages_that_asked_for_it(tmp_path: Path) -> None:
    with serve_site(_other_site()) as other, serve_members(other.base) as site:
        credentials = tmp_path / "credentials.json"
        credentials.write_text(json.dumps({site.url("/"): {"basic": {"user": USER, "password": PASSWORD}}}))
        credentials.chmod(0o600)
        done = crawl([site.url("/")], tmp_path / "data", *SETTINGS, f"CRAWLER_CREDENTIALS_FILE={credentials}")
    assert done.returncode == 0, done.stderr[-3000:]
    documents = {url: stored for url, stored in stored_documents(tmp_path / "data").items() if stored.get("crawled")}
    for path in ("/basic/", "/basic/report-1.html", "/basic/echo.html"):
        assert documents[site.url(path)].get("members_only") is True, path
    for path in ("/", "/public.html", "/login"):
        assert not documents[site.url(path)].get("members_only"), path
    sent = {request.path for request in site.requests if request.headers.get("Authorization")}
    assert sent and all(path.startswith("/basic/") for path in sent), sent
    assert _stat(done.stderr, "auth/failed") == 0


def test_a_wrong_password_is_counted_warned_once_and_the_crawl_goes_on(tmp_path: Path) -> None:
    with serve_site(_other_site()) as other, serve_members(other.base) as site:
        credentials = _credentials(
            tmp_path / "credentials.json",
            site,
            password="not-the-password",
            token="not-the-token",
            cookie="not-the-cookie",
        )
        done = crawl([site.url("/")], tmp_path / "data", *SETTINGS, f"CRAWLER_CREDENTIALS_FILE={credentials}")
    assert done.returncode == 0, done.stderr[-3000:]
    log = done.stderr
    warnings = [line for line in log.splitlines() if "WARNING" in line and "Members-only area" in line]
    assert len(warnings) == 5, warnings  # one for each area
    assert _stat(log, "auth/failed") >= 5
    assert site.failed_logins == 1  # one try at the form; its pages are not fetched after it
    assert "not-the-password" not in log
    documents = {url for url, stored in stored_documents(tmp_path / "data").items() if stored.get("crawled")}
    assert site.url("/public.html") in documents
    assert not documents & set(site.members_urls())


def test_pages_that_send_a_logged_in_member_to_the_login_page_cost_no_login(tmp_path: Path) -> None:
    with serve_site(_other_site()) as other, serve_members(other.base, session_requests=1000) as site:
        credentials = _credentials(tmp_path / "credentials.json", site)
        done = crawl([site.url("/")], tmp_path / "data", *SETTINGS, f"CRAWLER_CREDENTIALS_FILE={credentials}")
    assert done.returncode == 0, done.stderr[-3000:]
    log = done.stderr
    assert site.logins == 1, "a session that lasts the crawl needs one login, whatever the admins' pages say"
    assert _stat(log, "auth/forbidden") == len(ADMIN_PAGES) and _stat(log, "auth/failed") == 0
    assert not [line for line in log.splitlines() if "WARNING" in line and "Members-only area" in line]
    documents = {url for url, stored in stored_documents(tmp_path / "data").items() if stored.get("crawled")}
    assert set(site.members_urls()) <= documents
    assert not documents & {site.url(path) for path in ADMIN_PAGES}


@pytest.mark.parametrize(
    "entry, message",
    [
        (
            {"https://reports.example.org/": {"basic": {"user": USER, "password": PASSWORD, "realm": "x"}}},
            "basic takes password, user (unknown 'realm')",
        ),
        (
            {
                "http://reports.example.org/": {
                    "form": {
                        "login_url": "http://reports.example.org/login",
                        "fields": {"pass": PASSWORD},
                        "logged_in": "text:Log out",
                    }
                }
            },
            "plain http to another machine",
        ),
    ],
)
def test_a_bad_credentials_file_stops_the_crawl_with_one_line(tmp_path: Path, entry: dict, message: str) -> None:
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps(entry))
    done = crawl(["http://127.0.0.1:9/"], tmp_path / "data", f"CRAWLER_CREDENTIALS_FILE={path}")
    assert done.returncode != 0
    errors = [line for line in done.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and message in errors[0], done.stderr[-2000:]
    assert PASSWORD not in done.stderr


def test_credentials_in_a_seed_url_are_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "web",
            "-a",
            f"seeds=http://{USER}:{PASSWORD}@127.0.0.1:9/",
            "-s",
            f"DATA_DIR={tmp_path / 'data'}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "CRAWLER_CREDENTIALS_FILE" in done.stderr
    assert PASSWORD not in done.stderr.replace(f"seeds=http://{USER}:{PASSWORD}", "")
