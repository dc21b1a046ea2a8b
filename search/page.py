"""The search page, rendered: parameters and results in, HTML out, no server needed.

Everything shown comes from crawled pages and is untrusted: every string is
HTML-escaped, the engine's ``**word**`` marks (:func:`search.display.marked`)
then become ``<mark>``, and only ``http:``/``https:`` URLs become links. The page carries one script,
:data:`KEYS_SCRIPT` (``/`` puts the cursor in the search box), which the
server's Content-Security-Policy allows by its hash (:mod:`search.web`).
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from indexer.stats import IndexStats
from search.display import marked
from search.engine import TYPE_NAMES, Result, Results, page_language
from search.options import DEFAULT_N

__all__ = ["FAVICON", "KEYS_SCRIPT", "Params", "render_opensearch", "render_page"]

# Page numbers shown either side of the current one.
_PAGE_SPAN = 4
# The page's one script: "/" anywhere but in a text field puts the cursor
# in the search box, as on the big search engines' pages.
KEYS_SCRIPT = (
    'document.addEventListener("keydown",function(e){var q=document.querySelector("input[name=q]");'
    'var t=e.target&&e.target.tagName;if(e.key==="/"&&q&&t!=="INPUT"&&t!=="TEXTAREA"&&!e.ctrlKey&&'
    "!e.metaKey&&!e.altKey){e.preventDefault();q.focus();q.select()}});"
)


@dataclass(frozen=True)
class Params:
    """What a page of results shows: the query, results per page, the page's
    number, and whether the query is searched as typed even when it finds
    nothing (``as_typed``; else its respelling's results are shown)."""

    q: str = ""
    n: int = DEFAULT_N
    page: int = 1
    as_typed: bool = False

    def href(self, **changes: Any) -> str:
        """The page's URL for these parameters (defaults left out), not yet
        HTML-escaped; another query is respelled again unless told not to."""
        values = {**dataclasses.asdict(self), "as_typed": self.as_typed and "q" not in changes, **changes}
        query: dict[str, Any] = {"q": values["q"]}
        if values["n"] != DEFAULT_N:
            query["n"] = values["n"]
        if values["page"] != 1:
            query["page"] = values["page"]
        if values["as_typed"]:
            query["as_typed"] = 1
        return "/?" + urlencode(query)


_CSS = """
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",
"PingFang SC","Microsoft YaHei",sans-serif;color:#202124;background:#fff}
header{border-bottom:1px solid #e3e3e3;padding:1rem 1.25rem;background:#fafafa}
form{display:flex;gap:.5rem;align-items:center;max-width:46rem}
.home{font-weight:700;font-size:1.25rem;color:#1a73e8;text-decoration:none;margin-right:.5rem}
input[type=search]{flex:1;min-width:0;font:inherit;padding:.45rem .75rem;border:1px solid #c4c7c5;border-radius:1.5rem}
button{font:inherit;padding:.45rem 1rem;border:1px solid #c4c7c5;border-radius:1.5rem;background:#f1f3f4}
main{max-width:46rem;padding:.5rem 1.25rem 2rem}
.stats{color:#5f6368;font-size:.875rem}
.help{color:#5f6368;font-size:.875rem}.help code{background:#f1f3f4;padding:0 .25em;border-radius:3px}
.error{color:#b3261e;font-weight:600}
.suggest{font-size:1.05rem}.suggest a{font-weight:600;font-style:italic}.suggest a.typed{font-weight:400}
ol{list-style:none;padding:0;margin:.8rem 0 0}
li{margin:0 0 1.4rem}
h2{font-size:1.15rem;font-weight:400;margin:0;overflow-wrap:anywhere}
a{color:#1a0dab}a:visited{color:#681da8}
.url{color:#137333;font-size:.875rem;overflow-wrap:anywhere}
.snippet{margin:.2rem 0;color:#3c4043;overflow-wrap:anywhere}
.trail{color:#5f6368;font-size:.875rem;overflow-wrap:anywhere}
.also{margin:.1rem 0;font-size:.875rem;color:#5f6368}
mark{background:#fdeaa7;color:inherit;font-weight:600;padding:0 .1em}
.tag{color:#80868b;font-size:.8rem}
.members{font-size:.75rem;font-weight:600;color:#8a4b00;background:#fff3e0;border:1px solid #f0c48a;
border-radius:.6rem;padding:0 .45em;margin-left:.3em;vertical-align:.1em;white-space:nowrap}
.more{font-size:.875rem}
nav{display:flex;gap:.9rem;flex-wrap:wrap;margin-top:1.5rem;font-size:1.05rem}
nav [aria-current]{font-weight:700}
.facets{font-size:.875rem;color:#5f6368;margin:.2rem 0}
.about{color:#3c4043}.about table{border-collapse:collapse;font-size:.875rem;margin:.5rem 0}
.about td,.about th{padding:.15rem .9rem .15rem 0;text-align:left;overflow-wrap:anywhere}
.about th{font-weight:600;color:#5f6368}.about td.n{text-align:right}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _highlighted(snippet: str) -> str:
    r"""Escaped snippet text, the engine's ``**word**`` marks as ``<mark>``
    (not the page's own, which the snippet holds escaped).

    >>> _highlighted(r"a **<b>** c \*\*d\*\*")
    'a <mark>&lt;b&gt;</mark> c **d**'
    """
    return "".join(f"<mark>{_e(text)}</mark>" if mark else _e(text) for text, mark in marked(snippet))


def _link(url: str, content: str, extra: str = "") -> str:
    """``content`` (already HTML) linked to ``url`` if it is http(s); otherwise plain.

    >>> _link("javascript:alert(1)", "x")
    'x'
    """
    if url[:8].lower().startswith(("http://", "https://")):
        return f'<a href="{_e(url)}"{extra}>{content}</a>'
    return content


def _syntax_help(about: IndexStats | None) -> str:
    """How a query is read: its words (all of them first, then most), a
    question's own words left out, the operators, and ``lang:`` with the
    languages the index holds."""
    languages = _languages_held(about)
    codes = ", ".join(f"<code>lang:{_e(language)}</code>" for language in languages)
    held = f" (here: {codes})" if codes else ""
    return (
        '<p class="help">Pages holding all the words come first, then pages holding most of them; a question '
        '(<code>how do I …?</code>) is searched without its question words. <code>"exact phrase"</code>, '
        "<code>+word</code> to require a word, <code>-word</code> to exclude one, <code>a OR b</code>, "
        "<code>site:docs.example.org</code>, <code>title:word</code>, <code>lang:xx</code> for pages in one "
        f"language{held}, <code>type:pdf</code> for one type of document (<code>html</code>, <code>pdf</code>, "
        "<code>text</code>, <code>media</code>).</p>\n"
    )


def _languages_held(about: IndexStats | None) -> list[str]:
    """The languages the index holds as ``lang:`` takes them (``zh`` for
    ``zh-cn`` and ``zh-tw``), the most pages first.

    >>> counted = [("en", 10), ("zh-cn", 9), ("unknown", 5), ("zh-tw", 2)]
    >>> _languages_held(IndexStats(0, 0, 0, languages=[{"lang": lang, "pages": n} for lang, n in counted]))
    ['zh', 'en']
    """
    held: Counter[str] = Counter()
    for language in about.languages if about is not None else ():
        if language["lang"] != "unknown":
            held[language["lang"].split("-")[0]] += language["pages"]
    return [language for language, _ in held.most_common()]


def render_page(
    params: Params, results: Results | None = None, error: str | None = None, about: IndexStats | None = None
) -> str:
    """The whole HTML page: the form, then an error, or results, or (the
    home page) the query syntax and what the index holds."""
    parts = [f'<p class="error" role="alert">{_e(error)}</p>'] if error else []
    if results is not None:
        parts.append(_render_results(params, results))
    elif not error:
        parts.append(_syntax_help(about))
        if about is not None:
            parts.append(_render_about(about))
    title = f"{params.q} – Search" if params.q else "Search"
    hidden = f'<input type="hidden" name="n" value="{params.n}">' if params.n != DEFAULT_N else ""
    autofocus = "" if params.q else " autofocus"
    return (
        f'<!doctype html>\n<html lang="{page_language(results)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<link rel="icon" href="/favicon.svg" type="image/svg+xml">\n'
        '<link rel="search" type="application/opensearchdescription+xml" title="Lantern" href="/opensearch.xml">\n'
        f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        '<header><form action="/" method="get" role="search">'
        '<a class="home" href="/">Search</a>'
        f'<input type="search" name="q" value="{_e(params.q)}" aria-label="Search"{autofocus}>{hidden}'
        "<button>Search</button></form></header>\n"
        f"<main>\n{''.join(parts)}</main>\n<script>{KEYS_SCRIPT}</script>\n</body>\n</html>\n"
    )


_SITES_SHOWN = 20


def _render_about(about: IndexStats) -> str:
    """What there is to search: documents, sites, languages, the last change."""
    languages = ", ".join(f"{_e(lang['lang'])} {lang['pages']:,}" for lang in about.languages) or "none yet"
    out = [
        '<section class="about"><h2>What you can search</h2>',
        f"<p>{about.documents:,} documents: {about.crawled:,} crawled pages from {len(about.sites):,} "
        f"site{'s' * (len(about.sites) != 1)}, and {about.anchor_only:,} known only by the links to "
        f"{'it' if about.anchor_only == 1 else 'them'}. "
        f"Languages: {languages}. The index last changed {_e(_when(about.last_commit))}.</p>",
    ]
    if about.sites:
        out.append("<table><tr><th>site</th><th>pages</th><th>last fetched</th></tr>")
        for site in about.sites[:_SITES_SHOWN]:
            href = _e(Params(f"site:{site['host']}").href())
            out.append(
                f'<tr><td><a href="{href}">{_e(site["host"])}</a></td>'
                f'<td class="n">{site["pages"]:,}</td><td>{_e(_when(site["last_fetch"]))}</td></tr>'
            )
        out.append("</table>")
        if len(about.sites) > _SITES_SHOWN:
            out.append(f"<p>and {len(about.sites) - _SITES_SHOWN:,} more sites.</p>")
    out.append("</section>\n")
    return "\n".join(out)


def _when(iso: str) -> str:
    """An ISO 8601 time as a person reads it (UTC, to the minute)."""
    return iso[:16].replace("T", " ") + " UTC" if iso else "never"


def _render_results(params: Params, results: Results) -> str:
    out = []
    if results.showing:
        shown = _e(params.href(q=results.showing, page=1))
        typed = _e(params.href(q=results.query, page=1, as_typed=True))
        out.append(
            f'<p class="suggest">Showing results for <a href="{shown}">{_e(results.showing)}</a>; '
            f'search instead for <a class="typed" href="{typed}">{_e(results.query)}</a>.</p>'
        )
    elif results.suggestion:
        href = _e(Params(results.suggestion, params.n).href())
        out.append(f'<p class="suggest">Did you mean: <a href="{href}">{_e(results.suggestion)}</a>?</p>')
    first = (params.page - 1) * params.n + 1
    quoted = _e(f"'{results.showing or results.query}'")
    if results.results:
        last = first + len(results.results) - 1
        out.append(
            f'<p class="stats">Results {first}-{last} of {results.total} for {quoted} '
            f"({results.seconds * 1000:.0f} ms)</p>"
        )
    elif results.total:
        out.append(
            f'<p class="stats">Page {params.page} is past the end: {results.total} results for {quoted}, '
            f"page {results.last_page} is the last.</p>"
        )
    else:
        out.append(f'<p class="stats">No results for {quoted}.</p>')
    out.append(_render_facets(params, results))
    if results.results:
        out.append(f'<ol start="{first}">')
        language = page_language(results)
        out.extend(_render_result(params, result, language) for result in results.results)
        out.append("</ol>")
    out.append(_render_paging(params, results.last_page if results.total else 0))
    return "\n".join(out) + "\n"


_FACET_NAMES = {"site": "Sites", "lang": "Languages", "type": "Types", "access": "Access"}
# How a facet's values read, where not as the filter writes them.
_FACET_VALUES = {"type": TYPE_NAMES, "access": {"members": "members only"}}


def _render_facets(params: Params, results: Results) -> str:
    """The sites, languages and types of all the matches, and how many are
    members-only, each a link narrowing the query to it; none for a
    restriction the query already has, nor for a single site, language or
    type (the members-only count has one value: shown whenever there is one)."""
    lines = []
    for name, label in _FACET_NAMES.items():
        values = results.facets.get(name) or []
        if len(values) < (1 if name == "access" else 2) or re.search(rf"(?i)(?:^|\s){name}:", params.q):
            continue
        names = _FACET_VALUES.get(name, {})
        links = " · ".join(
            f'<a href="{_e(Params(params.q + f" {name}:" + value["value"], params.n).href())}">'
            f"{_e(names.get(value['value'], value['value']))}</a> ({value['count']:,})"
            for value in values
        )
        lines.append(f'<p class="facets">{label}: {links}</p>')
    return "\n".join(lines)


def _render_result(params: Params, result: Result, language: str = "en") -> str:
    title = _link(result.url, _e(result.title), ' rel="noreferrer"')
    tag = "" if result.crawled else ' <span class="tag">[not fetched]</span>'
    if result.members_only:  # the link leads to the site, where the searcher logs in; no copy
        tag += (
            ' <span class="members" title="Crawled with the site owner\'s permission: log in on the '
            'site to open it">members only</span>'
        )
    lines = [f"<li><h2>{title}{tag}</h2>"]
    if result.hierarchy:
        lines.append(f'<div class="trail">{" › ".join(_e(level) for level in result.hierarchy)}</div>')
    lines.append(f'<div class="url">{_e(result.url)}{_render_details(result, language)}</div>')
    if result.snippet:
        lines.append(f'<p class="snippet">{_highlighted(result.snippet)}</p>')
    if result.also_in:
        links = ", ".join(
            _link(other["url"], _e(other["lang"]), f' hreflang="{_e(other["lang"])}" rel="noreferrer"')
            for other in result.also_in
        )
        lines.append(f'<p class="also">also in: {links}</p>')
    if result.more_from_host > 0 and result.host:
        href = _e(Params(f"{params.q} site:{result.host}", params.n).href())
        site = _e(f"site:{result.host}")
        lines.append(f'<a class="more" href="{href}" title="{site}">{result.more_from_host} more from this site</a>')
    return "\n".join(lines) + "</li>"


def _render_details(result: Result, language: str) -> str:
    """What the URL line says of a result besides it: its facts, and its cached copy."""
    # Each fact on one line ("157 bytes" is not cut in two on a phone).
    about = [
        f'<span lang="{_e(fact)}">{_e(fact)}</span>' if fact == result.lang else _e(fact).replace(" ", "&nbsp;")
        for fact in result.facts(language)
    ]
    if result.crawled and not result.members_only:
        about.append(f'<a class="cached" href="/cached?{_e(urlencode({"url": result.page or result.url}))}">cached</a>')
    return f' <span class="tag">· {" · ".join(about)}</span>' if about else ""


def _render_paging(params: Params, pages: int) -> str:
    if pages <= 1 and params.page == 1:
        return ""
    links = []
    if params.page > 1:
        previous = min(params.page - 1, max(pages, 1))  # from past the end: to the last page
        links.append(f'<a rel="prev" href="{_e(params.href(page=previous))}">‹ Previous</a>')
    low = max(1, params.page - _PAGE_SPAN)
    for number in range(low, min(pages, params.page + _PAGE_SPAN) + 1):
        if number == params.page:
            links.append(f'<span aria-current="page">{number}</span>')
        else:
            links.append(f'<a href="{_e(params.href(page=number))}">{number}</a>')
    if params.page < pages:
        links.append(f'<a rel="next" href="{_e(params.href(page=params.page + 1))}">Next ›</a>')
    return f'<nav aria-label="Result pages">{" ".join(links)}</nav>'


# A lantern: the page's icon, drawn here (no file to install or fetch).
FAVICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    b'<rect x="11" y="2" width="10" height="4" rx="1" fill="#5f6368"/>'
    b'<rect x="7" y="6" width="18" height="22" rx="4" fill="#1a73e8"/>'
    b'<rect x="11" y="10" width="10" height="14" rx="3" fill="#fdd663"/>'
    b'<rect x="9" y="28" width="14" height="2" rx="1" fill="#5f6368"/></svg>'
)


def render_opensearch(base: str) -> str:
    """The OpenSearch description browsers offer the engine by, for the
    server at ``base`` (its URL, ending in ``/``), escaped here."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">\n'
        "<ShortName>Lantern</ShortName>\n<Description>Search the sites this Lantern crawled</Description>\n"
        "<InputEncoding>UTF-8</InputEncoding>\n"
        f'<Image type="image/svg+xml">{_e(base)}favicon.svg</Image>\n'
        f'<Url type="text/html" method="get" template="{_e(base)}?q={{searchTerms}}"/>\n'
        f'<Url type="application/json" method="get" template="{_e(base)}api/search?q={{searchTerms}}"/>\n'
        "</OpenSearchDescription>\n"
    )
