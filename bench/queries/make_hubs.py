"""``python -m bench.queries.make_hubs``: a page named with its section, against the section's hub.

    python -m bench.queries.make_hubs [--sites django,git]

A reader who knows where a page stands names its section with it: ``topics
testing tools`` for Django's ``topics/testing/tools.html``, ``ref models
instances`` for ``ref/models/instances.html``. The section's hub (its index,
the page ``up`` leads to) holds the section's words in its title and the
page's title in its table of contents, so it competes; the right answer is
the page. This writes ``auto/<site>.hub.jsonl`` from each site's first
(English) edition: for each page with a hub, the section words then the
page's words, with a fixed seed choosing

- the section words: the URL's directories (``topics testing``), or the
  hub's title (``Using Django``, ``Chapter 1. Welcome to Debian`` without
  its number);
- the page words: its title (before a `` — `` when it has one: ``json``
  for ``json — JSON encoder and decoder``), or its file name when it says a
  word of the title (``instances`` for "Model instance reference").

Words the section already says are not repeated. The hub is the page's
``<link rel="up">``, else the link marked ``accesskey="U"`` (Sphinx's
"up"), else its breadcrumb's last ancestor (Sphinx's ``related`` bar),
else its directory's ``index.html``; a page without one (git's flat
manual pages) asks nothing; nor do Sphinx's generated ``_modules`` pages.
At most ``PER_HUB`` pages of a hub, ``SAMPLE`` queries a site.
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from urllib.parse import unquote, urljoin, urlsplit

import lxml.html

from bench.docsites import DocSite
from bench.queries import HERE, Query, dump
from bench.queries.make_auto import installed_sites, reachable, strip_title, title_suffixes

__all__ = ["SAMPLE", "hub_of", "section_words", "hub_query", "hub_queries", "main"]

SAMPLE = 150
PER_HUB = 20
_BASE = "http://site/"
_WORD = re.compile(r"[^\W_]+(?:[.'-][^\W_]+)*")
_SMALL = frozenset({"the", "a", "an", "of", "to", "and", "for", "in", "with", "on"})


def _target(path: str, href: str | None) -> str | None:
    if not href:
        return None
    url = urljoin(_BASE + path, href.strip())
    if not url.startswith(_BASE):
        return None
    target = unquote(urlsplit(url).path)[1:]
    return target + "index.html" if not target or target.endswith("/") else target


def hub_of(document: lxml.html.HtmlElement, path: str, exists: set[str]) -> str | None:
    """The path of the hub of the page at ``path`` (among ``exists``), or None.

    >>> page = lxml.html.fromstring('<html><head><link rel="up" href="ch01.html"></head><body></body></html>')
    >>> hub_of(page, "en/ch01s02.html", {"en/ch01.html"}), hub_of(page, "a/b.html", {"a/index.html"})
    ('en/ch01.html', 'a/index.html')
    """
    candidates = [
        *(link.get("href") for link in document.iter("link") if (link.get("rel") or "").casefold() == "up"),
        *(a.get("href") for a in document.iter("a") if (a.get("accesskey") or "").upper() == "U"),
        *[
            a.get("href")
            for a in document.xpath('//*[contains(@class, "related")]//li[contains(@class, "nav-item")]/a')
        ][-1:],
    ]
    for href in candidates:
        target = _target(path, href)
        if target is not None and target != path and target in exists:
            return target
    directory = path.rpartition("/")[0]
    index = f"{directory}/index.html" if directory else "index.html"
    return index if index != path and index in exists and directory else None


def section_words(path: str) -> list[str]:
    """The words of the directories of ``path``.

    >>> section_words("topics/testing/tools.html"), section_words("howto/static-files/index.html")
    (['topics', 'testing'], ['howto', 'static', 'files'])
    """
    return [word for part in path.split("/")[:-1] for word in re.split(r"[-_.\s]+", part) if word]


def hub_query(section: Sequence[str], page: Sequence[str]) -> str | None:
    """The section's words, then the page's that the section does not say; None when
    the page keeps no word of its own (small words aside).

    >>> hub_query(["topics", "testing"], ["Testing", "tools"])
    'topics testing tools'
    >>> hub_query(["ref", "models"], ["Models"]) is None
    True
    """
    said = {word.casefold() for word in section}
    own = [word for word in page if word.casefold() not in said]
    if not any(word.casefold() not in _SMALL for word in own):
        return None
    return " ".join([*section, *own])


def _page_words(title: str, path: str, rng: random.Random) -> list[str]:
    name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    # The file's name when it says the title's word (instances.html, "Model instance reference").
    if rng.random() < 0.3 and name.isalpha() and name[:5].casefold() in title.casefold():
        return [name]
    return _WORD.findall(title.split(" — ", 1)[0])


def hub_queries(site: DocSite, seed: str, limit: int = SAMPLE) -> list[Query]:
    found = reachable(site.root, site.seeds)
    edition = site.editions[0]
    pages = {
        path: page
        for path, page in found.items()
        if edition.holds(path) and path not in site.copies and not path.startswith("_")  # Sphinx's _modules
    }
    language_directory = edition.pattern.partition("*")[0] if "/" in edition.pattern else ""
    suffixes = title_suffixes([page.title for page in pages.values()])
    rng = random.Random(seed)
    made = []
    for path, page in pages.items():
        document = lxml.html.document_fromstring((site.root / path).read_bytes())
        hub = hub_of(document, path, set(pages))
        if hub is None:
            continue
        hub_title = _WORD.findall(strip_title(pages[hub].title, suffixes))
        directories = section_words(path.removeprefix(language_directory))
        section = directories if directories and rng.random() < 0.5 else hub_title
        text = hub_query(section, _page_words(strip_title(page.title, suffixes), path, rng))
        if text is not None:
            made.append(Query(text, ("{site}/" + path,), note=f"hub {hub}"))
    texts = Counter(query.query.casefold() for query in made)
    by_hub: defaultdict[str, list[Query]] = defaultdict(list)
    for query in made:
        if texts[query.query.casefold()] == 1:  # one right page
            by_hub[query.note].append(query)
    # A few pages of each hub, so that one long section (release notes) does not fill the set.
    chosen = [query for queries in by_hub.values() for query in rng.sample(queries, min(PER_HUB, len(queries)))]
    return sorted(rng.sample(chosen, min(limit, len(chosen))), key=lambda q: (q.urls, q.query))


def main(argv: list[str] | None = None) -> int:
    for site in installed_sites("bench.queries.make_hubs", __doc__, argv):
        queries = hub_queries(site, f"{site.name}:hub")
        target = HERE / "auto" / f"{site.name}.hub.jsonl"
        if queries:
            dump(queries, target)
        elif target.exists():
            target.unlink()
        print(f"{site.name}: hub {len(queries)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
