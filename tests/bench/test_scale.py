"""The scale benchmark's pure parts: the generated web's pages, and the figures' arithmetic.

Its pages must look like documentation and news pages (20-100 KB of HTML,
20-150 links), be the same on every call, and form a web the crawl can
walk: every page reached from its site's home page, no link to a page that
does not exist. No crawl, no server.
"""

from __future__ import annotations

import doctest
import re
from collections import deque
from pathlib import Path
from urllib.parse import urlsplit

import lxml.html
import pytest

import bench.scale
import bench.scaleweb
from bench.scale import Figures, growth, role_of, role_peaks, stage_of, stages, verdicts
from bench.scaleweb import MAX_BYTES, MAX_LINKS, MIN_BYTES, MIN_LINKS, PORT_MARK, ScaleWeb, nginx_config

pytestmark = pytest.mark.slow


def _links(page: str) -> list[str]:
    return [a.get("href") for a in lxml.html.fromstring(page).iter("a")]


@pytest.mark.parametrize("pages", [100, 1_000, 30_000])
def test_pages_weigh_and_link_like_documentation(pages: int) -> None:
    web = ScaleWeb(pages)
    sample = sorted({0, 1, pages - 1, *range(0, pages, max(1, pages // 60))})
    sizes = [len(web.html(k).encode()) for k in sample]
    counts = [len(_links(web.html(k))) for k in sample]
    assert all(MIN_BYTES <= size <= MAX_BYTES for size in sizes), (min(sizes), max(sizes))
    assert all(MIN_LINKS <= count <= MAX_LINKS for count in counts), (min(counts), max(counts))
    # Spread over the ranges, not piled at one end.
    assert max(sizes) - min(sizes) > 30_000 and max(counts) - min(counts) > 60


def test_a_page_is_the_same_on_every_call() -> None:
    first = ScaleWeb(10_000).html(4321)
    bench.scaleweb._title.cache_clear()
    assert ScaleWeb(10_000).html(4321) == first
    assert ScaleWeb(10_000).html(4322) != first


def test_some_pages_are_chinese() -> None:
    web = ScaleWeb(1_000)
    languages = [re.search(r'<html lang="(\w+)"', web.html(k)).group(1) for k in range(200)]  # type: ignore[union-attr]
    assert 0 < languages.count("zh") < 40
    assert re.search("[\u4e00-\u9fff]{4}", web.html(languages.index("zh")))


def test_every_page_is_reached_from_its_home_page_and_every_link_is_a_page() -> None:
    web = ScaleWeb(300)
    paths = {(web.address(web.site_of(k)), web.path(k)): k for k in range(web.pages)}
    reached: set[int] = set()
    for site in range(web.sites):
        todo = deque([paths[(web.address(site), "/")]])
        while todo:
            k = todo.popleft()
            if k in reached:
                continue
            reached.add(k)
            for href in _links(web.html(k)):
                parts = urlsplit(href)
                address = parts.hostname or web.address(web.site_of(k))
                assert not parts.netloc or parts.netloc == f"{address}:{PORT_MARK}", href
                assert (address, parts.path) in paths, f"page {k} links to {href}, which is no page"
                target = paths[(address, parts.path)]
                if web.site_of(target) == site:
                    todo.append(target)
    assert reached == set(range(web.pages))


def test_sites_are_loopback_addresses_of_a_hundred_pages_each() -> None:
    web = ScaleWeb(100_000)
    assert web.sites == 1_000
    assert len({web.address(site) for site in range(web.sites)}) == web.sites
    assert all(web.address(s).startswith("127.") and not web.address(s).startswith("127.0.0.") for s in range(1000))
    assert {web.site_size(site) for site in range(web.sites)} == {100}
    config = nginx_config(web, bench.scaleweb.CACHE, bench.scaleweb.CACHE, 8080)
    assert config.count("listen 127.") == 1_000 and f"sub_filter '{PORT_MARK}'" in config


def test_a_web_of_no_pages_is_refused() -> None:
    with pytest.raises(ValueError, match="1 page or more"):
        ScaleWeb(0)


# --- the figures ------------------------------------------------------------------------------


def test_processes_are_told_apart_by_command_and_parent() -> None:
    crawl = ["/v/python", "-m", "scrapy", "crawl", "web", "-s", "INDEX_WITH_CRAWL=1"]
    indexer = ["/v/python", "-m", "indexer", "--data", "d", "--follow", "--beside-crawl"]
    assert role_of(crawl, None) == "crawl"
    assert role_of(indexer, "crawl") == "indexer"
    assert role_of(indexer, "indexer") == "writers"
    assert role_of(["/v/python", "-c", "from multiprocessing.spawn import spawn_main"], "crawl") == "extract"
    assert role_of(["py-spy", "record", "--", *crawl], None) is None
    # The several-machines recipe: an indexer started on its own, its writers forked.
    assert role_of(indexer[:-1], None) == "indexer"


def test_a_role_peaks_at_what_its_processes_hold_at_once() -> None:
    """Merge processes one after another are never resident together: their
    role's peak is the most they held at once, or one process's own peak."""
    roles = {10: "indexer", 11: "writers", 12: "writers", 13: "writers"}
    own = {10: 700, 11: 300, 12: 280, 13: 120}
    assert role_peaks(roles, own, {"indexer": 650, "writers": 330}) == {"indexer": 700, "writers": 330}
    assert role_peaks(roles, own, {"indexer": 650, "writers": 250})["writers"] == 300


def test_the_recipe_runs_nodes_without_their_indexer_and_indexers_on_their_shares(tmp_path: Path) -> None:
    node = bench.scale._recipe_command("node", 2, tmp_path, "redis://r", tmp_path / "seeds", 2)
    assert ["-s", "INDEX_WITH_CRAWL=0"] == node[-4:-2] and node[-1] == "FRONTIER_PARTITIONS=4"
    assert f"DATA_DIR={tmp_path / 'node-2'}" in node
    indexer = bench.scale._recipe_command("indexer", 2, tmp_path, "redis://r", tmp_path / "seeds", 2)
    data = str(tmp_path / "index-2")
    assert indexer[1:] == ["-m", "indexer", "--data", data, "--redis", "redis://r", "--follow", "--partitions", "2/2"]
    alone = bench.scale._recipe_command("indexer", 1, tmp_path, "redis://r", tmp_path / "seeds", 1)
    assert "--partitions" not in alone and alone[-1] == "--follow"


def test_profiled_samples_are_shared_out_as_the_measured_cpu() -> None:
    lines = [
        'process 1:"python -m scrapy crawl web";run (twisted/internet/base.py:1);parse (crawler/extract.py:9) 30',
        'process 1:"python -m scrapy crawl web";run (twisted/internet/base.py:1);_read (twisted/x.py:2) 10',
        'process 1:"python -m scrapy crawl web";process 2:"python -m indexer";add (indexer/analysis.py:5) 40',
        'process 1:"python -m scrapy crawl web";process 2:"python -m indexer";add (whoosh/writing.py:5) 20',
    ]
    # Each process's own CPU, shared as its samples are; a process not measured is left out.
    cpu = {1: 8.0, 2: 3.0}
    assert stages(lines, cpu) == pytest.approx({"extract": 6.0, "fetch": 2.0, "analyse": 2.0, "write": 1.0})
    assert stages(lines, {2: 3.0}) == pytest.approx({"analyse": 2.0, "write": 1.0})
    assert stage_of(["f (indexer/__main__.py:1)"]) == "other"


def test_growth_and_goals() -> None:
    assert growth(100.0, 300.0, 10_000, 30_000) == "1.00"
    figures = Figures(10_000, indexed=10_000, seconds=100.0, finalize_seconds=5.0, p95=20.0, text_bytes=100)
    figures.disk = {"index": 150, "page store": 30, "link graph": 10, "archive": 1000}
    judged = dict(zip([goal[0] for goal in bench.scale.GOALS], verdicts(figures), strict=True))
    assert judged["pages/s, whole command"] == "100.0 (met)"
    assert judged["finalize / crawl time"] == "5.0% (MISSED)"
    assert judged["index + page store + link graph / text"] == "1.90x (met)"


@pytest.mark.parametrize("module", [bench.scale, bench.scaleweb])
def test_doctests(module: object) -> None:
    failed, tried = doctest.testmod(module)  # type: ignore[arg-type]
    assert tried and not failed
