"""The indexer: crawled pages into a Whoosh index, a link graph and PageRank.

Public: :class:`indexer.builder.IndexBuilder` (the one writer),
:mod:`indexer.schema` (fields and analysis), :func:`indexer.graph.pagerank`,
:class:`indexer.linkmatrix.LinkMatrix` (the saved link graph, PageRank over it).
"""
