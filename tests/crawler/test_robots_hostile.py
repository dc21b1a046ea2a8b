"""robots.txt files that are large or not in UTF-8: read, not ignored, never "allow all" by accident.

RFC 9309 2.5: a crawler reads at least the first 500 KiB of robots.txt and
parses that. A robots.txt in UTF-16 (by its byte order mark, its charset, or
its NULs) is decoded; one that cannot be read in the encoding it names
closes its site (``robots/undecodable``).
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from crawler.robots import MAX_ROBOTS_BYTES, RobotsRules, decode_robots
from tests.commands import crawl
from tests.webserver import Reply, Site, page, serve_site

RULES = "User-agent: *\nDisallow: /secret/\n"
# Rules past the first 500 KiB: never read.
LATE = "Disallow: /late/\n"


def _huge(size: int) -> bytes:
    """A robots.txt of ``size`` bytes: the rules, comment lines, then a late rule."""
    filler = "# " + "padding " * 12 + "\n"
    return (RULES + filler * (size // len(filler)) + LATE).encode()


def _pages(name: str) -> dict[str, Reply]:
    links = "".join(f'<a href="{path}">{path}</a> ' for path in ("/a.html", "/secret/x.html", "/late/y.html"))
    return {
        "/": page(f"<title>Home of {name}</title><p>Welcome to {name}.</p>{links}"),
        "/a.html": page(f"<title>A of {name}</title><p>An allowed page of {name}.</p>"),
        "/secret/x.html": page(f"<title>Secret of {name}</title><p>A forbidden page of {name}.</p>"),
        "/late/y.html": page(f"<title>Late of {name}</title><p>A page named after the limit, {name}.</p>"),
    }


def _robots(body: bytes, content_type: str = "text/plain", **headers: str) -> Reply:
    return Reply(body, 200, {"Content-Type": content_type, **headers})


SITES = {
    "huge": _robots(_huge(20 * 1024 * 1024)),
    "huge-gzip": _robots(gzip.compress(_huge(20 * 1024 * 1024)), **{"Content-Encoding": "gzip"}),
    "utf16-bom": _robots(RULES.encode("utf-16")),
    "utf16le-charset": _robots(RULES.encode("utf-16-le"), "text/plain; charset=utf-16le"),
    "utf16be-charset": _robots(RULES.encode("utf-16-be"), "text/plain; charset=UTF-16"),
    "utf16-unlabelled": _robots(RULES.encode("utf-16-le")),
    # A UTF-16 byte order mark before bytes that are no UTF-16 text.
    "utf16-broken": _robots(b"\xff\xfe" + bytes(range(256)) * 4),
}


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Site], str]]:
    data = tmp_path_factory.mktemp("robots-hostile")
    with ExitStack() as stack:
        sites = {
            name: stack.enter_context(serve_site({"/robots.txt": robots, **_pages(name)}))
            for name, robots in SITES.items()
        }
        # A long retry delay: a site whose robots.txt was taken for unavailable would hold the crawl.
        done = crawl([site.url("/") for site in sites.values()], data, "DOWNLOAD_DELAY=0", "ROBOTS_RETRY_DELAY=600")
        assert done.returncode == 0, done.stderr[-3000:]
        yield sites, done.stderr


@pytest.mark.parametrize("name", ["huge", "huge-gzip"])
def test_a_huge_robots_txt_is_read_once_and_its_first_part_obeyed(crawled, name: str) -> None:
    sites, _ = crawled
    paths = sites[name].paths()
    assert paths.count("/robots.txt") == 1  # no retry
    assert {"/", "/a.html"} <= set(paths)
    assert "/secret/x.html" not in paths
    assert "/late/y.html" in paths  # its rule lies past the first 500 KiB


def test_a_huge_robots_txt_is_counted_and_logged(crawled) -> None:
    _, log = crawled
    assert "'robots/truncated': 2" in log
    assert log.count("its first part is parsed (RFC 9309 2.5)") == 2
    assert "'robots/outcome/retry'" not in log


@pytest.mark.parametrize("name", ["utf16-bom", "utf16le-charset", "utf16be-charset", "utf16-unlabelled"])
def test_a_utf16_robots_txt_is_obeyed(crawled, name: str) -> None:
    sites, _ = crawled
    paths = sites[name].paths()
    assert {"/", "/a.html", "/late/y.html"} <= set(paths)
    assert "/secret/x.html" not in paths


def test_an_undecodable_robots_txt_closes_its_site(crawled) -> None:
    sites, log = crawled
    assert sites["utf16-broken"].paths() == ["/robots.txt"]
    assert "'robots/undecodable': 1" in log
    assert "cannot be read in the encoding it names" in log


# --- decode_robots(), the pure part ------------------------------------------------------

TEXT = "User-agent: *\nDisallow: /secret/\n# café\n"

DECODED = [
    ("utf-8", TEXT.encode(), None, TEXT),
    ("utf-8 BOM", b"\xef\xbb\xbf" + TEXT.encode(), None, TEXT),
    ("utf-16 BOM", TEXT.encode("utf-16"), None, TEXT),
    ("utf-16-be BOM", b"\xfe\xff" + TEXT.encode("utf-16-be"), None, TEXT),
    ("utf-32 BOM", TEXT.encode("utf-32"), None, TEXT),
    ("utf-32-be BOM", b"\x00\x00\xfe\xff" + TEXT.encode("utf-32-be"), None, TEXT),
    ("utf-16le label", TEXT.encode("utf-16-le"), "text/plain; charset=utf-16le", TEXT),
    ("utf-16 label, BE bytes", TEXT.encode("utf-16-be"), "text/plain; charset=UTF-16", TEXT),
    ("utf-16 label quoted", TEXT.encode("utf-16-le"), 'text/plain; charset="utf-16"', TEXT),
    ("utf-16 by NULs, no label", TEXT.encode("utf-16-le"), None, TEXT),
    ("utf-16 by NULs, label says utf-8", TEXT.encode("utf-16-be"), "text/plain; charset=utf-8", TEXT),
    ("utf-16 label, ASCII bytes", TEXT.encode(), "text/plain; charset=utf-16", TEXT),
    ("latin-1 label", TEXT.encode("latin-1"), "text/plain; charset=iso-8859-1", TEXT),
    ("gbk label", "Disallow: /茶/\n".encode("gbk"), "text/plain; charset=gbk", "Disallow: /茶/\n"),
    ("unknown label", TEXT.encode(), "text/plain; charset=x-klingon", TEXT),
    ("latin-1 byte, no label", b"Disallow: /a\n# caf\xe9\n", None, "Disallow: /a\n# caf\ufffd\n"),
    ("utf-16 odd last byte", TEXT.encode("utf-16") + b"D", None, TEXT),
    ("comments only in utf-16", "# nothing here\n".encode("utf-16"), None, "# nothing here\n"),
]


@pytest.mark.parametrize(("case", "body", "content_type", "expected"), DECODED, ids=[d[0] for d in DECODED])
def test_decode_robots(case: str, body: bytes, content_type: str | None, expected: str) -> None:
    assert decode_robots(body, content_type) == expected


UNDECODABLE = [
    ("utf-16 BOM, junk", b"\xff\xfe" + bytes(range(256)) * 4, None),
    ("utf-16 BOM, UTF-8 text", b"\xff\xfe" + TEXT.encode() * 3, None),
    ("utf-16 label, junk with NULs", b"\x00\x01\x02\x03" * 300, "text/plain; charset=utf-16"),
    ("utf-32 BOM, UTF-16 text", b"\xff\xfe\x00\x00" + TEXT.encode("utf-16-le"), None),
]


@pytest.mark.parametrize(("case", "body", "content_type"), UNDECODABLE, ids=[u[0] for u in UNDECODABLE])
def test_a_body_not_in_the_encoding_it_names_is_undecodable(case: str, body: bytes, content_type: str | None):
    assert decode_robots(body, content_type) is None


def test_junk_that_names_no_encoding_is_left_to_looks_like_robots() -> None:
    assert decode_robots(bytes(range(256)) * 4, "text/plain") is not None


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_only_the_first_500_kib_are_read_and_the_cut_line_dropped(encoding: str) -> None:
    body = _huge(2 * MAX_ROBOTS_BYTES).decode().encode(encoding)
    text = decode_robots(body)
    assert text is not None and text.endswith("\n") and "/late/" not in text
    assert len(text.encode(encoding)) <= MAX_ROBOTS_BYTES + 2
    rules = RobotsRules.parse(text, "LanternBot")
    assert not rules.allowed("/secret/x.html") and rules.allowed("/late/y.html")


def test_a_body_cut_off_on_the_way_loses_its_last_line() -> None:
    body = b"User-agent: *\nDisallow: /secret/\nAllow: /secret/pub"
    assert decode_robots(body, cut=True) == "User-agent: *\nDisallow: /secret/\n"
    assert decode_robots(body) == body.decode()
