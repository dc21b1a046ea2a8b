"""PDF: text and title through pypdf, within a time budget (pure).

pypdf is pure Python and maintained; it reads text from the pages' content
streams (no OCR: a scanned PDF has no text, and becomes a page known by its
title and the anchors pointing at it, like media).  :func:`extract` reads
the first ``MAX_PAGES`` pages and ``MAX_CHARS`` characters at most, and
answers a skip reason, never an exception, for a PDF it cannot read.
"""

from __future__ import annotations

import io
import re

import pypdf

from crawler.extractors.lang import guess_lang
from crawler.extractors.location import Resolve
from crawler.extractors.media import file_name
from crawler.extractors.page import Page
from crawler.extractors.text import first_line

__all__ = ["MEDIA_TYPES", "MAX_PAGES", "MAX_CHARS", "extract"]

MEDIA_TYPES = ("application/pdf", "application/x-pdf", "application/acrobat")
# Limits, because extraction runs in the crawler's event loop: the first
# MAX_PAGES pages (about 2 ms a page on simple documents, tens of ms on dense
# ones) and at most MAX_CHARS characters (far more than a ranking needs from
# one document) are read.
MAX_PAGES = 20
MAX_CHARS = 200_000

_WORD = re.compile(r"\w")


def extract(body: bytes, url: str, content_type: str | None, resolve: Resolve) -> Page | str:
    """A page from PDF bytes, or why there is none.

    The title is the document information's ``/Title`` when it has a word in
    it, else the first short line of text, else the file name. A PDF that
    pypdf cannot open is skipped as "pdf_unreadable", one with a user
    password as "pdf_encrypted"; a page that fails alone is left out and the
    others are kept.

    Leniency: pypdf raises many exception types on hostile or truncated files
    (its own errors, but also ValueError, KeyError, TypeError, zlib and struct
    errors...), so the calls into it catch ``Exception``: the outcome is a skip
    reason the caller counts, never a crash. pypdf logs its own warnings about
    damaged files on the ``pypdf`` logger.
    """
    try:
        reader = pypdf.PdfReader(io.BytesIO(body), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            return "pdf_encrypted"
        pages = reader.pages
        count = len(pages)
    except Exception:
        return "pdf_encrypted" if _needs_password(body) else "pdf_unreadable"
    blocks: list[str] = []
    first = ""  # the first page's text as laid out: its first line may be the title
    size = 0
    for number in range(min(count, MAX_PAGES)):
        try:
            text = pages[number].extract_text() or ""
        except Exception:
            continue
        block = " ".join(text.split())
        if block:
            first = first or text
            blocks.append(block[: MAX_CHARS - size])
            size += len(blocks[-1])
            if size >= MAX_CHARS:
                break
    joined = " ".join(blocks)
    return Page(
        url=url,
        title=_info_title(reader) or first_line(first) or file_name(url),
        text=joined,
        blocks=blocks,
        lang=guess_lang(joined[:2000]),
        kind="pdf",
    )


def _info_title(reader: pypdf.PdfReader) -> str:
    try:
        title = reader.metadata.title if reader.metadata else None
    except Exception:
        return ""
    title = " ".join(str(title or "").split())
    return title if _WORD.search(title) else ""


def _needs_password(body: bytes) -> bool:
    return b"/Encrypt" in body[-4096:] or b"/Encrypt" in body[:4096]
