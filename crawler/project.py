"""The project's settings, for what runs outside ``scrapy crawl``.

``scrapy crawl`` finds ``crawler/settings.py`` through ``scrapy.cfg``, so
the crawl's components read every setting without a fallback of their own.
Code that runs elsewhere (a rebuild from the archive, a test that builds its
settings by hand) takes the same values from here, whatever its working
directory, rather than repeating a default: each has one home,
``crawler/settings.py``. Plain values are read from that module directly
(``from crawler import settings as defaults``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crawler import settings as defaults

if TYPE_CHECKING:
    from scrapy.settings import Settings

__all__ = ["project_settings"]


def project_settings(values: Mapping[str, Any] | None = None) -> Settings:
    """Scrapy's defaults, then ``crawler/settings.py``, then ``values`` (as
    ``-s NAME=value`` would give them).

    >>> project_settings().getint("INDEX_QUEUE_MAX") == defaults.INDEX_QUEUE_MAX
    True
    >>> project_settings({"INDEX_QUEUE_MAX": "5"}).getint("INDEX_QUEUE_MAX")
    5
    """
    # Imported when called: `python -m indexer` imports this module's users,
    # and importing Scrapy would make its start a third longer.
    from scrapy.settings import Settings

    settings = Settings()
    settings.setmodule(defaults, priority="project")
    if values:
        settings.setdict(dict(values), priority="cmdline")
    return settings
