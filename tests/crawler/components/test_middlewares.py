"""IdentityMiddleware (who we are, on every request) and SiteSlotMiddleware (a
download slot per site), built from the project's settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scrapy import Request
from scrapy.utils.misc import build_from_crawler

from crawler import settings as defaults
from crawler.middlewares import IdentityMiddleware, SiteSlotMiddleware
from tests.crawler.components.crawlers import crawler_with


def _identity(tmp_path: Path, **overrides: Any) -> IdentityMiddleware:
    return build_from_crawler(IdentityMiddleware, crawler_with(tmp_path, **overrides))


def test_every_request_names_the_bot_and_a_contact_robots_txt_included(tmp_path: Path) -> None:
    identity = _identity(tmp_path)
    page = Request("http://a.test/page", headers={"User-Agent": "Scrapy/2.19 (+https://scrapy.org)"})
    robots = Request("http://a.test/robots.txt", meta={"robots_txt": True})
    for request in (page, robots):
        identity.process_request(request)
        assert request.headers[b"User-Agent"] == f"LanternBot/0.1 (+{defaults.CRAWLER_INFO_URL})".encode()
        assert request.headers[b"From"] == defaults.CRAWLER_CONTACT.encode()


def test_the_identity_follows_the_settings_given_on_the_command_line(tmp_path: Path) -> None:
    identity = _identity(
        tmp_path, CRAWLER_PRODUCT="ExampleBot/2", CRAWLER_INFO_URL="https://example.org/bot", CRAWLER_CONTACT="ops@x"
    )
    request = Request("https://b.test/")
    identity.process_request(request)
    assert request.headers[b"User-Agent"] == b"ExampleBot/2 (+https://example.org/bot)"
    assert request.headers[b"From"] == b"ops@x"


def test_without_an_info_url_or_a_contact_only_the_product_is_sent(tmp_path: Path) -> None:
    identity = _identity(tmp_path, CRAWLER_INFO_URL="", CRAWLER_CONTACT="")
    request = Request("https://b.test/")
    identity.process_request(request)
    assert request.headers[b"User-Agent"] == defaults.CRAWLER_PRODUCT.encode()
    assert b"From" not in request.headers


def test_each_site_has_its_own_download_slot_even_on_one_host(tmp_path: Path) -> None:
    slots = build_from_crawler(SiteSlotMiddleware, crawler_with(tmp_path))
    requests = [
        Request(url)
        for url in (
            "http://a.test/x",
            "http://A.test:80/y",
            "http://a.test:8080/x",
            "https://a.test/x",
            "http://b.a.test/",
        )
    ]
    for request in requests:
        slots.process_request(request)
    named = [request.meta["download_slot"] for request in requests]
    assert named[0] == named[1], "one site (scheme, host, port) is one slot"
    assert len(set(named)) == 4, named


def test_long_bodies_are_cut_off_rather_than_dropped_and_a_chosen_slot_is_kept(tmp_path: Path) -> None:
    slots = build_from_crawler(SiteSlotMiddleware, crawler_with(tmp_path))
    request = Request("http://a.test/robots.txt", meta={"download_slot": "robots of a.test", "download_maxsize": 500})
    page = Request("http://a.test/big.html")
    slots.process_request(request)
    slots.process_request(page)
    assert request.meta["download_slot"] == "robots of a.test" and request.meta["download_maxsize"] == 500
    assert page.meta["download_maxsize"] == 0  # Scrapy's limit off: crawler.limits cuts the body off instead
