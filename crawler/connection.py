"""Redis clients for every program of a crawl, from one URL.

``redis://HOST:PORT/DB`` and ``unix:///PATH`` reach one server (the embedded
one is a unix socket); ``redis+cluster://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...]``
reaches a Redis Cluster through any of its nodes (the client learns the
others and which slots each serves). The URL travels as it was given, to the
indexer beside the crawl for instance, so every program of a crawl reaches
the same Redis the same way.

A crawl node's client of a shared server also takes ``REDIS_PARAMS``, the
client arguments as scrapy-redis reads them (``{"socket_timeout": 10,
"db": 2}``; ``redis_cls`` a class or its dotted path), through
scrapy-redis' own factory. They go over Lantern's defaults, not
scrapy-redis': its ``retry_on_timeout`` would send a command again after a
timeout, and a frontier script that ran but whose answer was lost must not
run twice. A ``db``, ``username`` or ``password`` the URL does not name
itself goes into the URL the other programs are given (:func:`with_db`,
:func:`with_credentials`).

That URL may carry a password, so it never goes on a command line (any local
user reads ``/proc/PID/cmdline``) nor, whole, into a message: a program of a
crawl hands it to another in the environment variable :data:`URL_VARIABLE`,
and a Redis that cannot be reached is said in one line with the password
redacted (:class:`RedisUnreachable`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from redis.cluster import ClusterNode, RedisCluster
from scrapy.utils.misc import load_object
from scrapy_redis.connection import get_redis

from crawler.console import redacted
from crawler.partitions import Partitions

__all__ = [
    "client_for",
    "cluster_url",
    "is_cluster",
    "partitions_of",
    "redis_params",
    "with_credentials",
    "with_db",
    "CLUSTER_SCHEME",
    "RedisUnreachable",
    "URL_VARIABLE",
]

CLUSTER_SCHEME = "redis+cluster://"
#: The environment variable in which a crawl gives its Redis URL to the indexer it starts.
URL_VARIABLE = "LANTERN_REDIS_URL"


class RedisUnreachable(RuntimeError):
    """Redis does not answer, or refuses the credentials: said in one line,
    the password redacted from the URL and from the error alike.

    >>> str(RedisUnreachable("redis://:s3cret@r:6379/0", OSError("s3cret refused")))
    'cannot reach Redis at redis://:***@r:6379/0: *** refused'
    """

    def __init__(self, url: str, error: BaseException) -> None:
        password = urlsplit(url).password
        said = " ".join(str(error).split())
        if password:
            said = said.replace(unquote(password), "***").replace(password, "***")
        super().__init__(f"cannot reach Redis at {redacted(url)}: {said or type(error).__name__}")


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
    rest = url[len(CLUSTER_SCHEME) :].split("/", 1)[0]
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


def redis_params(settings: Any) -> dict[str, Any]:
    """``REDIS_PARAMS`` (a dict, or its JSON from ``-s``); ValueError for what
    the crawl cannot run with: replies decoded to text (the frontier reads bytes).

    >>> from scrapy.settings import Settings
    >>> redis_params(Settings({"REDIS_PARAMS": '{"socket_timeout": 5, "db": 2}'}))
    {'socket_timeout': 5, 'db': 2}
    >>> redis_params(Settings({"REDIS_PARAMS": {"decode_responses": True}}))
    Traceback (most recent call last):
    ...
    ValueError: REDIS_PARAMS: decode_responses cannot be used: the frontier reads replies as bytes
    """
    params = dict(settings.getdict("REDIS_PARAMS"))
    if params.get("decode_responses"):
        raise ValueError("REDIS_PARAMS: decode_responses cannot be used: the frontier reads replies as bytes")
    return params


def with_db(url: str, params: Mapping[str, Any]) -> str:
    """``url`` naming the database ``params`` give, when it names none itself
    (the client reads a ``db`` in the URL first, as redis-py does).

    >>> with_db("redis://r:6379", {"db": 3, "socket_timeout": 5})
    'redis://r:6379/3'
    >>> with_db("redis://r:6379/0", {"db": 3}), with_db("redis://r:6379?db=1", {"db": 3})
    ('redis://r:6379/0', 'redis://r:6379?db=1')
    >>> with_db("unix:///run/redis.sock", {"db": 3}), with_db("redis://r:6379", {})
    ('unix:///run/redis.sock?db=3', 'redis://r:6379')
    """
    db = params.get("db")
    if db is None or url.startswith(CLUSTER_SCHEME):
        return url
    parts = urlsplit(url)
    if "db" in parse_qs(parts.query) or parts.path.strip("/") and parts.scheme != "unix":
        return url
    if parts.scheme == "unix":
        return f"{url}{'&' if parts.query else '?'}db={int(db)}"
    return parts._replace(path=f"/{int(db)}").geturl()


def with_credentials(url: str, params: Mapping[str, Any]) -> str:
    """``url`` with the ``username`` and ``password`` ``params`` give, when it
    names none itself: the indexer a crawl starts reaches Redis as the crawl does.

    >>> with_credentials("redis://r:6379/0", {"password": "p@ss", "db": 2})
    'redis://:p%40ss@r:6379/0'
    >>> with_credentials("unix:///run/redis.sock?db=0", {"username": "crawl", "password": "pw"})
    'unix://crawl:pw@/run/redis.sock?db=0'
    >>> with_credentials("redis+cluster://a:7000,b:7001", {"password": "pw"})
    'redis+cluster://:pw@a:7000,b:7001'
    >>> with_credentials("redis://u:given@r:6379", {"password": "other"}), with_credentials("redis://r", {})
    ('redis://u:given@r:6379', 'redis://r')
    """
    username, password = params.get("username"), params.get("password")
    scheme, _, rest = url.partition("://")
    if not (username or password) or "@" in rest.split("/", 1)[0]:
        return url
    userinfo = quote(str(username or ""), safe="") + (f":{quote(str(password), safe='')}" if password else "")
    return f"{scheme}://{userinfo}@{rest}"


def client_for(url: str, timeout: float = 30, **params: Any) -> Any:
    """A client for ``url``: ``redis.Redis``, or ``RedisCluster`` for
    ``redis+cluster://``; ``params`` (``REDIS_PARAMS``) go to its constructor.

    A client of one server connects at its first command; a cluster client
    asks its nodes for the slot map at once (``RedisClusterException`` when
    none answers).
    """
    options: dict[str, Any] = {"socket_timeout": timeout, "socket_connect_timeout": 10, **params}
    if isinstance(options.get("redis_cls"), str):
        options["redis_cls"] = load_object(options["redis_cls"])
    if url.startswith(CLUSTER_SCHEME):
        nodes, credentials = _cluster_nodes(url)
        options.pop("redis_cls", None)
        return RedisCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in nodes], **{**options, **credentials}
        )
    return get_redis(url=url, **options)


def is_cluster(client: Any) -> bool:
    return isinstance(client, RedisCluster)


def partitions_of(client: Any, name: str = "web") -> Partitions:
    """The partitions a crawl's frontier was created with (one if it has
    not recorded any), for programs that read it from outside a crawl."""
    recorded = client.get(f"{name}:partitions")
    count = int(recorded) if recorded else 1
    return Partitions(count, tagged=count > 1 or is_cluster(client))


def piped(pipe: Any, script: Any, keys: Sequence[Any], args: Sequence[Any]) -> None:
    """Queue a call of ``script`` (redis-py's ``Script``) on ``pipe``, a
    pipeline of one server, as ``EVAL`` with the script's text.

    Called on a pipeline, redis-py's ``Script`` sends ``EVALSHA`` and has
    the pipeline ask ``SCRIPT EXISTS`` before each execute: a round trip of
    its own, which made the crawl's flush (links queued, leases released)
    two round trips instead of one. The text is a few KiB more on the
    socket; the server keeps compiled scripts by their digest and does not
    compile it again.
    """
    pipe.eval(script.script, len(keys), *keys, *args)
