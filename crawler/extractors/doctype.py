"""What type of document a URL is, as searchers filter by it (pure).

A fetched document's type is the kind of the extractor that read it
(``html``, ``text``, ``pdf``, ``media``: :data:`crawler.extractors.page.KINDS`),
whatever its URL says. A URL known only by the links to it was never
fetched: its file extension is all there is, read the way the crawl reads
it (a ``.jpg`` is media and never downloaded, :data:`MEDIA_EXTENSIONS`). A
link without a known extension (``/docs/3.12/``, ``/index.php``,
``/library/os.path``) is taken for a web page, as a reader following it
would expect; a style sheet, a script or a data file no extractor reads,
and a link that is not to the web (``mailto:``), are ``other``.
"""

from __future__ import annotations

__all__ = ["DOCUMENT_TYPES", "MEDIA_EXTENSIONS", "document_type", "extension"]

#: Every value of a document's type, in the order a list of them shows.
DOCUMENT_TYPES = ("html", "pdf", "text", "media", "other")

# Files whose bytes hold nothing to index: known by the anchors pointing at
# them (the indexer gives them documents), never downloaded. PDFs and pages
# are fetched; a media file without one of these extensions is stopped after
# its headers (crawler/limits.py). Office documents are read as media when
# fetched (crawler/extractors/media.py), and named so when only linked.
MEDIA_EXTENSIONS = frozenset(
    """jpg jpeg png gif webp bmp tif tiff svg ico heic avif mp3 ogg oga wav flac m4a aac
    mp4 m4v webm mov avi mkv wmv flv mpg mpeg zip gz tgz bz2 xz zst 7z rar tar iso dmg
    exe msi deb rpm apk jar bin img""".split()
)
_OFFICE_EXTENSIONS = frozenset("doc docx xls xlsx ppt pptx odt ods odp rtf epub".split())
_BY_EXTENSION = {
    "pdf": "pdf",
    **dict.fromkeys(("txt", "text", "md", "markdown"), "text"),  # what the text extractor reads
    **dict.fromkeys("css js mjs json xml rss atom csv woff woff2 ttf otf eot wasm map".split(), "other"),
}


def extension(url: str) -> str:
    """The lower-cased extension of a URL's last path segment.

    >>> extension("http://a.test/photos/Lighthouse.JPG?size=2"), extension("http://a.test/docs/")
    ('jpg', '')
    """
    path = url.split("?", 1)[0].split("#", 1)[0]
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def document_type(kind: str | None, url: str) -> str:
    """The type of the document at ``url``: its extractor's ``kind`` when it
    was fetched, else (``kind`` None or empty) what its extension says.

    >>> document_type("pdf", "http://a.test/report"), document_type(None, "http://a.test/Photo.PNG")
    ('pdf', 'media')
    >>> [document_type(None, f"http://a.test/{name}") for name in ("a.pdf", "notes.txt", "s.css", "x.php", "")]
    ['pdf', 'text', 'other', 'html', 'html']
    """
    if kind:
        return kind if kind in DOCUMENT_TYPES else "other"
    if not url[:8].lower().startswith(("http://", "https://")):
        return "other"  # mailto:, javascript:... no document at all
    found = extension(url)
    if found in MEDIA_EXTENSIONS or found in _OFFICE_EXTENSIONS:
        return "media"
    return _BY_EXTENSION.get(found, "html")
