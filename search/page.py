"""The search page, rendered: parameters and results in, HTML out, no server needed.

Everything shown comes from crawled pages and is untrusted: every string is
HTML-escaped, the engine's ``**word**`` marks (:func:`search.display.marked`)
then become ``<mark>``, and only ``http:``/``https:`` URLs become links. The page carries one script,
:data:`KEYS_SCRIPT` (results as the query is typed, the arrow keys through
them, ``/`` to the search box), which the server's Content-Security-Policy
allows by its hash (:mod:`search.web`); without it the page works as a
form.
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
from search.wording import Wording

__all__ = ["FAVICON", "KEYS_SCRIPT", "Params", "render_opensearch", "render_page"]

# Page numbers shown either side of the current one.
_PAGE_SPAN = 4
# The page's one script (the server's Content-Security-Policy allows it by
# its hash: no inline handler, no eval). It adds what documentation search
# boxes offer to a page that works without it:
# - "/" anywhere but in a text field puts the cursor in the search box;
# - results follow the query as it is typed: the page for it is fetched a
#   moment after the last key (an older answer arriving late is dropped),
#   and its <main> replaces this one's, the address following;
# - the down and up arrows move through the results (from the box, and
#   back to it above the first), Enter opens the one chosen.
KEYS_SCRIPT = """(function () {
  var box = document.querySelector("input[name=q]");
  var form = box && box.form;
  var timer = 0, asked = 0;
  if (!box) return;
  function results() { return Array.prototype.slice.call(document.querySelectorAll("main ol > li")); }
  function choose(step) {
    var all = results();
    var now = document.querySelector("main li.chosen");
    var at = all.indexOf(now) + step;
    if (!all.length || (now === null && step < 0)) return false;
    if (now) now.classList.remove("chosen");
    if (at < 0) { box.focus(); return true; }
    var next = all[Math.min(at, all.length - 1)];
    next.classList.add("chosen");
    (next.querySelector("h2 a") || next.querySelector("a") || box).focus();
    next.scrollIntoView({block: "nearest"});
    return true;
  }
  function show() {
    var address = "/?" + new URLSearchParams(new FormData(form)).toString();
    var mine = ++asked;
    fetch(address, {credentials: "same-origin"}).then(function (answer) {
      return answer.text();
    }).then(function (text) {
      var page = new DOMParser().parseFromString(text, "text/html");
      var fresh = page.querySelector("main"), shown = document.querySelector("main");
      if (mine !== asked || !fresh || !shown) return;
      shown.replaceWith(document.adoptNode(fresh));
      document.title = page.title;
      history.replaceState(null, "", address);
    }).catch(function () {});
  }
  if (form) box.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(show, 200); });
  document.addEventListener("keydown", function (e) {
    var t = e.target && e.target.tagName;
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
    if (e.key === "/" && t !== "INPUT" && t !== "TEXTAREA") { e.preventDefault(); box.focus(); box.select(); }
    else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      var moves = e.target === box || (t !== "INPUT" && t !== "TEXTAREA");
      if (moves && choose(e.key === "ArrowDown" ? 1 : -1)) e.preventDefault();
    }
  });
})();"""


@dataclass(frozen=True)
class Params:
    """What a page of results shows: the query, results per page, the page's
    number, whether the query is searched as typed even when it finds
    nothing (``as_typed``; else its respelling's results are shown), and the
    language of the page's own words when asked for (``hl``)."""

    q: str = ""
    n: int = DEFAULT_N
    page: int = 1
    as_typed: bool = False
    hl: str = ""

    def href(self, **changes: Any) -> str:
        """The page's URL for these parameters (defaults left out), not yet
        HTML-escaped; another query is respelled again unless told not to,
        and starts on its first page."""
        if "q" in changes:
            changes = {"page": 1, "as_typed": False, **changes}
        values = {**dataclasses.asdict(self), **changes}
        query: dict[str, Any] = {"q": values["q"]}
        if values["n"] != DEFAULT_N:
            query["n"] = values["n"]
        if values["page"] != 1:
            query["page"] = values["page"]
        if values["as_typed"]:
            query["as_typed"] = 1
        if values["hl"]:
            query["hl"] = values["hl"]
        return "/?" + urlencode(query)


# Laid out for any width: the form and the results in one centred column,
# the facets beside the results when there is room (a wide screen), above
# them when not; a long word or URL wraps rather than widening the page.
_CSS = """
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",
"PingFang SC","Microsoft YaHei",sans-serif;color:#202124;background:#fff}
header{border-bottom:1px solid #e3e3e3;padding:1rem 1.25rem;background:#fafafa}
form{display:flex;gap:.5rem;align-items:center;max-width:64rem;margin:0 auto}
.home{font-weight:700;font-size:1.25rem;color:#1a73e8;text-decoration:none;margin-right:.5rem;white-space:nowrap}
input[type=search]{flex:1;min-width:0;max-width:44rem;font:inherit;padding:.45rem .75rem;border:1px solid #c4c7c5;
border-radius:1.5rem}
button{font:inherit;padding:.45rem 1rem;border:1px solid #c4c7c5;border-radius:1.5rem;background:#f1f3f4;
white-space:nowrap}
main{max-width:64rem;margin:0 auto;padding:.5rem 1.25rem 2rem}
.found{display:grid;grid-template-columns:minmax(0,1fr);grid-template-areas:"lead" "side" "list"}
.lead{grid-area:lead;min-width:0}.side{grid-area:side;min-width:0}.list{grid-area:list;min-width:0}
@media (min-width:62rem){.found{grid-template-columns:minmax(0,44rem) minmax(0,16rem);column-gap:3rem;
grid-template-areas:"lead side" "list side";grid-template-rows:auto 1fr}
.side{padding-top:.8rem}.side .facets{margin:0 0 1rem}.side .facets a{display:inline-block}}
.home-page{max-width:44rem}
.stats{color:#5f6368;font-size:.875rem}
.help{color:#5f6368;font-size:.875rem}.help code{background:#f1f3f4;padding:0 .25em;border-radius:3px}
.error{color:#b3261e;font-weight:600;overflow-wrap:anywhere}
.suggest{font-size:1.05rem;overflow-wrap:anywhere}.suggest a{font-weight:600;font-style:italic}
.suggest a.typed{font-weight:400}
ol{list-style:none;padding:0;margin:.8rem 0 0}
li{margin:0 0 1.4rem;padding:.15rem .5rem;margin-left:-.5rem;border-radius:.5rem}
li.chosen{background:#f1f5fe}
h2{font-size:1.15rem;font-weight:400;margin:0;overflow-wrap:anywhere}
a{color:#1a0dab}a:visited{color:#681da8}
.url{color:#137333;font-size:.875rem;overflow-wrap:anywhere}
.snippet{margin:.2rem 0;color:#3c4043;overflow-wrap:anywhere}
.trail{color:#5f6368;font-size:.8125rem;overflow-wrap:anywhere}
.also{margin:.15rem 0;font-size:.8125rem;color:#5f6368;display:flex;flex-wrap:wrap;gap:.3rem;align-items:center}
.also a{border:1px solid #dadce0;border-radius:.6rem;padding:0 .45em;text-decoration:none;line-height:1.4}
mark{background:#fdeaa7;color:inherit;font-weight:600;padding:0 .1em}
.tag{color:#80868b;font-size:.8rem}.whole{white-space:nowrap}
.members{font-size:.75rem;font-weight:600;color:#8a4b00;background:#fff3e0;border:1px solid #f0c48a;
border-radius:.6rem;padding:0 .45em;margin-left:.3em;vertical-align:.1em;white-space:nowrap}
.more{font-size:.875rem}
nav{display:flex;gap:.9rem;flex-wrap:wrap;margin-top:1.5rem;font-size:1.05rem}
nav [aria-current]{font-weight:700}
.facets{font-size:.875rem;color:#5f6368;margin:.2rem 0;overflow-wrap:anywhere}
.facets b{font-weight:600;color:#3c4043}
.about{color:#3c4043}.about table{border-collapse:collapse;font-size:.875rem;margin:.5rem 0;max-width:100%}
.about td,.about th{padding:.15rem .9rem .15rem 0;text-align:left;overflow-wrap:anywhere}
.about th{font-weight:600;color:#5f6368}.about td.n{text-align:right}
@media (max-width:30rem){header{padding:.75rem}main{padding:.5rem .75rem 2rem}.home{margin-right:0}
button{padding:.45rem .75rem}.about td,.about th{padding-right:.5rem}}
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


def _syntax_help(words: Wording, about: IndexStats | None) -> str:
    """How a query is read: its words (all of them first, then most), a
    question's own words left out, the operators, and ``lang:`` with the
    languages the index holds."""
    codes = ", ".join(f"<code>lang:{_e(language)}</code>" for language in _languages_held(about))
    held = words.say("held", codes=codes) if codes else ""
    return f'<p class="help">{words.say("help", held=held)}</p>\n'


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
    params: Params,
    results: Results | None = None,
    error: str | None = None,
    about: IndexStats | None = None,
    language: str = "",
) -> str:
    """The whole HTML page: the form, then an error, or results, or (the
    home page) the query syntax and what the index holds; its own words
    in ``language`` (else the one ``params`` asks for, else English)."""
    words = Wording(language or params.hl or "en")
    parts = [f'<p class="error" role="alert">{_e(error)}</p>'] if error else []
    if results is not None:
        parts.append(_render_results(params, results, words))
    elif not error:
        parts.append(f'<div class="home-page">{_syntax_help(words, about)}')
        if about is not None:
            parts.append(_render_about(about, words))
        parts.append("</div>\n")
    title = words.say("title", query=params.q) if params.q else words.say("search")
    hidden = f'<input type="hidden" name="n" value="{params.n}">' if params.n != DEFAULT_N else ""
    if params.hl:
        hidden += f'<input type="hidden" name="hl" value="{_e(params.hl)}">'
    autofocus = "" if params.q else " autofocus"
    search = words.say("search")
    return (
        f'<!doctype html>\n<html lang="{words.language}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<link rel="icon" href="/favicon.svg" type="image/svg+xml">\n'
        '<link rel="search" type="application/opensearchdescription+xml" title="Lantern" href="/opensearch.xml">\n'
        f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        '<header><form action="/" method="get" role="search">'
        f'<a class="home" href="{_e("/?" + urlencode({"hl": params.hl}) if params.hl else "/")}">{search}</a>'
        f'<input type="search" name="q" value="{_e(params.q)}" aria-label="{search}"{autofocus}>{hidden}'
        f"<button>{search}</button></form></header>\n"
        f"<main>\n{''.join(parts)}</main>\n<script>{KEYS_SCRIPT}</script>\n</body>\n</html>\n"
    )


_SITES_SHOWN = 20


def _render_about(about: IndexStats, words: Wording) -> str:
    """What there is to search: documents, sites, languages, the last change."""
    languages = ", ".join(f"{_e(lang['lang'])} {lang['pages']:,}" for lang in about.languages)
    summary = words.say(
        "about",
        documents=f"{about.documents:,}",
        crawled=f"{about.crawled:,}",
        sites=f"{len(about.sites):,}",
        site_word=words.say("site_word" if len(about.sites) == 1 else "sites_word"),
        anchor_only=f"{about.anchor_only:,}",
        them=words.say("it" if about.anchor_only == 1 else "them"),
        languages=languages or words.say("no_languages"),
        when=_e(_when(about.last_commit, words)),
    )
    out = [f'<section class="about"><h2>{words.say("about_title")}</h2>', f"<p>{summary}</p>"]
    if about.sites:
        out.append(
            f"<table><tr><th>{words.say('site')}</th><th>{words.say('pages')}</th>"
            f"<th>{words.say('last_fetched')}</th></tr>"
        )
        home = Params(hl=words.language if words.language != "en" else "")
        for site in about.sites[:_SITES_SHOWN]:
            href = _e(home.href(q=f"site:{site['host']}"))
            out.append(
                f'<tr><td><a href="{href}">{_e(site["host"])}</a></td>'
                f'<td class="n">{site["pages"]:,}</td><td>{_e(_when(site["last_fetch"], words))}</td></tr>'
            )
        out.append("</table>")
        if len(about.sites) > _SITES_SHOWN:
            out.append(f"<p>{words.say('more_sites', count=f'{len(about.sites) - _SITES_SHOWN:,}')}</p>")
    out.append("</section>\n")
    return "\n".join(out)


def _when(iso: str, words: Wording) -> str:
    """An ISO 8601 time as a person reads it (UTC, to the minute)."""
    return iso[:16].replace("T", " ") + " UTC" if iso else words.say("never")


def _render_results(params: Params, results: Results, words: Wording) -> str:
    """The results page's body: above the results what they are (a
    respelling, how many), beside them the facets, then the list and the
    links through its pages."""
    lead = []
    if results.showing:
        shown = _e(params.href(q=results.showing))
        typed = _e(params.href(q=results.query, as_typed=True))
        lead.append(
            '<p class="suggest">'
            + words.say(
                "showing",
                shown=f'<a href="{shown}">{_e(results.showing)}</a>',
                typed=f'<a class="typed" href="{typed}">{_e(results.query)}</a>',
            )
            + "</p>"
        )
    elif results.suggestion:
        href = _e(params.href(q=results.suggestion))
        suggestion = f'<a href="{href}">{_e(results.suggestion)}</a>'
        lead.append(f'<p class="suggest">{words.say("did_you_mean", suggestion=suggestion)}</p>')
    first = (params.page - 1) * params.n + 1
    quoted = _e(f"'{results.showing or results.query}'")
    if results.results:
        last = first + len(results.results) - 1
        counts = {"first": first, "last": last, "total": results.total, "ms": f"{results.seconds * 1000:.0f}"}
        lead.append(f'<p class="stats">{words.say("results", query=quoted, **counts)}</p>')
    elif results.total:
        counts = {"page": params.page, "total": results.total, "last": results.last_page}
        lead.append(f'<p class="stats">{words.say("past_end", query=quoted, **counts)}</p>')
    else:
        lead.append(f'<p class="stats">{words.say("no_results", query=quoted)}</p>')
    listed = []
    if results.results:
        language = page_language(results)
        listed.append(f'<ol start="{first}" lang="{language}">')
        # Their links ("more from this site", the cached copy) are for the query shown.
        for_shown = dataclasses.replace(params, q=results.showing, as_typed=False) if results.showing else params
        listed.extend(_render_result(for_shown, result, words, language) for result in results.results)
        listed.append("</ol>")
    listed.append(_render_paging(params, results.last_page if results.total else 0, words))
    return (
        f'<div class="found">\n<div class="lead">\n{chr(10).join(lead)}\n</div>\n'
        f'<div class="side">\n{_render_facets(params, results, words)}\n</div>\n'
        f'<div class="list">\n{chr(10).join(listed)}\n</div>\n</div>\n'
    )


# How a facet's values read, where not as the filter writes them.
_FACET_VALUES = {"type": TYPE_NAMES, "access": {"members": "members_only"}}


def _render_facets(params: Params, results: Results, words: Wording) -> str:
    """The sites, languages and types of all the matches, and how many are
    members-only, each a link narrowing the query to it; none for a
    restriction the query already has, nor for a single site, language or
    type (the members-only count has one value: shown whenever there is one)."""
    lines = []
    for name in ("site", "lang", "type", "access"):
        values = results.facets.get(name) or []
        if len(values) < (1 if name == "access" else 2) or re.search(rf"(?i)(?:^|\s){name}:", params.q):
            continue
        links = " · ".join(
            f'<a href="{_e(params.href(q=params.q + f" {name}:" + value["value"]))}">'
            f"{_facet_value(name, value['value'], words)}</a> ({value['count']:,})"
            for value in values
        )
        lines.append(f'<p class="facets">{words.say("facet_" + name)}: {links}</p>')
    return "\n".join(lines)


def _facet_value(name: str, value: str, words: Wording) -> str:
    """A facet's value as the page shows it (HTML)."""
    shown = _FACET_VALUES.get(name, {}).get(value, value)
    return words.say(shown) if name == "access" else _e(shown)


def _render_result(params: Params, result: Result, words: Wording, language: str = "en") -> str:
    title = _link(result.url, _e(result.title), ' rel="noreferrer"')
    tag = "" if result.crawled else f' <span class="tag">{words.say("not_fetched")}</span>'
    if result.members_only:  # the link leads to the site, where the searcher logs in; no copy
        tag += f' <span class="members" title="{_e(words.say("members_why"))}">{words.say("members_only")}</span>'
    lines = [f"<li><h2>{title}{tag}</h2>"]
    if result.hierarchy:
        lines.append(f'<div class="trail">{" › ".join(_e(level) for level in result.hierarchy)}</div>')
    lines.append(f'<div class="url">{_e(result.url)}{_render_details(result, words, language, params.q)}</div>')
    if result.snippet:
        lines.append(f'<p class="snippet">{_highlighted(result.snippet)}</p>')
    if result.also_in:
        links = " ".join(
            _link(other["url"], _e(other["lang"]), f' hreflang="{_e(other["lang"])}" rel="noreferrer"')
            for other in result.also_in
        )
        lines.append(f'<p class="also">{words.say("also_in")} {links}</p>')
    if result.more_from_host > 0 and result.host:
        href = _e(params.href(q=f"{params.q} site:{result.host}"))
        site = _e(f"site:{result.host}")
        more = words.say("more_from_site", count=result.more_from_host)
        lines.append(f'<a class="more" href="{href}" title="{site}">{more}</a>')
    return "\n".join(lines) + "</li>"


def _render_details(result: Result, words: Wording, language: str, query: str = "") -> str:
    """What the URL line says of a result besides it: its facts, and its
    cached copy (the query's words marked in it, opened at the section the
    result's URL names)."""
    # Each fact on one line ("157 bytes" is not cut in two on a phone).
    about = [
        f'<span lang="{_e(fact)}">{_e(fact)}</span>' if fact == result.lang else _fact(fact, words)
        for fact in result.facts(language)
    ]
    if result.crawled and not result.members_only:
        section = result.url.partition("#")[2]
        cached = {"url": result.page or result.url.partition("#")[0], **({"q": query} if query else {})}
        href = _e("/cached?" + urlencode(cached) + (f"#{section}" if section else ""))
        about.append(f'<a class="cached" href="{href}">{words.say("cached")}</a>')
    return f' <span class="tag">· {" · ".join(about)}</span>' if about else ""


def _fact(fact: str, words: Wording) -> str:
    """A fact of a result (:meth:`Result.facts`) in the page's words, on one line.

    >>> _fact("fetched 2026-01-02", Wording("zh")), _fact("12 KB", Wording())
    ('<span class="whole">抓取于&nbsp;2026-01-02</span>', '12&nbsp;KB')
    """
    if fact.startswith("fetched ") and words.language != "en":  # Chinese breaks between any two characters
        fetched = _e(words.say("fetched", date=fact.removeprefix("fetched "))).replace(" ", "&nbsp;")
        return f'<span class="whole">{fetched}</span>'
    return _e(fact).replace(" ", "&nbsp;")


def _render_paging(params: Params, pages: int, words: Wording) -> str:
    if pages <= 1 and params.page == 1:
        return ""
    links = []
    if params.page > 1:
        previous = min(params.page - 1, max(pages, 1))  # from past the end: to the last page
        links.append(f'<a rel="prev" href="{_e(params.href(page=previous))}">{words.say("previous")}</a>')
    low = max(1, params.page - _PAGE_SPAN)
    for number in range(low, min(pages, params.page + _PAGE_SPAN) + 1):
        if number == params.page:
            links.append(f'<span aria-current="page">{number}</span>')
        else:
            links.append(f'<a href="{_e(params.href(page=number))}">{number}</a>')
    if params.page < pages:
        links.append(f'<a rel="next" href="{_e(params.href(page=params.page + 1))}">{words.say("next")}</a>')
    return f'<nav aria-label="{words.say("result_pages")}">{" ".join(links)}</nav>'


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
