"""What a results page shows besides its ranks: copies, navigation snippets, hierarchy.

MRR says whether the right page came first; a reader also sees the other
nine results and the text under each. Three measures of that, counted per
result by :mod:`bench.search_quality` for our engine and the baseline:

- **Translation copies.** A result is a copy when a result ranked above it
  in the same top 10 is the same page in another language. "The same page"
  is read from the site's own structure as :mod:`bench.docsites` knows it
  (:func:`bench.docsites.translation_key`: the same file name with another
  language suffix, ``ch02.fr.html`` and ``ch02.de.html``; the same path under
  a sibling language directory, ``fr/ch02s01.html`` and ``de/ch02s01.html``),
  never from the engine's own idea of translations. Goal: none.
- **Navigation snippets.** Navigation is defined by the page's own markup,
  read from its file with lxml (:func:`navigation_elements`): ``nav`` and
  ``aside`` elements, ``role="navigation"`` (or ``doc-toc``), an
  ``aria-label`` naming a breadcrumb, elements whose class or id holds a
  word (split at ``-`` and ``_``) that names navigation (``nav``, ``toc``,
  ``toctree``, ``sidebar``, ``sphinxsidebar``, ``menu``, ``breadcrumb``,
  ``navheader``/``navfooter`` of DocBook, ``related`` of Sphinx, ``seealso``,
  language bars), and "See also" sections. The rest of the body is the main
  text. A snippet is cut into word trigrams (a CJK character counts as a
  word); a trigram found in the navigation text and not in the main text
  is navigation's, one found in the main text and not in the navigation is
  the text's, one in both says nothing. The snippet comes from navigation
  when more of its trigrams are navigation's than the text's. A result whose
  page is not a file of the site (or has no snippet) is not counted.
- **Hierarchy shown.** The share of results that carry a non-empty
  ``hierarchy`` (the titles of the page's ancestors), as an attribute or a
  JSON key; results carrying ``also_in`` are counted too. Code without these
  fields shows 0.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import lxml.html

from bench.docsites import DocSite, translation_key

__all__ = [
    "Shown",
    "tokens",
    "shingles",
    "translation_copies",
    "navigation_elements",
    "page_texts",
    "from_navigation",
    "SiteStructure",
]

SHINGLE = 3
# Words of class and id names that mark navigation (class "nav-item", id "toc-picker", "sphinxsidebar").
NAVIGATION_WORDS = frozenset(
    {
        "nav",
        "navbar",
        "navigation",
        "navheader",
        "navfooter",
        "toc",
        "toctree",
        "sidebar",
        "sphinxsidebar",
        "sphinxsidebarwrapper",
        "menu",
        "breadcrumb",
        "breadcrumbs",
        "related",
        "seealso",
        "langbar",
        "languages",
    }
)
_NAVIGATION_ROLES = frozenset({"navigation", "doc-toc"})
_SEE_ALSO = re.compile(r"^(?:[\d.]+\s*)?see also[\s¶#:]*$", re.IGNORECASE)
_SECTIONS = frozenset({"section", "div"})
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
_MARKS = re.compile(r"\*\*|<[^>]+>")


@dataclass(frozen=True)
class Shown:
    """Counts over results: how many, and of them how many were copies,
    had a snippet judged, came from navigation, showed a hierarchy or ``also_in``."""

    results: int = 0
    copies: int = 0
    snippets: int = 0
    navigation: int = 0
    hierarchy: int = 0
    also_in: int = 0

    def __add__(self, other: Shown) -> Shown:
        return Shown(*(a + b for a, b in zip(self.astuple(), other.astuple(), strict=True)))

    def astuple(self) -> tuple[int, ...]:
        return (self.results, self.copies, self.snippets, self.navigation, self.hierarchy, self.also_in)

    def measures(self, queries: int) -> dict[str, float | None]:
        """Per set: copies per top 10 (one top 10 a query), the share of
        judged snippets from navigation, the share of results with a hierarchy.

        >>> Shown(20, 3, 10, 4, 5, 0).measures(2)
        {'copies@10': 1.5, 'nav_snippets': 0.4, 'hierarchy': 0.25}
        """
        return {
            "copies@10": round(self.copies / queries, 4) if queries else None,
            "nav_snippets": round(self.navigation / self.snippets, 4) if self.snippets else None,
            "hierarchy": round(self.hierarchy / self.results, 4) if self.results else None,
        }


# --- pure judgements ----------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    """Casefolded words, each CJK character a word of its own, the snippets'
    ``**`` marks and tags left out.

    >>> tokens("The **JSON** encoder, 软件包 v2")
    ['the', 'json', 'encoder', '软', '件', '包', 'v2']
    """
    return _TOKEN.findall(_MARKS.sub(" ", text).casefold())


def shingles(words: Sequence[str], n: int = SHINGLE) -> set[tuple[str, ...]]:
    """The runs of ``n`` words (the whole, when shorter).

    >>> sorted(shingles(["a", "b", "c", "d"]))
    [('a', 'b', 'c'), ('b', 'c', 'd')]
    """
    if len(words) <= n:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def translation_copies(keys: Iterable[tuple[str, str] | None]) -> int:
    """How many of the results (their translation keys, ``(page, lang)``, in
    rank order) are a page already shown higher in another language.

    >>> translation_copies([("ch02", "en"), ("ch02", "fr"), ("ch03", "fr"), None, ("ch02", "de"), ("ch02", "en")])
    2
    """
    seen: dict[str, set[str]] = {}
    copies = 0
    for key in keys:
        if key is None:
            continue
        page, lang = key
        languages = seen.setdefault(page, set())
        copies += lang not in languages and bool(languages)  # the same language twice is no translation
        languages.add(lang)
    return copies


def from_navigation(snippet: str, navigation: set[tuple[str, ...]], text: set[tuple[str, ...]]) -> bool:
    """Whether ``snippet`` comes from the page's navigation: more of its
    trigrams found only in the navigation's (``navigation``) than only in
    the main text's (``text``).

    >>> nav, text = shingles(tokens("Home Install Usage Models Views")), shingles(tokens("Models hold your data."))
    >>> from_navigation("... Install Usage **Models** Views", nav, text)
    True
    >>> from_navigation("**Models** hold your data.", nav, text), from_navigation("", nav, text)
    (False, False)
    """
    ours = shingles(tokens(snippet.replace("...", " ")))
    navigation_only = len((ours & navigation) - text)
    text_only = len((ours & text) - navigation)
    return navigation_only > text_only


def _names_navigation(element: lxml.html.HtmlElement) -> bool:
    if element.tag in ("nav", "aside"):
        return True
    if (element.get("role") or "").strip() in _NAVIGATION_ROLES:
        return True
    if "breadcrumb" in (element.get("aria-label") or "").casefold():
        return True
    names = f"{element.get('class') or ''} {element.get('id') or ''}".casefold()
    return any(word in NAVIGATION_WORDS for word in re.split(r"[\s_-]+", names) if word)


def _see_also(element: lxml.html.HtmlElement) -> bool:
    """A section headed "See also" (git's SEE ALSO, Sphinx's rubric)."""
    if element.tag not in _SECTIONS:
        return False
    for child in element:
        if isinstance(child.tag, str) and child.tag in ("h1", "h2", "h3", "h4", "p"):
            return bool(_SEE_ALSO.match(" ".join(child.text_content().split())))
    return False


def navigation_elements(document: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """The outermost elements of ``document`` that are navigation (the module docstring says which).

    >>> page = lxml.html.fromstring('<body><div class="navheader">Prev Next</div><p>Text</p>'
    ...     '<div id="sidebar"><ul class="nav-list"><li>A</li></ul></div><nav>N</nav></body>')
    >>> [element.text_content() for element in navigation_elements(page)]
    ['Prev Next', 'A', 'N']
    """
    found: list[lxml.html.HtmlElement] = []
    todo = [document]
    while todo:
        element = todo.pop()
        if not isinstance(element.tag, str):
            continue
        if _names_navigation(element) or _see_also(element):
            found.append(element)
        else:
            todo.extend(reversed(element))
    return found


def _text(element: lxml.html.HtmlElement) -> str:
    return " ".join(" ".join(element.itertext()).split())


def page_texts(document: lxml.html.HtmlElement) -> tuple[str, str]:
    """``(navigation, main text)`` of a page's body; scripts and styles left out."""
    body = copy.deepcopy(document.find(".//body") if document.find(".//body") is not None else document)
    for element in body.iter("script", "style", "noscript"):
        element.text = ""
    navigation = [element for element in navigation_elements(body) if element is not body]
    parts = [_text(element) for element in navigation]
    for element in navigation:
        element.drop_tree()  # its tail is the text's
    return " ".join(parts), _text(body)


# --- a site's pages -----------------------------------------------------------------------


def _field(result: Any, name: str) -> Any:
    return result.get(name) if isinstance(result, dict) else getattr(result, name, None)


class SiteStructure:
    """A crawled site's pages as the bench reads them from its files:
    translation keys and navigation texts, by result URL."""

    def __init__(self, site: DocSite, base: str) -> None:
        self.site = site
        self.prefix = base + "/"
        self._texts: dict[str, tuple[set[tuple[str, ...]], set[tuple[str, ...]]] | None] = {}

    def path(self, url: str) -> str | None:
        """The file path (relative to the root) of a result URL; None off the site."""
        if not url.startswith(self.prefix):
            return None
        path = unquote(urlsplit(url).path)[len(urlsplit(self.prefix).path) :]
        return path + "index.html" if not path or path.endswith("/") else path

    def key(self, url: str) -> tuple[str, str] | None:
        path = self.path(url)
        return None if path is None else translation_key(self.site, path)

    def texts(self, url: str) -> tuple[set[tuple[str, ...]], set[tuple[str, ...]]] | None:
        """The trigrams of the page's navigation and of its main text (None: no such file)."""
        path = self.path(url)
        if path is None:
            return None
        if path not in self._texts:
            file = self.site.root / path
            if not path.endswith((".html", ".htm")) or not file.is_file():
                self._texts[path] = None
            else:
                navigation, text = page_texts(lxml.html.document_fromstring(Path(file).read_bytes()))
                self._texts[path] = (shingles(tokens(navigation)), shingles(tokens(text)))
        return self._texts[path]

    def shown(self, results: Sequence[tuple[str, str, Any]]) -> Shown:
        """Counts over one top 10: ``(page URL, snippet, the result)`` in rank order."""
        counts = Shown(results=len(results), copies=translation_copies(self.key(page) for page, _, _ in results))
        snippets = navigation = hierarchy = also_in = 0
        for page, snippet, result in results:
            texts = self.texts(page) if snippet.strip() else None
            if texts is not None:
                snippets += 1
                navigation += from_navigation(snippet, *texts)
            hierarchy += bool(_field(result, "hierarchy"))
            also_in += bool(_field(result, "also_in"))
        return counts + Shown(0, 0, snippets, navigation, hierarchy, also_in)
