"""The Whoosh schema and its text analysis: the one module that knows fields.

Each field holds one kind of "hit" from the Google paper (ARCHITECTURE.md, item 26),
so ranking can weigh them apart: the URL's words, the title, headings,
emphasised text, the meta description, the body, and the anchor text of
links pointing at the page (item 27); and the page's place in its site,
its ancestors' titles (``hierarchy``: a query may name a page by its
section's words and its own). Stored fields are what a result line
shows; the body is not stored here (the page store keeps it compressed).
``members_only`` marks a page fetched with a site owner's credentials
(item 12): search shows it with a short snippet and no cached copy;
``access`` indexes the same mark (``members``) for the ``access:`` filter
and its count. ``type`` is what kind of document a URL is (``html``,
``pdf``, ``text``, ``media``, ``other``:
:func:`crawler.extractors.doctype.document_type`), on a page's document and
on its anchor document alike, so the ``type:`` filter keeps or drops both;
``size`` the bytes of its fetched body.

Analysis (:mod:`indexer.analysis`) is the same at index and query time:
words lower-cased, a few stop words dropped, Latin words stemmed
(``encoders`` finds ``encoder``), code names indexed whole and split, and
Chinese or Japanese text cut into character bigrams.
"""

from __future__ import annotations

from whoosh.analysis.analyzers import CompositeAnalyzer
from whoosh.fields import BOOLEAN, ID, KEYWORD, STORED, Schema

from crawler.languages import language_tag
from indexer.analysis import MixedTokenizer, NormalizeFilter, has_cjk
from indexer.codec import FastText

__all__ = [
    "schema",
    "text_analyzer",
    "host_suffixes",
    "URL",
    "HOST",
    "SITE",
    "URLWORDS",
    "TITLE",
    "HEADINGS",
    "EMPHASIS",
    "DESCRIPTION",
    "BODY",
    "ANCHOR",
    "CRAWLED",
    "LANG",
    "FETCHED",
    "SOURCES",
    "LABEL",
    "LINKED",
    "MEMBERS_ONLY",
    "TYPE",
    "SIZE",
    "ACCESS",
    "MEMBERS",
    "HIERARCHY",
    "HUB",
    "ALTERNATES",
    "CONTAINS",
    "TEXT_FIELDS",
    "has_cjk",
    "lang_terms",
    "language_tag",
    "primary_lang",
    "PHRASE_FIELDS",
]

URL = "url"
HOST = "host"
SITE = "site"  # the host and its parent domains, for site: queries
URLWORDS = "urlwords"
TITLE = "title"
HEADINGS = "headings"
EMPHASIS = "emphasis"
DESCRIPTION = "description"
BODY = "body"
ANCHOR = "anchor"
CRAWLED = "crawled"
LANG = "lang"
FETCHED = "fetched"
SOURCES = "sources"  # distinct pages linking to a page known only by anchors
LABEL = "label"  # what such a page is called: its commonest anchor text (stored, not indexed)
LINKED = "linked"  # and the anchor texts it is linked with, to show (stored, not indexed)
MEMBERS_ONLY = "members_only"  # True on a page fetched with credentials (stored only; absent: public)
TYPE = "type"  # html, pdf, text, media or other (indexed and stored)
SIZE = "size"  # bytes of the fetched body (stored only; absent: not fetched, or indexed before sizes)
ACCESS = "access"  # MEMBERS on a members-only page and its anchor document (indexed only)
MEMBERS = "members"
HIERARCHY = "hierarchy"  # its ancestors' titles, the site's top first, one a line (indexed and stored)
HUB = "hub"  # without a breadcrumb: the title of the page listing it, shown before its hierarchy (stored only)
ALTERNATES = "alternates"  # [lang, url] of its translations its markup names (stored only)
CONTAINS = "contains"  # languages of running text in it besides its own: "en" on a half-translated page
TEXT_FIELDS = (TITLE, ANCHOR, URLWORDS, HIERARCHY, HEADINGS, EMPHASIS, DESCRIPTION, BODY)

# Only the words too common to say anything; "not", "how", "what"... stay
# (they matter in titles and phrases).
_STOP_WORDS = frozenset(
    """a an and are as at be by for from has have in is it its of on or that the
    this to was were will with""".split()
)


def host_suffixes(host: str) -> str:
    """What ``site:`` matches for a host: itself, without its port, and its parent domains.

    >>> host_suffixes("docs.python.org")
    'docs.python.org python.org'
    >>> host_suffixes("127.0.0.1:8301")
    '127.0.0.1:8301 127.0.0.1'
    """
    names = [host]
    name = host.rsplit(":", 1)[0] if ":" in host and not host.endswith("]") else host
    if name != host:
        names.append(name)
    labels = name.split(".")
    if not name.replace(".", "").isdigit():
        names += [".".join(labels[i:]) for i in range(1, len(labels) - 1)]
    return " ".join(dict.fromkeys(names))


def primary_lang(lang: str) -> str:
    """A language tag's primary subtag: what ``lang:`` and the language
    preference compare.

    >>> primary_lang("zh-CN"), primary_lang("en_US"), primary_lang("")
    ('zh', 'en', '')
    """
    return lang.strip().lower().replace("_", "-").split("-")[0]


# A BCP 47 tag as pages write it: a primary language of 2-3 letters (or
# "x"/"i", private and grandfathered tags), then subtags of 1-8 letters and digits.
def lang_terms(lang: str) -> str:
    """What the ``lang`` field holds for a page: its tag (:func:`language_tag`),
    then its primary subtag, so ``lang:zh`` finds ``zh-cn`` pages and
    ``lang:zh-cn`` only those.

    >>> lang_terms("zh-CN"), lang_terms("en"), lang_terms(""), lang_terms("no language")
    ('zh-cn zh', 'en', '', '')
    """
    full = language_tag(lang)
    return " ".join(dict.fromkeys(filter(None, (full, primary_lang(full)))))


def text_analyzer(cjk: str = "bigram") -> CompositeAnalyzer:
    """The analyzer of every text field, at index and query time."""
    # Lower-cased, stop words dropped (without renumbering: a code name
    # and its first part share a position), plain Latin words stemmed.
    return MixedTokenizer(cjk) | NormalizeFilter(_STOP_WORDS)


# Fields that phrase and proximity queries read positions from; the others
# keep only term frequencies (a third of the postings' size).
PHRASE_FIELDS = (TITLE, HEADINGS, ANCHOR, BODY)


def schema(cjk: str = "bigram") -> Schema:
    text = text_analyzer(cjk)

    def field(name: str, stored: bool = False) -> FastText:
        return FastText(text, _STOP_WORDS, cjk, stored=stored, phrase=name in PHRASE_FIELDS)

    return Schema(
        **{
            URL: ID(stored=True, unique=True),
            HOST: ID(stored=True),
            SITE: KEYWORD(lowercase=True),
            URLWORDS: field(URLWORDS),
            TITLE: field(TITLE, stored=True),
            HEADINGS: field(HEADINGS),
            EMPHASIS: field(EMPHASIS),
            DESCRIPTION: field(DESCRIPTION, stored=True),
            BODY: field(BODY),
            ANCHOR: field(ANCHOR),
            CRAWLED: BOOLEAN(stored=True),
            LANG: KEYWORD(stored=True, lowercase=True),
            FETCHED: STORED(),
            SOURCES: STORED(),
            LABEL: STORED(),
            LINKED: STORED(),
            MEMBERS_ONLY: STORED(),
            TYPE: KEYWORD(stored=True, lowercase=True),
            SIZE: STORED(),
            ACCESS: KEYWORD(lowercase=True),
            HIERARCHY: field(HIERARCHY, stored=True),
            HUB: STORED(),
            ALTERNATES: STORED(),
            CONTAINS: STORED(),
        }
    )
