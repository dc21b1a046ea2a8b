"""What a fetched page yields for the index: the crawl's page logic (pure).

One code path, used by the ``web`` spider while it crawls and by
``python -m indexer rebuild`` when it replays the archive: canonical URL
(``<link rel=canonical>``), aliases from redirects, refreshes followed like
redirects, a site's "not found" look-alikes (soft 404s), robots META and
``X-Robots-Tag``, content duplicates and near duplicates (of a page's
copies under language segments, the one that fits its language), per-site
boilerplate, and 404/410 answers as gone pages.

What differs between the two is memory: which contents were seen first and
what each site answers for a missing page. A :class:`PageMemory` holds it:
the crawl's lives in Redis and is shared by every node
(:class:`crawler.frontier.Frontier`), the rebuild's in this process
(:class:`LocalPageMemory`).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypedDict
from urllib.parse import unquote, urlsplit

from crawler import settings as defaults
from crawler.archive import Fetch, decode_body, joined_headers
from crawler.boilerplate import BoilerplateDetector
from crawler.extract import Extraction, Page, extract
from crawler.extractors.html import lead, text_language
from crawler.extractors.page import Link
from crawler.fingerprints import content_fingerprint, fingerprints, hamming, simhash, simhash_blocks
from crawler.items import DuplicateItem, GoneItem, Item, PageItem, UnchangedItem
from crawler.languages import kept_copy
from crawler.linkfilter import LinkFilter
from crawler.project import project_settings
from crawler.revisit import RevisitBounds
from crawler.robots import page_directives, robots_agent
from crawler.scope import Scope
from crawler.sites import site_of
from crawler.traps import Blacklist, PatternBudget
from crawler.urls import TrapRules, UrlPolicy

logger = logging.getLogger(__name__)

__all__ = [
    "Fetched",
    "LocalPageMemory",
    "Outcome",
    "PAGE_SETTINGS",
    "PageLogic",
    "PageMemory",
    "body_size",
    "page_settings",
    "recorded_page_settings",
    "replay",
    "says_not_found",
]

_SOFT404_BITS = 8  # a page this close to the site's "not found" answer is one
# Copies of a page taking it over from each other on several nodes at once:
# how many owners one page is compared with before it stays a duplicate.
_TAKE_OVER_TRIES = 3

# What a "not found" page calls itself, in the form _plain() gives a title:
# lower case, no punctuation ("can't": "can t"), without 404, "error",
# "oops", "sorry", articles and the like (_DECORATIONS).
_NOT_FOUND = frozenset(
    """
not found
page not found
file not found
document not found
resource not found
content not found
article not found
post not found
no such page
page missing
nothing found
nothing was found
page cannot be found
page can not be found
page can t be found
page could not be found
page was not found
page does not exist
page doesn t exist
page no longer exists
page you requested could not be found
page you requested was not found
page you requested does not exist
page you are looking for could not be found
page you re looking for could not be found
page you were looking for could not be found
page you are looking for does not exist
page you re looking for does not exist
page you re looking for doesn t exist
page you were looking for does not exist
page you were looking for doesn t exist
we can t find page
we can t find page you re looking for
we couldn t find page
we couldn t find page you were looking for
we couldn t find page you re looking for
seite nicht gefunden
seite wurde nicht gefunden
page introuvable
page non trouvée
página no encontrada
pagina non trovata
página não encontrada
pagina niet gevonden
страница не найдена
找不到页面
找不到网页
页面不存在
网页不存在
页面未找到
未找到页面
页面没有找到
页面找不到了
该页面不存在
您访问的页面不存在
你访问的页面不存在
您要访问的页面不存在
您要找的页面不存在
您访问的页面找不到了
找不到頁面
找不到網頁
頁面不存在
網頁不存在
ページが見つかりません
ページが見つかりませんでした
お探しのページは見つかりませんでした
お探しのページが見つかりません
페이지를 찾을 수 없습니다
""".strip().splitlines()
)
_DECORATIONS = frozenset(
    "error err oops whoops sorry ouch uh oh hmm http status code the this that a an "
    "错误 抱歉 对不起 哎呀 糟糕 錯誤".split()
)
_STATUS_404 = re.compile(r"(?<!\d)404(?!\d)")
_TITLE_PARTS = re.compile(r"\s+[|\-–—·»]\s+|\s+::\s+")
# A page that says it is not found says little else; an article about such
# errors (an HTTP reference's "404 Not Found") says more than this, in characters.
_NOT_FOUND_TEXT = 1000

#: The settings that change what a page yields (kept with the archive, so a
#: rebuild reads pages as the crawl did).
PAGE_SETTINGS = (
    *UrlPolicy._SETTINGS.values(),
    *TrapRules._SETTINGS.values(),
    "TRAPS_BLACKLIST_HOSTS",
    "TRAPS_BLACKLIST_URLS",
    "TRAPS_NEAR_DUPLICATE_BITS",
    "ROBOTSTXT_USER_AGENT",
    "CRAWLER_PRODUCT",
    "RECRAWL_INTERVAL",
    "RECRAWL_MIN_INTERVAL",
    "RECRAWL_MAX_INTERVAL",
    "RECRAWL_SITE_INTERVALS",
    "DOWNLOAD_MAXSIZE",  # where a compressed body stopped inflating
    "LINKS_MAX_PER_PAGE",
    "LINKS_MAX_OFFSITE_PER_PAGE",
)


def page_settings(settings: Any) -> dict[str, Any]:
    """The values of :data:`PAGE_SETTINGS` (Scrapy settings or a dict), as JSON data."""
    values: dict[str, Any] = {}
    for name in PAGE_SETTINGS:
        value = settings.get(name)
        if name in ("TRAPS_BLACKLIST_HOSTS", "TRAPS_BLACKLIST_URLS"):
            value = list(settings.getlist(name)) if hasattr(settings, "getlist") else list(value or ())
        values[name] = value
    return values


def recorded_page_settings(recorded: Mapping[str, Any]) -> dict[str, Any]:
    """The :func:`page_settings` a crawl recorded, completed with today's
    (``crawler/settings.py``) for those it did not record: an archive
    written before a setting existed was read with the default of its day,
    of which today's is the best guess."""
    values = page_settings(project_settings())
    values.update((name, value) for name, value in recorded.items() if value is not None)
    return values


class PageMemory(Protocol):
    """What the page logic remembers across pages (the frontier's methods)."""

    def content_seen(self, digest: bytes, url: str, near: int | None = None) -> str | None:
        """Record ``url``'s content; the first other URL with the same (or,
        given its SimHash ``near``, nearly the same) content, if any."""

    def take_over_content(self, digest: bytes, first: str, url: str, near: int | None = None) -> str | None:
        """Make ``url`` the owner of the content ``first`` has, if ``first``
        still owns it; the owner found (``first``: it changed hands)."""

    def soft404(self, site: str) -> dict[str, Any] | None:
        """The site's missing-page signature; None while it is not known."""

    def set_soft404(self, site: str, signature: dict[str, Any]) -> None:
        """Remember what ``site`` answers for a missing page ({}: a real 404)."""


class LocalPageMemory:
    """A :class:`PageMemory` in this process, answering as the frontier's
    Redis scripts do (same first URL, same near-duplicate rule)."""

    def __init__(self, near_distance: int) -> None:
        self.near_distance = near_distance
        self._contents: dict[bytes, str] = {}
        self._blocks: dict[str, list[int]] = {}
        self._near: dict[int, str] = {}
        self._soft404: dict[str, dict[str, Any]] = {}

    def content_seen(self, digest: bytes, url: str, near: int | None = None) -> str | None:
        first = self._contents.get(digest)
        if first is not None:
            return None if first == url else first
        self._contents[digest] = url
        if near is None or self.near_distance <= 0:
            return None
        blocks = simhash_blocks(near, self.near_distance)
        for block in blocks:
            for other in self._blocks.get(block, ()):
                if hamming(near, other) <= self.near_distance:
                    other_url = self._near.get(other)
                    if other_url and other_url != url:
                        return other_url
        for block in blocks:
            known = self._blocks.setdefault(block, [])
            if near not in known:
                known.append(near)
        self._near[near] = url
        return None

    def take_over_content(self, digest: bytes, first: str, url: str, near: int | None = None) -> str | None:
        found = self._contents.get(digest)
        if found == first:
            self._contents[digest] = url
            if near is not None and self._near.get(near) == first:
                self._near[near] = url
        return found

    def soft404(self, site: str) -> dict[str, Any] | None:
        return self._soft404.get(site)

    def set_soft404(self, site: str, signature: dict[str, Any]) -> None:
        self._soft404[site] = signature


@dataclass
class Fetched:
    """What the page logic reads of a response: as the spider got it
    (redirects followed, body decoded), with the request's crawl context."""

    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    robots_tags: list[str] = field(default_factory=list)
    depth: int = 0
    redirects: list[str] = field(default_factory=list)
    revisit: bool = False  # a conditional request for a page fetched before
    fetched: float = 0.0  # when (epoch seconds)
    members_only: bool = False  # fetched with a site owner's credentials (ARCHITECTURE.md, item 12)

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        return next((value for key, value in self.headers.items() if key.lower() == lowered), None)


@dataclass
class Outcome:
    """What a page yields: items for the indexer, and for the crawl either a
    refresh target to fetch like a redirect or a page whose links to follow."""

    items: list[Item] = field(default_factory=list)
    refresh: str | None = None
    follow: Page | None = None


class PageLogic:
    """Pages in, index items out; every decision counted through ``count``."""

    def __init__(
        self,
        policy: UrlPolicy,
        links: LinkFilter,
        agent: str,
        memory: PageMemory,
        count: Callable[..., Any],
        boilerplate: BoilerplateDetector | None = None,
        revisit: RevisitBounds | None = None,
        body_limit: int = 0,
        max_links: int = defaults.LINKS_MAX_PER_PAGE,
        max_offsite_links: int = defaults.LINKS_MAX_OFFSITE_PER_PAGE,
    ) -> None:
        self.revisit = revisit or RevisitBounds(
            defaults.RECRAWL_INTERVAL,
            defaults.RECRAWL_MIN_INTERVAL,
            defaults.RECRAWL_MAX_INTERVAL,
            defaults.RECRAWL_SITE_INTERVALS,
        )
        #: Links kept from one page (LINKS_MAX_PER_PAGE; 0: all), and of them
        #: to other sites (LINKS_MAX_OFFSITE_PER_PAGE): a page of 300,000
        #: links would otherwise queue, store and index them all.
        self.max_links = max_links
        self.max_offsite_links = max_offsite_links
        #: What an archived compressed body inflates to at most when it is
        #: replayed (the crawl's DOWNLOAD_MAXSIZE; 0: no limit). The crawl's
        #: own responses come decoded (crawler.limits.Decompression).
        self.body_limit = body_limit
        self.policy = policy
        self.links = links
        self.agent = agent
        self.memory = memory
        self.count = count
        self.boilerplate = boilerplate or BoilerplateDetector()
        self._noted: set[tuple[str, str]] = set()  # (site, note) already logged

    @classmethod
    def from_settings(
        cls, settings: Mapping[str, Any], memory: PageMemory | None = None, count: Callable[..., Any] | None = None
    ) -> PageLogic:
        """From :func:`page_settings` values (a rebuild's logic: no scope, no
        budget); today's defaults for those missing (:func:`recorded_page_settings`)."""
        settings = recorded_page_settings(settings)
        links = LinkFilter(
            Scope("any"),
            TrapRules.from_settings(settings),
            Blacklist(settings["TRAPS_BLACKLIST_HOSTS"], settings["TRAPS_BLACKLIST_URLS"]),
            PatternBudget(0),
        )
        agent = robots_agent(settings)
        revisit = RevisitBounds(
            float(settings["RECRAWL_INTERVAL"]),
            float(settings["RECRAWL_MIN_INTERVAL"]),
            float(settings["RECRAWL_MAX_INTERVAL"]),
            settings["RECRAWL_SITE_INTERVALS"],
        )
        return cls(
            UrlPolicy.from_settings(settings),
            links,
            agent,
            memory if memory is not None else LocalPageMemory(int(settings["TRAPS_NEAR_DUPLICATE_BITS"])),
            count or (lambda key, value=1: None),
            revisit=revisit,
            body_limit=int(settings["DOWNLOAD_MAXSIZE"]),
            max_links=int(settings["LINKS_MAX_PER_PAGE"]),
            max_offsite_links=int(settings["LINKS_MAX_OFFSITE_PER_PAGE"]),
        )

    def extraction(self, fetched: Fetched) -> tuple[str, Extraction | None]:
        """The canonical URL of a response, and what :meth:`page` extracts
        from it (None for a 304: nothing to read); to compute elsewhere (a
        worker process) and hand to :meth:`page`."""
        url = self.policy.canonicalize(fetched.url)
        if fetched.status == 304:
            return url, None
        return url, extract(fetched.body, url, None, fetched.headers, self.policy.canonicalize)

    def page(self, fetched: Fetched, extraction: Extraction | None = None) -> Outcome:
        """What a 2xx answer to a page request yields (or a 304 to a revisit);
        ``extraction``: already done (:meth:`extraction`), else done here."""
        url = self.policy.canonicalize(fetched.url)
        if fetched.revisit or fetched.status == 304:
            self.count(f"recrawl/{'unchanged' if fetched.status == 304 else 'fetched'}")
        if fetched.status == 304:
            return Outcome(items=[UnchangedItem(type="unchanged", url=url, **self._fetch_state(fetched))])
        if extraction is None:
            extraction = extract(fetched.body, url, None, fetched.headers, self.policy.canonicalize)
        page = extraction.page
        if page is None:
            self.count(f"extract/skipped/{extraction.skip}")
            return Outcome()
        self.count(f"extract/{page.kind}")
        page.links = self._kept_links(page.links, url)
        self._count_workarounds(page, url)
        aliases = self._aliases(fetched.redirects, url)
        if page.refresh:  # a Refresh header, or a meta refresh Scrapy left alone
            self.count("extract/refresh")
            return Outcome(refresh=page.refresh)
        if page.canonical and page.canonical != url:
            aliases.append(url)
            page.url = url = page.canonical
        if self._is_soft_404(page):
            return Outcome(items=[GoneItem(type="gone", url=url, status=404, soft=True)])
        return self._what_robots_meta_allows(fetched, page, aliases)

    def _kept_links(self, links: list[Link], url: str) -> list[Link]:
        """The links a page at ``url`` keeps (:func:`capped_links`); those cut
        are counted, and logged once per site."""
        kept = capped_links(links, site_of(url), self.max_links, self.max_offsite_links)
        if len(kept) < len(links):
            self.count("links/capped", len(links) - len(kept))
            if self._first_time(url, "links/capped"):
                logger.info(
                    "%s has %d links: %d are kept (the first %d, at most %d to other sites: "
                    "LINKS_MAX_PER_PAGE, LINKS_MAX_OFFSITE_PER_PAGE); further such pages are "
                    "counted as links/capped",
                    url,
                    len(links),
                    len(kept),
                    self.max_links,
                    self.max_offsite_links,
                )
        return kept

    def _count_workarounds(self, page: Page, url: str) -> None:
        """Count what the extractor worked around to read the page; log each once per site."""
        for note in page.notes:
            self.count(f"extract/{note}")
            if self._first_time(url, note):
                logger.info(
                    "%s: extraction worked around %s; further cases are counted as extract/%s",
                    url,
                    note.replace("_", " "),
                    note,
                )

    def _first_time(self, url: str, note: str) -> bool:
        """Whether ``note`` is new for the site of ``url`` (then it is remembered)."""
        if (site_of(url), note) in self._noted:
            return False
        self._noted.add((site_of(url), note))
        return True

    def _is_soft_404(self, page: Page) -> bool:
        """Whether a 200 page is a "not found" in disguise: the site's answer
        for a missing page, or a page that says so itself (counted)."""
        if self._soft_not_found(page):
            self.count("extract/soft404")
            return True
        if page.kind == "html" and says_not_found(page.title, page.headings[0] if page.headings else "", page.text):
            self.count("soft404/content")
            if self._first_time(page.url, "soft404/content"):
                logger.info(
                    "%s answers 200 but says it is not found (%r): not indexed; further such "
                    "pages are counted as soft404/content",
                    page.url,
                    page.title or page.headings[0],
                )
            return True
        return False

    def _what_robots_meta_allows(self, fetched: Fetched, page: Page, aliases: list[str]) -> Outcome:
        """What a readable page yields, as its robots META and ``X-Robots-Tag``
        allow: its item (or, once indexed, a gone item for ``noindex``; a
        duplicate item for a copy), and its links to follow unless ``nofollow``."""
        directives = page_directives(page.meta, fetched.robots_tags, self.agent)
        follow = "nofollow" not in directives
        outcome = Outcome()
        if "noindex" in directives:
            self.count("meta/noindex")
            if fetched.revisit:  # indexed before: it leaves the index
                outcome.items.append(GoneItem(type="gone", url=page.url, status=fetched.status, noindex=True))
        else:
            outcome.items = self._page_or_copy(fetched, page, aliases, follow)
            if outcome.items[0]["type"] == "duplicate":
                return outcome
        if not follow:
            self.count("meta/nofollow")
            return outcome
        outcome.follow = page
        return outcome

    def _page_or_copy(self, fetched: Fetched, page: Page, aliases: list[str], follow: bool) -> list[Item]:
        """The page's item, or a duplicate item when another URL had its
        content first (not one that redirects here: the same page, moved).
        A copy whose URL fits the page's language better takes the page
        over (:func:`~crawler.languages.kept_copy`): its item, then one
        saying the URL that had it is now its duplicate."""
        digest, near = fingerprints(page) if page.text else (None, None)
        first = self.memory.content_seen(digest, page.url, near) if digest else None
        replaced = None
        if digest and first is not None and first not in aliases:
            first, took_over = self._copy_kept(page, digest, near, first)
            self.count("dupes/content")
            if not took_over:
                return [DuplicateItem(type="duplicate", url=page.url, of=first, aliases=aliases)]
            self.count("dupes/language_swap")
            replaced = DuplicateItem(type="duplicate", url=first, of=page.url, aliases=[])
        self.count("boilerplate/blocks", self.boilerplate.strip(page))
        if page.kind == "html" and not page.description:
            page.description = lead(page.blocks, page.headings)
        item = self._item(fetched, page, aliases, follow, digest.hex() if digest else None)
        if fetched.members_only:
            item["members_only"] = True
        return [item] if replaced is None else [item, replaced]

    def _copy_kept(self, page: Page, digest: bytes, near: int | None, first: str) -> tuple[str, bool]:
        """The URL that keeps the content of ``page``, a copy of ``first``'s,
        and whether ``page`` took it over from that URL: when the two differ
        only by a language segment and the page's fits its language better.
        The language is the one its markup, headers or text give: one that
        only its URL names would let every copy claim the page in turn. The
        take-over is a compare-and-set every node shares; should another
        node have taken the content over meanwhile, the page is compared
        with that URL instead."""
        lang = text_language(page) if page.lang_from_url else page.lang
        for _ in range(_TAKE_OVER_TRIES):
            if kept_copy(first, page.url, lang) != page.url:
                return first, False
            found = self.memory.take_over_content(digest, first, page.url, near)
            if found == first:
                return first, True
            if found is None or found == page.url:  # a near copy, with a fingerprint of its own
                return first, False
            first = found
        return first, False

    def gone(self, url: str, status: int) -> GoneItem | None:
        """404/410: the URL must not live on as an anchor-only result."""
        if status not in (404, 410):
            return None
        try:
            return GoneItem(type="gone", url=self.policy.canonicalize(url), status=status)
        except ValueError:
            return None

    def probe(self, fetched: Fetched) -> None:
        """Remember what the site answers for a page that does not exist."""
        site = site_of(fetched.url)
        signature: dict[str, Any] = {}
        if fetched.status == 200:
            page = extract(fetched.body, fetched.url, None, fetched.headers).page
            if page is not None and page.kind == "html":
                page = _without_path(page)
                signature = {
                    "title": page.title,
                    "simhash": simhash(page),
                    "length": len(page.text),
                    "digest": content_fingerprint(page).hex(),
                }
                logger.info("%s answers 200 for missing pages: such pages will not be indexed", site)
        self.memory.set_soft404(site, signature)

    def _soft_not_found(self, page: Page) -> bool:
        """Whether a 200 page looks like the site's answer for a missing page."""
        if page.kind != "html":
            return False
        signature = self.memory.soft404(site_of(page.url))
        if signature is None:
            return False  # the probe has not answered yet
        if not signature or page.title != signature["title"]:
            return False
        page = _without_path(page)
        if content_fingerprint(page).hex() == signature["digest"]:
            return True
        length = max(len(page.text), signature["length"], 1)
        if abs(len(page.text) - signature["length"]) / length > 0.2:
            return False
        mine, theirs = simhash(page), signature["simhash"]
        return mine is not None and theirs is not None and hamming(mine, theirs) <= _SOFT404_BITS

    def _aliases(self, redirects: list[str], url: str) -> list[str]:
        """URLs that led here through redirects: the index maps them to ``url``."""
        aliases = []
        for earlier in redirects:
            try:
                alias = self.policy.canonicalize(earlier)
            except ValueError:
                continue
            if alias != url and alias not in aliases:
                aliases.append(alias)
        return aliases

    def _item(self, fetched: Fetched, page: Page, aliases: list[str], follow: bool, digest: str | None) -> PageItem:
        links = []
        if follow:
            links = [
                [link.url, link.text] for link in page.links if not link.nofollow and self.links.indexable(link.url)
            ]
        return PageItem(
            type="page",
            url=page.url,
            aliases=aliases,
            status=fetched.status,
            depth=fetched.depth,
            title=page.title,
            description=page.description,
            keywords=page.keywords,
            headings=page.headings,
            sections=page.sections,
            emphasis=page.emphasis,
            text=page.text,
            lang=page.lang,
            kind=page.kind,
            media_type=page.media_type,
            size=body_size(fetched, page.kind),
            links=links,
            **self._fetch_state(fetched),
            digest=digest,
            hierarchy=page.hierarchy,
            alternates=page.alternates,
        )

    def _fetch_state(self, fetched: Fetched) -> _FetchState:
        """What the indexer needs to schedule the next revisit of a response's
        URL: when it was fetched, its validators, and the site's interval
        bounds ``[first, minimum, maximum]`` (:mod:`crawler.revisit`)."""
        return _FetchState(
            fetched=fetched.fetched,
            etag=fetched.header("ETag"),
            last_modified=fetched.header("Last-Modified"),
            revisit=list(self.revisit.for_url(fetched.url)),
        )


class _FetchState(TypedDict):
    """The keys of :meth:`PageLogic._fetch_state`, which a page item and an unchanged item share."""

    fetched: float
    etag: str | None
    last_modified: str | None
    revisit: list[float]


def body_size(fetched: Fetched, kind: str) -> int | None:
    """The size in bytes of the document a response holds, as a result
    shows it: its body as read (decompressed; cut off at the download limit
    when it was), except a media file's, which the crawl stops after its
    headers (:mod:`crawler.limits`): its ``Content-Length`` then, if any.

    >>> body_size(Fetched("http://a.test/", 200, {}, b"<p>hi</p>"), "html")
    9
    >>> body_size(Fetched("http://a.test/a.zip", 200, {"content-length": "5120"}, b""), "media")
    5120
    >>> body_size(Fetched("http://a.test/a.zip", 200, {}, b""), "media") is None
    True
    """
    if kind != "media" or fetched.body:
        return len(fetched.body)
    declared = (fetched.header("Content-Length") or "").strip()
    return int(declared) if declared.isdigit() else None


def capped_links(links: list[Link], site: str, most: int, most_offsite: int) -> list[Link]:
    """The links a page keeps: the first ``most`` (0: all) in its order,
    those to a site other than ``site`` only up to ``most_offsite`` (0: no
    limit of their own), so a page's many links to its own site survive
    its links to others.

    >>> links = [Link(url, "") for url in ("http://a.test/1", "http://b.test/", "http://c.test/", "http://a.test/2")]
    >>> [link.url for link in capped_links(links, site_of("http://a.test/"), 3, 1)]
    ['http://a.test/1', 'http://b.test/', 'http://a.test/2']
    """
    if (not most or len(links) <= most) and (not most_offsite or len(links) <= most_offsite):
        return links  # no cap can bite (most pages: no site needs asking for)
    kept: list[Link] = []
    offsite = 0
    for link in links:
        if most and len(kept) >= most:
            break
        if most_offsite and site_of(link.url) != site:
            if offsite >= most_offsite:
                continue
            offsite += 1
        kept.append(link)
    return kept


def replay(logic: PageLogic, fetch: Fetch) -> list[Item]:
    """The items an archived response gave in the crawl, made again.

    Scrapy's middlewares decided which responses reached the spider, and
    how; the same rules here: robots.txt and sitemaps give no items, a probe
    is remembered whatever its status, a redirect or a retried error led to
    another request (archived on its own), 404 and 410 are gone pages, and a
    2xx body is decoded and read as a page.
    """
    if fetch.role in ("robots", "sitemap"):
        return []
    if fetch.role == "probe" or 200 <= fetch.status < 300 or fetch.status == 304:
        try:
            body, headers = decode_body(fetch.headers, fetch.body, logic.body_limit)
        except ValueError as exc:
            logger.debug("Undecodable body of %s: %s", fetch.url, exc)
            return []  # the crawl's decompression failed too: no page
        fetched = Fetched(
            url=fetch.url,
            status=fetch.status,
            headers=joined_headers(headers),
            body=body,
            robots_tags=fetch.header_values("X-Robots-Tag"),
            depth=fetch.depth,
            redirects=list(fetch.redirects),
            fetched=_epoch(fetch.date),
            members_only=fetch.members_only,
            revisit=any(name.lower() in ("if-none-match", "if-modified-since") for name, _ in fetch.request_headers),
        )
        if fetch.role == "probe":
            logic.probe(fetched)
            return []
        return logic.page(fetched).items
    item = logic.gone(fetch.url, fetch.status)
    return [item] if item is not None else []


def says_not_found(title: str, heading: str, text: str) -> bool:
    """Whether a page's title (or a part of it between `` | ``, `` - ``...)
    or its main heading says, and says only, that the page is not found,
    and the page says little else: a "soft 404" the site answered 200 for.

    Conservative: the whole title part or heading must be such a phrase,
    give or take "404", "error", "oops", "sorry" and punctuation, so an
    article *about* those errors keeps its page, and a long page is kept
    whatever it is called.

    >>> says_not_found("Page not found – Harbor Gazette", "", "")
    True
    >>> says_not_found("Harbor Gazette", "Oops! That page can’t be found.", "Try a search.")
    True
    >>> says_not_found("404", "", ""), says_not_found("抱歉，您访问的页面不存在", "", "")
    (True, True)
    >>> says_not_found("404 errors explained", "404 errors explained", "")
    False
    >>> says_not_found("How to fix page not found errors in nginx | Blog", "", "")
    False
    """
    if len(text) >= _NOT_FOUND_TEXT:
        return False
    parts = [heading, *(_TITLE_PARTS.split(title) if title else ())]
    return any(_says_not_found(part) for part in parts if part)


def _says_not_found(text: str) -> bool:
    plain = _plain(text)
    return plain in _NOT_FOUND or (not plain and _STATUS_404.search(text) is not None)


def _plain(text: str) -> str:
    """A title as :data:`_NOT_FOUND` spells it.

    >>> _plain("Error 404: We can’t find that page!")
    'we can t find page'
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _STATUS_404.sub(" ", text)
    text = re.sub(r"[^\w\s]|_", " ", text)
    return " ".join(word for word in text.split() if word not in _DECORATIONS)


def _epoch(date: str) -> float:
    """A WARC-Date (ISO 8601, UTC) in epoch seconds; 0 if unreadable."""
    try:
        return datetime.fromisoformat(date.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def _without_path(page: Page) -> Page:
    """The page with its own URL's path taken out of its text: a "not found"
    page often names the path it was asked for, the only part that differs."""
    path = unquote(urlsplit(page.url).path)
    text = page.text.replace(path, " ")
    for segment in path.split("/"):
        if len(segment) > 2:
            text = text.replace(segment, " ")
    return Page(url=page.url, title=page.title, text=" ".join(text.split()))
