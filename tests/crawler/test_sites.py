"""Which site a URL belongs to: the senses agree on the host and differ only where each says so."""

from __future__ import annotations

import pytest

from crawler.sites import host_name, host_of, same_site, site_of, site_prefix
from crawler.urls import canonicalize

# url, site_of, host_of, host_name
CASES = [
    ("http://Example.COM/a", "http://example.com:80", "example.com", "example.com"),
    ("HTTPS://example.com:443/", "https://example.com:443", "example.com", "example.com"),
    ("http://example.com:0080/", "http://example.com:80", "example.com", "example.com"),
    ("http://example.com:8080/", "http://example.com:8080", "example.com:8080", "example.com"),
    ("https://example.com:80/", "https://example.com:80", "example.com:80", "example.com"),
    ("http://user:secret@example.com:8080/", "http://example.com:8080", "example.com:8080", "example.com"),
    ("http://[::1]:8080/", "http://::1:8080", "::1:8080", "::1"),
    ("http://[2001:DB8::1]/", "http://2001:db8::1:80", "2001:db8::1", "2001:db8::1"),
    ("http://xn--fa-hia.de/", "http://xn--fa-hia.de:80", "xn--fa-hia.de", "xn--fa-hia.de"),
    ("http://127.0.0.1:8001/x", "http://127.0.0.1:8001", "127.0.0.1:8001", "127.0.0.1"),
]


@pytest.mark.parametrize("url, site, host, name", CASES)
def test_the_senses_of_a_site(url: str, site: str, host: str, name: str) -> None:
    assert (site_of(url), host_of(url), host_name(url)) == (site, host, name)


def test_an_invalid_port_is_refused_by_the_politeness_unit_and_left_out_of_the_host() -> None:
    with pytest.raises(ValueError):
        site_of("http://a.test:99999/")
    assert host_of("http://a.test:99999/") == host_of("http://a.test:x/") == "a.test"


def test_no_idna_is_applied_to_a_url_that_is_not_canonical() -> None:
    assert host_of("http://Faß.de/") == host_name("http://Faß.de/") == "faß.de"
    assert host_of(canonicalize("http://Faß.de/")) == "xn--fa-hia.de"


@pytest.mark.parametrize(
    "url, other, same",
    [
        ("http://a.test/x", "http://a.test/y?z#f", True),
        ("http://a.test", "http://a.test/", True),
        ("http://a.test/", "https://a.test/", False),
        ("http://a.test/", "http://a.test:8080/", False),
        ("http://a.test/", "http://b.test/", False),
        ("http://[::1]:8080/", "http://[::1]:8080/x", True),
        # canonicalization drops the userinfo: the same site
        ("http://user@a.test/", "http://a.test/", True),
    ],
)
def test_same_site_compares_the_text_of_canonical_urls(url: str, other: str, same: bool) -> None:
    url, other = canonicalize(url), canonicalize(other)
    assert same_site(url, other) is same
    assert (site_prefix(url) == site_prefix(other)) is same
    if "@" not in url:
        assert (site_of(url) == site_of(other)) is same
