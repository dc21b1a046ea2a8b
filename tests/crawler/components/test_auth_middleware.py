"""AuthMiddleware: a site owner's credentials go with the requests of their area,
to its site only, and nowhere else (ARCHITECTURE.md, item 12)."""

from __future__ import annotations

import gzip
import inspect
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.misc import build_from_crawler

from crawler.auth_middleware import AuthMiddleware
from crawler.logins import basic_authorization
from tests.crawler.components.crawlers import crawler_with, open_engine
from tests.members_site import ADMIN_PAGES, PASSWORD, USER, serve_members
from tests.webserver import serve_site

AREA = "https://members.test/area/"
_ENTRIES: dict[str, Any] = {
    AREA: {"basic": {"user": "ann", "password": "s3cret"}},
    "https://api.test/": {"header": {"X-Api-Key": "k-123"}},
    "https://premium.test/": {"cookie": {"session": "c-456"}},
    "https://digest.test/": {"digest": {"user": "ann", "password": "s3cret"}},
}


def _credentials(tmp_path: Path, entries: dict[str, Any]) -> Path:
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps(entries))
    path.chmod(0o600)
    return path


def _auth(tmp_path: Path, entries: dict[str, Any] = _ENTRIES) -> AuthMiddleware:
    crawler = crawler_with(tmp_path, CRAWLER_CREDENTIALS_FILE=str(_credentials(tmp_path, entries)))
    return build_from_crawler(AuthMiddleware, crawler)


async def _sent(auth: AuthMiddleware, url: str, **headers: str) -> Request:
    request = Request(url, headers=headers or None)
    await auth.process_request(request)
    return request


def _answer(request: Request, status: int = 200, headers: dict[str, str] | None = None) -> HtmlResponse:
    return HtmlResponse(request.url, status=status, headers=headers, body=b"<p>x</p>", request=request)


async def _challenge(auth: AuthMiddleware, url: str) -> None:
    """The site answers a request of ``url`` with a Basic challenge: the request is to go again."""
    request = await _sent(auth, url)
    assert b"Authorization" not in request.headers and "members_only" not in request.meta  # not asked yet
    again = await _answered(auth, request, _answer(request, 401, {"WWW-Authenticate": 'Basic realm="r"'}))
    assert isinstance(again, Request) and again.url == url


def _authorization(request: Request) -> str:
    value = request.headers.get(b"Authorization")
    assert value is not None
    return value.decode()


def test_switched_off_without_a_credentials_file_or_without_an_area(tmp_path: Path) -> None:
    with pytest.raises(NotConfigured):
        build_from_crawler(AuthMiddleware, crawler_with(tmp_path))
    with pytest.raises(NotConfigured, match="names no members-only area"):
        _auth(tmp_path, {})


async def test_basic_credentials_go_to_their_area_only(tmp_path: Path) -> None:
    auth = _auth(tmp_path)
    await _challenge(auth, AREA + "report.html")
    inside = await _sent(auth, AREA + "report.html")
    assert inside.headers[b"Authorization"] == basic_authorization("ann", "s3cret").encode()
    assert inside.meta["members_only"] is True
    for url in (
        "https://members.test/elsewhere.html",  # out of the area's path
        "https://members.test:8443/area/x",  # another port
        "http://members.test/area/x",  # another scheme
        "https://other.test/area/x",  # another host
    ):
        outside = await _sent(auth, url)
        assert b"Authorization" not in outside.headers and "members_only" not in outside.meta, url


async def test_basic_credentials_go_only_where_the_site_asked_for_them(tmp_path: Path) -> None:
    auth = _auth(tmp_path, {"https://members.test": {"basic": {"user": "ann", "password": "s3cret"}}})  # the site
    public = await _sent(auth, "https://members.test/news.html")
    assert await _answered(auth, public, _answer(public)) is not None and "members_only" not in public.meta
    await _challenge(auth, "https://members.test/reports/q3.html")
    for url, asked in (
        ("https://members.test/reports/q4.html", True),  # the same protection space: at once, as browsers do
        ("https://members.test/reports/2024/q1.html", True),
        ("https://members.test/news.html", False),
        ("https://members.test/", False),
    ):
        request = await _sent(auth, url)
        assert (b"Authorization" in request.headers, request.meta.get("members_only", False)) == (asked, asked), url
    other = await _sent(auth, "https://members.test/api/x")  # a 401 of another scheme: the page's answer
    bearer = _answer(other, 401, {"WWW-Authenticate": 'Bearer realm="api"'})
    assert await _answered(auth, other, bearer) is bearer
    assert auth.stats.get_value("auth/challenged") == 1 and auth.stats.get_value("auth/failed") is None


async def test_credentials_a_redirect_kept_are_stripped_when_it_leaves_the_area(tmp_path: Path) -> None:
    auth = _auth(tmp_path)
    redirected = await _sent(
        auth,
        "https://other.test/landing",
        Authorization=basic_authorization("ann", "s3cret"),
        Cookie="session=c-456",
        **{"X-Api-Key": "k-123"},
    )
    assert not {b"Authorization", b"Cookie", b"X-Api-Key"} & set(redirected.headers)


async def test_a_link_from_a_members_only_page_to_another_site_carries_no_referer(tmp_path: Path) -> None:
    auth = _auth(tmp_path)
    away = await _sent(auth, "https://other.test/", Referer=AREA + "secret-report.html")
    home = await _sent(auth, "https://members.test/public.html", Referer=AREA + "secret-report.html")
    public = await _sent(auth, "https://other.test/", Referer="https://members.test/public.html")
    assert b"Referer" not in away.headers
    assert home.headers[b"Referer"] == (AREA + "secret-report.html").encode()
    assert public.headers[b"Referer"] == b"https://members.test/public.html"


async def test_a_header_or_cookie_entry_sends_its_own_and_names_them_for_the_archive(tmp_path: Path) -> None:
    auth = _auth(tmp_path)
    api = await _sent(auth, "https://api.test/v1/items")
    premium = await _sent(auth, "https://premium.test/article")
    assert api.headers[b"X-Api-Key"] == b"k-123" and api.meta["auth_headers"] == ("X-Api-Key",)
    assert premium.headers[b"Cookie"] == b"session=c-456" and premium.meta["members_only"] is True


async def test_a_refusal_of_the_credentials_is_counted_and_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    auth = _auth(tmp_path)
    await _challenge(auth, AREA + "a")
    for path in ("a", "b"):
        request = await _sent(auth, AREA + path)
        refused = _answer(request, 401)
        assert await auth.process_response(request, refused) is refused
    request = await _sent(auth, AREA + "c")
    await auth.process_response(request, _answer(request))
    assert auth.stats.get_value("auth/failed") == 2 and auth.stats.get_value("auth/members_only") == 1
    warned = [record for record in caplog.records if record.levelno == logging.WARNING and AREA in record.getMessage()]
    assert len(warned) == 1 and "s3cret" not in warned[0].getMessage()


async def test_digest_answers_the_sites_challenge_and_counts_its_uses(tmp_path: Path) -> None:
    auth = _auth(tmp_path)
    first = await _sent(auth, "https://digest.test/docs/a.html?part=2")
    assert b"Authorization" not in first.headers  # the site's 401 brings the challenge
    challenge = 'Digest realm="docs", nonce="n-1", qop="auth", algorithm=SHA-256'
    again = await auth.process_response(first, _answer(first, 401, {"WWW-Authenticate": challenge}))
    assert isinstance(again, Request) and again.url == first.url and again.dont_filter
    assert auth.stats.get_value("auth/challenged") == 1
    answered = [await _sent(auth, again.url), await _sent(auth, "https://digest.test/docs/b.html")]
    fields = [dict(re.findall(r'(\w+)="?([^",]*)"?', _authorization(r))) for r in answered]
    assert [f["nc"] for f in fields] == ["00000001", "00000002"]
    assert [f["uri"] for f in fields] == ["/docs/a.html?part=2", "/docs/b.html"]
    assert {f["username"] for f in fields} == {"ann"} and {f["nonce"] for f in fields} == {"n-1"}
    stale = 'Digest realm="docs", nonce="n-2", qop="auth", algorithm=SHA-256, stale=true'
    renewed = await auth.process_response(answered[1], _answer(answered[1], 401, {"WWW-Authenticate": stale}))
    assert isinstance(renewed, Request)
    fresh = _authorization(await _sent(auth, renewed.url))
    assert 'nonce="n-2"' in fresh and "nc=00000001" in fresh


def _form_entry(site: Any, password: str = PASSWORD) -> dict[str, Any]:
    return {
        site.url("/form/"): {
            "form": {
                "login_url": site.url("/login"),
                "fields": {"user": USER, "pass": password},
                "logged_in": "css:a.logout",
            }
        }
    }


def _logging_in(tmp_path: Path, redis_url: str, entries: dict[str, Any]) -> Crawler:
    """A crawler whose engine fetches the logins (without a delay between the requests of one)."""
    path = _credentials(tmp_path, entries)
    return crawler_with(tmp_path, REDIS_URL=redis_url, DOWNLOAD_DELAY=0, CRAWLER_CREDENTIALS_FILE=str(path))


async def test_a_form_login_is_done_once_before_its_area_and_its_session_goes_nowhere_else(
    tmp_path: Path, redis_url: str
) -> None:
    with serve_site({}) as other, serve_members(other.base) as site:
        crawler = _logging_in(tmp_path, redis_url, _form_entry(site))
        async with open_engine(crawler):
            auth = crawler.get_downloader_middleware(AuthMiddleware)
            assert auth is not None
            robots = Request(site.url("/robots.txt"), meta={"robots_txt": True})
            await auth.process_request(robots)
            assert site.logins == 0, "robots.txt comes before anything else on a site, a login too"
            first = await _sent(auth, site.url("/form/"))
            second = await _sent(auth, site.url("/form/report-6.html"))
            elsewhere = await _sent(auth, other.url("/from-form.html"))
            public = await _sent(auth, site.url("/public.html"))
            assert site.logins == 1 and auth.stats.get_value("auth/login") == 1
            [session] = site.issued
            assert first.headers[b"Cookie"] == second.headers[b"Cookie"] == f"sid={session}".encode()
            assert first.meta["members_only"] and second.meta["members_only"]
            assert b"Cookie" not in elsewhere.headers and b"Cookie" not in public.headers
            with site.lock:
                site.sessions.clear()  # the site ends the session
            logged_out = _answer(second, 302, {"Location": "/login?next=/form/report-6.html"})
            again = await auth.process_response(second, logged_out)
            assert isinstance(again, Request) and again.url == second.url
            assert auth.stats.get_value("auth/logged_out") == 1
            await auth.process_request(again)
            assert site.logins == 2 and again.headers[b"Cookie"] == f"sid={site.issued[-1]}".encode()


async def test_a_page_that_sends_a_logged_in_member_to_the_login_page_is_refused_without_a_new_login(
    tmp_path: Path, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with serve_site({}) as other, serve_members(other.base, session_requests=100) as site:
        crawler = _logging_in(tmp_path, redis_url, _form_entry(site))
        async with open_engine(crawler):
            assert crawler.engine is not None and crawler.stats is not None
            for path in ADMIN_PAGES:
                with pytest.raises(IgnoreRequest, match="not for this account"):
                    await crawler.engine.download_async(Request(site.url(path)))
            report = await crawler.engine.download_async(Request(site.url("/form/report-6.html")))
            assert report.status == 200 and b"Form area report six" in report.body
            assert site.logins == 1, "the session was alive: no login opens an admin's page to a member"
            assert crawler.stats.get_value("auth/forbidden") == len(ADMIN_PAGES)
            assert crawler.stats.get_value("auth/failed") is None
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING and "Members" in record.msg]


async def test_a_failed_form_login_drops_its_areas_requests_and_the_crawl_goes_on(
    tmp_path: Path, redis_url: str
) -> None:
    with serve_site({}) as other, serve_members(other.base) as site:
        crawler = _logging_in(tmp_path, redis_url, _form_entry(site, password="wrong"))
        async with open_engine(crawler):
            auth = crawler.get_downloader_middleware(AuthMiddleware)
            assert auth is not None
            for path in ("/form/", "/form/report-6.html"):
                with pytest.raises(IgnoreRequest, match="cannot log in"):
                    await _sent(auth, site.url(path))
            await _sent(auth, site.url("/public.html"))
            assert site.failed_logins == 1, "a login that failed is not tried again for every page"
            assert auth.stats.get_value("auth/failed") == 2


async def _answered(auth: AuthMiddleware, request: Request, response: HtmlResponse) -> Any:
    """``process_response``'s answer, awaited if the middleware answers asynchronously (Scrapy takes both)."""
    answer = auth.process_response(request, response)
    return await answer if inspect.isawaitable(answer) else answer


async def test_a_page_printing_the_credentials_back_loses_them_compressed_or_not(tmp_path: Path) -> None:
    auth = _auth(tmp_path)
    echoed = b"<p>X-Api-Key: k-123. Authorization: Basic " + basic_authorization("ann", "s3cret")[6:].encode() + b"</p>"
    api = await _sent(auth, "https://api.test/echo")
    body = gzip.compress(echoed)
    compressed = HtmlResponse(
        api.url, headers={"Content-Encoding": "gzip", "Content-Length": str(len(body))}, body=body, request=api
    )
    kept = await _answered(auth, api, compressed)
    assert kept.body == b"<p>X-Api-Key: [redacted]. Authorization: Basic YW5uOnMzY3JldA==</p>"  # not this area's
    assert b"Content-Encoding" not in kept.headers and kept.headers[b"Content-Length"] == str(len(kept.body)).encode()
    await _challenge(auth, AREA + "echo")
    basic = await _sent(auth, AREA + "echo")
    kept = await _answered(auth, basic, HtmlResponse(basic.url, body=echoed, request=basic))
    assert kept.body == b"<p>X-Api-Key: k-123. Authorization: [redacted]</p>"
    public = Request("https://members.test/echo")
    assert (await _answered(auth, public, HtmlResponse(public.url, body=echoed, request=public))).body == echoed
    assert auth.stats.get_value("auth/redacted") == 2
