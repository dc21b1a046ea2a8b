"""Which site a URL belongs to, in each of the senses the project counts by (pure).

A site is a scheme, a host and a port (ARCHITECTURE.md, item 13): politeness,
robots.txt, the frontier's queues and credentials are kept per site, by
:func:`site_of`.  The index and its users name a site by its host alone, with
the port only when it is not the scheme's default (:func:`host_of`); the
crawl's scope and blacklists by the host name alone (:func:`host_name`).  A
canonical URL already spells its site, so :func:`site_prefix` and
:func:`same_site` read it from the text without parsing it again, for what
runs on every page.  The three that parse read the host as ``urlsplit`` does:
lower-cased, without userinfo, an IPv6 literal without its brackets, and not
mapped with IDNA (canonical URLs are ASCII already).

>>> site_of("http://Example.com/a"), host_of("http://Example.com:8080/a"), host_name("http://Example.com:8080/")
('http://example.com:80', 'example.com:8080', 'example.com')
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["DEFAULT_PORTS", "host_name", "host_of", "same_site", "site_of", "site_prefix"]

#: The port a URL of each crawled scheme means when it names none.
DEFAULT_PORTS = {"http": 80, "https": 443}


def site_of(url: str) -> str:
    """The politeness unit: scheme, host and port, the port always written
    (ARCHITECTURE.md, item 13).  ValueError for an invalid port.

    >>> site_of("http://Example.com/a"), site_of("https://example.com:8443/")
    ('http://example.com:80', 'https://example.com:8443')
    >>> site_of("http://user@[::1]:8080/")
    'http://::1:8080'
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or DEFAULT_PORTS.get(scheme, 0)
    return f"{scheme}://{(parts.hostname or '').lower()}:{port}"


def host_of(url: str) -> str:
    """The host as users name a site: with the port when it is not the
    default.  An invalid port is left out rather than refused: a stored URL
    always has a host to file it under.

    >>> host_of("http://Docs.Example.org/x"), host_of("http://127.0.0.1:8001/")
    ('docs.example.org', '127.0.0.1:8001')
    >>> host_of("https://a.test:443/"), host_of("http://a.test:99999/")
    ('a.test', 'a.test')
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    default = DEFAULT_PORTS.get(parts.scheme)
    return f"{host}:{port}" if port and port != default else host


def host_name(url: str) -> str:
    """The host name alone, lower-cased ("" when there is none): what the
    crawl's scope and its blacklist of hosts are written in.

    >>> host_name("http://Docs.Example.org:8080/x"), host_name("mailto:joe@example.org")
    ('docs.example.org', '')
    """
    return urlsplit(url).hostname or ""


def site_prefix(url: str) -> str:
    """A canonical URL's scheme and authority, as its text spells them:
    ``scheme://[userinfo@]host[:port]``.  A canonical URL writes a site one
    way only, so comparing these texts compares sites at the cost of a split.
    It keeps userinfo, so ``http://user@a.com/`` is not on the site of
    ``http://a.com/`` here, while :func:`site_of` puts both on
    ``http://a.com:80``.

    >>> site_prefix("http://a.test:8080/x/y?z"), site_prefix("http://user@a.test/")
    ('http://a.test:8080', 'http://user@a.test')
    """
    return "/".join(url.split("/", 3)[:3])


def same_site(url: str, other: str) -> bool:
    """Same scheme, host and port (and userinfo), for two canonical URLs.

    >>> same_site("http://a.test/x", "http://a.test/y?z")
    True
    >>> same_site("http://a.test/", "https://a.test/"), same_site("http://a.test/", "http://a.test:8080/")
    (False, False)
    """
    return site_prefix(url) == site_prefix(other)
