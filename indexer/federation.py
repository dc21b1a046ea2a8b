"""Finalize several data directories as one index: ``python -m indexer finalize --data A --data B``.

Indexers that drain disjoint partitions of one crawl (:mod:`indexer.share`)
each build a data directory of their own; search reads them as one corpus
(:mod:`search.corpus`). Two things depend on links that cross directories
(a page held by A links to a page held by B): a URL's anchor text and
PageRank. Each indexer writes them from its own links, which makes them
approximate; :func:`finalize_together` makes them those of one index:

- every directory's link graph, page store (crawled pages, aliases, gone
  and members-only pages) and purged URLs are read as one
  (:func:`indexer.builder.anchor_state`);
- each URL's anchor document, with the text of every link to it, is
  written into the directory that owns the URL (:func:`owners`), and
  deleted from the others;
- PageRank is computed once over the whole graph (the same
  personalization rules, :func:`indexer.graph.links_matrix`), and each
  directory is given the ranks of the URLs it owns: search sums the
  directories' nodes, which is then the whole graph's.

Each directory is opened by its writer (:class:`indexer.builder.IndexBuilder`,
its lock held), so no indexer may be writing any of them meanwhile.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from indexer.builder import _ANCHORS_COMPLETE, _COMPLETE, FinalizeReport, IndexBuilder, _AnchorState, anchor_state
from indexer.graph import PERSONALIZATION, links_matrix, personalization_weights
from indexer.share import Share, owner_of, recorded_share

if TYPE_CHECKING:
    from indexer.linkmatrix import LinkMatrix

__all__ = ["finalize_together", "owners"]


def owners(urls: Sequence[str], holders: Sequence[set[str]], shares: Sequence[Share | None]) -> list[int]:
    """Which directory owns each URL (its position): the one holding its
    page; for a URL known only by links, the one whose share holds its
    site (:func:`indexer.share.owner_of`); failing both, the first.

    >>> from indexer.share import Share
    >>> owners(["http://a.test/", "http://b.test/"], [set(), {"http://b.test/"}], [None, None])
    [0, 1]
    """
    found = []
    for url in urls:
        holder = next((position for position, pages in enumerate(holders) if url in pages), None)
        if holder is None:
            holder = owner_of(url, shares) or 0
        found.append(holder)
    return found


def finalize_together(data_dirs: Sequence[Path], personalization: Mapping[str, float] | None = None) -> FinalizeReport:
    """Anchor documents and PageRank of ``data_dirs`` as those of one index (the module docstring)."""
    started = time.monotonic()
    with ExitStack() as stack:
        builders = [stack.enter_context(IndexBuilder(data_dir)) for data_dir in data_dirs]
        if personalization is not None:
            for builder in builders:
                builder.store.set_meta(PERSONALIZATION, json.dumps(dict(personalization), sort_keys=True))
        weights = builders[0].personalization()
        for builder in builders:
            builder.commit()
        try:
            report = _finalize(builders, weights)
        except BaseException:
            for builder in builders:
                builder.cancel()
            raise
    return dataclasses.replace(report, seconds=time.monotonic() - started)


def _finalize(builders: list[IndexBuilder], weights: Mapping[str, float]) -> FinalizeReport:
    """Anchor documents, then PageRank, of every directory; committed."""
    holders = [builder.store.urls() for builder in builders]
    shares = [recorded_share(builder.store) for builder in builders]
    crawled = set().union(*holders)
    gone = set().union(*(builder.store.gone() for builder in builders))
    aliases: dict[str, str] = {}
    for builder in builders:
        aliases.update(builder.store.aliases())
    rewritten = _write_anchors(builders, holders, shares, crawled, gone, aliases)
    matrix, urls = _whole_graph(builders, crawled, aliases, gone)
    ranked = [urls[node] for node in matrix.nodes.tolist()]
    scores = matrix.pagerank(personalization=personalization_weights(ranked, weights) if weights else None)
    owned = owners(ranked, holders, shares)
    for position, holder in enumerate(builders):
        mine = [index for index, owner in enumerate(owned) if owner == position]
        ids = holder.graph.node_ids([ranked[index] for index in mine])
        nodes = np.array([ids[ranked[index]] for index in mine], dtype=np.int64)
        holder.graph.set_ranks(nodes, scores[np.array(mine, dtype=np.int64)])
        holder.commit()
    anchor_only = 0
    for builder in builders:
        builder.store.set_meta(_ANCHORS_COMPLETE, _COMPLETE)
        builder.store.commit()
        anchor_only += sum(1 for url in builder.store.indexed_hashes() if url not in crawled)
    return FinalizeReport(
        documents=len(crawled) + anchor_only,
        pages=len(crawled),
        anchor_only=anchor_only,
        reindexed=rewritten,
        links=matrix.link_count(),
        seconds=0.0,
    )


def _write_anchors(
    builders: list[IndexBuilder],
    holders: list[set[str]],
    shares: list[Share | None],
    crawled: set[str],
    gone: set[str],
    aliases: dict[str, str],
) -> int:
    """Each URL's anchor document from every directory's links, in the
    directory owning it, deleted from the others (uncommitted); how many were rewritten."""
    members = set().union(*(builder.store.members_only() for builder in builders))
    purged = [rules for rules in (builder._purged() for builder in builders) if rules is not None]
    links = chain.from_iterable(builder.graph.links() for builder in builders)
    state = anchor_state(links, crawled, gone, aliases, members, purged)
    targets = sorted(state.inbound)
    owner = dict(zip(targets, owners(targets, holders, shares), strict=True))
    rewritten = 0
    for position, builder in enumerate(builders):
        rewritten += builder._write_anchors(_restricted(state, {url for url in targets if owner[url] == position}))
        builder.graph.forget_unused_anchors()
    return rewritten


def _restricted(state: _AnchorState, urls: set[str]) -> _AnchorState:
    """``state`` with the anchor texts of ``urls`` only: the others' anchor
    documents are another directory's, and are deleted from this one."""

    def kept(found: Mapping[str, Any], empty: type) -> defaultdict[str, Any]:
        return defaultdict(empty, {url: value for url, value in found.items() if url in urls})

    return dataclasses.replace(
        state, inbound=kept(state.inbound, list), sources=kept(state.sources, set), public=kept(state.public, list)
    )


def _whole_graph(
    builders: list[IndexBuilder], crawled: set[str], aliases: dict[str, str], gone: set[str]
) -> tuple[LinkMatrix, list[str]]:
    """The matrix PageRank runs on over every directory's links, and the URL of each of its node ids."""
    ids: dict[str, int] = {}
    sources: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    for builder in builders:
        local_sources, local_targets = builder.graph.link_arrays()
        known = list(builder.graph.nodes())
        size = 1 + max((node for node, _ in known), default=0)
        global_id = np.zeros(size, dtype=np.int64)
        for node, url in known:
            global_id[node] = ids.setdefault(url, len(ids))
        sources.append(global_id[local_sources])
        targets.append(global_id[local_targets])
    for url in _every(crawled, gone, aliases):
        ids.setdefault(url, len(ids))
    matrix = links_matrix(np.concatenate(sources), np.concatenate(targets), ids, crawled, aliases, gone)
    return matrix, list(ids)


def _every(crawled: set[str], gone: set[str], aliases: dict[str, str]) -> Iterator[str]:
    yield from sorted(crawled)
    yield from sorted(gone)
    yield from sorted(aliases)
    yield from sorted(aliases.values())
