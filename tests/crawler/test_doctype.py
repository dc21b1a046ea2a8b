"""A document's type: the extractor's kind when fetched, else what its URL's extension says."""

from __future__ import annotations

import pytest

from crawler.extractors.doctype import DOCUMENT_TYPES, MEDIA_EXTENSIONS, document_type
from crawler.extractors.page import KINDS


@pytest.mark.parametrize(
    ("kind", "url", "expected"),
    [
        # Fetched: the extractor that read it decides, whatever the URL says.
        ("html", "http://a.test/report.pdf", "html"),
        ("pdf", "http://a.test/download?id=7", "pdf"),
        ("text", "http://a.test/README", "text"),
        ("media", "http://a.test/files/archive", "media"),
        ("spreadsheet", "http://a.test/a.html", "other"),  # a kind this version does not know
        # Known only by links: the extension, case and query string aside.
        (None, "http://a.test/Annual%20Report.PDF", "pdf"),
        (None, "http://a.test/photos/harbour.jpg?size=2", "media"),
        (None, "http://a.test/song.MP3", "media"),
        (None, "http://a.test/film.mp4#t=10", "media"),
        (None, "http://a.test/setup.exe", "media"),
        (None, "http://a.test/minutes.docx", "media"),  # read as media when fetched
        (None, "http://a.test/rfc2616.txt", "text"),
        (None, "http://a.test/CHANGES.md", "text"),
        (None, "http://a.test/style.css", "other"),
        (None, "http://a.test/feed.xml", "other"),
        (None, "http://a.test/", "html"),
        (None, "http://a.test/docs/3.12/", "html"),
        (None, "http://a.test/index.php?page=2", "html"),
        (None, "http://a.test/library/os.path", "html"),  # an unknown extension: a page
        ("", "http://a.test/a.pdf", "pdf"),  # an empty kind is no kind
        (None, "mailto:harbour@a.test", "other"),
        (None, "javascript:alert('x.pdf')", "other"),
    ],
)
def test_document_type(kind: str | None, url: str, expected: str) -> None:
    assert document_type(kind, url) == expected


def test_every_kind_is_a_type_and_every_media_extension_is_media() -> None:
    assert set(KINDS) <= set(DOCUMENT_TYPES)
    assert {document_type(None, f"http://a.test/x.{ext}") for ext in MEDIA_EXTENSIONS} == {"media"}
