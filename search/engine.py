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

import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index
from whoosh.index import EmptyIndexError
from whoosh.qparser import MultifieldParser, OrGroup
from whoosh.qparser.plugins import PlusMinusPlugin
from whoosh.query import NullQuery, Or, Query, Term
from whoosh.reading import TermNotFound
from whoosh.scoring import BM25F

from indexer import schema as fields
from indexer.graph import LinkGraph
from indexer.store import PageStore
from search import proximity, ranking, spelling
from search.snippets import passage, word_pattern

__all__ = ["SearchEngine", "SearchError", "Result", "Results"]

# Candidates ranked in full: the best this many by text score.
_DEPTH = 100
_PROXIMITY_DEPTH = 50
_FEW = 3  # results below which a spelling suggestion is looked for
_OPERATORS = re.compile(r'"|\bOR\b|\bAND\b|\bNOT\b|(^|\s)[-+]\S|\w:')
_TITLE_SEPARATORS = re.compile(r"\s+[—–|·:-]\s+|\s+-\s+")
_LATIN = re.compile(r"[a-z]{4,}\Z")


class SearchError(Exception):
    """A problem the user can fix: no index yet, an empty query..."""


@dataclass
class Result:
    url: str
    title: str
    snippet: str
    score: float
    pagerank: float
    host: str
    crawled: bool = True
    # Results from the same host left off this page ("more from this site").
    more_from_host: int = 0
    explain: dict[str, Any] = field(default_factory=dict)

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        data = asdict(self)
        if not explain:
            data.pop("explain")
        return data


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

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "query": self.query,
            "total": self.total,
            "results": [result.to_json(explain) for result in self.results],
        }
        if self.suggestion:
            data["suggestion"] = self.suggestion
        return data


@dataclass
class _Candidate:
    hit: Any
    features: ranking.Features
    final: float = 0.0


class SearchEngine:
    """Read-only search over ``DATA_DIR``; cheap to keep open between queries."""

    def __init__(self, data_dir: str | Path) -> None:
        self.data_dir = Path(data_dir)
        index_dir = self.data_dir / "index"
        if not index_dir.is_dir():
            raise SearchError(
                f"no index in {self.data_dir}: crawl something first "
                f"(scrapy crawl web -a seeds=URL -s DATA_DIR={self.data_dir}), or try `make demo`"
            )
        try:
            self.index = whoosh_index.open_dir(str(index_dir))
        except EmptyIndexError:
            raise SearchError(
                f"the index in {self.data_dir} is being built: try again in a few seconds"
            ) from None
        self.store = _open_optional(PageStore, self.data_dir / "pages.sqlite")
        self.graph = _open_optional(LinkGraph, self.data_dir / "graph", "links.sqlite")
        self.analyzer = self.index.schema[fields.TITLE].analyzer
        self._searcher: Any = None
        self.weighting = BM25F(
            B=ranking.B,
            K1=ranking.K1,
            **{f"{name}_B": value for name, value in ranking.FIELD_B.items()},
        )
        names = list(ranking.FIELD_WEIGHTS)
        boosts = dict(ranking.FIELD_WEIGHTS)
        self.parser = MultifieldParser(names, self.index.schema, fieldboosts=boosts)
        self.parser.add_plugin(PlusMinusPlugin())
        self.relaxed_parser = MultifieldParser(
            names, self.index.schema, fieldboosts=boosts, group=OrGroup
        )

    def _fresh_searcher(self) -> Any:
        """The open searcher, moved to the index's latest commit if there is one.

        Opening a searcher reads the term index (a third of a second at
        100,000 documents); keeping one open and refreshing it costs a check
        of the index's generation.
        """
        if self._searcher is None:
            self._searcher = self.index.searcher(weighting=self.weighting)
        else:
            self._searcher = self._searcher.refresh()
        return self._searcher

    def close(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None
        self.index.close()
        for resource in (self.store, self.graph):
            if resource is not None:
                resource.close()

    def __enter__(self) -> SearchEngine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def parse(self, text: str, relaxed: bool = False) -> Query:
        """The query for ``text``: all words required unless ``relaxed``.

        ``site:HOST`` restricts to a host and its subdomains, ``title:word``
        to titles; ``"phrases"``, ``OR``, ``NOT`` and ``-word`` as usual.
        """
        parser = self.relaxed_parser if relaxed else self.parser
        # A host with a port (site:127.0.0.1:8304) is one term, not a field
        # named "1" inside it: quoted, Whoosh reads it whole.
        return parser.parse(_SITE_WITH_PORT.sub(r'\1"\2"', text))

    def tokens(self, text: str) -> list[str]:
        """``text`` as the index analyzes it (lower-cased, stemmed, split)."""
        return [token.text for token in self.analyzer(text)]

    def search(self, text: str, n: int = 10, page: int = 1, explain: bool = False) -> Results:
        text = " ".join(text.split())
        if not text:
            raise SearchError("empty query: type some words to search for")
        if n < 1 or page < 1:
            raise SearchError("-n and --page must be at least 1")
        started = time.perf_counter()
        plain = not _OPERATORS.search(text)
        words = [word for word in text.split() if self.tokens(word)] if plain else []
        depth = max(_DEPTH, 3 * n * page)
        searcher = self._fresh_searcher()
        candidates, total, matched_all = self._candidates(searcher, text, words, depth, n * page, plain)
        if candidates:
            self._rank(searcher, candidates, words)
        window = ranking.page_by_host(candidates, lambda c: c.hit.get(fields.HOST, ""), n, page)
        bodies = self.store.texts(c.hit[fields.URL] for c, _ in window) if self.store else {}
        per_field = self._field_scores(searcher, text, [c for c, _ in window]) if explain else {}
        pattern = word_pattern(self.tokens(text)) if window else None
        results = [
            self._result(candidate, more, bodies, pattern, per_field.get(candidate.hit.docnum), explain)
            for candidate, more in window
        ]
        suggestion = None
        if matched_all < _FEW and words:
            suggestion = self._suggest(searcher, words, matched_all)
        return Results(text, total, results, page, n, time.perf_counter() - started, suggestion)

    # --- candidates and their features ---------------------------------------------

    def _candidates(
        self, searcher: Any, text: str, words: list[str], depth: int, wanted: int, plain: bool
    ) -> tuple[list[_Candidate], int, int]:
        """Candidates, how many pages match (some words), how many match all words."""
        # Without terms=True, Whoosh can skip blocks that cannot reach the top.
        hits = searcher.search(self.parse(text), limit=depth)
        total = matched_all = _count(hits, depth)
        candidates = [
            _Candidate(hit, ranking.Features(text=hit.score, words_matched=len(words))) for hit in hits
        ]
        if total < wanted and plain and len(words) > 1:
            seen = {c.hit.docnum for c in candidates}
            relaxed = [hit for hit in searcher.search(self.parse(text, relaxed=True), limit=depth)
                       if hit.docnum not in seen]
            matched = self._words_matched(searcher, [hit.docnum for hit in relaxed], words)
            for hit in relaxed:
                features = ranking.Features(text=hit.score, all_words=False,
                                            words_matched=matched.get(hit.docnum, 0))
                candidates.append(_Candidate(hit, features))
            total = max(total, len(seen) + len(relaxed))
        return candidates, total, matched_all

    def _words_matched(self, searcher: Any, docnums: list[int], words: list[str]) -> dict[int, int]:
        """How many query words each document has (all of a word's tokens, in some field).

        Read from the postings of the given documents only, rather than
        asking Whoosh to record the terms of every match of an OR query.
        """
        found: dict[int, set[str]] = {docnum: set() for docnum in docnums}
        ordered = sorted(docnums)
        for token in {token for word in words for token in self.tokens(word)}:
            for name in ranking.FIELD_WEIGHTS:
                try:
                    matcher = searcher.postings(name, token)
                except TermNotFound:
                    continue
                for docnum in ordered:
                    if not matcher.is_active():
                        break
                    matcher.skip_to(docnum)
                    if matcher.is_active() and matcher.id() == docnum:
                        found[docnum].add(token)
        return {
            docnum: sum(1 for word in words if set(self.tokens(word)) <= tokens)
            for docnum, tokens in found.items()
        }

    def _rank(self, searcher: Any, candidates: list[_Candidate], words: list[str]) -> None:
        proximity = self._proximity(searcher, candidates, words)
        urls = [c.hit[fields.URL] for c in candidates]
        ranks = self.graph.pagerank_of(urls) if self.graph is not None else {}
        nodes = self.graph.node_count() if self.graph is not None else 0
        query_tokens = self.tokens(" ".join(words)) if words else []
        for candidate in candidates:
            hit = candidate.hit
            features = candidate.features
            candidate.features = ranking.Features(
                text=features.text,
                proximity=proximity.get(hit.docnum, 0.0),
                pagerank=ranks.get(hit[fields.URL], 0.0),
                nodes=nodes,
                all_words=features.all_words,
                words_matched=features.words_matched,
                exact_title=bool(query_tokens) and self._is_title(hit.get(fields.TITLE) or "", query_tokens),
            )
            candidate.final = ranking.score(candidate.features)
        candidates.sort(key=lambda c: (ranking.order_key(c.features), c.hit[fields.URL]))

    def _is_title(self, title: str, query_tokens: list[str]) -> bool:
        """Whether the title (or its first part, before a " — " or " | ") is the query."""
        head = _TITLE_SEPARATORS.split(title, maxsplit=1)[0]
        for text in (head, title) if head != title else (title,):
            # Analysing every candidate's title is the cost: most are far
            # longer than the query, and cannot be it.
            if len(text.split()) <= 2 * len(query_tokens) + 1 and self.tokens(text) == query_tokens:
                return True
        return False

    def _sequence(self, words: list[str]) -> list[str]:
        """The query's tokens one per position (a code name's parts, not its whole)."""
        by_position: dict[int, str] = {}
        for token in self.analyzer(" ".join(words), positions=True):
            by_position[token.pos] = token.text  # the last at a position is the finest part
        return [by_position[pos] for pos in sorted(by_position)]

    def _proximity(self, searcher: Any, candidates: list[_Candidate], words: list[str]) -> dict[int, float]:
        """How near the query's words stand in each of the best candidates' fields.

        Positions are read from the index for the ``_PROXIMITY_DEPTH`` best
        candidates by text score only: a phrase search over the whole index
        would cost as much as the query itself.
        """
        sequence = self._sequence(words)
        if len(sequence) < 2:
            return {}
        best = sorted(candidates, key=lambda c: -c.features.text)[:_PROXIMITY_DEPTH]
        docnums = sorted(c.hit.docnum for c in best)
        counts: dict[int, dict[str, tuple[int, int]]] = {docnum: {} for docnum in docnums}
        for name in ranking.PROXIMITY_FIELDS:
            matchers = []
            for token in sequence:
                try:
                    matchers.append(searcher.postings(name, token))
                except TermNotFound:
                    matchers = []
                    break
            if not matchers:
                continue
            for docnum in docnums:
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
                        counts[docnum][name] = found
        idf = sum(searcher.idf(fields.BODY, token) for token in sequence) / len(sequence)
        return {
            docnum: idf * proximity.bonus(found, ranking.FIELD_WEIGHTS, ranking.EXACT_PHRASE)
            for docnum, found in counts.items() if found
        }

    def _field_scores(self, searcher: Any, text: str, shown: list[_Candidate]) -> dict[int, dict[str, float]]:
        """Each field's part of the text score, for ``--explain`` (shown results only)."""
        docnums = {c.hit.docnum for c in shown}
        scores: dict[int, dict[str, float]] = {docnum: {} for docnum in docnums}
        tokens = [token for word in text.split() for token in self.tokens(word)]
        for name, weight in ranking.FIELD_WEIGHTS.items():
            query = Or([Term(name, token, boost=weight) for token in dict.fromkeys(tokens)]) if tokens else NullQuery
            for hit in searcher.search(query, filter=docnums, limit=None):
                scores[hit.docnum][name] = round(hit.score, 4)
        return scores

    def _suggest(self, searcher: Any, words: list[str], matched_all: int) -> str | None:
        """A respelling of the query that more pages match in full, from the index's vocabulary."""
        if self.store is None:
            return None
        changed = False
        respelled = []
        for word in words:
            lower = word.lower()
            if _LATIN.match(lower) and self.store.word_pages(lower) == 0:
                better = spelling.closest(lower, self.store.similar_words(lower))
                if better:
                    respelled.append(better)
                    changed = True
                    continue
            respelled.append(word)
        if not changed:
            return None
        suggestion = " ".join(respelled)
        found = searcher.search(self.parse(suggestion), limit=1)
        return suggestion if len(found) > matched_all else None

    # --- presentation ----------------------------------------------------------------

    def _result(
        self,
        candidate: _Candidate,
        more: int,
        bodies: dict[str, str],
        pattern: Any,
        field_scores: dict[str, float] | None,
        explain: bool,
    ) -> Result:
        hit = candidate.hit
        url = hit[fields.URL]
        crawled = bool(hit.get(fields.CRAWLED, True))
        title = hit.get(fields.TITLE) or url
        body = bodies.get(url, "")
        text = passage(body, pattern) if body else hit.get(fields.DESCRIPTION) or ""
        if not crawled and not text:
            anchors = sorted(set((hit.get(fields.ANCHOR) or "").split("\n")))
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
                "all_words": features.all_words,
                "words_matched": features.words_matched,
                "exact_title": features.exact_title,
                "formula": (
                    f"(text + {ranking.PROXIMITY_WEIGHT} * proximity) * "
                    f"(1 + {ranking.PAGERANK_WEIGHT} * ln(1 + pagerank * N)); "
                    "ordered by all words, exact title, words matched, then this"
                ),
            }
        return Result(
            url=url,
            title=title,
            snippet=text,
            score=round(candidate.final, 4),
            pagerank=features.pagerank,
            host=hit.get(fields.HOST, ""),
            crawled=crawled,
            more_from_host=more,
            explain=details,
        )


_SITE_WITH_PORT = re.compile(r'(?i)(?<![\w"])(site:)([^\s"()]+:[^\s"()]+)')


def _count(hits: Any, depth: int) -> int:
    """How many documents match: exact below ``depth``, else Whoosh's estimate
    (counting every match of a common word would cost more than the search)."""
    scored = hits.scored_length()
    return scored if scored < depth else max(scored, hits.estimated_length())


def _open_optional(cls: Any, path: Path, filename: str | None = None) -> Any:
    target = path / filename if filename else path
    if not target.exists():
        return None
    return cls(path, readonly=True)
