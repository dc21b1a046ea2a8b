"""``scrapy crawl``, with the ``web`` spider's arguments checked before the crawl starts.

A bad seed or scope is the user's to fix: it deserves one line naming what
is wrong (and exit status 2), not a traceback from inside the reactor.
"""

from __future__ import annotations

import argparse

from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.exceptions import UsageError

from crawler.spiders.web import WebSpider, check_arguments


class Command(ScrapyCrawl):
    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args and args[0] == WebSpider.name:
            assert self.settings is not None
            check_arguments(self.settings, **opts.spargs)  # raises UsageError
        super().run(args, opts)


__all__ = ["Command", "UsageError"]
