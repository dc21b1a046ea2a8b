"""A page of very many links: the first LINKS_MAX_PER_PAGE are kept, of them
LINKS_MAX_OFFSITE_PER_PAGE to other sites; the rest counted, not queued or indexed."""

from __future__ import annotations

from pathlib import Path

from indexer.layout import stored_documents
from tests.commands import crawl
from tests.webserver import page, serve_site

LINKS = 2_000
KEPT = 50
OWN = 300  # pages of the site's own, linked after the others


def test_a_page_of_thousands_of_links_keeps_the_first_few(tmp_path: Path) -> None:
    links = "".join(f'<a href="/p{k}.html">page {k}</a> ' for k in range(LINKS))
    offsite = "".join(f'<a href="http://elsewhere{k}.test/">elsewhere {k}</a> ' for k in range(LINKS))
    routes = {"/": page(f"<title>Link farm</title><p>Many links.</p>{links}{offsite}")}
    for k in range(LINKS):
        routes[f"/p{k}.html"] = page(f"<title>Page {k}</title><p>Page number {k} of the farm, alone.</p>")
    with serve_site(routes) as site:
        done = crawl(
            [site.url("/")],
            tmp_path,
            "DOWNLOAD_DELAY=0",
            "CONCURRENT_REQUESTS_PER_DOMAIN=8",
            f"LINKS_MAX_PER_PAGE={KEPT}",
            "MONITOR_INTERVAL=0",
        )
        asked = {path for path in site.paths() if path.startswith("/p")}
    assert done.returncode == 0, done.stderr[-3000:]
    assert asked == {f"/p{k}.html" for k in range(KEPT)}  # the first ones, in the page's order
    documents = stored_documents(tmp_path)
    assert not [url for url in documents if "elsewhere" in url]  # off-site links past the cap: no documents
    assert f"'links/capped': {2 * LINKS - KEPT}" in done.stderr
    assert done.stderr.count("LINKS_MAX_PER_PAGE, LINKS_MAX_OFFSITE_PER_PAGE") == 1


def test_links_to_other_sites_do_not_crowd_out_the_sites_own(tmp_path: Path) -> None:
    """An index page: thousands of links to other sites first, then to
    every page of its own site (a documentation index is 4,000 to 17,000;
    a few hundred of its own pages show the same)."""
    offsite = "".join(f'<a href="http://elsewhere{k}.test/">elsewhere {k}</a> ' for k in range(LINKS))
    links = "".join(f'<a href="/p{k}.html">page {k}</a> ' for k in range(OWN))
    routes = {"/": page(f"<title>Index</title><p>Every page.</p>{offsite}{links}")}
    for k in range(OWN):
        routes[f"/p{k}.html"] = page(f"<title>Page {k}</title><p>Page number {k} of the index, alone.</p>")
    with serve_site(routes) as site:
        done = crawl(
            [site.url("/")],
            tmp_path,
            "DOWNLOAD_DELAY=0",
            "CONCURRENT_REQUESTS_PER_DOMAIN=8",
            f"LINKS_MAX_OFFSITE_PER_PAGE={KEPT}",
            "MONITOR_INTERVAL=0",
        )
        asked = {path for path in site.paths() if path.startswith("/p")}
    assert done.returncode == 0, done.stderr[-3000:]
    assert asked == {f"/p{k}.html" for k in range(OWN)}  # every page of its own site
    documents = stored_documents(tmp_path)
    assert sorted(url for url in documents if "elsewhere" in url) == sorted(
        f"http://elsewhere{k}.test/" for k in range(KEPT)
    )  # the first ones, known by their anchors
    assert f"'links/capped': {LINKS - KEPT}" in done.stderr
