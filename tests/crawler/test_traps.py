"""Budgets, blacklists and URL patterns (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawler.traps import Blacklist, PatternBudget
from crawler.urls import url_pattern


@pytest.mark.parametrize(
    ("url", "pattern"),
    [
        ("http://a.test/calendar/2024/06/", "http://a.test/calendar/N/N/"),
        ("http://a.test/page/17?sort=asc&filter=red", "http://a.test/page/N?sort=*&filter=*"),
        ("http://a.test/p?id=1&id=2", "http://a.test/p?id=*&id=*"),
        ("http://a.test:8080/v2/api", "http://a.test:8080/vN/api"),
        ("http://a.test/about.html", "http://a.test/about.html"),
        ("https://a.test/", "https://a.test/"),
    ],
)
def test_url_patterns_mask_what_traps_vary(url: str, pattern: str) -> None:
    assert url_pattern(url) == pattern


def test_a_pattern_budget_counts_each_pattern_alone() -> None:
    budget = PatternBudget(limit=3)
    calendar = [budget.admit(f"http://a.test/cal/{2000 + n}/01/") for n in range(5)]
    assert calendar == [True, True, True, False, False]
    assert all(budget.admit(f"http://a.test/article-{name}.html") for name in "abcdefgh")


def test_a_pattern_budget_forgets_singletons_not_traps() -> None:
    budget = PatternBudget(limit=2, max_patterns=10)
    assert budget.admit("http://a.test/cal/1/") and budget.admit("http://a.test/cal/2/")
    for name in "abcdefghijklmnop":  # many unique patterns force a prune
        budget.admit(f"http://a.test/{name}.html")
    assert not budget.admit("http://a.test/cal/3/")


def test_zero_means_no_pattern_budget() -> None:
    budget = PatternBudget(limit=0)
    assert all(budget.admit(f"http://a.test/{n}") for n in range(100))


def test_blacklist_from_a_file(tmp_path: Path) -> None:
    listing = tmp_path / "blacklist.txt"
    listing.write_text(
        "# trap sites and sites that object\n"
        "Tarpit.example.\n"
        "  \n"
        "re: /cgi-bin/.*\\?\n"
        "ads.test # an ad server\n"
        "re:\\.(?:zip|iso)$\n"
    )
    blacklist = Blacklist.from_file(listing)
    assert blacklist.reason("http://deep.tarpit.example/x") == "host"
    assert blacklist.reason("http://ads.test/") == "host"
    assert blacklist.reason("http://notarpit.example/") is None
    assert blacklist.reason("http://a.test/cgi-bin/search?q=1") == "pattern"
    assert blacklist.reason("http://a.test/files/disk.iso") == "pattern"
    assert blacklist.reason("http://a.test/cgi-bin/static") is None


def test_a_bad_blacklist_pattern_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"bad blacklist pattern '\(unclosed'"):
        Blacklist(patterns=["(unclosed"])
