"""What generation hands to serving: each site's pages, robots.txt and facts.

Generation is pure (base URLs in, bytes out) so two runs with the same ports
give the same bytes, and serving never builds content, only looks it up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Builds a page on request for a path no static page has, or says ``None``.
Dynamic = Callable[[str], "bytes | None"]


@dataclass(frozen=True)
class Site:
    """One demo site: static pages keyed by decoded path, plus its rules.

    Keys are paths as the server sees them after percent-decoding (so
    ``/jieri/春节.html``), which is why the Chinese site's links may be written
    raw or percent-encoded and still reach the same page.
    """

    name: str
    base: str
    lang: str
    pages: Mapping[str, bytes]
    robots: str
    not_found: bytes
    disallowed: tuple[str, ...] = ()
    dynamic: Dynamic | None = None

    def allowed_paths(self) -> list[str]:
        """Static paths a crawler that obeys robots.txt may fetch."""
        return [p for p in self.pages if not p.startswith(self.disallowed)]


@dataclass(frozen=True)
class Web:
    """All sites plus the facts tests and the demo rely on (see ``facts``)."""

    sites: dict[str, Site]
    facts: dict[str, Any] = field(default_factory=dict)


def robots_txt(disallowed: tuple[str, ...]) -> str:
    """A permissive robots.txt that blocks only ``disallowed`` prefixes.

    >>> print(robots_txt(("/private/",)), end="")
    User-agent: *
    Disallow: /private/
    """
    lines = ["User-agent: *"] + [f"Disallow: {prefix}" for prefix in disallowed]
    return "\n".join(lines) + "\n"
