"""What is worth downloading: media stopped after the headers, long bodies cut off.

Two download limits as a Scrapy extension (signals ``headers_received`` and
``bytes_received``, which may stop a download and keep what arrived):

- a response whose type only the media extractor reads (images, audio,
  video, archives, programs) is stopped once its headers are in: it becomes a
  document known by its anchors, and its bytes would add nothing
  (``limits/media_stopped``);
- a body longer than ``DOWNLOAD_MAXSIZE`` is cut off there and the part
  received is extracted (``limits/truncated``), where Scrapy would drop the
  whole response. Scrapy's own limit is turned off per request for this
  (``download_maxsize`` 0); robots.txt fetches keep theirs.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import StopDownload

from crawler.extractors import extractor_for, media
from crawler.extractors.sniff import media_type_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

__all__ = ["DownloadLimits", "is_media"]


def is_media(content_type: str | None) -> bool:
    """Whether only the media extractor reads this type (nothing in the body to index).

    >>> is_media("image/png"), is_media("application/zip"), is_media("text/html"), is_media(None)
    (True, True, False, False)
    """
    media_type = media_type_of(content_type)
    return media_type is not None and media_type != "application/octet-stream" and (
        extractor_for(media_type) is media.extract
    )


class DownloadLimits:
    def __init__(self, crawler: Crawler, maxsize: int) -> None:
        self.stats = crawler.stats
        self.maxsize = maxsize
        self._received: dict[int, int] = {}
        self._logged = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DownloadLimits:
        extension = cls(crawler, crawler.settings.getint("DOWNLOAD_MAXSIZE"))
        crawler.signals.connect(extension.headers_received, signal=signals.headers_received)
        crawler.signals.connect(extension.bytes_received, signal=signals.bytes_received)
        crawler.signals.connect(extension.request_left, signal=signals.request_left_downloader)
        return extension

    def headers_received(self, headers: Any, body_length: int, request: Request, spider: Any = None) -> None:
        if request.meta.get("robots_txt") or request.meta.get("sitemap"):
            return  # a gzipped sitemap is an archive worth reading
        content_type = headers.get(b"Content-Type")
        if content_type and is_media(content_type.decode("latin-1")):
            self.stats.inc_value("limits/media_stopped")
            raise StopDownload(fail=False)

    def bytes_received(self, data: bytes, request: Request, spider: Any = None) -> None:
        if not self.maxsize or request.meta.get("robots_txt"):
            return
        key = id(request)
        received = self._received.get(key, 0) + len(data)
        self._received[key] = received
        if received > self.maxsize:
            self._received.pop(key, None)
            self.stats.inc_value("limits/truncated")
            if not self._logged:
                self._logged = True
                logger.info(
                    "%s is larger than DOWNLOAD_MAXSIZE (%d bytes): kept its first part; "
                    "further cut-offs are counted as limits/truncated", request.url, self.maxsize,
                )
            raise StopDownload(fail=False)

    def request_left(self, request: Request, spider: Any = None) -> None:
        self._received.pop(id(request), None)
