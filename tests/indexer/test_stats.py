"""``python -m indexer stats``: what the index holds, in numbers a user can check; ``--version`` everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawler.version import VERSION
from indexer.builder import IndexBuilder
from tests.commands import run
from tests.items import page


@pytest.fixture
def data(tmp_path: Path) -> Path:
    hub = [(f"http://a.test/{k}", f"page {k}") for k in range(3)] + [("http://elsewhere.test/x", "elsewhere")]
    with IndexBuilder(tmp_path) as builder:
        builder.add(
            [
                page("http://a.test/", "Hub", "The hub links every page.", hub, lang="en"),
                *(
                    page(f"http://a.test/{k}", f"Page {k}", "Back to the hub.", [("http://a.test/", "hub")], lang="en")
                    for k in range(3)
                ),
                page("http://b.test/", "茶", "西湖龙井是绿茶。", [("http://a.test/", "hub")], lang="zh"),
            ]
        )
        builder.finalize()
    return tmp_path


def test_stats_count_documents_sites_languages_and_the_best_ranked(data: Path) -> None:
    done = run("indexer", "stats", "--data", str(data), "--json")
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    assert (stats["documents"], stats["crawled"], stats["anchor_only"]) == (6, 5, 1)
    assert [(site["host"], site["pages"]) for site in stats["sites"]] == [("a.test", 4), ("b.test", 1)]
    assert all(site["last_fetch"] for site in stats["sites"])
    assert stats["languages"] == [{"lang": "en", "pages": 4}, {"lang": "zh", "pages": 1}]
    assert stats["top_pagerank"][0]["url"] == "http://a.test/"  # every page links to the hub
    assert stats["segments"] >= 2 and stats["bytes_on_disk"] > 0 and stats["last_commit"]
    text = run("indexer", "stats", "--data", str(data)).stdout
    assert "6 documents (5 crawled pages, 1 known only by links to them)" in text
    assert "a.test" in text and "http://a.test/" in text


def test_stats_of_no_index_is_one_line(tmp_path: Path) -> None:
    done = run("indexer", "stats", "--data", str(tmp_path / "nothing"))
    assert done.returncode == 2 and done.stderr.strip() == f"indexer: no index in {tmp_path / 'nothing'}"


@pytest.mark.parametrize("module", ["search", "indexer", "crawler"])
def test_every_command_tells_its_version(module: str) -> None:
    done = run(module, "--version")
    assert done.returncode == 0 and done.stdout.strip() == f"python -m {module} (Lantern) {VERSION}"
