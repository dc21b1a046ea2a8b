"""Answering queries: parse, match, rank, cut snippets.

:class:`SearchEngine` opens a data directory read-only (the indexer may be
writing it at the same time) and answers :meth:`SearchEngine.search` with
plain data that the CLI and the web page render.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from whoosh import highlight, index as whoosh_index
from whoosh.index import EmptyIndexError
from whoosh.qparser import MultifieldParser, OrGroup
from whoosh.qparser.plugins import PlusMinusPlugin
from whoosh.query import Query
from whoosh.scoring import BM25F

from indexer import schema as fields
from indexer.graph import LinkGraph
from indexer.store import PageStore
from search import ranking

__all__ = ["SearchEngine", "SearchError", "Result", "Results"]

# Candidates re-ranked with PageRank: the best this many by text score.
_RERANK_DEPTH = 200
_SNIPPET_CHARS = 300
_FRAGMENT_CHARS = 150
_SITE = re.compile(r"(^|\s)site:", re.IGNORECASE)


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
        self.weighting = BM25F(
            B=ranking.B,
            K1=ranking.K1,
            **{f"{name}_B": value for name, value in ranking.FIELD_B.items()},
        )
        self.parser = MultifieldParser(
            list(ranking.FIELD_WEIGHTS),
            self.index.schema,
            fieldboosts=dict(ranking.FIELD_WEIGHTS),
        )
        self.parser.add_plugin(PlusMinusPlugin())
        self.relaxed_parser = MultifieldParser(
            list(ranking.FIELD_WEIGHTS),
            self.index.schema,
            fieldboosts=dict(ranking.FIELD_WEIGHTS),
            group=OrGroup.factory(0.9),
        )

    def close(self) -> None:
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

        ``site:HOST`` restricts to one host (``host`` field); ``title:word``,
        ``"phrases"``, ``OR``, ``NOT`` and ``-word`` are Whoosh syntax.
        """
        text = _SITE.sub(r"\1host:", text)
        parser = self.relaxed_parser if relaxed else self.parser
        return parser.parse(text)

    def search(self, text: str, n: int = 10, page: int = 1, explain: bool = False) -> Results:
        text = " ".join(text.split())
        if not text:
            raise SearchError("empty query: type some words to search for")
        if n < 1 or page < 1:
            raise SearchError("-n and --page must be at least 1")
        started = time.perf_counter()
        query = self.parse(text)
        depth = max(_RERANK_DEPTH, n * page)
        with self.index.searcher(weighting=self.weighting) as searcher:
            hits = searcher.search(query, limit=depth, terms=True)
            if hits.is_empty() and not _has_operators(text):
                hits = searcher.search(self.parse(text, relaxed=True), limit=depth, terms=True)
            total = len(hits)
            candidates = [(hit, hit.score) for hit in hits]
            urls = [hit[fields.URL] for hit, _ in candidates]
            ranks = self.graph.pagerank_of(urls) if self.graph is not None else {}
            nodes = self.graph.node_count() if self.graph is not None else 0
            scored = []
            for hit, text_score in candidates:
                pr = ranks.get(hit[fields.URL], 0.0)
                scored.append((ranking.combine(text_score, pr, nodes), text_score, pr, hit))
            scored.sort(key=lambda row: (-row[0], row[3][fields.URL]))
            window = scored[(page - 1) * n : page * n]
            bodies = self.store.texts(row[3][fields.URL] for row in window) if self.store else {}
            results = [
                self._result(hit, score, text_score, pr, nodes, bodies, explain)
                for score, text_score, pr, hit in window
            ]
        return Results(text, total, results, page, n, time.perf_counter() - started)

    def _result(
        self,
        hit: Any,
        score: float,
        text_score: float,
        pr: float,
        nodes: int,
        bodies: dict[str, str],
        explain: bool,
    ) -> Result:
        url = hit[fields.URL]
        crawled = bool(hit.get(fields.CRAWLED, True))
        title = hit.get(fields.TITLE) or url
        body = bodies.get(url, "")
        snippet = _snippet(hit, body) or hit.get(fields.DESCRIPTION) or ""
        if not crawled and not snippet:
            anchors = sorted(set((hit.get(fields.ANCHOR) or "").split("\n")))
            snippet = "Not fetched; linked as: " + "; ".join(a for a in anchors if a)[:_SNIPPET_CHARS]
        details: dict[str, Any] = {}
        if explain:
            details = {
                "text_score": round(text_score, 4),
                "pagerank": pr,
                "pagerank_x_nodes": round(pr * nodes, 4),
                "prior": round(ranking.prior(pr, nodes), 4),
                "formula": "text_score * (1 + %.2f * ln(1 + pagerank * N))" % ranking.PAGERANK_WEIGHT,
                "matched_terms": sorted(
                    f"{name}:{term.decode() if isinstance(term, bytes) else term}"
                    for name, term in (hit.matched_terms() or ())
                ),
            }
        return Result(
            url=url,
            title=title,
            snippet=snippet,
            score=round(score, 4),
            pagerank=pr,
            host=hit.get(fields.HOST, ""),
            crawled=crawled,
            explain=details,
        )


def _has_operators(text: str) -> bool:
    return bool(re.search(r'"|\bOR\b|\bNOT\b|(^|\s)-\S|:', text))


def _snippet(hit: Any, body: str) -> str:
    """Up to two fragments of the body around matched words, in plain text."""
    if not body:
        return ""
    hit.results.fragmenter = highlight.ContextFragmenter(maxchars=_FRAGMENT_CHARS, surround=50)
    hit.results.formatter = _PlainFormatter()
    try:
        text = hit.highlights(fields.BODY, text=body, top=2)
    except (KeyError, ValueError):
        text = ""
    if not text:
        text = body
    text = " ".join(text.split())
    if len(text) > _SNIPPET_CHARS:
        text = text[:_SNIPPET_CHARS].rsplit(" ", 1)[0] + " ..."
        if text.count("**") % 2:  # a mark cut in half
            text = text.replace(" ...", "** ...")
    return text


class _PlainFormatter(highlight.Formatter):
    """Matched words marked with ``**`` (the CLI makes them bold)."""

    between = " ... "

    def format_token(self, text: str, token: Any, replace: bool = False) -> str:
        return "**" + highlight.get_text(text, token, replace) + "**"


def _open_optional(cls: Any, path: Path, filename: str | None = None) -> Any:
    target = path / filename if filename else path
    if not target.exists():
        return None
    return cls(path, readonly=True)
