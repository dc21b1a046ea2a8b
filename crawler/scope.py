"""Which URLs a crawl may fetch: the seeds' hosts, their domains, or any (pure).

``host`` (the default) keeps the crawl on the seeds' host names, any port and
either scheme, so a documentation portal spread over several ports is one
crawl. ``domain`` widens that to the registrable domain (``docs.python.org``
brings in ``www.python.org``), using the public suffix list bundled with
tldextract, never a download. ``any`` follows links anywhere: pair it with a
depth or page limit.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import tldextract

from crawler.sites import host_name

__all__ = ["Scope", "SCOPES", "registrable_domain"]

SCOPES = ("host", "domain", "any")

# suffix_list_urls=() : the snapshot shipped with the package, no network.
_extract = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


@lru_cache(maxsize=65536)
def registrable_domain(host: str) -> str:
    """The domain a registrant controls; IP addresses and single labels as is.

    >>> registrable_domain("docs.python.org"), registrable_domain("a.b.co.uk")
    ('python.org', 'b.co.uk')
    >>> registrable_domain("127.0.0.1"), registrable_domain("localhost")
    ('127.0.0.1', 'localhost')
    """
    parts = _extract(host)
    if parts.domain and parts.suffix:
        return f"{parts.domain}.{parts.suffix}"
    return host


class Scope:
    """A set of host names (or domains) and the test of a URL against it.

    >>> scope = Scope("host", ["docs.example.org"])
    >>> "http://docs.example.org:8080/x" in scope, "http://example.org/" in scope
    (True, False)
    >>> "http://www.example.org/" in Scope("domain", ["docs.example.org"])
    True
    """

    def __init__(self, mode: str = "host", hosts: Iterable[str] = ()) -> None:
        if mode not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}, not {mode!r}")
        self.mode = mode
        self._keys: set[str] = set()
        self.add(hosts)

    def key(self, host: str) -> str:
        host = host.lower().rstrip(".")
        return registrable_domain(host) if self.mode == "domain" else host

    def add(self, hosts: Iterable[str]) -> None:
        self._keys.update(self.key(host) for host in hosts if host)

    def allows_host(self, host: str) -> bool:
        return self.mode == "any" or self.key(host) in self._keys

    def __contains__(self, url: str) -> bool:
        return self.mode == "any" or self.allows_host(host_name(url))

    def __len__(self) -> int:
        return len(self._keys)
