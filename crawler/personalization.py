"""PageRank personalization, as the crawl's setting and the indexer's argument (pure).

``PAGERANK_PERSONALIZATION`` (ARCHITECTURE.md, item 28) maps sites or URL
prefixes to weights. The crawl checks it when it starts, so that a mistake
is one clear error there rather than a line in the log of the indexer it
runs; the indexer (``--personalization``, and the value it keeps for later
finalizes) and search read it with the same :func:`parse_personalization`.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse_personalization", "personalization_argument"]


def parse_personalization(text: str) -> dict[str, float]:
    """``{"https://docs.example.org/": 3, ...}`` from JSON, or ValueError saying what is wrong.

    >>> parse_personalization('{"https://a.test/": 3}')
    {'https://a.test/': 3.0}
    """
    try:
        found = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"PageRank personalization is not JSON: {exc}") from None
    if not isinstance(found, dict) or not all(
        isinstance(key, str)
        and key.startswith(("http://", "https://"))
        and isinstance(value, (int, float))
        and not isinstance(value, bool)
        and value >= 0
        for key, value in found.items()
    ):
        raise ValueError(
            "PageRank personalization must map sites or URL prefixes to weights of 0 or more, "
            'as {"https://docs.example.org/": 3}'
        )
    return {key: float(value) for key, value in found.items()}


def personalization_argument(value: Any) -> str | None:
    """PAGERANK_PERSONALIZATION as the indexer's JSON argument (a JSON text
    from ``-s``, or a dict in a settings file); ValueError if it is not one.

    >>> personalization_argument({"https://docs.example.org/": 3}), personalization_argument(None)
    ('{"https://docs.example.org/": 3}', None)
    >>> personalization_argument("docs.example.org=3")
    Traceback (most recent call last):
    ...
    ValueError: PageRank personalization is not JSON: Expecting value: line 1 column 1 (char 0)
    """
    if not value:
        return None
    text = value if isinstance(value, str) else json.dumps(dict(value))
    parse_personalization(text)  # one clear error at the start, not in the indexer's log
    return text
