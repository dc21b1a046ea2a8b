"""Real documentation sites, installed from Debian, on which search quality is judged.

Generated pages (the demo web) tell whether a change broke something; they
cannot tell whether search is good, because we wrote both the pages and
the queries. These sites were written by others, for readers, with the
generators documentation really comes from: Sphinx (Django, Python, both
with an ``objects.inv`` naming every API object and its anchor), asciidoc
(git's manual pages), Node's own generator (one page per module, and
``all.html`` repeating them all), and DocBook in English and Chinese
(the Debian Reference, both editions in one directory; the Chinese
maintainers' guide and FAQ).

Two of them are manuals with all their translations side by side, as the
web serves them: the Debian Reference in ten languages, one file per
chapter and language (``ch02.fr.html``), and the installation guide in
nineteen, one directory per language (``fr/ch02s01.html``). Several of
their translations are partial: a page whose title is translated may keep
English paragraphs, which is what a reader of a real translated site meets.
Each edition knows its pages' names, so the bench knows which pages are the
same page in two languages (:func:`translation_key`) without asking the
engine it judges.

Each site is a directory on disk: what its pages are is known without a
crawl, so the query sets (:mod:`bench.queries.make_auto`) are built from the
files, and the crawl can be checked against them. A site whose package is
missing, and cannot be installed, is reported as not available (with the
reason), never left out in silence.
"""

from __future__ import annotations

import fnmatch
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from bench.sites import Site, serve
from tests.system import SystemPackageMissing, ensure

__all__ = ["DocSite", "Edition", "SITES", "by_name", "unavailable", "serve_site", "translation_key"]


@dataclass(frozen=True)
class Edition:
    """One language of a site: its pages, and the suffix of its query sets' names.

    A bilingual site keeps its editions apart: an English query's right
    answer is an English page, a Chinese query's a Chinese one.
    """

    lang: str
    # The edition's pages (fnmatch): a file name pattern ("*.fr.html"), or
    # a path pattern when it holds a "/" ("fr/*.html").
    pattern: str = "*.html"
    suffix: str = ""  # "titles" + suffix: the edition's sets

    def holds(self, path: str) -> bool:
        """Whether the page at ``path`` (relative to the root) is of this edition.

        >>> Edition("fr", "*.fr.html").holds("ch02.fr.html"), Edition("fr", "fr/*.html").holds("de/ch02.html")
        (True, False)
        """
        return fnmatch.fnmatchcase(path if "/" in self.pattern else path.rsplit("/", 1)[-1], self.pattern)

    def page_key(self, path: str) -> str:
        """``path`` without what names the edition: the same key for the same
        page in every edition of a site (``ch02.fr.html`` and ``ch02.de.html``
        give ``ch02``, ``fr/ch02s01.html`` and ``de/ch02s01.html`` ``ch02s01``)."""
        prefix, _, suffix = self.pattern.partition("*")
        if "/" in self.pattern:
            return path[len(prefix) : len(path) - len(suffix)]
        directory, _, name = path.rpartition("/")
        stem = name[len(prefix) : len(name) - len(suffix)]
        return f"{directory}/{stem}" if directory else stem


@dataclass(frozen=True)
class DocSite:
    name: str
    packages: tuple[str, ...]
    root: Path
    seeds: tuple[str, ...]  # paths relative to root
    editions: tuple[Edition, ...] = (Edition("en"),)
    # Sphinx's inventory of API objects, relative to root (None: no API set).
    inventory: str | None = None
    # Pages that repeat the content of others (Node's all.html): neither a
    # right answer nor a reason to call another page's heading ambiguous.
    copies: tuple[str, ...] = ()

    @property
    def lang(self) -> str:
        return "+".join(edition.lang for edition in self.editions)

    def edition(self, path: str) -> Edition | None:
        """The edition the page at ``path`` belongs to (None: none of them)."""
        return next((edition for edition in self.editions if edition.holds(path)), None)


def translation_key(site: DocSite, path: str) -> tuple[str, str] | None:
    """``(page, lang)`` of the page at ``path``: two paths with the same page
    and another language are one page's translations. None for a path of no
    edition, and on a site of one edition (it has no translations).

    >>> translation_key(DEBREF_ALL, "ch02.fr.html"), translation_key(DEBREF_ALL, "ch02.zh-cn.html")
    (('ch02', 'fr'), ('ch02', 'zh-cn'))
    >>> translation_key(INSTALL_GUIDE, "zh_CN/ch02s01.html"), translation_key(INSTALL_GUIDE, "install.css")
    (('ch02s01', 'zh-cn'), None)
    """
    if len(site.editions) < 2:
        return None
    edition = site.edition(path)
    return None if edition is None else (edition.page_key(path), edition.lang)


def _suffixed(lang: str, pattern: str, english: str = "en") -> Edition:
    """An edition whose sets are named ``titles-<lang>`` (the English one: ``titles``)."""
    return Edition(lang, pattern, "" if lang == english else f"-{lang}")


# The Debian Reference with every translation Debian ships (its index.html
# lists the installed ones); chapters are "ch02.<lang>.html".
_DEBREF_LANGS = ("en", "de", "es", "fr", "id", "it", "ja", "pt", "zh-cn", "zh-tw")
DEBREF_ALL = DocSite(
    "debref-all",
    ("debian-reference-common", *(f"debian-reference-{lang}" for lang in _DEBREF_LANGS)),
    Path("/usr/share/debian-reference"),
    ("index.html", *(f"index.{lang}.html" for lang in _DEBREF_LANGS)),
    editions=tuple(_suffixed(lang, f"*.{lang}.html") for lang in _DEBREF_LANGS),
)
# The installation guide: one directory per language, the same file names in each.
_INSTALL_DIRS = (
    "en", "ca", "cs", "da", "de", "el", "es", "fr", "id", "it",
    "ja", "ko", "nl", "pt", "ro", "ru", "sv", "vi", "zh_CN",
)  # fmt: skip
INSTALL_GUIDE = DocSite(
    "install-guide",
    ("installation-guide-amd64",),
    Path("/usr/share/doc/installation-guide-amd64"),
    tuple(f"{directory}/index.html" for directory in _INSTALL_DIRS),
    editions=tuple(_suffixed(d.lower().replace("_", "-"), f"{d}/*.html") for d in _INSTALL_DIRS),
)


SITES: tuple[DocSite, ...] = (
    DocSite(
        "django",
        ("python-django-doc",),
        Path("/usr/share/doc/python-django-doc/html"),
        ("index.html",),
        inventory="objects.inv",
    ),
    # html is a link to ../python3.11-doc/html: the server must follow it.
    DocSite("python3", ("python3-doc",), Path("/usr/share/doc/python3/html"), ("index.html",), inventory="objects.inv"),
    # git.html links every command's page; the user manual and the guides
    # (gitcore-tutorial, everyday...) are reached from it too, but only
    # through a few links each, so they are seeds of their own.
    DocSite("git", ("git-doc",), Path("/usr/share/doc/git-doc"), ("git.html", "user-manual.html", "giteveryday.html")),
    DocSite("nodejs", ("nodejs-doc",), Path("/usr/share/doc/nodejs"), ("api/index.html",), copies=("api/all.html",)),
    DocSite(
        "debref",
        ("debian-reference-en", "debian-reference-zh-cn"),
        Path("/usr/share/debian-reference"),
        ("index.en.html", "index.zh-cn.html"),
        editions=(Edition("en", "*.en.html"), Edition("zh", "*.zh-cn.html", "-zh")),
    ),
    DocSite(
        "maint-zh",
        ("maint-guide-zh-cn",),
        Path("/usr/share/doc/maint-guide-zh-cn/html"),
        ("index.zh-cn.html",),
        editions=(Edition("zh", "*.zh-cn.html"),),
    ),
    DocSite(
        "faq-zh",
        ("debian-faq-zh-cn",),
        Path("/usr/share/doc/debian/FAQ/zh-cn"),
        ("index.zh-cn.html",),
        editions=(Edition("zh", "*.zh-cn.html"),),
    ),
    DEBREF_ALL,
    INSTALL_GUIDE,
)


def by_name(names: str | None) -> list[DocSite]:
    """The sites named (comma-separated), in catalogue order; all for None.

    >>> [site.name for site in by_name("git,django")]
    ['django', 'git']
    >>> by_name("gitt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown site 'gitt' (known: django, python3, git, nodejs, debref, maint-zh, faq-zh, debref-all, ...)
    """
    if not names:
        return list(SITES)
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    known = {site.name for site in SITES}
    for name in wanted:
        if name not in known:
            raise ValueError(f"unknown site {name!r} (known: {', '.join(site.name for site in SITES)})")
    return [site for site in SITES if site.name in wanted]


def unavailable(site: DocSite) -> str | None:
    """Why ``site`` cannot be judged on this machine (its package is missing
    and cannot be installed, or lacks a seed), or None when it can."""
    try:
        ensure(*site.packages)
    except SystemPackageMissing as exc:
        return str(exc).splitlines()[0]
    for seed in site.seeds:
        if not (site.root / seed).is_file():
            return f"{site.root / seed} is missing (is {', '.join(site.packages)} complete?)"
    return None


def serve_site(site: DocSite) -> AbstractContextManager[Site]:
    """The site's root on 127.0.0.1 (nginx, else Python); ``Site.seed`` is its first seed."""
    return serve(site.name, site.root, site.seeds[0])
