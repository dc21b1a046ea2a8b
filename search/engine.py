"""Answering queries: a façade over finding, ranking and presenting.

:class:`SearchEngine` opens a data directory read-only (the indexer may be
writing it at the same time) and answers :meth:`SearchEngine.search` with
plain data that the CLI and the web page render. A search is three parts,
each in its own module:

1. candidates (:mod:`search.candidates`): the best ``DEPTH`` pages matching
   every query word by text score (Whoosh's BM25F over the fields); when
   fewer than a page's worth match them all, pages matching their parts,
   then any of the words, are added;
2. features (:mod:`search.features`), for those candidates only: how many
   query words each matches, whether its title is the query, a proximity
   score (the words as a phrase, and near each other), and PageRank, in
   :mod:`search.ranking`'s order;
3. results (:mod:`search.results`): at most two results per host on a page,
   then the page asked for, with snippets (and, with ``explain``, every
   number).
"""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from whoosh.query import Query

from crawler.datadir import OtherFormat, graph_dir, index_dir, pages_path
from indexer import schema as fields
from indexer.graph import LINKS_FILE, LinkGraph, stored_personalization
from indexer.layout import CORRUPTION, IndexBeingBuilt, IndexDamaged, IndexMissing, is_corruption
from indexer.store import PageStore
from search import ranking
from search.candidates import DEPTH, Request, Retrieval, filters
from search.corpus import Corpus
from search.directories import Graphs, Stores, joined
from search.features import Ranker, field_scores
from search.parsing import STRICT, QueryParser
from search.results import (
    MAX_RESULTS,
    MEMBERS_SNIPPETS,
    TYPE_NAMES,
    PageTexts,
    Result,
    ResultMaker,
    Results,
    candidates_for,
    facet_lists,
    human_size,
    page_language,
    past_served,
)
from search.tokens import Tokens
from search.translations import family, one_per_family, preferred_languages, titled_by

__all__ = [
    "SearchEngine",
    "SearchError",
    "DamagedIndex",
    "Result",
    "Results",
    "ANCHOR_POLICIES",
    "MEMBERS_SNIPPETS",
    "TYPE_NAMES",
    "MAX_RESULTS",
    "MAX_QUERY_CHARS",
    "human_size",
    "page_language",
]

# A query is a few words; a longer one is a mistake or an attempt to make
# the parser and the highlighter work hard.
MAX_QUERY_CHARS = 1000
_FEW = 3  # results below which a spelling suggestion is looked for
# Where pages known only by links to them go (``SEARCH_ANCHOR_ONLY``).
ANCHOR_POLICIES = ("rank", "last", "hide")


class SearchError(Exception):
    """A problem the user can fix: no index yet, an empty query..."""


class DamagedIndex(SearchError):
    """A damaged index or page store, met while serving: repaired by a rebuild, not by another query."""


class SearchEngine:
    """Read-only search over ``DATA_DIR``; cheap to keep open between queries."""

    def __init__(
        self,
        data_dir: str | Path | Sequence[str | Path],
        anchor_only: str | None = None,
        anchor_min_sources: int | None = None,
        members_snippet: str | None = None,
    ) -> None:
        """Open ``data_dir``'s index (or several directories', read as one
        index: :mod:`search.directories`); ``anchor_only`` (``rank``, ``last`` or
        ``hide``) and ``anchor_min_sources`` say where pages known only by
        anchor text go, ``members_snippet`` (``short`` or ``none``) what a
        members-only page's snippet may show (defaults: ``SEARCH_ANCHOR_ONLY``,
        ``SEARCH_ANCHOR_MIN_SOURCES`` and ``SEARCH_MEMBERS_SNIPPET`` of
        ``crawler/settings.py``)."""
        from crawler import settings as defaults

        self.anchor_only = _one_of("anchor-only policy", anchor_only or defaults.SEARCH_ANCHOR_ONLY, ANCHOR_POLICIES)
        self.members_snippet = _one_of(
            "members-only snippets", members_snippet or defaults.SEARCH_MEMBERS_SNIPPET, MEMBERS_SNIPPETS
        )
        self.anchor_min_sources = (
            defaults.SEARCH_ANCHOR_MIN_SOURCES if anchor_min_sources is None else anchor_min_sources
        )
        self.data_dirs = [Path(each) for each in ([data_dir] if isinstance(data_dir, (str, Path)) else data_dir)]
        self.data_dir = self.data_dirs[0]
        self.corpus = self._open_corpus()
        try:
            self.store = joined([_open_optional(PageStore, pages_path(each)) for each in self.data_dirs], Stores)
            self.graph = joined(
                [_open_optional(LinkGraph, graph_dir(each), LINKS_FILE) for each in self.data_dirs], Graphs
            )
            self.personalization = stored_personalization(self.store) if self.store is not None else {}
        except CORRUPTION as exc:
            if not is_corruption(exc):
                raise
            raise self._damaged(exc) from None
        self.tokens = Tokens(self.corpus.schema[fields.TITLE].analyzer)
        self.parser = QueryParser(self.corpus.schema, dict(ranking.FIELD_WEIGHTS))
        # Every URL's PageRank and the graph's nodes, read at once by a
        # server (:meth:`warm`) and again when the graph changes: the
        # graph's version they are of, the ranks, the nodes.
        self._ranks: tuple[int, dict[str, float], int] | None = None
        pages = PageTexts(self.corpus, self.store) if self.store is not None else None
        self.retrieval = Retrieval(self.corpus, self.parser, self.tokens, self.store)
        self.ranker = Ranker(
            self.corpus,
            self.tokens,
            self._pageranks,
            pages.sections if pages is not None else None,
            self.store,
            self.anchor_only,
            self.anchor_min_sources,
        )
        self.result_maker = ResultMaker(
            self.tokens, pages, self.members_snippet, self.anchor_only, self.anchor_min_sources, self.personalization
        )

    def _open_corpus(self) -> Corpus:
        """The index's parts as one corpus, scored with the ranking's parameters."""
        options = {"B": ranking.B, "K1": ranking.K1, **{f"{name}_B": value for name, value in ranking.FIELD_B.items()}}
        try:
            return Corpus(self.data_dirs, options)
        except (OtherFormat, IndexDamaged) as exc:
            raise SearchError(str(exc)) from None
        except CORRUPTION as exc:
            raise self._damaged(exc) from None
        except IndexBeingBuilt as exc:  # first: an index being built is missing too
            if len(self.data_dirs) > 1:
                raise SearchError(f"{exc}: try again in a few seconds") from None
            raise SearchError(f"the index in {self.data_dir} is being built: try again in a few seconds") from None
        except IndexMissing as exc:
            if len(self.data_dirs) > 1:
                raise SearchError(f"{exc}: each --data must be a data directory with an index") from None
            raise SearchError(f"no index in {self.data_dir}: {how_to_fill(self.data_dir)}") from None

    def empty(self) -> SearchError | None:
        """The error that says the index holds no page (a crawl that indexed
        nothing, or one whose indexer has not committed yet), or None: its
        searches would answer "no results" to every query."""
        if self.corpus.searcher().doc_count():
            return None
        return SearchError(f"the index in {self.data_dir} has no pages yet: {how_to_fill(self.data_dir)}")

    def warm(self) -> None:
        """Read now what the first queries would: which documents are live,
        each text field's lengths, the sites and languages facets count
        (10,000 pages: about 0.15 s, most of the first query's time) and the
        Chinese dictionary. A server does it before it says it serves."""
        try:
            self.retrieval.warm()
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

    filters = staticmethod(filters)

    def _damaged(self, error: BaseException) -> SearchError:
        """The one line a damaged file gets: which, and the command that repairs it."""
        if isinstance(error, sqlite3.DatabaseError):
            what = f"the page store or link graph ({error})"
        else:
            what = f"the index ({type(error).__name__}: {str(error)[:80]})"
        return DamagedIndex(str(IndexDamaged(self.data_dir, what)))

    def search(
        self,
        text: str,
        n: int = 10,
        page: int = 1,
        explain: bool = False,
        facets: bool = True,
        languages: Sequence[str] = (),
        respell: bool = True,
    ) -> Results:
        """A page of results for ``text`` (:class:`SearchError` for what the
        user can fix or repair: a bad query, no index, a damaged file), or,
        when it finds nothing and its respelling does (``respell``), the
        respelling's (:attr:`Results.showing`: a newcomer's misspelt query
        answers at once, as the big engines' do);
        ``facets``: count the matches' sites and languages too (the first
        time, reading every site's documents: a command line that prints no
        facets saves it); ``languages``: those the searcher reads, best
        first (a browser's ``Accept-Language``), in which a page translated
        into several is shown."""
        try:
            return self._search(text, n, page, explain, facets, languages, respell)
        except CORRUPTION as exc:
            if not is_corruption(exc):
                raise
            raise self._damaged(exc) from None

    def _search(
        self, text: str, n: int, page: int, explain: bool, want_facets: bool, languages: Sequence[str], respell: bool
    ) -> Results:
        """Find the candidates, rank them, make the page of results asked for."""
        text = _checked(text, n, page)
        started = time.perf_counter()
        request = Request.of(text, self.tokens, hide_anchor_only=self.anchor_only == "hide")
        searcher = self._fresh_searcher()
        found = self.retrieval.find(searcher, request, candidates_for(n, page, DEPTH), n * page)
        facets = facet_lists(self.retrieval.facet_counts(found)) if found.total and want_facets else {}
        if past_served(n, page):  # past the last page there is: how many, and nothing more
            return Results(text, found.total, [], page, n, time.perf_counter() - started, facets=facets)
        candidates = found.candidates
        script = ranking.query_script(request.text)
        if candidates:
            self.ranker.rank(searcher, candidates, request.words, script, request.asked)
        candidates, translations = one_per_family(
            candidates,
            lambda c: family(c.url, c.get(fields.ALTERNATES) or ()),
            lambda c: (c.get(fields.LANG) or "").split(" ")[0],
            preferred_languages(script, languages),
            script,
            lambda c: c.final,
            titled_by(request.asked),
        )
        window = ranking.page_by_host(
            candidates, lambda c: c.get(fields.HOST, ""), n, page, last=lambda c: c.features.demoted
        )
        per_field = field_scores(searcher, self.tokens, request.text, [c for c, _ in window]) if explain else {}
        results = self.result_maker.results(window, request.text, explain, per_field, translations)
        suggestion = None
        if found.matched_all < _FEW and request.words:
            suggestion = self.retrieval.suggestion(searcher, request, found.matched_all)
        answer = Results(text, found.total, results, page, n, time.perf_counter() - started, suggestion, facets)
        if respell and suggestion and not found.total:
            return self._respelled(
                answer, _respelling(text, request.words, suggestion), explain, want_facets, languages
            )
        return answer

    def _respelled(
        self, typed: Results, text: str, explain: bool, want_facets: bool, languages: Sequence[str]
    ) -> Results:
        """The results of ``text``, the respelling of ``typed``'s query
        (which found nothing), as its answer if it finds any."""
        shown = self._search(text, typed.per_page, typed.page, explain, want_facets, languages, respell=False)
        if not shown.total:
            return typed
        return dataclasses.replace(
            shown,
            query=typed.query,
            showing=shown.query,
            suggestion=typed.suggestion,
            seconds=typed.seconds + shown.seconds,
        )


def _checked(text: str, n: int, page: int) -> str:
    """The query with one space between words, if it can be answered
    (:class:`SearchError` says why not)."""
    text = " ".join(text.split())
    if not text:
        raise SearchError("empty query: type some words to search for")
    if n < 1 or page < 1:
        raise SearchError("-n and --page must be at least 1")
    if len(text) > MAX_QUERY_CHARS:
        raise SearchError(f"the query is too long: at most {MAX_QUERY_CHARS} characters")
    return text


def _respelling(text: str, words: list[str], suggestion: str) -> str:
    """``text`` with its ``words`` respelled as ``suggestion`` (their
    respelling, word for word) has them; its restrictions, ``site:`` or
    ``lang:``, and question words kept.

    >>> _respelling("how to mend lighthose site:a.test", ["mend", "lighthose"], "mend lighthouse")
    'how to mend lighthouse site:a.test'
    """
    respelling = {word: better for word, better in zip(words, suggestion.split(), strict=True) if word != better}
    return " ".join(respelling.get(word, word) for word in text.split())


def how_to_fill(data_dir: Path) -> str:
    """How to fill the index of ``data_dir``, and which of its subdirectories
    hold an index (``make demo`` crawls into ``data/demo``, beside the
    default ``data``)."""
    advice = f"crawl something first (scrapy crawl web -a seeds=URL -s DATA_DIR={data_dir}), or try `make demo`"
    try:
        holders = sorted(child for child in data_dir.iterdir() if index_dir(child).is_dir())
    except OSError:  # no such directory, or not one
        holders = []
    if holders:
        named = ", ".join(str(holder) for holder in holders)
        advice += f"; {named} {'holds' if len(holders) == 1 else 'hold'} one: search it with --data {holders[0]}"
    return advice


def _one_of(what: str, value: str, allowed: tuple[str, ...]) -> str:
    """``value`` if ``allowed``, else the :class:`SearchError` that says which are."""
    if value not in allowed:
        raise SearchError(f"{what} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def _open_optional(cls: Any, path: Path, filename: str | None = None) -> Any:
    target = path / filename if filename else path
    if not target.exists():
        return None
    return cls(path, readonly=True)
