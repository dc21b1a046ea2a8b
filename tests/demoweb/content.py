"""Generation of the whole demo web: base URLs in, every site's bytes out.

Pure and deterministic: the same base URLs give the same bytes, and bytes
for other ports differ only where a base URL is written. Sites link to each
other with absolute URLs, which is why every base URL must be known (ports
bound) before any page is generated.
"""

from __future__ import annotations

from urllib.parse import quote

from . import docs, news, paths, wiki, zh
from .site import Web

#: Site names in the order seeds are listed.
SITE_NAMES = ("docs", "news", "zh", "wiki")

#: Queries that show the engine off, one per trick the demo web plays.
DEMO_QUERIES = [
    "json encoder",  # ranking: the json module beats pages that mention JSON in passing
    "read_csv",  # code-like names survive tokenization
    "西湖龙井茶",  # Chinese segmentation and a Chinese title
    "lighthouse inspection",  # found only through anchor text into a robots-disallowed page
    "tidal energy trial",  # plain English news search
    "端午节 粽子",  # two Chinese words on a page with a percent-encoded URL
]


def build(bases: dict[str, str]) -> Web:
    """Every demo site for ``bases`` (site name -> ``http://host:port``), plus facts."""
    missing = set(SITE_NAMES) - set(bases)
    if missing:
        raise ValueError(f"no base URL for sites: {sorted(missing)}")
    news_site, news_facts = news.build(bases)
    wiki_site, wiki_facts = wiki.build(bases)
    sites = {"docs": docs.build(bases), "news": news_site, "zh": zh.build(bases), "wiki": wiki_site}
    facts = {
        "anchor_only": wiki_facts["anchor_only"],
        "chinese_title": {"url": bases["zh"] + paths.ZH_LONGJING, "title": "西湖龙井茶"},
        "non_ascii_path": {"url": bases["zh"] + quote("/jieri/端午节.html"), "title": "端午节"},
        "json_module": {"url": bases["docs"] + paths.DOCS_JSON},
        "duplicates": wiki_facts["duplicates"],
        "calendar_start": news_facts["calendar_start"],
        "almanac_start": news_facts["almanac_start"],
        "disallowed_prefixes": {name: list(site.disallowed) for name, site in sites.items()},
        "base_href": wiki_facts["base_href"],
        "broken_links": wiki_facts["broken_links"],
        "pages_per_site": {name: len(site.allowed_paths()) for name, site in sites.items()},
        "demo_queries": list(DEMO_QUERIES),
    }
    return Web(sites=sites, facts=facts)
