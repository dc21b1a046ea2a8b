"""Purge: take pages out of the index and keep them out (ARCHITECTURE.md, item 11).

    python -m indexer purge --data DIR [--redis URL] URL_OR_SITE...

A site owner may ask for pages that were never meant to be public to be
removed. A target that is a site (``scheme://host[:port]``, with no path or
just ``/``) stands for every page of that site; any other target is that
one URL (canonicalized as the crawler does). Purging removes the documents
(pages and anchor-only documents), their links, aliases and revisit state,
then merges anchors and PageRank again so no trace of their text is left in
other documents; and it blacklists them:

- ``DATA_DIR/purged.txt`` holds one ``re:`` line per target, the syntax of
  ``TRAPS_BLACKLIST_FILE``: every crawl on ``DATA_DIR`` refuses those URLs
  (counted as ``traps/purged``), and the indexer drops items for them that
  were fetched before the purge reached the crawl;
- the same lines go into the Redis set ``web:purged`` when the crawl's Redis
  is reachable (``--redis``, or the running embedded server of ``DATA_DIR``):
  running crawl nodes reread it every 30 seconds.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from crawler.datadir import purged_path
from crawler.urls import canonicalize
from indexer.builder import IndexBuilder

__all__ = ["purge_rule", "purge", "record"]


def purge_rule(target: str) -> tuple[str, str, bool]:
    """``(canonical URL or site prefix, blacklist line, whether it is a site)``.

    >>> purge_rule("http://Intranet.example:8080")
    ('http://intranet.example:8080/', 're:^http://intranet\\\\.example:8080/', True)
    >>> purge_rule("https://a.test/private/ledger.html?utm_source=x")[1]
    're:^https://a\\\\.test/private/ledger\\\\.html$'
    """
    parts = urlsplit(target.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL or site: {target!r}")
    url = canonicalize(target.strip())
    if parts.path in ("", "/") and not parts.query:
        return url, f"re:^{re.escape(url)}", True
    return url, f"re:^{re.escape(url)}$", False


def purge(builder: IndexBuilder, targets: list[str]) -> dict[str, list[str]]:
    """Remove every URL each target stands for; returns them per target.

    Targets that match nothing are not recorded. The caller commits (and
    finalizes) the builder.
    """
    matched: dict[str, list[str]] = {}
    lines = []
    for target in targets:
        url, line, site = purge_rule(target)
        urls = builder.store.known(prefix=url) if site else builder.store.known(url=url)
        matched[target] = sorted(urls)
        if urls:
            lines.append(line)
            builder.remove(urls)
    record(builder.data_dir, lines)
    return matched


def record(data_dir: Path, lines: list[str]) -> None:
    """Add ``lines`` to ``DATA_DIR/purged.txt`` (replaced whole, never half written)."""
    if not lines:
        return
    path = purged_path(data_dir)
    existing = (
        path.read_text(encoding="utf-8").splitlines()
        if path.exists()
        else ["# Purged by `python -m indexer purge`: never fetched, never indexed again."]
    )
    new = [line for line in dict.fromkeys(lines) if line not in existing]
    if not new:
        return
    temporary = path.with_suffix(".tmp")
    temporary.write_text("\n".join([*existing, *new]) + "\n", encoding="utf-8")
    os.replace(temporary, path)
