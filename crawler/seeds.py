"""What became of a crawl's seeds, said so a person can act on it (pure).

A seed is the user's own word for where the crawl starts: one that gives no
page is almost always a typo, a server that is not up yet, or a page that
moved, and a crawl that ends with status 0 and no word about it leaves the
user searching an empty index. So the crawl keeps each seed's last answer
(the monitor: a status, or a network error in words, below), names the
seeds that gave no page and why when it ends, and fails (exit status 3)
when none gave one, or when it fetched pages but sent none to the index.

A host that does not resolve, or a port where nothing listens, is not a
site that is busy: retrying it for minutes helps no one, so a crawl whose
every seed fails that way before any page is fetched ends at the first try
(crawler/halt.py), with the cause in words (:func:`unreachable`).
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from urllib.parse import urlsplit

__all__ = [
    "NO_SUCH_HOST",
    "REFUSED",
    "FORBIDDEN",
    "NO_SEED_PAGE",
    "INDEXED_NOTHING",
    "gave_a_page",
    "why_no_page",
    "seeds_said",
    "indexed_nothing",
    "unreachable",
]

#: Network errors that say no site is there (a seed's typo, a server not started), as answers.
NO_SUCH_HOST = "no such host"
REFUSED = "connection refused"
#: A seed that the site's robots.txt forbids (it is never fetched).
FORBIDDEN = "forbidden by robots.txt"

#: Why a crawl that ran to its end failed all the same (its exit status is 3).
NO_SEED_PAGE = "no_seed_page"
INDEXED_NOTHING = "indexed_nothing"


def gave_a_page(answer: str) -> bool:
    """Whether a seed's last answer is a page (a 2xx, or 304 on a revisit).

    >>> [gave_a_page(a) for a in ("HTTP 200", "HTTP 304", "HTTP 301", "HTTP 404", NO_SUCH_HOST)]
    [True, True, False, False, False]
    """
    return answer in ("HTTP 304",) or answer.startswith("HTTP 2")


def why_no_page(url: str, answer: str) -> str:
    """A seed's answer, in words that say what to do about it.

    >>> why_no_page("http://localhst:8080/", NO_SUCH_HOST)
    'no such host: localhst — check the seed'
    >>> why_no_page("http://127.0.0.1:9/", REFUSED)
    'connection refused: nothing listens on 127.0.0.1:9 — check the seed, or start the site first'
    >>> why_no_page("http://a.test/old", "HTTP 404"), why_no_page("http://a.test/", "HTTP 599")
    ('HTTP 404 Not Found', 'HTTP 599')
    """
    parts = urlsplit(url)
    if answer == NO_SUCH_HOST:
        return f"no such host: {parts.hostname} — check the seed"
    if answer == REFUSED:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return (
            f"connection refused: nothing listens on {parts.hostname}:{port} — check the seed, or start the site first"
        )
    if answer.startswith("HTTP ") and answer[5:].isdigit():
        try:
            return f"{answer} {HTTPStatus(int(answer[5:])).phrase}"
        except ValueError:
            return answer
    return answer


def seeds_said(answers: Mapping[str, str]) -> tuple[str | None, bool]:
    """The line on the seeds that gave no page (None: every one gave a
    page, or none was fetched in this run), and whether none gave one.

    >>> seeds_said({"http://a.test/": "HTTP 200", "http://a.test/old": "HTTP 404"})
    ('1 of 2 seeds gave no page: http://a.test/old (HTTP 404 Not Found)', False)
    >>> seeds_said({"http://localhst:8080/": NO_SUCH_HOST})
    ('No seed gave a page: http://localhst:8080/ (no such host: localhst — check the seed)', True)
    >>> seeds_said({"http://a.test/": "HTTP 200"}), seeds_said({})
    ((None, False), (None, False))
    """
    failed = {url: answer for url, answer in answers.items() if not gave_a_page(answer)}
    if not failed:
        return None, False
    listed = ", ".join(f"{url} ({why_no_page(url, answer)})" for url, answer in sorted(failed.items()))
    if len(failed) == len(answers):
        return f"No seed gave a page: {listed}", True
    return f"{len(failed):,} of {len(answers):,} seeds gave no page: {listed}", False


def indexed_nothing(pages: int, items: str) -> str:
    """Why a crawl that fetched ``pages`` has nothing to search: ``items``
    says what it sent to the indexer (crawler/report.py's words).

    >>> indexed_nothing(2, "2 sent to the indexer: 2 duplicates")
    'Indexed nothing: 2 pages fetched, 2 sent to the indexer: 2 duplicates; the index has no new page to search'
    """
    return f"Indexed nothing: {pages:,} page{'s' * (pages != 1)} fetched, {items}; the index has no new page to search"


def unreachable(failures: Mapping[str, str], parked: int) -> str:
    """The line a crawl ends with when its every site failed with no such
    host or a refused connection before any page was fetched: each site's
    cause, and that its requests stay queued (``parked``).

    >>> unreachable({"http://localhst:8080": NO_SUCH_HOST}, 1)
    'Crawled nothing: no such host: localhst — check the seed. 1 request stays queued for a later run.'
    >>> unreachable({"http://a.test:80": NO_SUCH_HOST, "http://127.0.0.1:9": REFUSED}, 0)  # doctest: +ELLIPSIS
    'Crawled nothing: connection refused: nothing listens on 127.0.0.1:9 — ...; no such host: a.test — check the seed.'
    """
    causes = "; ".join(why_no_page(site + "/", answer) for site, answer in sorted(failures.items()))
    queued = f" {parked:,} request{'s stay' if parked != 1 else ' stays'} queued for a later run." if parked else ""
    return f"Crawled nothing: {causes}.{queued}"
