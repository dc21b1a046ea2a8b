"""Ranking features: what :mod:`search.ranking`'s formula reads, gathered from the index.

For the candidates only (:mod:`search.candidates`): how near the query's
words stand (:func:`proximity_scores`, from positions read for the best
ones), PageRank, whether the title is the query, whether a page known only
by links goes last, the query's language; :class:`Ranker` puts them in a
:class:`ranking.Features` per candidate and orders the candidates by it,
then looks at the first ones again for a heading that is the query.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from whoosh.query import NullQuery, Term
from whoosh.reading import TermNotFound

from indexer import schema as fields
from search import proximity, ranking
from search.candidates import QUESTION_WORDS, Candidate, by_candidate
from search.parsing import UnionOr
from search.tokens import Tokens

__all__ = ["Ranker", "proximity_scores", "field_scores", "RERANK", "PROXIMITY_DEPTH"]

# The first results looked at again with what only the page store holds (its headings).
RERANK = 20
# Candidates (the best by text score) whose positions are read for proximity.
PROXIMITY_DEPTH = 50
_TITLE_SEPARATORS = re.compile(r"\s+[—–|·:-]\s+|\s+-\s+")
# The number before a heading's text: "11.4.4. ", "2. ", "1.2 " (not "404 "),
# and an appendix's "A.3. ".
_SECTION_NUMBER = re.compile(r"^\s*(?:\d+|[A-Z](?=\.\d))(?:\.\d+)*\.\s+|^\s*\d+(?:\.\d+)+\s+")

# What an API reference writes before the name it defines: Sphinx's
# definitions in lower case ("exception shutil.Error", "async classmethod"),
# Node's headings with a colon ("Class: Error", "Static method: Buffer.from").
_KINDS = (
    r"abstract|async|static|class|classmethod|staticmethod|final|coroutine|exception|function|method|"
    r"attribute|property|module|data|event|interface|enum|struct|type|def|const|var|let|macro|constructor"
)
_DEFINITION_KIND = re.compile(rf"^\s*(?:(?:{_KINDS})\s+)+")
_HEADING_KIND = re.compile(rf"^\s*(?:(?i:{_KINDS})\s*)+:\s*")


def defined_name(heading: str, tag: str = "dt") -> str:
    """The name a definition defines (a ``dt``'s text, or a heading that
    says what kind of thing it names): without that kind and without its
    signature, so that ``Error`` is the name of ``exception Error`` and not
    of ``exception pkg.sub.Error``; any other heading as it is.

    >>> defined_name("exception shutil.Error"), defined_name("Class: Error", "h3")
    ('shutil.Error', 'Error')
    >>> defined_name("json.dumps(obj, *, indent)"), defined_name("Static method: Buffer.alloc(size)", "h3")
    ('json.dumps', 'Buffer.alloc')
    >>> defined_name("Type hints", "h2"), defined_name("Writing your first patch", "h1")
    ('Type hints', 'Writing your first patch')
    """
    kind = _DEFINITION_KIND if tag == "dt" else _HEADING_KIND
    named = kind.sub("", heading, count=1)
    if tag != "dt" and named == heading:
        return heading
    cut = named.find("(")
    return (named[:cut] if cut > 0 else named).strip() or heading


Pageranks = Callable[[list[str]], tuple[dict[str, float], int]]
Sections = Callable[[list[str]], dict[str, list[list[str]]]]


class Ranker:
    """Gives each candidate its :class:`ranking.Features` and score, and
    orders them. ``pageranks`` gives the PageRank of URLs and the graph's
    nodes; ``sections`` the headings of pages (None: no page store);
    ``store`` the page store, which knows the crawled sites;
    ``anchor_only`` and ``anchor_min_sources`` say where pages known
    only by anchor text go."""

    def __init__(
        self,
        corpus: Any,
        tokens: Tokens,
        pageranks: Pageranks,
        sections: Sections | None,
        store: Any,
        anchor_only: str,
        anchor_min_sources: int,
    ) -> None:
        self.corpus = corpus
        self.tokens = tokens
        self.pageranks = pageranks
        self.sections = sections
        self.store = store
        self.anchor_only = anchor_only
        self.anchor_min_sources = anchor_min_sources
        self._hosts: frozenset[str] | None = None

    def rank(
        self, searcher: Any, candidates: list[Candidate], words: list[str], script: str, asked: list[str] | None = None
    ) -> None:
        """Score and order ``candidates`` (in place) for a query of ``words``
        in ``script`` (:func:`ranking.query_script`); then, with a page
        store, put a page whose heading is the query first among the first.
        ``asked``: the words as typed, when a question's own words were
        taken out of ``words``: a title or heading that is the question
        ("How to use git-daemon") is still the query's."""
        self._score_and_order(searcher, candidates, words, script, asked or words)
        if words and self.sections is not None:
            self._headings_first(candidates, asked or words, self.sections)

    def _score_and_order(
        self, searcher: Any, candidates: list[Candidate], words: list[str], script: str, asked: list[str]
    ) -> None:
        question = len(words) >= QUESTION_WORDS
        near = proximity_scores(self.corpus.top_docs(), searcher, candidates, self.tokens.one_per_position(words))
        urls = [c.url for c in candidates]
        ranks, nodes = self.pageranks(urls)
        query_tokens = self.tokens(" ".join(asked)) if asked else []
        titled = self._may_be_titled(candidates, query_tokens)
        for candidate, may_be_title in zip(candidates, titled, strict=False):
            crawled = bool(candidate.get(fields.CRAWLED, True))
            candidate.features = ranking.Features(
                text=candidate.text,
                proximity=near.get(candidate.url, 0.0),
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
                other_language=ranking.other_language(
                    script, (candidate.get(fields.LANG) or "").split()[:1], candidate.get(fields.CONTAINS) or ()
                ),
                coverage=candidate.words_matched / len(words) if question else None,
            )
            candidate.final = ranking.score(candidate.features)
        candidates.sort(key=lambda c: (ranking.order_key(c.features), c.url))

    def _headings_first(self, candidates: list[Candidate], words: list[str], sections_of: Sections) -> None:
        """Among the first results, a page with a heading that is the query
        scores ranking.HEADING_BOOST times more: the page with a section
        "Sign and verify" before the one titled "Crypto" (Node.js headings
        0.958 to 0.983 MRR@10)."""
        sections = sections_of([c.url for c in candidates[:RERANK]])
        wanted = self.tokens(" ".join(words))
        if not wanted:
            return
        head = candidates[:RERANK]
        changed = False
        for candidate in head:
            if any(self._is_heading(section, wanted) for section in sections.get(candidate.url, ())):
                candidate.features = candidate.features._replace(exact_heading=True)
                candidate.final = ranking.score(candidate.features)
                changed = True
        if changed:
            head.sort(key=lambda c: (ranking.order_key(c.features), c.url))
            candidates[:RERANK] = head

    def _is_heading(self, section: list[str], wanted: list[str]) -> bool:
        """Whether a section's heading is the query, or the name it defines
        is (``exception Error`` for ``Error``, not ``exception pkg.sub.Error``).
        A heading's number ("11.4.4. Printing with CUPS", as DocBook writes
        them) is not part of what it says."""
        if len(section) < 2:
            return False
        heading = section[1]
        if self.tokens.analyses_to(heading, wanted):
            return True
        unnumbered = _SECTION_NUMBER.sub("", heading, count=1)
        if unnumbered != heading and self.tokens.analyses_to(unnumbered, wanted):
            return True
        named = defined_name(heading, section[2] if len(section) > 2 else "")
        return named != heading and self.tokens.analyses_to(named, wanted)

    def _weak_anchors(self, hit: Candidate) -> bool:
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

    def _may_be_titled(self, candidates: list[Candidate], query_tokens: list[str]) -> list[bool]:
        """Whether each candidate's title may be the query: a page's title
        field must hold every query token for its title to analyse to them
        (most do not, and cost no analysis); a page known only by links,
        named by its anchor text, may always be."""
        if not query_tokens:
            return [False] * len(candidates)
        top = self.corpus.top_docs()
        docs, any_of = by_candidate(candidates)
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
        unnumbered = _SECTION_NUMBER.sub("", head, count=1)
        for text in dict.fromkeys((head, title, unnumbered)):
            # Analysing every candidate's title is the cost: most are far
            # longer than the query, and cannot be it.
            if len(text.split()) <= 2 * len(query_tokens) + 1 and self.tokens.analyses_to(text, query_tokens):
                return True
        return False


# --- proximity -----------------------------------------------------------------------


def proximity_scores(top: Any, searcher: Any, candidates: list[Candidate], sequence: list[str]) -> dict[str, float]:
    """How near the query's tokens (``sequence``, one per position) stand in
    each of the best candidates' fields, by URL.

    Positions are read from the index for the ``PROXIMITY_DEPTH`` best
    candidates by text score only: a phrase search over the whole index
    would cost as much as the query itself; and in a field only for those
    that hold every word in it, when the arrays of :mod:`search.topdocs`
    kept from scoring the query say which (most candidates lack some
    word in a title or in anchor text).
    """
    if len(sequence) < 2:
        return {}
    best = sorted(candidates, key=lambda c: -c.text)[:PROXIMITY_DEPTH]
    owner = {docnum: candidate.url for candidate in best for docnum in candidate.docs}
    docnums = sorted(owner)
    counts: dict[str, dict[str, tuple[int, int]]] = {candidate.url: {} for candidate in best}
    reader = searcher.reader()
    for name in ranking.PROXIMITY_FIELDS:
        targets = _holding_every_token(top, name, sequence, docnums)
        if targets is None:  # the arrays do not tell which documents hold every token
            near = _near_by_postings(reader, name, sequence, docnums)
        elif targets:
            kept = _near_by_kept_positions(top, name, sequence, targets)
            near = kept if kept is not None else _near_by_postings(reader, name, sequence, targets)
        else:
            continue
        for docnum, found in near.items():
            counts[owner[docnum]][name] = found
    idf = sum(top.idf(fields.BODY, token) for token in sequence) / len(sequence)
    return {
        url: idf * proximity.bonus(found, ranking.FIELD_WEIGHTS, ranking.EXACT_PHRASE)
        for url, found in counts.items()
        if found
    }


def _holding_every_token(top: Any, name: str, sequence: list[str], docnums: list[int]) -> list[int] | None:
    """The documents whose field ``name`` holds every token, when the
    arrays kept from scoring the query tell (None when they do not)."""
    kept = [top.kept_matches(name, token) for token in sequence]
    if any(matches is None for matches in kept):
        return None
    holding = np.ones(len(docnums), dtype=bool)
    for matches in kept:
        holding &= matches[docnums]
    return [docnum for docnum, held in zip(docnums, holding.tolist(), strict=False) if held]


def _near_by_kept_positions(
    top: Any, name: str, sequence: list[str], targets: list[int]
) -> dict[int, tuple[int, int]] | None:
    """The phrases and near windows of each target document in field
    ``name``, from the posting blocks the query's scoring read (None when
    it did not read them all)."""
    read = [top.positions(name, token, targets) for token in sequence]
    if any(found is None for found in read):
        return None
    near = {}
    for at, docnum in enumerate(targets):
        lists = [found[at] for found in read if found is not None]
        if all(positions is not None for positions in lists):
            counted = proximity.phrase_and_near(cast("list[list[int]]", lists), ranking.NEAR_WORDS)
            if any(counted):
                near[docnum] = counted
    return near


def _near_by_postings(reader: Any, name: str, sequence: list[str], targets: list[int]) -> dict[int, tuple[int, int]]:
    """The phrases and near windows of each target document in field
    ``name``, from the index's postings, skipping to each document."""
    matchers = []
    for token in sequence:
        try:
            matchers.append(reader.postings(name, token))
        except TermNotFound:
            return {}
    near = {}
    for docnum in targets:
        positions = _positions_at(matchers, docnum)
        if positions is not None:
            counted = proximity.phrase_and_near(positions, ranking.NEAR_WORDS)
            if any(counted):
                near[docnum] = counted
    return near


def _positions_at(matchers: list[Any], docnum: int) -> list[list[int]] | None:
    """Each matcher's positions in document ``docnum`` (moved there), or
    None when one of them does not match it."""
    positions = []
    for matcher in matchers:
        if matcher.is_active():
            matcher.skip_to(docnum)
        if not matcher.is_active() or matcher.id() != docnum:
            return None
        positions.append(matcher.value_as("positions"))
    return positions


# --- explanation ---------------------------------------------------------------------


def field_scores(searcher: Any, tokens: Tokens, text: str, shown: list[Candidate]) -> dict[str, dict[str, float]]:
    """Each field's part of the text score, for ``--explain`` (shown results only)."""
    owner = {docnum: candidate.url for candidate in shown for docnum in candidate.docs}
    scores: dict[str, dict[str, float]] = {candidate.url: {} for candidate in shown}
    query_tokens = [token for word in text.split() for token in tokens(word)]
    if not owner:  # no documents to explain (an empty filter would let every one through)
        return scores
    for name, weight in ranking.FIELD_WEIGHTS.items():
        terms = [Term(name, token, boost=weight) for token in dict.fromkeys(query_tokens)]
        query = UnionOr(terms) if terms else NullQuery
        for hit in searcher.search(query, filter=set(owner), limit=None):
            url = owner[hit.docnum]
            scores[url][name] = round(scores[url].get(name, 0.0) + hit.score, 4)
    return scores
