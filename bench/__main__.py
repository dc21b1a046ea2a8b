"""`make bench`: every benchmark, each with its baseline measured in the same run."""

from __future__ import annotations

import datetime
import platform

from bench import crawl, pagerank, query


def main() -> None:
    print(f"Benchmarks, {datetime.date.today()}, {platform.node()}: "
          f"Python {platform.python_version()}, {platform.machine()}\n")
    crawl.main()
    query.main([])
    pagerank.main([])


if __name__ == "__main__":
    main()
