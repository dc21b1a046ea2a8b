"""Answering queries: parse, match, rank, group, cut snippets.

:class:`SearchEngine` opens a data directory read-only (the indexer may be
writing it at the same time) and answers :meth:`SearchEngine.search` with
plain data that the CLI and the web page render. The order of results is
:mod:`search.ranking`'s; this module gathers the numbers it needs:

1. candidates: the best ``_DEPTH`` pages matching every query word by text
   score (Whoosh's BM25F over the fields); when fewer than a page's worth
   match them all, pages matching any of the words are added;
2. for those candidates only: how many query words each matches, whether
   its title is the query, a proximity score (the words as a phrase, and
   near each other), and PageRank;
3. the ranking's order, then at most two results per host on a page, then
   the page asked for, with snippets (and, with ``explain``, every number).
"""

from __future__ import annotations

import dataclasses
import re
import sqlite3
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

import numpy as np
from whoosh.query import And, AndNot, Every, Not, NullQuery, Or, Query, Term
from whoosh.reading import TermNotFound

from crawler.datadir import graph_dir, pages_path
from indexer import schema as fields
from indexer.analysis import has_cjk, word_by_word
from indexer.graph import LINKS_FILE, LinkGraph, personalization_weights, stored_personalization
from indexer.layout import CORRUPTION, IndexBeingBuilt, IndexDamaged, IndexMissing, OldLayout, is_corruption
from indexer.store import PageStore
from search import proximity, ranking, spelling
from search.corpus import Corpus
from search.deeplinks import best_section
from search.parsing import ANY, LEVELS, PARTS, STRICT, QueryParser, UnionOr, word_forms
from search.snippets import passage, sentence, word_pattern
from search.topdocs import supports

__all__ = [
    "SearchEngine",
    "SearchError",
    "Result",
    "Results",
    "MEMBERS_SNIPPETS",
    "TYPE_NAMES",
    "human_size",
    "page_language",
]

# Candidates ranked in full: the best this many by text score. 50 ranked
# as well as 100 on every query set of the real documentation sites
# (MRR@10 the same or up to 0.006 better), at half the cost per candidate.
_DEPTH = 50
# Results a query pages through, as web search engines serve: past them a
# page is answered at once, empty, with the number of the last page.
MAX_RESULTS = 1000
# A query is a few words; a longer one is a mistake or an attempt to make
# the parser and the highlighter work hard.
MAX_QUERY_CHARS = 1000
# The first results looked at again with what only the page store holds (its headings).
_RERANK = 20
# A plain query of this many words or more is a question: pages holding most
# of its words compete with those holding all (ranking.Features.coverage).
QUESTION_WORDS = 4
_PROXIMITY_DEPTH = 50
# Texts (titles, query words) whose analysed tokens are kept.
_KEPT_TOKENS = 20_000
_FEW = 3  # results below which a spelling suggestion is looked for
# Pages whose text and sections are kept (a few kB each).
_KEPT_BODIES = 2_000
FACETS = 10  # values of each facet (sites, languages, types) shown
# Query syntax beyond plain words (a field is only a field of the schema:
# "Class: fs.StatWatcher" or "DEP0018: ..." are words).
_OPERATORS = re.compile(
    r'"|\bOR\b|\bAND\b|\bNOT\b|(^|[\s(])[-+][\w"(]|(?i:\b(?:' + "|".join(fields.TEXT_FIELDS) + r"):)"
)
# Restrictions, taken out of the text before it is parsed: they filter the
# matches at every level of relaxation instead of becoming optional words.
_FILTER = re.compile(r'(?i)(?:(?<=\s)|^)(-?)(site|lang|type|access):("[^"]*"|[^\s"()]+)')
# The field each restriction looks in.
_FILTER_FIELDS = {"site": fields.SITE, "lang": fields.LANG, "type": fields.TYPE, "access": fields.ACCESS}
_ANCHOR_POLICIES = ("rank", "last", "hide")
# How a document type reads on a results page (the ``type:`` filter takes the key).
TYPE_NAMES = {"html": "HTML", "pdf": "PDF", "text": "Text", "media": "Media", "other": "Other"}
# What a members-only page's snippet may be (SEARCH_MEMBERS_SNIPPET).
MEMBERS_SNIPPETS = ("short", "none")
# What a fragment may hold unescaped (RFC 3986 fragment characters).
_FRAGMENT_SAFE = "!$&'()*+,;=:@/?-._~"
_TITLE_SEPARATORS = re.compile(r"\s+[—–|·:-]\s+|\s+-\s+")
_LATIN = re.compile(r"[a-z]{4,}\Z")
# The number before a heading's text: "11.4.4. ", "2. ", "1.2 " (not "404 ").
_SECTION_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.\s+|^\s*\d+(?:\.\d+)+\s+")


class SearchError(Exception):
    """A problem the user can fix: no index yet, an empty query..."""


@dataclass
class Result:
    """One result: ``url`` links into the section the query names when one
    does (``page.html#id``), ``page`` is the page's URL without it."""

    url: str
    title: str
    snippet: str
    score: float
    pagerank: float
    host: str
    page: str = ""
    lang: str = ""
    crawled: bool = True
    fetched: str = ""  # the day the page was fetched (YYYY-MM-DD, UTC); "" if never
    # html, pdf, text, media or other ("": indexed before types were); the
    # bytes of the fetched body (None: not fetched, or not known).
    type: str = ""
    size: int | None = None
    # Fetched with a site owner's credentials: searchers open it on its site,
    # logged in (ARCHITECTURE.md, item 12); its snippet is short or none.
    members_only: bool = False
    # Results from the same host left off this page ("more from this site").
    more_from_host: int = 0
    explain: dict[str, Any] = field(default_factory=dict)

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        """Every field (``explain``'s only if asked), as JSON writes them:
        read them, never change them (``explain`` is the result's own)."""
        return {name: getattr(self, name) for name in _RESULT_FIELDS if explain or name != "explain"}

    def facts(self, language: str) -> list[str]:
        """What a result line says of the document besides its title: type,
        size, fetch date, and its language when a page in ``language``
        (the results page's) would not say it.

        >>> Result("u", "t", "", 1, 0, "h", lang="fr", fetched="2026-01-02", type="pdf", size=12800).facts("en")
        ['PDF', '12 KB', 'fetched 2026-01-02', 'fr']
        """
        facts = [TYPE_NAMES.get(self.type, self.type)] if self.type else []
        if self.size is not None:
            facts.append(human_size(self.size))
        if self.fetched:
            facts.append(f"fetched {self.fetched}")
        if self.lang and self.lang.split("-")[0].lower() != language:
            facts.append(self.lang)
        return facts


_RESULT_FIELDS = tuple(field.name for field in dataclasses.fields(Result))


@dataclass
class Results:
    query: str
    total: int
    results: list[Result]
    page: int = 1
    per_page: int = 10
    seconds: float = 0.0
    # "Did you mean": a respelling of the query from the index's vocabulary.
    suggestion: str | None = None
    # The sites, languages and types of all matches, each a list of {"value",
    # "count"}, most first; "access" ([{"value": "members", ...}]) when
    # some of them are members-only.
    facets: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def last_page(self) -> int:
        """The last page there is (results beyond MAX_RESULTS are not served)."""
        return max(1, -(-min(self.total, MAX_RESULTS) // self.per_page))

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "query": self.query,
            "total": self.total,
            "results": [result.to_json(explain) for result in self.results],
        }
        if self.suggestion:
            data["suggestion"] = self.suggestion
        if self.facets:
            data["facets"] = self.facets
        return data


@dataclass(frozen=True)
class _Request:
    """A query as the engine runs it: its words (restrictions out), whether
    they are plain words (no operators), and what every result must match
    (``restrict``) and must not (``mask``)."""

    text: str
    words: list[str]
    plain: bool
    restrict: Query | None
    mask: Query | None
    # A query of one word whose tokens may be relaxed to any of them: a
    # Chinese run without spaces (西湖醋鱼做法, five bigrams) is one word.
    runs: bool = False

    @property
    def question(self) -> bool:
        return self.plain and len(self.words) >= QUESTION_WORDS

    @property
    def relaxable(self) -> bool:
        """Whether the ``any`` level can find what the others did not: several words, or a run of them."""
        return self.plain and (len(self.words) > 1 or self.runs)


@dataclass
class _Candidate:
    """A URL that matched: its documents (its page, its anchor document, or
    both) with their stored fields merged, and the numbers it is ranked by."""

    url: str
    docs: list[int]
    stored: dict[str, Any]
    text: float
    level: int = 0
    words_matched: int = 0
    features: ranking.Features = field(default=ranking.Features(text=0.0))  # immutable: one for all, until ranked
    final: float = 0.0

    def add(self, docnum: int, stored: dict[str, Any], score: float = 0.0) -> None:
        if docnum not in self.docs:
            self.docs.append(docnum)
            # The page's own fields first; the anchor document adds its anchor text and count.
            self.stored = {**stored, **self.stored} if fields.SOURCES in self.stored else {**self.stored, **stored}
        self.text += score

    def get(self, name: str, default: Any = None) -> Any:
        return self.stored.get(name, default)


class SearchEngine:
    """Read-only search over ``DATA_DIR``; cheap to keep open between queries."""

    def __init__(
        self,
        data_dir: str | Path,
        anchor_only: str | None = None,
        anchor_min_sources: int | None = None,
        members_snippet: str | None = None,
    ) -> None:
        """Open ``data_dir``'s index; ``anchor_only`` (``rank``, ``last`` or
        ``hide``) and ``anchor_min_sources`` say where pages known only by
        anchor text go, ``members_snippet`` (``short`` or ``none``) what a
        members-only page's snippet may show (defaults: ``SEARCH_ANCHOR_ONLY``,
        ``SEARCH_ANCHOR_MIN_SOURCES`` and ``SEARCH_MEMBERS_SNIPPET`` of
        ``crawler/settings.py``)."""
        from crawler import settings as defaults

        self.anchor_only = anchor_only or defaults.SEARCH_ANCHOR_ONLY
        if self.anchor_only not in _ANCHOR_POLICIES:
            raise SearchError(
                f"anchor-only policy must be one of {', '.join(_ANCHOR_POLICIES)}, not {self.anchor_only!r}"
            )
        self.members_snippet = members_snippet or defaults.SEARCH_MEMBERS_SNIPPET
        if self.members_snippet not in MEMBERS_SNIPPETS:
            raise SearchError(
                f"members-only snippets must be one of {', '.join(MEMBERS_SNIPPETS)}, not {self.members_snippet!r}"
            )
        self.anchor_min_sources = (
            defaults.SEARCH_ANCHOR_MIN_SOURCES if anchor_min_sources is None else anchor_min_sources
        )
        self.data_dir = Path(data_dir)
        options = {"B": ranking.B, "K1": ranking.K1, **{f"{name}_B": value for name, value in ranking.FIELD_B.items()}}
        try:
            self.corpus = Corpus(self.data_dir, options)
        except (OldLayout, IndexDamaged) as exc:
            raise SearchError(str(exc)) from None
        except CORRUPTION as exc:
            raise self._damaged(exc) from None
        except IndexBeingBuilt:
            raise SearchError(f"the index in {self.data_dir} is being built: try again in a few seconds") from None
        except IndexMissing:
            raise SearchError(
                f"no index in {self.data_dir}: crawl something first "
                f"(scrapy crawl web -a seeds=URL -s DATA_DIR={self.data_dir}), or try `make demo`"
            ) from None
        try:
            self.store = _open_optional(PageStore, pages_path(self.data_dir))
            self.graph = _open_optional(LinkGraph, graph_dir(self.data_dir), LINKS_FILE)
            self.personalization = stored_personalization(self.store) if self.store is not None else {}
        except CORRUPTION as exc:
            if not is_corruption(exc):
                raise
            raise self._damaged(exc) from None
        self.analyzer = self.corpus.schema[fields.TITLE].analyzer
        self._analysed = lru_cache(maxsize=_KEPT_TOKENS)(self._analyse)
        self._hosts: frozenset[str] | None = None
        self.parser = QueryParser(self.corpus.schema, dict(ranking.FIELD_WEIGHTS))
        # Every URL's PageRank and the graph's nodes, read at once by a
        # server (:meth:`warm`) and again when the graph changes: the
        # graph's version they are of, the ranks, the nodes.
        self._ranks: tuple[int, dict[str, float], int] | None = None
        # The text and sections of the pages shown lately, for the arrays
        # (the commit) they were read with: the same pages come back query
        # after query (a quarter of those of 200 different queries).
        self._kept_bodies: tuple[Any, OrderedDict[str, tuple[str, list[list[str]]]]] | None = None
        # Each document that stands for a URL of its own (a page, or a
        # stub known only by links), for the facets: kept for the arrays it is of.
        self._one_per_url: tuple[Any, np.ndarray] | None = None

    def warm(self) -> None:
        """Read now what the first queries would: which documents are live,
        each text field's lengths, the sites and languages facets count
        (10,000 pages: about 0.15 s, most of the first query's time) and the
        Chinese dictionary. A server does it before it says it serves."""
        try:
            top = self.corpus.top_docs()
            top.live()
            top.keep_stored()
            top.link_documents()
            for name in ranking.FIELD_WEIGHTS:
                top.lengths(name)
            for _, fieldname, keep in _FACETS:
                top.label_order(fieldname, keep)  # and the labels it orders
            if self.graph is not None:
                self._read_ranks()
        except CORRUPTION as exc:
            if not is_corruption(exc):
                raise
            raise self._damaged(exc) from None
        self.tokens("中文")

    def _read_ranks(self) -> None:
        assert self.graph is not None
        version = self.graph.version()  # first: a change while reading is seen next time
        self._ranks = version, self.graph.pageranks(), self.graph.node_count()

    def _pageranks(self, urls: list[str]) -> tuple[dict[str, float], int]:
        """The PageRank of each URL that has one, and the graph's nodes: from
        the ranks :meth:`warm` read if they are still the graph's, else
        from the graph."""
        if self.graph is None:
            return {}, 0
        if self._ranks is None:
            return self.graph.pagerank_of(urls), self.graph.node_count()
        if self.graph.version() != self._ranks[0]:
            self._read_ranks()
        return self._ranks[1], self._ranks[2]

    def generation(self) -> tuple[int, ...]:
        """Changes whenever a part of the index commits."""
        return self.corpus.generations()

    def _fresh_searcher(self) -> Any:
        """The open searcher, moved to the index's latest commit if there is one.

        Opening a searcher reads the term index (a third of a second at
        100,000 documents); keeping one open and refreshing it costs a check
        of the index's generations.
        """
        return self.corpus.searcher()

    def close(self) -> None:
        self.corpus.close()
        for resource in (self.store, self.graph):
            if resource is not None:
                resource.close()

    def __enter__(self) -> SearchEngine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def parse(self, text: str, level: str = STRICT) -> Query:
        """The query for ``text`` (its words, without ``site:`` or ``lang:``)
        at a level of :mod:`search.parsing`: every word as written
        (``strict``), every word's parts (``parts``), any word (``any``).

        ``title:word`` looks in titles only; ``"phrases"``, ``OR``, ``NOT``
        and ``-word`` as usual.
        """
        return self.parser.parse(text, level)

    @staticmethod
    def filters(text: str) -> tuple[str, Query | None, list[Query]]:
        """``text`` without its ``site:``, ``lang:``, ``type:`` and
        ``access:`` restrictions, the query every result must match, and
        those no result may match.

        ``site:HOST`` is a host (with its port, if given) and its subdomains;
        ``lang:xx`` a language (``lang:zh`` includes ``zh-cn``); ``type:pdf``
        a type of document (``html``, ``pdf``, ``text``, ``media``,
        ``other``); ``access:members`` the pages only members may read; a
        ``-`` before any of them excludes.

        >>> SearchEngine.filters("harbour type:PDF -site:a.test")
        ('harbour', Term('type', 'pdf'), [Term('site', 'a.test')])
        """
        required: list[Query] = []
        excluded: list[Query] = []
        for minus, name, value in _FILTER.findall(text):
            value = value.strip('"').lower()
            if not value:
                continue
            term = Term(_FILTER_FIELDS[name.lower()], value)
            (excluded if minus else required).append(term)
        rest = " ".join(_FILTER.sub(" ", text).split())
        filter_query = None if not required else required[0] if len(required) == 1 else And(required)
        return rest, filter_query, excluded

    def tokens(self, text: str) -> list[str]:
        """``text`` as the index analyzes it (lower-cased, stemmed, split).

        The last ``_KEPT_TOKENS`` texts' tokens are kept: every candidate's
        title is analysed to tell whether it is the query, and the same
        pages come back query after query.
        """
        return list(self._analysed(text))

    def _marked(self, word: str) -> list[str]:
        """What a query word's snippets mark: its tokens, and the word as
        typed when its stem is not its start (``ferry`` is ``ferri``,
        which marks ``ferries`` but would miss ``ferry`` itself)."""
        tokens = self.tokens(word)
        typed = word.strip('"').lower()
        if tokens and typed.isascii() and typed.isalpha() and not typed.startswith(tuple(tokens)):
            tokens.append(typed)
        return tokens

    def _analyse(self, text: str) -> tuple[str, ...]:
        return tuple(token.text for token in self.analyzer(text))

    def _damaged(self, error: BaseException) -> SearchError:
        """The one line a damaged file gets: which, and the command that repairs it."""
        if isinstance(error, sqlite3.DatabaseError):
            what = f"the page store or link graph ({error})"
        else:
            what = f"the index ({type(error).__name__}: {str(error)[:80]})"
        return SearchError(str(IndexDamaged(self.data_dir, what)))

    def search(self, text: str, n: int = 10, page: int = 1, explain: bool = False, facets: bool = True) -> Results:
        """A page of results for ``text`` (:class:`SearchError` for what the
        user can fix or repair: a bad query, no index, a damaged file);
        ``facets``: count the matches' sites and languages too (the first
        time, reading every site's documents: a command line that prints no
        facets saves it)."""
        try:
            return self._search(text, n, page, explain, facets)
        except CORRUPTION as exc:
            if not is_corruption(exc):
                raise
            raise self._damaged(exc) from None

    def _search(self, text: str, n: int, page: int, explain: bool, want_facets: bool) -> Results:
        text = " ".join(text.split())
        if not text:
            raise SearchError("empty query: type some words to search for")
        if n < 1 or page < 1:
            raise SearchError("-n and --page must be at least 1")
        if len(text) > MAX_QUERY_CHARS:
            raise SearchError(f"the query is too long: at most {MAX_QUERY_CHARS} characters")
        started = time.perf_counter()
        words_text, restrict, excluded = self.filters(text)
        plain = not _OPERATORS.search(words_text)
        words = [word for word in words_text.split() if self.tokens(word)] if plain else []
        beyond = n * (page - 1) >= MAX_RESULTS
        # Host grouping hides some candidates: three pages' worth for each page shown.
        depth = _DEPTH if beyond else min(max(_DEPTH, 3 * n * page), MAX_RESULTS + 3 * n)
        searcher = self._fresh_searcher()
        if self.anchor_only == "hide":
            excluded = [*excluded, Term(fields.CRAWLED, False)]
        mask = None if not excluded else excluded[0] if len(excluded) == 1 else Or(excluded)
        candidates, total, matched_all, masks = self._candidates(
            searcher,
            _Request(
                words_text,
                words,
                plain,
                restrict,
                mask,
                runs=any(has_cjk(word) and len(self.tokens(word)) > 1 for word in words),
            ),
            depth,
            n * page,
        )
        matched = self._matched(masks) if masks else None
        if matched is not None:  # exact: every page that matched, as the facets count them
            total = max(len(matched), len(candidates))
        facets = self._facets(matched, candidates) if total and want_facets else {}
        if beyond:  # past the last page there is: how many, and nothing more
            return Results(text, total, [], page, n, time.perf_counter() - started, facets=facets)
        bodies: dict[str, tuple[str, list[list[str]]]] = {}
        if candidates:
            self._rank(searcher, candidates, words, ranking.query_script(words_text))
            if words and self.store is not None:
                self._headings_first(candidates, self._sections([c.url for c in candidates[:_RERANK]]), words)
        window = ranking.page_by_host(
            candidates, lambda c: c.get(fields.HOST, ""), n, page, last=lambda c: c.features.demoted
        )
        if window and self.store is not None:
            bodies = self._bodies(c.url for c, _ in window)
        per_field = self._field_scores(searcher, words_text, [c for c, _ in window]) if explain else {}
        pattern = word_pattern([self._marked(word) for word in words_text.split()]) if window else None
        sequence = (
            self._sequence(
                [
                    word
                    for word in words_text.replace('"', " ").split()
                    if word not in ("OR", "AND", "NOT") and word[0] not in "-+" and ":" not in word
                ]
            )
            if window
            else []
        )
        results = [
            self._result(
                candidate, more, bodies, pattern, per_field.get(candidate.url), explain, words_text.split(), sequence
            )
            for candidate, more in window
        ]
        suggestion = None
        if matched_all < _FEW and words:
            suggestion = self._suggest(searcher, words, matched_all, restrict, mask)
        return Results(text, total, results, page, n, time.perf_counter() - started, suggestion, facets)

    # --- candidates and their features ---------------------------------------------

    def _candidates(  # noqa: PLR0912 (the levels of a search, tried in order)
        self, searcher: Any, request: _Request, depth: int, wanted: int
    ) -> tuple[list[_Candidate], int, int, list[Any] | None]:
        """Candidates, how many pages match (some words), how many match all
        words as written, and which documents matched at each level tried
        (None when Whoosh answered a level: it tells only the best).

        Levels of :mod:`search.parsing` are tried in turn while fewer than
        ``wanted`` pages have matched: the words as written, then their
        parts, then (a query of plain words only) any of them. Pages found
        at a level rank after those of the levels before.
        """
        candidates: list[_Candidate] = []
        seen: set[str] = set()
        total = matched_all = 0
        masks: list[Any] | None = []
        previous: Query | None = None
        for number, level in enumerate(LEVELS):
            if number and level == ANY and not request.relaxable:
                break
            if number and len(seen) >= wanted and not (level == ANY and request.question):
                break
            if level == PARTS and self.parser.same_at_parts(request.text):
                continue  # the strict query again
            query = self.parse(request.text, level) if request.text else Every()
            if previous is not None and query == previous:
                continue
            previous = query
            found = self._top(searcher, query, depth, request.restrict, request.mask)
            masks = masks + [found.mask] if masks is not None and hasattr(found, "mask") else None
            fresh: dict[str, _Candidate] = {}
            for hit in found:
                url = hit[fields.URL]
                if url in seen:
                    continue
                if url in fresh:
                    fresh[url].add(hit.docnum, hit.fields(), hit.score)
                else:
                    fresh[url] = _Candidate(url, [hit.docnum], hit.fields(), hit.score, number)
            self._complete(searcher, fresh, request, query)
            # A relaxed level matches the pages of the levels before it too.
            matching = _count(found, depth, len(seen) + len(fresh))
            if level == STRICT:
                matched_all = matching
            total = max(total, matching)
            if level != STRICT:
                matched = self._words_matched(searcher, list(fresh.values()), request.words)
            for candidate in fresh.values():
                candidate.words_matched = matched[candidate.url] if level != STRICT else len(request.words)
                if level == ANY and candidate.words_matched == len(request.words):
                    # Every word, some in its own text and some only in the links to it.
                    candidate.level = LEVELS.index(PARTS)
                candidates.append(candidate)
                seen.add(candidate.url)
        return candidates, total, matched_all, masks

    def _matched(self, masks: list[Any]) -> np.ndarray:
        """The documents that matched at any level tried, one per URL (a
        crawled page that matched only by the links to it is not among them)."""
        matched = np.logical_or.reduce(masks) if len(masks) > 1 else masks[0].copy()
        matched &= self._one_per_url_of(self.corpus.top_docs())
        return np.flatnonzero(matched)

    def _facets(self, docs: np.ndarray | None, candidates: list[_Candidate]) -> dict[str, list[dict[str, Any]]]:
        """The sites, languages and types of the matches, and how many are
        members-only, with their counts: over every matching page (and page
        known only by links), ``docs``, when the arrays tell them, else over
        the candidates."""
        counts: dict[str, Counter[str]] = {"site": Counter(), "lang": Counter(), "type": Counter(), "access": Counter()}
        if docs is not None:
            top = self.corpus.top_docs()
            for name, fieldname, keep in _FACETS:
                values, codes = top.labels(fieldname, keep)
                found = np.bincount(codes[docs] + 1, minlength=len(values) + 1)[1:]  # code -1: no value
                present = np.flatnonzero(found)  # the values matched, not every site there is
                if len(present) > FACETS:  # the most frequent, ties by value, as they are shown
                    order = top.label_order(fieldname, keep)
                    present = present[np.lexsort((order[present], -found[present]))[:FACETS]]
                for code in present.tolist():
                    counts[name][values[code]] = int(found[code])
        else:
            for candidate in candidates:
                counts["site"][candidate.get(fields.HOST, "")] += 1
                counts["lang"][fields.primary_lang(candidate.get(fields.LANG, "") or "")] += 1
                counts["type"][candidate.get(fields.TYPE) or ""] += 1
                counts["access"][fields.MEMBERS if candidate.get(fields.MEMBERS_ONLY) else ""] += 1
        facets = {
            name: [
                {"value": value, "count": count}
                for value, count in sorted(found.items(), key=lambda item: (-item[1], item[0]))[:FACETS]
                if value
            ]
            for name, found in counts.items()
        }
        if not facets["access"]:  # an index without members-only pages, or none among the matches
            del facets["access"]
        return facets

    def _bodies(self, urls: Iterable[str]) -> dict[str, tuple[str, list[list[str]]]]:
        """:meth:`PageStore.bodies`, the last ``_KEPT_BODIES`` pages' kept
        while the index is at the same commit (read them, never change them)."""
        assert self.store is not None
        top = self.corpus.top_docs()
        if self._kept_bodies is None or self._kept_bodies[0] is not top:
            self._kept_bodies = top, OrderedDict()
        kept = self._kept_bodies[1]
        found = {}
        missing = []
        for url in urls:
            body = kept.get(url)
            if body is None:
                missing.append(url)
            else:
                kept.move_to_end(url)
                found[url] = body
        if missing:
            read = self.store.bodies(missing)
            found.update(read)
            kept.update(read)
            while len(kept) > _KEPT_BODIES:
                kept.popitem(last=False)
        return found

    def _sections(self, urls: list[str]) -> dict[str, list[list[str]]]:
        """Each page's sections: those of the pages :meth:`_bodies` keeps,
        the others from the page store without their text."""
        assert self.store is not None
        kept = self._kept_bodies
        held = kept[1] if kept is not None and kept[0] is self.corpus.top_docs() else {}
        found = {url: held[url][1] for url in urls if url in held}
        missing = [url for url in urls if url not in found]
        if missing:
            found.update(self.store.sections(missing))
        return found

    def _one_per_url_of(self, top: Any) -> np.ndarray:
        """True for each document that is a URL's own: every page, and the anchor documents of stubs."""
        if self._one_per_url is None or self._one_per_url[0] is not top:
            one_per_url = np.arange(top.size) < top.anchors_from
            one_per_url |= top.term_matches(fields.CRAWLED, False)
            self._one_per_url = top, one_per_url
        return self._one_per_url[1]

    def _top(self, searcher: Any, query: Query, depth: int, restrict: Query | None, mask: Query | None) -> Any:
        """The ``depth`` best documents: queries of words scored a posting
        list at a time (:mod:`search.topdocs`), others by Whoosh."""
        if all(q is None or supports(q) for q in (query, restrict, mask)):
            return self.corpus.top_docs().search(query, depth, filter=restrict, mask=mask)
        # Without terms=True, Whoosh can skip blocks that cannot reach the top.
        return searcher.search(query, limit=depth, filter=restrict, mask=mask)

    def _complete(self, searcher: Any, candidates: dict[str, _Candidate], request: _Request, query: Query) -> None:
        """Add to each candidate the document the level's matches left out (a
        page matched by its text, its anchor document not, or the other way
        round), with that document's score for the same terms the query
        scores (any of them, as it needs not match on its own): the sum is
        the page's BM25F over all its fields, as an And of Ors sums its
        terms' scores."""
        single = [c for c in candidates.values() if len(c.docs) == 1 and c.get(fields.CRAWLED, True)]
        if supports(query):
            self._complete_by_arrays(searcher, candidates, single, query)
            return
        # Anchor documents to score by their anchor text, pages by the rest.
        missing: dict[bool, dict[int, _Candidate]] = {True: {}, False: {}}
        for url, docs in self.corpus.documents_of(searcher, (c.url for c in single)).items():
            for docnum in docs:
                if docnum not in candidates[url].docs:
                    stored = searcher.stored_fields(docnum)
                    missing[fields.SOURCES in stored][docnum] = candidates[url]
                    candidates[url].add(docnum, stored)
        leaves = _scoring_leaves(query)
        for anchors, documents in missing.items():
            terms = [leaf for leaf in leaves if (getattr(leaf, "fieldname", None) == fields.ANCHOR) == anchors]
            if not documents or not terms:
                continue
            # One matcher over the few documents, skipping to each: not a
            # search of the whole index filtered down to them.
            matcher = UnionOr(terms).matcher(searcher, searcher.context())
            for docnum in sorted(documents):
                if not matcher.is_active():
                    break
                matcher.skip_to(docnum)
                if matcher.is_active() and matcher.id() == docnum:
                    documents[docnum].text += matcher.score()

    def _complete_by_arrays(
        self, searcher: Any, candidates: dict[str, _Candidate], single: list[_Candidate], query: Query
    ) -> None:
        """:meth:`_complete` for a query of words, with the scores
        :mod:`search.topdocs` keeps of its terms."""
        top = self.corpus.top_docs()
        # A candidate found by its page lacks its anchor document, and the other way round.
        lacking = {c.url: fields.SOURCES not in c.stored for c in single}
        others = top.other_documents((c.url, lacking[c.url], c.docs[0]) for c in single)
        for anchor in (True, False):  # the anchor documents of pages, then the pages of anchor documents
            found = [(url, docnum) for url, docs in others.items() if lacking[url] == anchor for docnum in docs]
            if not found:
                continue
            scores = top.term_scores(query, anchor, [docnum for _, docnum in found])
            for (url, docnum), score in zip(found, scores.tolist(), strict=False):
                candidates[url].add(docnum, top.stored_fields(docnum), score)

    def _words_matched(self, searcher: Any, candidates: list[_Candidate], words: list[str]) -> dict[str, int]:
        """How many query words each candidate has (all of a word's tokens, in
        some field of its page or its anchor document).

        Read from each token's matches in the fields (:mod:`search.topdocs`
        keeps them), rather than asking Whoosh to record the terms of every
        match of an OR query.
        """
        top = self.corpus.top_docs()
        tokens = {word: set(self.tokens(word)) for word in words}
        docs, any_of = _by_candidate(candidates)
        has = {}  # token -> whether each candidate has it
        for word_tokens in tokens.values():
            for token in word_tokens:
                if token not in has:
                    has[token] = any_of(top.matches_any(ranking.FIELD_WEIGHTS, token)[docs])
        matched = np.zeros(len(candidates), dtype=np.int64)
        for word in words:
            every = np.ones(len(candidates), dtype=bool)
            for token in tokens[word]:
                every &= has[token]
            matched += every
        return {candidate.url: int(count) for candidate, count in zip(candidates, matched, strict=False)}

    def _rank(self, searcher: Any, candidates: list[_Candidate], words: list[str], script: str) -> None:
        question = len(words) >= QUESTION_WORDS
        proximity = self._proximity(searcher, candidates, words)
        urls = [c.url for c in candidates]
        ranks, nodes = self._pageranks(urls)
        query_tokens = self.tokens(" ".join(words)) if words else []
        titled = self._may_be_titled(candidates, query_tokens)
        for candidate, may_be_title in zip(candidates, titled, strict=False):
            crawled = bool(candidate.get(fields.CRAWLED, True))
            candidate.features = ranking.Features(
                text=candidate.text,
                proximity=proximity.get(candidate.url, 0.0),
                pagerank=ranks.get(candidate.url, 0.0),
                nodes=nodes,
                level=candidate.level,
                words_matched=candidate.words_matched,
                # An anchor-only page's "title" is the anchor text most pages link to it
                # with: as telling, where it ranks at all (other sites' pages go last).
                exact_title=may_be_title
                and self._is_title(candidate.get(fields.TITLE) or candidate.get(fields.LABEL) or "", query_tokens),
                anchor_only=not crawled,
                demoted=not crawled and self._weak_anchors(candidate),
                other_language=ranking.other_language(script, (candidate.get(fields.LANG) or "").split()[:1]),
                coverage=candidate.words_matched / len(words) if question else None,
            )
            candidate.final = ranking.score(candidate.features)
        candidates.sort(key=lambda c: (ranking.order_key(c.features), c.url))

    def _headings_first(
        self, candidates: list[_Candidate], sections: dict[str, list[list[str]]], words: list[str]
    ) -> None:
        """Among the first results, a page with a heading that is the query
        scores ranking.HEADING_BOOST times more: the page with a section
        "Sign and verify" before the one titled "Crypto" (Node.js headings
        0.958 to 0.983 MRR@10). A heading's number ("11.4.4. Printing with
        CUPS", as DocBook writes them) is not part of what it says."""
        wanted = self.tokens(" ".join(words))
        if not wanted:
            return
        head = candidates[:_RERANK]
        changed = False
        for candidate in head:
            if any(
                len(section) > 1
                and (
                    self._analyses_to(section[1], wanted)
                    or (
                        (unnumbered := _SECTION_NUMBER.sub("", section[1], count=1)) != section[1]
                        and self._analyses_to(unnumbered, wanted)
                    )
                )
                for section in sections.get(candidate.url, ())
            ):
                candidate.features = candidate.features._replace(exact_heading=True)
                candidate.final = ranking.score(candidate.features)
                changed = True
        if changed:
            head.sort(key=lambda c: (ranking.order_key(c.features), c.url))
            candidates[:_RERANK] = head

    def _weak_anchors(self, hit: _Candidate) -> bool:
        """Whether a page known only by anchors goes after the crawled results:
        always (``last``); with ``rank``, unless it is on a crawled site (a
        page robots.txt kept us from, a PDF, a video) and at least
        ``anchor_min_sources`` pages link to it. Another site's page (a
        package tracker, an encyclopedia) is not what a search of these
        sites is after, however often they link to it."""
        if self.anchor_only == "last":
            return True
        if hit.get(fields.HOST, "") not in self._crawled_hosts():
            return True
        return int(hit.get(fields.SOURCES) or 0) < self.anchor_min_sources

    def _crawled_hosts(self) -> frozenset[str]:
        if self._hosts is None:
            self._hosts = frozenset(self.store.hosts()) if self.store is not None else frozenset()
        return self._hosts

    def _may_be_titled(self, candidates: list[_Candidate], query_tokens: list[str]) -> list[bool]:
        """Whether each candidate's title may be the query: a page's title
        field must hold every query token for its title to analyse to them
        (most do not, and cost no analysis); a page known only by links,
        named by its anchor text, may always be."""
        if not query_tokens:
            return [False] * len(candidates)
        top = self.corpus.top_docs()
        docs, any_of = _by_candidate(candidates)
        every = np.ones(len(docs), dtype=bool)
        for token in set(query_tokens):
            every &= top.term_matches(fields.TITLE, token)[docs]
        holding = any_of(every)
        return [
            held or not candidate.get(fields.TITLE)
            for candidate, held in zip(candidates, holding.tolist(), strict=False)
        ]

    def _is_title(self, title: str, query_tokens: list[str]) -> bool:
        """Whether the title (or its first part, before a " — " or " | ") is the query."""
        head = _TITLE_SEPARATORS.split(title, maxsplit=1)[0]
        for text in (head, title) if head != title else (title,):
            # Analysing every candidate's title is the cost: most are far
            # longer than the query, and cannot be it.
            if len(text.split()) <= 2 * len(query_tokens) + 1 and self._analyses_to(text, query_tokens):
                return True
        return False

    def _analyses_to(self, text: str, wanted: list[str]) -> bool:
        """Whether ``text``'s :meth:`tokens` are ``wanted``: a word at a
        time where the analyzer allows, from each word's tokens kept, and no
        further than the first word that differs (a title is rarely the
        query, and most differ at their first word)."""
        if not word_by_word(self.analyzer, text):
            return self.tokens(text) == wanted
        at = 0
        analysed = self._analysed
        for word in text.split():
            tokens = analysed(word)
            for token in tokens:
                if at == len(wanted) or token != wanted[at]:
                    return False
                at += 1
        return at == len(wanted)

    def _sequence(self, words: list[str]) -> list[str]:
        """The query's tokens one per position (a code name's parts, not its whole)."""
        by_position: dict[int, str] = {}
        for token in self.analyzer(" ".join(words), positions=True):
            by_position[token.pos] = token.text  # the last at a position is the finest part
        return [by_position[pos] for pos in sorted(by_position)]

    def _proximity(self, searcher: Any, candidates: list[_Candidate], words: list[str]) -> dict[str, float]:  # noqa: PLR0912 (one branch per field and position case)
        """How near the query's words stand in each of the best candidates' fields.

        Positions are read from the index for the ``_PROXIMITY_DEPTH`` best
        candidates by text score only: a phrase search over the whole index
        would cost as much as the query itself; and in a field only for those
        that hold every word in it, when the arrays of :mod:`search.topdocs`
        kept from scoring the query say which (most candidates lack some
        word in a title or in anchor text).
        """
        sequence = self._sequence(words)
        if len(sequence) < 2:
            return {}
        best = sorted(candidates, key=lambda c: -c.text)[:_PROXIMITY_DEPTH]
        owner = {docnum: candidate.url for candidate in best for docnum in candidate.docs}
        docnums = sorted(owner)
        counts: dict[str, dict[str, tuple[int, int]]] = {candidate.url: {} for candidate in best}
        reader = searcher.reader()
        top = self.corpus.top_docs()
        for name in ranking.PROXIMITY_FIELDS:
            kept = [top.kept_matches(name, token) for token in sequence]
            known = [matches for matches in kept if matches is not None]
            targets = docnums
            if len(known) == len(kept):
                holding = np.ones(len(docnums), dtype=bool)
                for matches in known:
                    holding &= matches[docnums]
                targets = [docnum for docnum, held in zip(docnums, holding.tolist(), strict=False) if held]
                if not targets:
                    continue
                # Positions from the posting blocks the query's scoring read.
                read = [top.positions(name, token, targets) for token in sequence]
                if all(found is not None for found in read):
                    for at, docnum in enumerate(targets):
                        lists = [found[at] for found in read if found is not None]
                        if all(positions is not None for positions in lists):
                            near = proximity.phrase_and_near(cast("list[list[int]]", lists), ranking.NEAR_WORDS)
                            if any(near):
                                counts[owner[docnum]][name] = near
                    continue
            matchers = []
            for token in sequence:
                try:
                    matchers.append(reader.postings(name, token))
                except TermNotFound:
                    matchers = []
                    break
            if not matchers:
                continue
            for docnum in targets:
                positions = []
                for matcher in matchers:
                    if matcher.is_active():
                        matcher.skip_to(docnum)
                    if not matcher.is_active() or matcher.id() != docnum:
                        break
                    positions.append(matcher.value_as("positions"))
                else:
                    found = proximity.phrase_and_near(positions, ranking.NEAR_WORDS)
                    if any(found):
                        counts[owner[docnum]][name] = found
        idf = sum(top.idf(fields.BODY, token) for token in sequence) / len(sequence)
        return {
            url: idf * proximity.bonus(found, ranking.FIELD_WEIGHTS, ranking.EXACT_PHRASE)
            for url, found in counts.items()
            if found
        }

    def _field_scores(self, searcher: Any, text: str, shown: list[_Candidate]) -> dict[str, dict[str, float]]:
        """Each field's part of the text score, for ``--explain`` (shown results only)."""
        owner = {docnum: candidate.url for candidate in shown for docnum in candidate.docs}
        scores: dict[str, dict[str, float]] = {candidate.url: {} for candidate in shown}
        tokens = [token for word in text.split() for token in self.tokens(word)]
        if not owner:  # no documents to explain (an empty filter would let every one through)
            return scores
        for name, weight in ranking.FIELD_WEIGHTS.items():
            terms = [Term(name, token, boost=weight) for token in dict.fromkeys(tokens)]
            query = UnionOr(terms) if terms else NullQuery
            for hit in searcher.search(query, filter=set(owner), limit=None):
                url = owner[hit.docnum]
                scores[url][name] = round(scores[url].get(name, 0.0) + hit.score, 4)
        return scores

    def _suggest(
        self, searcher: Any, words: list[str], matched_all: int, restrict: Query | None, mask: Query | None
    ) -> str | None:
        """A respelling of the query that more pages match in full, from the index's vocabulary."""
        if self.store is None:
            return None
        changed = False
        respelled = []
        for word in words:
            lower = word.lower()
            spread = spelling.max_distance(lower)
            if spread and _LATIN.match(lower) and self.store.word_pages(lower) == 0:
                better = spelling.closest(lower, self.store.similar_words(lower, spread))
                if better:
                    respelled.append(better)
                    changed = True
                    continue
            respelled.append(word)
        if not changed:
            return None
        suggestion = " ".join(respelled)
        found = searcher.search(self.parse(suggestion), limit=1, filter=restrict, mask=mask)
        return suggestion if len(found) > matched_all else None

    # --- presentation ----------------------------------------------------------------

    def _result(
        self,
        candidate: _Candidate,
        more: int,
        bodies: dict[str, tuple[str, list[list[str]]]],
        pattern: Any,
        field_scores: dict[str, float] | None,
        explain: bool,
        words: list[str],
        sequence: list[str],
    ) -> Result:
        hit = candidate
        url = candidate.url
        crawled = bool(hit.get(fields.CRAWLED, True))
        title = hit.get(fields.TITLE) or hit.get(fields.LABEL) or url
        body, sections = bodies.get(url, ("", []))
        names = [word for word in words if word_forms(word)[0] == "code"] if sections else []
        section = best_section(sections, sequence, self.tokens, title, names) if sections else None
        members_only = bool(hit.get(fields.MEMBERS_ONLY))
        if members_only:  # no more than a sentence: only members may read the page
            text = (
                "" if self.members_snippet == "none" else sentence(body or hit.get(fields.DESCRIPTION) or "", pattern)
            )
        else:
            text = passage(body, pattern) if body else hit.get(fields.DESCRIPTION) or ""
        if not crawled and not text:
            anchors = sorted(set((hit.get(fields.LINKED) or "").split("\n")))
            text = "Not fetched; linked as: " + "; ".join(a for a in anchors if a)
        features = candidate.features
        details: dict[str, Any] = {}
        if explain:
            details = {
                "fields": field_scores or {},
                "text": round(features.text, 4),
                "proximity": round(features.proximity, 4),
                "pagerank": features.pagerank,
                "pagerank_x_nodes": round(features.pagerank * features.nodes, 4),
                "prior": round(ranking.prior(features.pagerank, features.nodes), 4),
                "level": LEVELS[features.level],
                "all_words": features.all_words,
                "words_matched": features.words_matched,
                "exact_title": features.exact_title,
                "rules": self._rules(hit, features, words),
                "formula": (
                    f"(text + {ranking.PROXIMITY_WEIGHT} * proximity) * "
                    f"(1 + {ranking.PAGERANK_WEIGHT} * ln(1 + pagerank * N)); ordered by weakly "
                    "linked anchor-only pages last, the query's language, level, exact title, "
                    "words matched, then this (a question of many words: this times the share of "
                    "its words the page holds, squared, without the level and words-matched tiers)"
                ),
            }
        if explain and section:
            details["rules"].append(f"the query names the section #{section}: linked there")
        return Result(
            url=f"{url}#{quote(section, safe=_FRAGMENT_SAFE)}" if section else url,
            title=title,
            snippet=text,
            score=round(candidate.final, 4),
            pagerank=features.pagerank,
            host=hit.get(fields.HOST, ""),
            page=url,
            lang=(hit.get(fields.LANG) or "").split(" ")[0],
            crawled=crawled,
            fetched=_day(hit.get(fields.FETCHED)) if crawled else "",
            type=hit.get(fields.TYPE) or "",
            size=hit.get(fields.SIZE) if crawled else None,
            members_only=members_only,
            more_from_host=more,
            explain=details,
        )

    def _rules(self, hit: Any, features: ranking.Features, words: list[str]) -> list[str]:
        """Which of the query rules shaped this result, in words (``--explain``)."""
        rules = [f"matched at level {LEVELS[features.level]}: " + _LEVEL_MEANING[LEVELS[features.level]]]
        for word in words:
            kind, parts, _ = word_forms(word)
            if kind == "hyphen":
                rules.append(
                    f'{word}: hyphenated, found as the phrase "{" ".join(parts)}" or joined '
                    f'"{"".join(parts)}"' + (", or its pieces anywhere" if features.level else "")
                )
            elif kind == "code" and features.level:
                rules.append(f"{word}: code name, found by its parts {', '.join(parts)}")
        if features.anchor_only:
            sources = int(hit.get(fields.SOURCES) or 0)
            where = "after the crawled pages" if features.demoted else "ranked among the crawled pages"
            rules.append(
                f"not fetched, known by the anchor text of {sources} linking page(s): {where} "
                f"(anchor-only policy {self.anchor_only}, at least {self.anchor_min_sources} "
                "linking pages to rank)"
            )
        if features.exact_heading:
            rules.append(f"a heading of the page is the query: score x {ranking.HEADING_BOOST}")
        if features.coverage is not None:
            rules.append(
                f"a question of {QUESTION_WORDS} words or more: pages holding most of them compete with "
                f"those holding all; this one holds {features.coverage:.0%} of its words "
                f"(score x {features.coverage**2:.2f})"
            )
        if features.other_language:
            lang = (hit.get(fields.LANG) or "").split()[:1]
            rules.append(
                f"page language {lang[0] if lang else '?'} is not the query's: after the pages in the query's language"
            )
        if self.personalization:
            weight = personalization_weights([hit.get(fields.URL, "")], self.personalization)[0]
            rules.append(
                f"PageRank personalized ({', '.join(f'{p} x{w:g}' for p, w in self.personalization.items())}"
                f"; other pages x1): this page weighs x{weight:g}"
            )
        return rules


_LEVEL_MEANING = {
    STRICT: "every word as written",
    PARTS: "every word's parts (a code name's components, a hyphenated word's pieces)",
    ANY: "some of the words",
}


def human_size(size: int) -> str:
    """A number of bytes as a person reads it (units of 1,024).

    >>> human_size(812), human_size(12800), human_size(3_565_158), human_size(52_428_800), human_size(3 << 30)
    ('812 bytes', '12 KB', '3.4 MB', '50 MB', '3.0 GB')
    """
    if size < 1024:
        return f"{size} byte" + ("" if size == 1 else "s")
    value = size / 1024
    for unit in ("KB", "MB"):  # noqa: B007 (the unit is read after the loop)
        if value < 1024:
            break
        value /= 1024
    else:
        unit = "GB"
    return f"{value:.1f} {unit}" if value < 10 and unit != "KB" else f"{value:.0f} {unit}"


def page_language(results: Results | None) -> str:
    """The language of a results page: the primary language most of its
    results are in (``zh`` for Chinese results), else English.

    >>> page_language(Results("茶", 2, [Result("u", "t", "", 1, 0, "h", lang="zh-cn")] * 2))
    'zh'
    """
    counts: dict[str, int] = {}
    for result in results.results if results is not None else ():
        primary = (result.lang or "").split("-")[0].lower()
        if primary.isalpha() and 2 <= len(primary) <= 3:
            counts[primary] = counts.get(primary, 0) + 1
    return max(sorted(counts), key=counts.__getitem__) if counts else "en"


def _day(epoch: Any) -> str:
    """A fetch time (epoch seconds) as its day, UTC.

    >>> _day(1764633600.0), _day(None)
    ('2025-12-02', '')
    """
    if not isinstance(epoch, (int, float)) or epoch <= 0:
        return ""
    return time.strftime("%Y-%m-%d", time.gmtime(epoch))


def _primary_tag(term: str) -> bool:
    """A language term that is a primary subtag (``zh``, not ``zh-cn``)."""
    return term.isalpha() and 2 <= len(term) <= 3


# Each facet: its name, the field it counts, and which of the field's terms count.
_FACETS = (
    ("site", fields.HOST, None),
    ("lang", fields.LANG, _primary_tag),
    ("type", fields.TYPE, None),
    ("access", fields.ACCESS, None),
)


def _by_candidate(candidates: list[_Candidate]) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The candidates' documents, one after another, and a function of
    what holds for each of them (an array in their order) to whether it
    holds for one of each candidate's documents."""
    docs = np.array([docnum for candidate in candidates for docnum in candidate.docs], dtype=np.int64)
    owner = np.repeat(np.arange(len(candidates)), [len(candidate.docs) for candidate in candidates])

    def any_of(holds: np.ndarray) -> np.ndarray:
        return np.bincount(owner, weights=holds, minlength=len(candidates)) > 0

    return docs, any_of


def _scoring_leaves(query: Query) -> list[Query]:
    """The terms and phrases a query scores with (not those it excludes)."""
    if isinstance(query, AndNot):
        return _scoring_leaves(query.a)
    if isinstance(query, Not) or isinstance(query, Every):
        return []
    if query.is_leaf():
        return [query]
    return [leaf for child in query.children() for leaf in _scoring_leaves(child)]


def _count(hits: Any, depth: int, urls: int) -> int:
    """How many pages match: exact below ``depth`` (``urls`` distinct among
    the hits), else Whoosh's estimate of the documents, scaled by the share
    of distinct URLs among them (counting every match of a common word
    would cost more than the search)."""
    scored = hits.scored_length()
    if scored < depth:
        return urls
    return max(urls, int(hits.estimated_length() * urls / max(1, scored)))


def _open_optional(cls: Any, path: Path, filename: str | None = None) -> Any:
    target = path / filename if filename else path
    if not target.exists():
        return None
    return cls(path, readonly=True)
