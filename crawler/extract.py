"""Response bytes to page fields and links: the crawler's one door (pure).

The work happens in :mod:`crawler.extractors`, one module per media type
(HTML, plain text, PDF, media), on top of :mod:`crawler.charset` (bytes to
text) and next to :mod:`crawler.boilerplate` (per-site repeated blocks).
This module names what the rest of the crawler uses, so callers import from
one place:

- :func:`extract` for any response (bytes, Content-Type, headers) giving an
  :class:`Extraction`: a :class:`Page` or a skip reason to count;
- :func:`extract_html` for HTML already in hand (str, or bytes in any
  charset), giving a :class:`Page`;
- :func:`cjk_ratio`, the share of CJK characters in a text.

>>> page = extract_html('<title>T</title><p>Hello <a href="/b">B</a></p>', "http://a.test/")
>>> page.title, page.text, [link.url for link in page.links]
('T', 'Hello B', ['http://a.test/b'])
>>> extract(b"%PDF-1.4 truncated", "http://a.test/x.pdf", "application/pdf").skip
'pdf_unreadable'
"""

from __future__ import annotations

from crawler.extractors import SKIP_REASONS, Extraction, extract
from crawler.extractors.html import extract_html
from crawler.extractors.lang import cjk_ratio
from crawler.extractors.page import Link, Page

__all__ = ["Extraction", "Link", "Page", "SKIP_REASONS", "cjk_ratio", "extract", "extract_html"]
