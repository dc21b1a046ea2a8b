"""Redis clients for every program of a crawl, from one URL.

``redis://HOST:PORT/DB`` and ``unix:///PATH`` reach one server (the embedded
one is a unix socket); ``redis+cluster://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...]``
reaches a Redis Cluster through any of its nodes (the client learns the
others and which slots each serves). The URL travels as it was given, to the
indexer beside the crawl for instance, so every program of a crawl reaches
the same Redis the same way.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import redis
from redis.cluster import ClusterNode, RedisCluster

from crawler.partitions import Partitions

__all__ = ["client_for", "cluster_url", "is_cluster", "partitions_of", "CLUSTER_SCHEME"]

CLUSTER_SCHEME = "redis+cluster://"


def cluster_url(nodes: str) -> str:
    """The URL of a cluster given ``REDIS_CLUSTER_NODES`` (``host:port,host:port``).

    >>> cluster_url("10.0.0.1:7000, 10.0.0.2:7000")
    'redis+cluster://10.0.0.1:7000,10.0.0.2:7000'
    """
    return CLUSTER_SCHEME + ",".join(node.strip() for node in nodes.split(",") if node.strip())


def _cluster_nodes(url: str) -> tuple[list[tuple[str, int]], dict[str, str]]:
    """The startup nodes and credentials of a ``redis+cluster://`` URL.

    >>> _cluster_nodes("redis+cluster://:s%40cret@a:7000,b:7001")
    ([('a', 7000), ('b', 7001)], {'password': 's@cret'})
    """
    rest = url[len(CLUSTER_SCHEME):].split("/", 1)[0]
    credentials: dict[str, str] = {}
    if "@" in rest:
        user, rest = rest.rsplit("@", 1)
        name, _, password = user.partition(":")
        if name:
            credentials["username"] = unquote(name)
        if password:
            credentials["password"] = unquote(password)
    nodes = []
    for node in rest.split(","):
        host, _, port = node.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"a Redis Cluster URL names nodes as host:port, not {node!r}: {url}")
        nodes.append((host.strip("[]"), int(port)))
    return nodes, credentials


def client_for(url: str, timeout: float = 30) -> Any:
    """A client for ``url``: ``redis.Redis``, or ``RedisCluster`` for ``redis+cluster://``.

    A client of one server connects at its first command; a cluster client
    asks its nodes for the slot map at once (``RedisClusterException`` when
    none answers).
    """
    if url.startswith(CLUSTER_SCHEME):
        nodes, credentials = _cluster_nodes(url)
        return RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in nodes],
                            socket_timeout=timeout, socket_connect_timeout=10,
                            username=credentials.get("username"), password=credentials.get("password"))
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=10)


def is_cluster(client: Any) -> bool:
    return isinstance(client, RedisCluster)


def partitions_of(client: Any, name: str = "web") -> Partitions:
    """The partitions a crawl's frontier was created with (one if it has
    not recorded any), for programs that read it from outside a crawl."""
    recorded = client.get(f"{name}:partitions")
    count = int(recorded) if recorded else 1
    return Partitions(count, tagged=count > 1 or is_cluster(client))
