"""The baseline: a plain Scrapy CrawlSpider, as a Scrapy user would write one.

LinkExtractor, the default dupefilter and scheduler, robots.txt obeyed, no
delay, 16 concurrent requests; it only extracts the title and the text. Run
outside the project (its settings would replace the scheduler):

    scrapy runspider bench/plain_spider.py -a start=URL[,URL...] [-a deny=REGEX] [-a slot=port]

``deny`` keeps it out of traps it cannot recognise (the demo web's endless
calendar), so that it ends. ``slot=port`` gives each host:port its own
download slot, as a Scrapy user crawling several sites on one host would
(Scrapy keys slots by host name alone): each site gets its own delay and
concurrency, as if it had a host name of its own.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class PlainSpider(CrawlSpider):
    name = "plain"
    custom_settings = {
        "ROBOTSTXT_OBEY": True,
        "DOWNLOAD_DELAY": 0,
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
    }

    def __init__(self, start: str = "", deny: str = "", slot: str = "", *args: Any, **kwargs: Any) -> None:
        self.start_urls = start.split(",")
        self.allowed_domains = sorted({urlsplit(url).hostname or "" for url in self.start_urls})
        extractor = LinkExtractor(deny=[deny] if deny else [])
        self.slot_per_port = slot == "port"
        self.rules = (Rule(extractor, callback="parse_page", follow=True, process_request="by_port"),)
        super().__init__(*args, **kwargs)

    async def start(self) -> Any:
        async for request in super().start():
            yield self.by_port(request, None)

    def by_port(self, request: Any, response: Any) -> Any:
        if self.slot_per_port and isinstance(request, Request):
            request.meta["download_slot"] = urlsplit(request.url).netloc
        return request

    def parse_start_url(self, response: Any, **kwargs: Any) -> Any:
        return self.parse_page(response)

    def parse_page(self, response: Any) -> dict[str, Any]:
        return {
            "url": response.url,
            "title": response.css("title::text").get(default=""),
            "text": " ".join(response.xpath("//body//text()").getall()),
        }
