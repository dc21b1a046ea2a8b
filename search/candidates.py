"""Candidates: the pages a query matches, found level by level.

A query is first a :class:`Request`: its words with the ``site:``,
``lang:``, ``type:`` and ``access:`` restrictions taken out (they filter
the matches at every level instead of becoming words). :class:`Retrieval`
then finds the best ``DEPTH`` pages by text score (Whoosh's BM25F over the
fields) at the levels of :mod:`search.parsing`: every word as written, then
every word's parts, then (plain words only) any of them, while fewer than a
page's worth have matched. Each candidate is a URL with its documents (its
page, the anchor document of the links to it, or both: the one the level's
matches left out is added, with its score for the same terms), and how many
query words it holds. The same arrays count the matches' sites, languages,
types and access for the facets.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from whoosh.query import And, AndNot, Every, Not, Or, Query, Term

from indexer import schema as fields
from indexer.analysis import has_cjk
from search import ranking, spelling
from search.parsing import ANY, LEVELS, PARTS, STRICT, QueryParser, UnionOr
from search.tokens import Tokens
from search.topdocs import supports

__all__ = [
    "DEPTH",
    "QUESTION_WORDS",
    "FACETS",
    "Request",
    "Candidate",
    "Found",
    "Retrieval",
    "filters",
    "by_candidate",
]

# Candidates ranked in full: the best this many by text score. 50 ranked
# as well as 100 on every query set of the real documentation sites
# (MRR@10 the same or up to 0.006 better), at half the cost per candidate.
DEPTH = 50
# A plain query of this many words or more is a question: pages holding most
# of its words compete with those holding all (ranking.Features.coverage).
QUESTION_WORDS = 4
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
_LATIN = re.compile(r"[a-z]{4,}\Z")


def filters(text: str) -> tuple[str, Query | None, list[Query]]:
    """``text`` without its ``site:``, ``lang:``, ``type:`` and
    ``access:`` restrictions, the query every result must match, and
    those no result may match.

    ``site:HOST`` is a host (with its port, if given) and its subdomains;
    ``lang:xx`` a language (``lang:zh`` includes ``zh-cn``); ``type:pdf``
    a type of document (``html``, ``pdf``, ``text``, ``media``,
    ``other``); ``access:members`` the pages only members may read; a
    ``-`` before any of them excludes.

    >>> filters("harbour type:PDF -site:a.test")
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


# A question's own words: what a question asks with, not what it is about.
_INTERROGATIVES = frozenset("how what why when where which who whom whose".split())
_QUESTION_WORDS = _INTERROGATIVES | frozenset(
    """do does did can could should would will shall may might must i me my we our you your is are was were be
    been am there a an the to of it its""".split()
)


def without_question_words(text: str) -> str:
    """A plain query put as a question (it begins with an interrogative or
    ends with "?") without the words it asks with, which no page needs to
    hold: ``how do I undo the last commit`` asks for ``undo last commit``.
    Anything else, and a question that would be left with fewer than two
    words, as it is.

    >>> without_question_words("how do I undo the last commit?")
    'undo last commit'
    >>> without_question_words("why does my query not use the index")
    'query not use index'
    >>> without_question_words("how to"), without_question_words("the last commit")
    ('how to', 'the last commit')
    """
    words = text.split()
    if len(words) < 3 or (words[0].lower() not in _INTERROGATIVES and not text.endswith("?")):
        return text
    kept = [word for word in (word.rstrip("?") for word in words) if word and word.lower() not in _QUESTION_WORDS]
    return " ".join(kept) if len(kept) >= 2 else text


@dataclass(frozen=True)
class Request:
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
    # The words as typed (a question's own words too: a title may be the question).
    asked: list[str] = field(default_factory=list)
    # A question as typed, when its own words were taken out of ``text``
    # (the pages holding every word of it, an FAQ's entry, are found too).
    as_asked: str = ""

    @classmethod
    def of(cls, text: str, tokens: Tokens, hide_anchor_only: bool) -> Request:
        """The request for ``text`` (one space between words); with
        ``hide_anchor_only``, pages known only by links are masked."""
        words_text, restrict, excluded = filters(text)
        plain = not _OPERATORS.search(words_text)
        asked = [word for word in words_text.split() if tokens(word)] if plain else []
        as_asked = words_text
        if plain:
            words_text = without_question_words(words_text)
        words = [word for word in words_text.split() if tokens(word)] if plain else []
        if hide_anchor_only:
            excluded = [*excluded, Term(fields.CRAWLED, False)]
        mask = None if not excluded else excluded[0] if len(excluded) == 1 else Or(excluded)
        runs = any(has_cjk(word) and len(tokens(word)) > 1 for word in words)
        return cls(
            words_text,
            words,
            plain,
            restrict,
            mask,
            runs=runs,
            asked=asked,
            as_asked="" if as_asked == words_text else as_asked,
        )

    @property
    def question(self) -> bool:
        return self.plain and len(self.words) >= QUESTION_WORDS

    @property
    def put_as_question(self) -> bool:
        """A question of many words that was put as one: its own words
        (``how do I``) were taken out."""
        return self.question and bool(self.as_asked)

    @property
    def relaxable(self) -> bool:
        """Whether the ``any`` level can find what the others did not: several words, or a run of them."""
        return self.plain and (len(self.words) > 1 or self.runs)

    def stops_before(self, level: str, found: int, wanted: int) -> bool:
        """Whether a level after the first need not be tried: ``any`` for a
        query it cannot relax, or any once ``wanted`` pages are ``found``
        (but ``any`` for a question, whose pages holding most words compete)."""
        if level == ANY and not self.relaxable:
            return True
        return found >= wanted and not (level == ANY and self.question)


@dataclass
class Candidate:
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


@dataclass
class Found:
    """What :meth:`Retrieval.find` gives: the candidates, in the order of
    the levels that found them; how many pages match (some words); how
    many match all words as written; the documents that matched at each
    level tried (None when Whoosh answered a level: it tells only the
    best), and from them every matching document one per URL."""

    candidates: list[Candidate] = field(default_factory=list)
    total: int = 0
    matched_all: int = 0
    masks: list[Any] | None = field(default_factory=list)
    docs: np.ndarray | None = None


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


class Retrieval:
    """Finds a request's candidates in ``corpus``, and what else the
    matches tell: the facets' counts, a respelling more pages match."""

    def __init__(self, corpus: Any, parser: QueryParser, tokens: Tokens, store: Any = None) -> None:
        self.corpus = corpus
        self.parser = parser
        self.question_parser = parser.reweighted(dict(ranking.QUESTION_FIELD_WEIGHTS))
        self.tokens = tokens
        self.store = store
        # Each document that stands for a URL of its own (a page, or a
        # stub known only by links), for the facets: kept for the arrays it is of.
        self._one_per_url: tuple[Any, np.ndarray] | None = None

    def warm(self) -> None:
        """Read now what the first queries would: which documents are live,
        each text field's lengths, the labels the facets count."""
        top = self.corpus.top_docs()
        top.live()
        top.keep_stored()
        top.link_documents()
        for name in ranking.FIELD_WEIGHTS:
            top.lengths(name)
        for _, fieldname, keep in _FACETS:
            top.label_order(fieldname, keep)  # and the labels it orders

    # --- the levels of a search ------------------------------------------------------

    def find(self, searcher: Any, request: Request, depth: int, wanted: int) -> Found:
        """The request's candidates, the best ``depth`` at each level.

        Levels of :mod:`search.parsing` are tried in turn while fewer than
        ``wanted`` pages have matched: the words as written, then their
        parts, then (a query of plain words only) any of them. Pages found
        at a level rank after those of the levels before.
        """
        found = Found()
        seen: set[str] = set()
        previous: Query | None = None
        if request.as_asked:
            fresh = self._found_at_level(
                searcher, found, seen, request, 0, self.parser.parse(request.as_asked, STRICT), depth
            )
            found.candidates.extend(fresh)
            seen.update(candidate.url for candidate in fresh)
        for number, level in enumerate(LEVELS):
            if number and request.stops_before(level, len(seen), wanted):
                break
            if level == PARTS and self.parser.same_at_parts(request.text):
                continue  # the strict query again
            parser = self.question_parser if request.put_as_question else self.parser
            query = parser.parse(request.text, level) if request.text else Every()
            if previous is not None and query == previous:
                continue
            previous = query
            fresh = self._found_at_level(searcher, found, seen, request, number, query, depth)
            found.candidates.extend(fresh)
            seen.update(candidate.url for candidate in fresh)
        if found.masks:  # exact: every page that matched, as the facets count them
            found.docs = self._matched(found.masks)
            found.total = max(len(found.docs), len(found.candidates))
        return found

    def _found_at_level(
        self, searcher: Any, found: Found, seen: set[str], request: Request, number: int, query: Query, depth: int
    ) -> list[Candidate]:
        """The candidates level ``number`` adds (URLs not ``seen`` before),
        with their partner documents and words matched; ``found``'s counts
        and masks updated."""
        level = LEVELS[number]
        hits = self._top(searcher, query, depth, request.restrict, request.mask)
        if found.masks is not None:
            found.masks = found.masks + [hits.mask] if hasattr(hits, "mask") else None
        fresh = _by_url(hits, seen, number)
        self._add_partner_documents(searcher, fresh, query)
        # A relaxed level matches the pages of the levels before it too.
        matching = _count(hits, depth, len(seen) + len(fresh))
        if level == STRICT:
            found.matched_all = matching
        found.total = max(found.total, matching)
        added = list(fresh.values())
        self._count_words_matched(searcher, added, request.words, level)
        return added

    def _top(self, searcher: Any, query: Query, depth: int, restrict: Query | None, mask: Query | None) -> Any:
        """The ``depth`` best documents: queries of words scored a posting
        list at a time (:mod:`search.topdocs`), others by Whoosh."""
        if all(q is None or supports(q) for q in (query, restrict, mask)):
            return self.corpus.top_docs().search(query, depth, filter=restrict, mask=mask)
        # Without terms=True, Whoosh can skip blocks that cannot reach the top.
        return searcher.search(query, limit=depth, filter=restrict, mask=mask)

    def _matched(self, masks: list[Any]) -> np.ndarray:
        """The documents that matched at any level tried, one per URL (a
        crawled page that matched only by the links to it is not among them)."""
        matched = np.logical_or.reduce(masks) if len(masks) > 1 else masks[0].copy()
        matched &= self._one_per_url_of(self.corpus.top_docs())
        return np.flatnonzero(matched)

    def _one_per_url_of(self, top: Any) -> np.ndarray:
        """True for each document that is a URL's own: every page, and the anchor documents of stubs."""
        if self._one_per_url is None or self._one_per_url[0] is not top:
            one_per_url = np.arange(top.size) < top.anchors_from
            one_per_url |= top.term_matches(fields.CRAWLED, False)
            self._one_per_url = top, one_per_url
        return self._one_per_url[1]

    # --- the partner documents -------------------------------------------------------

    def _add_partner_documents(self, searcher: Any, candidates: dict[str, Candidate], query: Query) -> None:
        """Add to each candidate the document the level's matches left out (a
        page matched by its text, its anchor document not, or the other way
        round), with that document's score for the same terms the query
        scores (any of them, as it needs not match on its own): the sum is
        the page's BM25F over all its fields, as an And of Ors sums its
        terms' scores."""
        single = [c for c in candidates.values() if len(c.docs) == 1 and c.get(fields.CRAWLED, True)]
        if supports(query):
            self._add_partners_by_arrays(candidates, single, query)
            return
        missing = self._missing_partners(searcher, candidates, single)
        leaves = _scoring_leaves(query)
        for anchors, documents in missing.items():
            terms = [leaf for leaf in leaves if (getattr(leaf, "fieldname", None) == fields.ANCHOR) == anchors]
            if documents and terms:
                _add_scores(searcher, UnionOr(terms), documents)

    def _missing_partners(
        self, searcher: Any, candidates: dict[str, Candidate], single: list[Candidate]
    ) -> dict[bool, dict[int, Candidate]]:
        """The partner documents of the ``single`` candidates, added to
        them without a score: anchor documents (True) to score by their
        anchor text, pages (False) by the rest."""
        missing: dict[bool, dict[int, Candidate]] = {True: {}, False: {}}
        for url, docs in self.corpus.documents_of(searcher, (c.url for c in single)).items():
            for docnum in docs:
                if docnum not in candidates[url].docs:
                    stored = searcher.stored_fields(docnum)
                    missing[fields.SOURCES in stored][docnum] = candidates[url]
                    candidates[url].add(docnum, stored)
        return missing

    def _add_partners_by_arrays(self, candidates: dict[str, Candidate], single: list[Candidate], query: Query) -> None:
        """:meth:`_add_partner_documents` for a query of words, with the
        scores :mod:`search.topdocs` keeps of its terms."""
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

    # --- words matched ---------------------------------------------------------------

    def _count_words_matched(self, searcher: Any, added: list[Candidate], words: list[str], level: str) -> None:
        """Set how many query words each candidate a level added holds: all
        at ``strict``. A page the ``any`` level found that holds every word
        (some in its own text and some only in the links to it) counts as
        found by its parts."""
        if level == STRICT:
            for candidate in added:
                candidate.words_matched = len(words)
            return
        matched = self._words_matched(searcher, added, words)
        for candidate in added:
            candidate.words_matched = matched[candidate.url]
            if level == ANY and candidate.words_matched == len(words):
                candidate.level = LEVELS.index(PARTS)

    def _words_matched(self, searcher: Any, candidates: list[Candidate], words: list[str]) -> dict[str, int]:
        """How many query words each candidate has (all of a word's tokens, in
        some field of its page or its anchor document).

        Read from each token's matches in the fields (:mod:`search.topdocs`
        keeps them), rather than asking Whoosh to record the terms of every
        match of an OR query.
        """
        top = self.corpus.top_docs()
        tokens = {word: set(self.tokens(word)) for word in words}
        docs, any_of = by_candidate(candidates)
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

    # --- what else the matches tell ----------------------------------------------------

    def facet_counts(self, found: Found) -> dict[str, Counter[str]]:
        """The sites, languages and types of the matches, and how many are
        members-only, with their counts: over every matching page (and page
        known only by links), ``found.docs``, when the arrays tell them,
        else over the candidates."""
        if found.docs is None:
            return _candidate_facets(found.candidates)
        counts: dict[str, Counter[str]] = {}
        top = self.corpus.top_docs()
        for name, fieldname, keep in _FACETS:
            counts[name] = Counter()
            values, codes = top.labels(fieldname, keep)
            matched = np.bincount(codes[found.docs] + 1, minlength=len(values) + 1)[1:]  # code -1: no value
            present = np.flatnonzero(matched)  # the values matched, not every site there is
            if len(present) > FACETS:  # the most frequent, ties by value, as they are shown
                order = top.label_order(fieldname, keep)
                present = present[np.lexsort((order[present], -matched[present]))[:FACETS]]
            for code in present.tolist():
                counts[name][values[code]] = int(matched[code])
        return counts

    def suggestion(self, searcher: Any, request: Request, matched_all: int) -> str | None:
        """A respelling of the query that more pages match in full, from the index's vocabulary."""
        if self.store is None:
            return None
        changed = False
        respelled = []
        for word in request.words:
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
        found = searcher.search(self.parser.parse(suggestion), limit=1, filter=request.restrict, mask=request.mask)
        return suggestion if len(found) > matched_all else None


def _by_url(hits: Iterable[Any], seen: set[str], level: int) -> dict[str, Candidate]:
    """The hits of URLs not ``seen`` before, one candidate for each URL."""
    fresh: dict[str, Candidate] = {}
    for hit in hits:
        url = hit[fields.URL]
        if url in seen:
            continue
        if url in fresh:
            fresh[url].add(hit.docnum, hit.fields(), hit.score)
        else:
            fresh[url] = Candidate(url, [hit.docnum], hit.fields(), hit.score, level)
    return fresh


def _add_scores(searcher: Any, query: Query, documents: dict[int, Candidate]) -> None:
    """Add each document's score for ``query`` to its candidate: one matcher
    over the few documents, skipping to each, not a search of the whole
    index filtered down to them."""
    matcher = query.matcher(searcher, searcher.context())
    for docnum in sorted(documents):
        if not matcher.is_active():
            break
        matcher.skip_to(docnum)
        if matcher.is_active() and matcher.id() == docnum:
            documents[docnum].text += matcher.score()


def _candidate_facets(candidates: list[Candidate]) -> dict[str, Counter[str]]:
    """The facets' counts over the candidates (Whoosh tells only the best of its matches)."""
    counts: dict[str, Counter[str]] = {"site": Counter(), "lang": Counter(), "type": Counter(), "access": Counter()}
    for candidate in candidates:
        counts["site"][candidate.get(fields.HOST, "")] += 1
        counts["lang"][fields.primary_lang(candidate.get(fields.LANG, "") or "")] += 1
        counts["type"][candidate.get(fields.TYPE) or ""] += 1
        counts["access"][fields.MEMBERS if candidate.get(fields.MEMBERS_ONLY) else ""] += 1
    return counts


def by_candidate(candidates: list[Candidate]) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
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
