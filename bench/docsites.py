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

Each site is a directory on disk: what its pages are is known without a
crawl, so the query sets (:mod:`bench.queries.make_auto`) are built from the
files, and the crawl can be checked against them. A site whose package is
missing, and cannot be installed, is reported as not available (with the
reason), never left out in silence.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from bench.sites import Site, serve
from tests.system import SystemPackageMissing, ensure

__all__ = ["DocSite", "Edition", "SITES", "by_name", "unavailable", "serve_site"]


@dataclass(frozen=True)
class Edition:
    """One language of a site: its pages, and the suffix of its query sets' names.

    A bilingual site keeps its editions apart: an English query's right
    answer is an English page, a Chinese query's a Chinese one.
    """

    lang: str
    pattern: str = "*.html"  # file names of the edition's pages (fnmatch)
    suffix: str = ""  # "titles" + suffix: the edition's sets


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
)


def by_name(names: str | None) -> list[DocSite]:
    """The sites named (comma-separated), in catalogue order; all for None.

    >>> [site.name for site in by_name("git,django")]
    ['django', 'git']
    >>> by_name("gitt")
    Traceback (most recent call last):
    ...
    ValueError: unknown site 'gitt' (known: django, python3, git, nodejs, debref, maint-zh, faq-zh)
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
