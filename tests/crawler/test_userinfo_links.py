"""Links that carry ``user:password@``: followed without it, counted, and the
password kept nowhere: not in the index, the archive, Redis or the log.

A real `scrapy crawl` of a literal site on 127.0.0.1 that links to one of
its pages, and redirects to another, with a password before the host.
"""

from __future__ import annotations

from pathlib import Path

from indexer.layout import stored_documents
from tests.commands import crawl
from tests.test_members_only import _readable, _stat
from tests.webserver import Reply, serve_site
from tests.webserver import page as html

SECRET = "Hunter2-in-a-link"


def test_a_link_with_a_password_is_followed_without_it_and_the_password_kept_nowhere(tmp_path: Path) -> None:
    routes = {
        "/private.html": html("<title>Private</title><p>The page the link names.</p>"),
        "/landing.html": html("<title>Landing</title><p>Where the redirect leads.</p>"),
    }
    with serve_site(routes) as site:
        with_secret = site.base.replace("://", f"://reader:{SECRET}@")
        routes["/"] = html(
            f'<title>Home</title><a href="{with_secret}/private.html">the private page</a> <a href="/go">go</a>'
        )
        routes["/go"] = Reply(b"", 302, {"Location": f"{with_secret}/landing.html"})
        done = crawl([site.url("/")], tmp_path / "data", "DOWNLOAD_DELAY=0", "LOG_LEVEL=DEBUG")
    assert done.returncode == 0, done.stderr[-3000:]
    documents = stored_documents(tmp_path / "data")
    assert {site.url("/private.html"), site.url("/landing.html")} <= set(documents)
    assert _stat(done.stderr, "extract/credentials_in_link") == 1
    assert _stat(done.stderr, "redirect/credentials_in_location") == 1
    assert SECRET not in done.stderr
    for path in (tmp_path / "data").rglob("*"):
        if path.is_file():
            # The archive keeps the home page as the site served it, its link and all; nothing else.
            assert _readable(path).count(SECRET.encode()) == int(path.name.endswith(".warc.gz")), path
