"""Images, audio, video, archives, programs: documents known by their anchors.

A search engine cannot read a photograph or a zip file, but the words of
the links pointing at it describe it (ARCHITECTURE.md, items 22 and 27). This
extractor records the resource as a page with no text, ``kind="media"``,
titled by its file name; the indexer gives it the anchor texts. Office
documents land here too until an extractor for them is added (adding one
means adding a module and listing it in ``crawler/extractors/__init__.py``).
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from crawler.extractors.location import Resolve
from crawler.extractors.page import Page

__all__ = ["MEDIA_TYPES", "extract", "file_name"]

MEDIA_TYPES = (
    "image/*",
    "audio/*",
    "video/*",
    # archives and packages
    "application/zip",
    "application/gzip",
    "application/x-gzip",
    "application/x-tar",
    "application/x-gtar",
    "application/x-bzip2",
    "application/x-xz",
    "application/zstd",
    "application/x-7z-compressed",
    "application/x-rar-compressed",
    "application/vnd.rar",
    "application/java-archive",
    "application/vnd.android.package-archive",
    "application/x-debian-package",
    "application/x-rpm",
    "application/x-iso9660-image",
    "application/x-apple-diskimage",
    # programs
    "application/x-msdownload",
    "application/x-msi",
    "application/x-executable",
    "application/x-shockwave-flash",
    # office documents (no extractor yet)
    "application/msword",
    "application/rtf",
    "application/epub+zip",
    "application/vnd.ms-*",
    "application/vnd.openxmlformats-officedocument.*",
    "application/vnd.oasis.opendocument.*",
    # binary bodies of unknown kind (sniffed from a generic or missing type)
    "application/octet-stream",
)


def file_name(url: str) -> str:
    """The last path segment of a URL, percent-decoded: a media page's title.

    >>> file_name("http://a.test/photos/Light%20house.jpg?size=2"), file_name("http://a.test/")
    ('Light house.jpg', '')
    """
    path = urlsplit(url).path.rstrip("/")
    return unquote(path.rsplit("/", 1)[-1], errors="replace")


def extract(body: bytes, url: str, content_type: str | None, resolve: Resolve) -> Page:
    """A text-less page titled by its file name."""
    return Page(url=url, title=file_name(url), kind="media")
