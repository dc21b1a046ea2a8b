"""``python -m bench.queries.make_auto``: query sets made from the documentation sites' own files.

    python -m bench.queries.make_auto [--sites django,git]

Writes ``bench/queries/auto/<site>.<kind>.jsonl`` for every installed site
of :mod:`bench.docsites`. Each kind asks search something different, and
each has one right answer that the site itself states, so that no person
has to judge thousands of queries:

- ``titles``: every page's title as a user would type it: the site-wide
  suffix (`` — Python 3.11.2 documentation``, found as the tail most titles
  share, not written down per site) and chapter numbers (``Chapter 1.``,
  ``第 1 章``) left out. Titles that several pages share, and empty or
  one-character ones, are dropped: they have no one right answer.
- ``headings``: section headings (h1-h4) and their anchors, a sample of at
  most 200 a set: the words of a part of a page, the test of whether a
  page is found by what is inside it and not only by its name. Headings on
  more than one page ("Options", "Examples") and a page's own title are
  dropped. A heading's anchor is its own ``id``, else the target of its
  permalink (Sphinx's "¶", Node's "#"), else an anchor inside it
  (DocBook's ``<a id>``), else the ``id`` of the section it heads; a heading
  with none is navigation ("Previous topic"), not content.
- ``api``: names of API objects from Sphinx's ``objects.inv`` (at most 300,
  spread over their kinds), typed as a programmer would (``json.dumps``,
  ``QuerySet.filter``, ``ALLOWED_HOSTS``, ``url template tag``); the right
  answer is the page and anchor the inventory gives.

Only pages a crawler can find count: those reachable from the site's seeds
through links, read from the files (``genindex`` pages included; pages
that nothing links are not). A bilingual site has sets per edition: the
English ones from the English pages, ``titles-zh`` and ``headings-zh`` from
the Chinese. A manual of many languages has ``titles-<lang>`` and
``headings-<lang>`` per translation (``titles-fr``, ``headings-zh-cn``; the
English edition's are ``titles`` and ``headings``): a translation does not
ask a title or heading it left in English (its right answer would be two
pages), and the notes name its partly translated pages, which it does ask:
their translated titles are theirs alone. HTML is read with lxml, not with our extractor: the right
answers must not depend on the code being judged. The output is sorted and
sampled with fixed seeds, so the files can be committed and diffed.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import re
import sys
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote, urljoin, urlsplit

import lxml.html

from bench.docsites import DocSite, Edition, by_name
from bench.queries import HERE, Query, dump

__all__ = [
    "InventoryItem",
    "read_inventory",
    "title_suffixes",
    "strip_title",
    "strip_numbering",
    "headings",
    "reachable",
    "site_sets",
    "installed_sites",
    "main",
]

HEADINGS_MAX = 200
PARTIAL = 0.1  # a translation with this share of its paragraphs left in English is partial
KINDS = ("titles", "headings", "api")  # what this module writes (other scripts write other kinds)
API_MAX = 300

# Between a page's own title and the site's name: " — ", " | ", " - ", " · ", " :: ".
_SEPARATOR = re.compile(r"\s+(?:[—–|·»-]|::)\s+")
_NUMBERING = re.compile(
    r"^(?:(?:Chapter|Appendix|Part)\s+[\dA-Z]+\.?\s+"  # Chapter 1. / Appendix A.
    r"|第\s*[\d一二三四五六七八九十百]+\s*[章节部]\s*"  # 第 1 章
    # The translations' Chapter and Appendix (Kapitel 2., Annexe A., 章 2., 2장., 付録A).
    r"|(?:Kapitel|Kapitola|Chapitre|Cap[ií]tulo|Capitolo|Cap[ií]tol|Cap\.|Bab|Hoofdstuk|Глава|Κεφάλαιο|Chương"
    r"|Anhang|Annexe|Anexa|Ap[éê]ndice|Appendice|Ap[èé]ndix|Appendiks|Bijlage|Lampiran|Příloha|Приложение"
    r"|Παράρτημα|Phụ\s+lục|부록|章)\s*[\dA-Z]+\.?\s+"
    r"|\d+장\.\s*|付録\s*[A-Z]\.?\s*|附錄\s*[A-Z]\.?\s*"
    r"|附录\s*[A-Z]\.?\s*"  # 附录 A.
    r"|(?:[A-Z]|\d+)(?:\.\d+)*\.\s+)"  # 1.1. / A.2.
)
_MAN_SECTION = re.compile(r"(?<=\S)\(\d[a-z]*\)$")  # git-commit(1)
_PERMALINK_SIGNS = frozenset({"¶", "#", "§", "🔗", ""})
_HEADING_TAGS = ("h1", "h2", "h3", "h4")
# What a reader follows, as the crawler does (<link rel=search> and the like are not links to follow).
_LINKING_TAGS = frozenset({"a", "area", "frame", "iframe"})
_BASE = "http://site/"

# How a programmer types each kind of API name; {name} whole, {last} its
# last dotted part, {last2} its last two ("json.dumps", "QuerySet.filter").
_API_ROLES = {
    "py:module": "{name}",
    "py:class": "{last}",
    "py:exception": "{last}",
    "py:function": "{last2}",
    "py:method": "{last2}",
    "py:attribute": "{last2}",
    "py:data": "{last2}",
    "c:function": "{name}",
    "c:macro": "{name}",
    "c:type": "{name}",
    "std:envvar": "{name}",
    "std:setting": "{name}",
    "std:templatetag": "{name} template tag",
    "std:templatefilter": "{name} filter",
    "std:django-admin": "django-admin {name}",
    "std:fieldlookup": "{name} field lookup",
}


# --- titles ------------------------------------------------------------------------


def title_suffixes(titles: Sequence[str], share: float = 0.5) -> list[str]:
    """The tails (from a separator to the end) that at least ``share`` of the
    titles, and two or more, end with: the site's name; longest first.

    >>> title_suffixes(["json — JSON encoder — Python 3.11", "os — Misc — Python 3.11", "Python 3.11"])
    [' — Python 3.11']
    >>> title_suffixes(["A | Topics | Django", "B | Topics | Django", "C | Django"])
    [' | Topics | Django', ' | Django']
    >>> title_suffixes(["git-add(1)", "git-commit(1)"])
    []
    """
    counts: Counter[str] = Counter()
    for title in titles:
        counts.update({title[match.start() :] for match in _SEPARATOR.finditer(title)})
    least = max(2.0, share * len(titles))
    return sorted((tail for tail, count in counts.items() if count >= least), key=lambda t: (-len(t), t))


def strip_numbering(text: str) -> str:
    """``text`` without the chapter or section number a reader skips.

    >>> strip_numbering("Chapter 1. GNU/Linux tutorials"), strip_numbering("第 1 章 GNU/Linux 教程")
    ('GNU/Linux tutorials', 'GNU/Linux 教程')
    >>> strip_numbering("1.1.2. GUI 下的 shell 提示符"), strip_numbering("附录 A. 附录")
    ('GUI 下的 shell 提示符', '附录')
    >>> strip_numbering("2.0 release notes")
    '2.0 release notes'
    """
    return _NUMBERING.sub("", text, count=1).strip()


def strip_title(title: str, suffixes: Sequence[str]) -> str:
    """A page title as a user types it: the longest site suffix, the numbering
    and a manual page's section off.

    >>> strip_title("QuerySet API reference — Django 3.2 documentation", [" — Django 3.2 documentation"])
    'QuerySet API reference'
    >>> strip_title("git-commit(1)", [])
    'git-commit'
    >>> strip_title("Django 3.2 documentation", [" — Django 3.2 documentation"])
    'Django 3.2 documentation'
    """
    for suffix in suffixes:
        if title.endswith(suffix) and len(title) > len(suffix):
            title = title[: -len(suffix)]
            break
    return strip_numbering(_MAN_SECTION.sub("", title))


# --- headings ----------------------------------------------------------------------


def _is_permalink(element: lxml.html.HtmlElement) -> bool:
    if element.tag != "a":
        return False
    if "headerlink" in (element.get("class") or "").split():
        return True
    return (element.get("href") or "").startswith("#") and element.text_content().strip() in _PERMALINK_SIGNS


def _heading_text(heading: lxml.html.HtmlElement) -> str:
    bare = copy.deepcopy(heading)
    for link in [element for element in bare.iter() if element is not bare and _is_permalink(element)]:
        link.drop_tree()  # its tail stays
    text = " ".join(bare.text_content().split())
    return strip_numbering(text.rstrip("¶#§ "))


def _is_section(element: lxml.html.HtmlElement) -> bool:
    return element.tag == "section" or (element.tag == "div" and "section" in (element.get("class") or "").split())


def _fragment(heading: lxml.html.HtmlElement) -> str:
    if heading.get("id"):
        return str(heading.get("id"))
    inside = [element for element in heading.iter() if element is not heading]
    for element in inside:
        if _is_permalink(element) and len(element.get("href") or "") > 1:
            return str(element.get("href"))[1:]
    for element in inside:
        anchor = element.get("id") or (element.get("name") if element.tag == "a" else None)
        if anchor:
            return str(anchor)
    for ancestor in heading.iterancestors():
        if _is_section(ancestor) and ancestor.get("id"):
            return str(ancestor.get("id"))
    return ""


def headings(document: lxml.html.HtmlElement) -> list[tuple[int, str, str]]:
    """``(level, text, fragment)`` of every h1-h4 that has an anchor, in order.

    >>> page = lxml.html.fromstring('<div class="section" id="s-x"><span id="x"></span>'
    ...     '<h2>Title<a class="headerlink" href="#x">¶</a></h2><h3 id="y">1.2. Sub</h3></div>'
    ...     '<div class="sidebar"><h3>Previous topic</h3></div>')
    >>> headings(page)
    [(2, 'Title', 'x'), (3, 'Sub', 'y')]
    """
    found = []
    for heading in document.iter(*_HEADING_TAGS):
        fragment = _fragment(heading)
        if fragment:
            found.append((int(heading.tag[1]), _heading_text(heading), fragment))
    return found


# --- reading a site ----------------------------------------------------------------


@dataclass(frozen=True)
class _Page:
    path: str  # relative to the root, "/"-separated
    title: str
    headings: tuple[tuple[int, str, str], ...]


def _links(document: lxml.html.HtmlElement, path: str) -> Iterable[str]:
    """The site's pages ``document`` (at ``path``) links to, as paths."""
    base = _BASE + quote(path)
    for element, attribute, link, _ in document.iterlinks():
        if element.tag not in _LINKING_TAGS or attribute not in ("href", "src"):
            continue
        url = urljoin(base, link.strip())
        if not url.startswith(_BASE):
            continue
        target = unquote(urlsplit(url).path)[1:]
        yield target + "index.html" if target.endswith("/") or not target else target


def reachable(root: Path, seeds: Sequence[str]) -> dict[str, _Page]:
    """Every HTML page under ``root`` reachable from ``seeds`` through links,
    by path: what a crawler should find (nginx's view: links followed)."""
    pages: dict[str, _Page] = {}
    todo = list(seeds)
    while todo:
        path = todo.pop()
        if path in pages or not path.endswith(".html") or not (root / path).is_file():
            continue
        document = lxml.html.document_fromstring((root / path).read_bytes())
        title = " ".join((document.findtext(".//title") or "").split())
        pages[path] = _Page(path, title, tuple(headings(document)))
        todo.extend(_links(document, path))
    return dict(sorted(pages.items()))


def html_files(root: Path) -> list[str]:
    """Every ``.html`` file under ``root`` (links followed), relative, sorted."""
    found = []
    for directory, _, files in os.walk(root, followlinks=True):
        for name in files:
            if name.endswith(".html"):
                found.append(Path(directory, name).relative_to(root).as_posix())
    return sorted(found)


def _edition(pages: dict[str, _Page], site: DocSite, edition: Edition) -> list[_Page]:
    """The edition's pages, copies left out."""
    return [page for path, page in pages.items() if path not in site.copies and edition.holds(path)]


def _url(path: str) -> tuple[str]:
    return ("{site}/" + quote(path),)


def _unique(candidates: Iterable[tuple[str, str, Query]]) -> list[Query]:
    """The queries whose text (case aside) names one page only, from
    ``(key, page, query)`` in page order; one per key (a heading twice on
    its page: the first)."""
    candidates = list(candidates)
    pages: defaultdict[str, set[str]] = defaultdict(set)
    for key, page, _ in candidates:
        pages[key].add(page)
    chosen: dict[str, Query] = {}
    for key, _, query in candidates:
        if len(pages[key]) == 1 and len(query.query) > 1:
            chosen.setdefault(key, query)
    return list(chosen.values())


def title_queries(
    pages: Sequence[_Page], elsewhere: Set[str] = frozenset(), notes: Mapping[str, str] | None = None
) -> list[Query]:
    """Each page's title as typed; none whose text (casefolded) is in
    ``elsewhere`` (it names a page of another edition too); ``notes`` adds
    to a page's note (a partial translation)."""
    suffixes = title_suffixes([page.title for page in pages])
    notes = notes or {}
    return _unique(
        (typed.casefold(), page.path, Query(typed, _url(page.path), note=_joined(note, notes.get(page.path, ""))))
        for page in pages
        for typed in [strip_title(page.title, suffixes)]
        for note in [page.title if typed != page.title else ""]
        if typed.casefold() not in elsewhere
    )


def _joined(*notes: str) -> str:
    return "; ".join(note for note in notes if note)


def heading_queries(
    pages: Sequence[_Page], seed: str, limit: int = HEADINGS_MAX, elsewhere: Set[str] = frozenset()
) -> list[Query]:
    suffixes = title_suffixes([page.title for page in pages])
    candidates, titles = [], set()
    for page in pages:
        titles.add((_url(page.path), strip_title(page.title, suffixes).casefold()))
        for level, text, fragment in page.headings:
            candidates.append((text.casefold(), page.path, Query(text, _url(page.path), fragment, f"h{level}")))
    # A page's heading that is its title is the titles set's question.
    unique = sorted(
        (
            query
            for query in _unique(candidates)
            if (query.urls, query.query.casefold()) not in titles and query.query.casefold() not in elsewhere
        ),
        key=lambda q: (q.urls, q.fragment, q.query),
    )
    return sorted(
        random.Random(seed).sample(unique, min(limit, len(unique))), key=lambda q: (q.urls, q.fragment, q.query)
    )


# --- objects.inv ---------------------------------------------------------------------


@dataclass(frozen=True)
class InventoryItem:
    name: str
    role: str  # domain:role, e.g. py:function
    priority: int
    uri: str  # relative to the root, "$" already replaced by the name
    dispname: str

    @property
    def page(self) -> str:
        return self.uri.partition("#")[0]

    @property
    def fragment(self) -> str:
        return self.uri.partition("#")[2]


_INVENTORY_LINE = re.compile(r"(.+?)\s+(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)")


def read_inventory(data: bytes) -> list[InventoryItem]:
    """The objects of a Sphinx inventory (version 2: four comment lines, then
    zlib-compressed lines of ``name domain:role priority uri dispname``).

    >>> body = zlib.compress(b"json.dumps py:function 1 library/json.html#$ -\\n")
    >>> read_inventory(b"# Sphinx inventory version 2\\n# Project: P\\n# Version: 1\\n# zlib\\n" + body)
    [InventoryItem(name='json.dumps', role='py:function', priority=1, uri='library/json.html#json.dumps', \
dispname='json.dumps')]
    """
    header = data.split(b"\n", 4)
    if len(header) < 5 or header[0].strip() != b"# Sphinx inventory version 2":
        raise ValueError(f"not a Sphinx inventory version 2: {header[0][:60]!r}")
    items = []
    for line in zlib.decompress(header[4]).decode("utf-8").splitlines():
        match = _INVENTORY_LINE.match(line.rstrip())
        if match is None:
            continue  # blank lines
        name, role, priority, uri, dispname = match.groups()
        if uri.endswith("$"):
            uri = uri[:-1] + name
        items.append(InventoryItem(name, role, int(priority), uri, name if dispname == "-" else dispname))
    return items


def _typed(item: InventoryItem) -> str:
    parts = item.name.split(".")
    return _API_ROLES[item.role].format(name=item.name, last=parts[-1], last2=".".join(parts[-2:]))


def api_queries(items: Sequence[InventoryItem], pages: Iterable[str], seed: str, limit: int = API_MAX) -> list[Query]:
    """At most ``limit`` API names whose page is among ``pages``, taken in
    turn from each role (so that few functions do not crowd out the settings)."""
    known = set(pages)
    candidates = [
        (typed.casefold(), item.page, Query(typed, _url(item.page), item.fragment, f"{item.role} {item.name}"))
        for item in items
        if item.role in _API_ROLES and item.page in known
        for typed in [_typed(item)]
    ]
    by_role: defaultdict[str, list[Query]] = defaultdict(list)
    for query in sorted(_unique(candidates), key=lambda q: (q.note, q.urls, q.fragment)):
        by_role[query.note.split()[0]].append(query)
    shuffler = random.Random(seed)
    for queries in by_role.values():
        shuffler.shuffle(queries)
    chosen: list[Query] = []
    queues = [by_role[role] for role in sorted(by_role)]
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop())
    return chosen


# --- the sets of a site ----------------------------------------------------------------


def _texts(pages: Sequence[_Page]) -> set[str]:
    """Every title and heading of ``pages`` as a query would type it, casefolded."""
    suffixes = title_suffixes([page.title for page in pages])
    return {strip_title(page.title, suffixes).casefold() for page in pages} | {
        text.casefold() for page in pages for _, text, _ in page.headings
    }


def _elsewhere(site: DocSite, editions: Sequence[list[_Page]]) -> list[set[str]]:
    """Per edition, the texts it must not ask: on a manual of many languages,
    a translation's title or heading left in English (or shared with another
    translation) names more than one page, and the first (English) edition
    keeps it. Sites of one or two editions ask every text, as they did."""
    if len(editions) < 3:
        return [set() for _ in editions]
    texts = [_texts(pages) for pages in editions]
    return [
        set() if i == 0 else set().union(*(other for j, other in enumerate(texts) if j != i)) for i in range(len(texts))
    ]


def partial_translations(site: DocSite, pages: Sequence[_Page], least: float = PARTIAL) -> dict[str, str]:
    """Notes for the pages of a translation that keep at least ``least`` of
    their paragraphs in the first edition's words: the half-translated pages
    a search engine must still file under their edition's language."""
    first, notes = site.editions[0], {}
    for page in pages:
        edition = site.edition(page.path)
        if edition is None or edition == first:
            continue
        key = edition.page_key(page.path)
        original = next((path for path in _candidates(first, key) if (site.root / path).is_file()), None)
        if original is None:
            continue
        share = untranslated_share(_paragraphs(site.root / page.path), _paragraphs(site.root / original))
        if share >= least:
            notes[page.path] = f"partly translated: {share:.0%} of its paragraphs as in {first.lang}"
    return notes


def _candidates(edition: Edition, key: str) -> list[str]:
    """The path of the page ``key`` in ``edition`` (patterns hold one ``*``)."""
    prefix, _, suffix = edition.pattern.partition("*")
    if "/" in edition.pattern:
        return [prefix + key + suffix]
    directory, _, stem = key.rpartition("/")
    return [f"{directory}/{prefix}{stem}{suffix}" if directory else prefix + stem + suffix]


def _paragraphs(path: Path) -> list[str]:
    document = lxml.html.document_fromstring(path.read_bytes())
    return [" ".join(element.text_content().split()) for element in document.iter("p")]


def untranslated_share(translated: Sequence[str], original: Sequence[str]) -> float:
    """The share of a translation's paragraphs (of five words or more, or
    twenty characters) that are the original's, word for word.

    >>> untranslated_share(["Ceci est une phrase traduite ici.", "This stays as it was written."],
    ...                    ["This is a sentence translated here.", "This stays as it was written."])
    0.5
    """
    kept = {text for text in original if len(text.split()) >= 5}
    counted = [text for text in translated if len(text.split()) >= 5 or len(text) >= 20]
    return sum(text in kept for text in counted) / len(counted) if counted else 0.0


def site_sets(site: DocSite) -> dict[str, list[Query]]:
    """Every automatic query set of ``site``: kind -> queries."""
    found = reachable(site.root, site.seeds)
    sets: dict[str, list[Query]] = {}
    editions = [_edition(found, site, edition) for edition in site.editions]
    for edition, pages, elsewhere in zip(site.editions, editions, _elsewhere(site, editions), strict=True):
        notes = partial_translations(site, pages) if len(site.editions) > 2 else {}
        sets[f"titles{edition.suffix}"] = title_queries(pages, elsewhere, notes)
        sets[f"headings{edition.suffix}"] = heading_queries(
            pages, f"{site.name}{edition.suffix}:headings", elsewhere=elsewhere
        )
    if site.inventory is not None:
        items = read_inventory((site.root / site.inventory).read_bytes())
        english = _edition(found, site, site.editions[0])
        sets["api"] = api_queries(items, [page.path for page in english], f"{site.name}:api")
    return sets


def write(site: DocSite, directory: Path = HERE) -> dict[str, int]:
    """Write the site's sets to ``directory/auto`` (removing kinds it no
    longer has); how many queries each holds."""
    sets = site_sets(site)
    for stale in (directory / "auto").glob(f"{site.name}.*.jsonl"):
        kind = stale.name[len(site.name) + 1 : -len(".jsonl")]
        if kind.split("-")[0] in KINDS and kind not in sets:
            stale.unlink()
    for kind, queries in sets.items():
        dump(queries, directory / "auto" / f"{site.name}.{kind}.jsonl")
    return {kind: len(queries) for kind, queries in sets.items()}


def installed_sites(prog: str, doc: str, argv: list[str] | None) -> list[DocSite]:
    """The sites ``--sites`` names (default: all) that are installed; one
    line on stderr for each that is not (its files are left as they are)."""
    parser = argparse.ArgumentParser(prog=f"python -m {prog}", description=doc.split("\n")[0])
    parser.add_argument("--sites", help="comma-separated site names (default: all)")
    args = parser.parse_args(argv)
    try:
        sites = by_name(args.sites)
    except ValueError as exc:
        parser.error(str(exc))
    installed = []
    for site in sites:
        if all((site.root / seed).is_file() for seed in site.seeds):
            installed.append(site)
        else:
            print(
                f"{site.name}: not installed ({', '.join(site.packages)}); its files are left as they are",
                file=sys.stderr,
            )
    return installed


def main(argv: list[str] | None = None) -> int:
    for site in installed_sites("bench.queries.make_auto", __doc__, argv):
        counts = write(site)
        print(f"{site.name}: " + ", ".join(f"{kind} {count}" for kind, count in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
