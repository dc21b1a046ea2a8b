"""Results: what a search answers, as plain data the CLI and the web page render.

A :class:`Results` is a page of :class:`Result` lines, the number of
matches, a "did you mean" and the facets. :class:`ResultMaker` makes each
line from a ranked candidate: its title, its snippet (the passage of the
page where the query's words gather, a sentence at most for a members-only
page), a link into the section the query names, the facts of the document,
and with ``explain`` every number it was ranked by and the query rules
that shaped it, in words.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter, OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from indexer import schema as fields
from indexer.graph import personalization_weights
from search import ranking
from search.candidates import FACETS, QUESTION_WORDS, Candidate
from search.deeplinks import best_section
from search.display import escape_marks, shown
from search.parsing import ANY, LEVELS, PARTS, STRICT, word_forms
from search.snippets import WordPattern, passage, section_text, sentence, without_contents, word_pattern
from search.tokens import Tokens

__all__ = [
    "MAX_RESULTS",
    "TYPE_NAMES",
    "MEMBERS_SNIPPETS",
    "Result",
    "Results",
    "ResultMaker",
    "PageTexts",
    "facet_lists",
    "past_served",
    "candidates_for",
    "human_size",
    "page_language",
]

# Results a query pages through, as web search engines serve: past them a
# page is answered at once, empty, with the number of the last page.
MAX_RESULTS = 1000
# How a document type reads on a results page (the ``type:`` filter takes the key).
TYPE_NAMES = {"html": "HTML", "pdf": "PDF", "text": "Text", "media": "Media", "other": "Other"}
# What a members-only page's snippet may be (SEARCH_MEMBERS_SNIPPET).
MEMBERS_SNIPPETS = ("short", "none")
# Pages whose text and sections are kept (a few kB each).
KEPT_BODIES = 2_000
# What a fragment may hold unescaped (RFC 3986 fragment characters).
_FRAGMENT_SAFE = "!$&'()*+,;=:@/?-._~"
_LEVEL_MEANING = {
    STRICT: "every word as written",
    PARTS: "every word's parts (a code name's components, a hyphenated word's pieces)",
    ANY: "some of the words",
}
_FORMULA = (
    f"(text + {ranking.PROXIMITY_WEIGHT} * proximity) * "
    f"(1 + {ranking.PAGERANK_WEIGHT} * ln(1 + pagerank * N)); ordered by weakly "
    "linked anchor-only pages last, the query's language, level, exact title, "
    "words matched, then this (a question of many words: this times the share of "
    "its words the page holds, squared, without the level and words-matched tiers)"
)


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
    # Its place in its site, the top first: the titles of its ancestors.
    hierarchy: list[str] = field(default_factory=list)
    # The same page in other languages, each a {"lang", "url"}.
    also_in: list[dict[str, str]] = field(default_factory=list)
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
    # The respelled query whose results these are, when the query as typed
    # (``query``) found nothing and its respelling did.
    showing: str | None = None

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
        if self.showing:
            data["showing"] = self.showing
        return data


def past_served(n: int, page: int) -> bool:
    """Whether page ``page`` of ``n`` results starts past the ``MAX_RESULTS`` served.

    >>> past_served(10, 100), past_served(10, 101)
    (False, True)
    """
    return n * (page - 1) >= MAX_RESULTS


def candidates_for(n: int, page: int, least: int) -> int:
    """How many candidates page ``page`` of ``n`` results needs: ``least``,
    or three pages' worth for each page shown when more (host grouping
    hides some), up to the results served.

    >>> candidates_for(10, 1, 50), candidates_for(10, 3, 50), candidates_for(10, 200, 50)
    (50, 90, 50)
    """
    if past_served(n, page):
        return least
    return min(max(least, 3 * n * page), MAX_RESULTS + 3 * n)


def facet_lists(counts: dict[str, Counter[str]]) -> dict[str, list[dict[str, Any]]]:
    """Each facet's values as a results page shows them: at most ``FACETS``,
    most first, ties by value; "access" only when some match is members-only.

    >>> facet_lists({"site": Counter({"b.test": 2, "a.test": 2, "": 1}), "access": Counter({"": 3})})
    {'site': [{'value': 'a.test', 'count': 2}, {'value': 'b.test', 'count': 2}]}
    """
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


def also_in(shown: Candidate, others: list[Candidate]) -> list[dict[str, str]]:
    """The other languages of a result: the translations that matched the
    query too, then those its markup names, each language once, in the
    order of their tags.

    >>> ja = ["ja", "http://a.test/x.ja.html"]
    >>> page = Candidate("http://a.test/x.en.html", [], {"lang": "en", "alternates": [ja]}, 0.0)
    >>> fr = Candidate("http://a.test/x.fr.html", [], {"lang": "fr"}, 0.0)
    >>> also_in(page, [fr])
    [{'lang': 'fr', 'url': 'http://a.test/x.fr.html'}, {'lang': 'ja', 'url': 'http://a.test/x.ja.html'}]
    """
    own = (shown.get(fields.LANG) or "").split(" ")[0]
    found: dict[str, str] = {}
    for other in others:
        lang = (other.get(fields.LANG) or "").split(" ")[0]
        if lang and lang != own:
            found.setdefault(lang, other.url)
    for pair in shown.get(fields.ALTERNATES) or ():
        if len(pair) == 2 and pair[0] != own:
            found.setdefault(pair[0], pair[1])
    return [{"lang": lang, "url": url} for lang, url in sorted(found.items())]


class PageTexts:
    """The text and sections of the pages shown lately, from the page store,
    for the arrays (the commit) they were read with: the same pages come
    back query after query (a quarter of those of 200 different queries)."""

    def __init__(self, corpus: Any, store: Any) -> None:
        self.corpus = corpus
        self.store = store
        self._kept: tuple[Any, OrderedDict[str, tuple[str, list[list[str]]]]] | None = None

    def bodies(self, urls: Iterable[str]) -> dict[str, tuple[str, list[list[str]]]]:
        """:meth:`PageStore.bodies`, the last ``KEPT_BODIES`` pages' kept
        while the index is at the same commit (read them, never change them)."""
        top = self.corpus.top_docs()
        if self._kept is None or self._kept[0] is not top:
            self._kept = top, OrderedDict()
        kept = self._kept[1]
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
            while len(kept) > KEPT_BODIES:
                kept.popitem(last=False)
        return found

    def sections(self, urls: list[str]) -> dict[str, list[list[str]]]:
        """Each page's sections: those of the pages :meth:`bodies` keeps,
        the others from the page store without their text."""
        kept = self._kept
        held = kept[1] if kept is not None and kept[0] is self.corpus.top_docs() else {}
        found = {url: held[url][1] for url in urls if url in held}
        missing = [url for url in urls if url not in found]
        if missing:
            found.update(self.store.sections(missing))
        return found


class ResultMaker:
    """Makes the result lines of a page of ranked candidates. ``pages``
    gives their texts (None: no page store, snippets from descriptions);
    ``members_snippet`` is what a members-only page's snippet may show;
    the anchor-only policy and the PageRank personalization are told in
    explanations."""

    def __init__(
        self,
        tokens: Tokens,
        pages: PageTexts | None,
        members_snippet: str,
        anchor_only: str,
        anchor_min_sources: int,
        personalization: dict[str, float],
    ) -> None:
        self.tokens = tokens
        self.pages = pages
        self.members_snippet = members_snippet
        self.anchor_only = anchor_only
        self.anchor_min_sources = anchor_min_sources
        self.personalization = personalization

    def results(
        self,
        window: list[tuple[Candidate, int]],
        text: str,
        explain: bool,
        field_scores: dict[str, dict[str, float]],
        translations: dict[int, list[Candidate]] | None = None,
    ) -> list[Result]:
        """The lines of ``window`` (each candidate with the number of its
        host's results on later pages) for the query's words ``text``;
        with ``explain``, each line's numbers (``field_scores``, each
        field's part of its text score) and rules; ``translations``, by
        ``id()`` of a candidate, the same page in other languages it
        stands for."""
        if not window:
            return []
        bodies = self.pages.bodies(c.url for c, _ in window) if self.pages is not None else {}
        pattern = word_pattern([self.tokens.marked(word) for word in text.split()])
        words = text.split()
        sequence = self.tokens.one_per_position(
            [
                word
                for word in text.replace('"', " ").split()
                if word not in ("OR", "AND", "NOT") and word[0] not in "-+" and ":" not in word
            ]
        )
        results = [
            self._result(candidate, more, bodies, pattern, field_scores.get(candidate.url), explain, words, sequence)
            for candidate, more in window
        ]
        for result, (candidate, _) in zip(results, window, strict=True):
            result.also_in = also_in(candidate, (translations or {}).get(id(candidate), []))
        return results

    def _result(
        self,
        candidate: Candidate,
        more: int,
        bodies: dict[str, tuple[str, list[list[str]]]],
        pattern: WordPattern | None,
        field_scores: dict[str, float] | None,
        explain: bool,
        words: list[str],
        sequence: list[str],
    ) -> Result:
        url = candidate.url
        crawled = bool(candidate.get(fields.CRAWLED, True))
        title = candidate.get(fields.TITLE) or candidate.get(fields.LABEL) or url
        body, sections = bodies.get(url, ("", []))
        section = self._section_named(sections, sequence, title, words)
        text = without_contents(body, sections)  # a snippet is a passage the page says, not its list of headings
        features = candidate.features
        return Result(
            url=f"{url}#{quote(section, safe=_FRAGMENT_SAFE)}" if section else url,
            title=shown(title),
            snippet=shown(
                self._snippet(candidate, text, pattern, crawled, section_text(text, sections, section or ""))
            ),
            score=round(candidate.final, 4),
            pagerank=features.pagerank,
            host=candidate.get(fields.HOST, ""),
            page=url,
            lang=fields.language_tag((candidate.get(fields.LANG) or "").split(" ")[0]),
            crawled=crawled,
            fetched=_day(candidate.get(fields.FETCHED)) if crawled else "",
            type=candidate.get(fields.TYPE) or "",
            size=candidate.get(fields.SIZE) if crawled else None,
            members_only=bool(candidate.get(fields.MEMBERS_ONLY)),
            more_from_host=more,
            hierarchy=_hierarchy(candidate),
            explain=self._explanation(candidate, field_scores, words, section) if explain else {},
        )

    def _section_named(
        self, sections: list[list[str]], sequence: list[str], title: str, words: list[str]
    ) -> str | None:
        """The id of the page's section the query names (:mod:`search.deeplinks`), if any."""
        if not sections:
            return None
        names = [word for word in words if word_forms(word)[0] == "code"]
        return best_section(sections, sequence, self.tokens, title, names)

    def _snippet(self, hit: Candidate, body: str, pattern: WordPattern | None, crawled: bool, section: str) -> str:
        """The passage of the page where the query's words gather: in the
        ``section`` the result links to when they are there; a sentence at
        most (or nothing) for a members-only page; for a page never fetched,
        the anchor text it is linked with."""
        if hit.get(fields.MEMBERS_ONLY):  # no more than a sentence: only members may read the page
            return self._members_snippet(hit, body, pattern, crawled)
        text = passage(section, pattern) if section else ""
        if "**" not in text:
            text = passage(body, pattern) if body else escape_marks(hit.get(fields.DESCRIPTION) or "")
        if not crawled and not text:
            anchors = sorted(set((hit.get(fields.LINKED) or "").split("\n")))
            text = "Not fetched; linked as: " + escape_marks("; ".join(a for a in anchors if a))
        return text

    def _members_snippet(self, hit: Candidate, body: str, pattern: WordPattern | None, crawled: bool) -> str:
        """A members-only page's snippet: a sentence at most, or nothing."""
        if self.members_snippet == "none":
            return ""
        if not crawled:  # only members' pages link to it: the one anchor text that best matches
            linked = sentence(". ".join((hit.get(fields.LINKED) or "").split("\n")), pattern)
            return f"Not fetched; linked as: {linked}" if linked else ""
        return sentence(body or hit.get(fields.DESCRIPTION) or "", pattern)

    # --- explanation ---------------------------------------------------------------

    def _explanation(
        self, hit: Candidate, field_scores: dict[str, float] | None, words: list[str], section: str | None
    ) -> dict[str, Any]:
        """Every number a result was ranked by, and the rules that shaped it (``--explain``)."""
        features = hit.features
        lines = self._explanation_lines(hit, features, words)
        if section:
            lines.append(f"the query names the section #{section}: linked there")
        return {
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
            "rules": lines,
            "formula": _FORMULA,
        }

    def _explanation_lines(self, hit: Candidate, features: ranking.Features, words: list[str]) -> list[str]:
        """Which of the query rules shaped this result, in words."""
        lines = [f"matched at level {LEVELS[features.level]}: " + _LEVEL_MEANING[LEVELS[features.level]]]
        lines.extend(_word_lines(words, features.level))
        if features.anchor_only:
            lines.append(self._anchor_only_line(hit, features))
        if features.exact_heading:
            lines.append(f"a heading of the page is the query: score x {ranking.HEADING_BOOST}")
        if features.coverage is not None:
            lines.append(
                f"a question of {QUESTION_WORDS} words or more: pages holding most of them compete with "
                f"those holding all; this one holds {features.coverage:.0%} of its words "
                f"(score x {features.coverage**2:.2f})"
            )
        if features.other_language:
            lang = (hit.get(fields.LANG) or "").split()[:1]
            lines.append(
                f"page language {lang[0] if lang else '?'} is not the query's: after the pages in the query's language"
            )
        if self.personalization:
            lines.append(self._personalization_line(hit))
        return lines

    def _anchor_only_line(self, hit: Candidate, features: ranking.Features) -> str:
        sources = int(hit.get(fields.SOURCES) or 0)
        where = "after the crawled pages" if features.demoted else "ranked among the crawled pages"
        return (
            f"not fetched, known by the anchor text of {sources} linking page(s): {where} "
            f"(anchor-only policy {self.anchor_only}, at least {self.anchor_min_sources} "
            "linking pages to rank)"
        )

    def _personalization_line(self, hit: Candidate) -> str:
        weight = personalization_weights([hit.get(fields.URL, "")], self.personalization)[0]
        return (
            f"PageRank personalized ({', '.join(f'{p} x{w:g}' for p, w in self.personalization.items())}"
            f"; other pages x1): this page weighs x{weight:g}"
        )


def _word_lines(words: list[str], level: int) -> list[str]:
    """How the query's hyphenated words and code names were found, at ``level``.

    >>> _word_lines(["e-mail", "QuerySet", "tide"], 1)  # doctest: +NORMALIZE_WHITESPACE
    ['e-mail: hyphenated, found as the phrase "e mail" or joined "email", or its pieces anywhere',
     'QuerySet: code name, found by its parts Query, Set']
    """
    lines = []
    for word in words:
        kind, parts, _ = word_forms(word)
        if kind == "hyphen":
            lines.append(
                f'{word}: hyphenated, found as the phrase "{" ".join(parts)}" or joined '
                f'"{"".join(parts)}"' + (", or its pieces anywhere" if level else "")
            )
        elif kind == "code" and level:
            lines.append(f"{word}: code name, found by its parts {', '.join(parts)}")
    return lines


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


def _hierarchy(candidate: Candidate) -> list[str]:
    """A result's place in its site: its breadcrumb, or the title of the
    hub that lists it and the headings it is listed under."""
    hub = candidate.get(fields.HUB)
    place = candidate.get(fields.HIERARCHY)
    return ([hub] if hub else []) + (place.split("\n") if place else [])
