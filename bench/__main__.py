"""`make bench`: every benchmark, each with its baseline measured in the same run.

Tables, in order: the crawl against a plain Scrapy CrawlSpider (with Redis
commands per page, the item queue, the fetch-only limit) and indexing
against plain Whoosh, on the demo web and on python3-doc when it is
installed (:mod:`bench.crawl`, :mod:`bench.index`); a broad crawl of 30
polite sites against a plain CrawlSpider with Scrapy's downloader-aware
queue (:mod:`bench.broad`); endless calendars on a hostile site, where
the crawl must end on its own (:mod:`bench.hostile`); search quality (MRR,
Success@1 and @10 on real documentation sites from Debian, crawled for
the purpose) against plain Whoosh over the same pages
(:mod:`bench.search_quality`); query latency against plain Whoosh
(:mod:`bench.query`); PageRank against a direct scipy iteration and
NetworkX (:mod:`bench.pagerank`); the visited-URL set's
memory against scrapy-redis' (:mod:`bench.dedup_memory`); a search
answered while 200 slow clients hold connections, against the same
search with none (:mod:`bench.slow_clients`); then the whole pipeline
(crawl, item queue, indexer, finalize, web API) on generated webs of 10,000
and 30,000 pages over 100 and 300 sites, with how each figure grows with
the size and the project's goals beside them (:mod:`bench.scale`). Ratios are ours
over the baseline, measured in the same run; absolute figures vary between
machines.
"""

from __future__ import annotations

import datetime
import os
import platform

from bench import broad, crawl, dedup_memory, hostile, pagerank, query, scale, search_quality, slow_clients


def main() -> None:
    print(
        f"Benchmarks, {datetime.date.today()}, {platform.node()}: Python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs\n",
        flush=True,
    )
    crawl.main()
    broad.main([])
    hostile.main([])
    search_quality.main([])
    query.main([])
    pagerank.main([])
    dedup_memory.main([1_000_000])
    slow_clients.main([])
    scale.main([str(size) for size in scale.BENCH_SIZES])


if __name__ == "__main__":
    main()
