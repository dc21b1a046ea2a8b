"""Chains of same-pattern pages (crawler.traps.Chains): the pure rule, as a table."""

from __future__ import annotations

import doctest

import pytest

from crawler import traps
from crawler.traps import Chains

A = "http://a.test"
MONTH = f"{A}/cal/2024/05/"
PREV, NEXT = f"{A}/cal/2024/04/", f"{A}/cal/2024/06/"
ABOUT = f"{A}/about.html"


@pytest.mark.parametrize(
    ("why", "page", "chain", "links", "new", "expected"),
    [
        (
            "a calendar month: previous and next new, the rest known: the chain grows",
            MONTH,
            7,
            [PREV, NEXT, ABOUT],
            [PREV, NEXT],
            {PREV: 8, NEXT: 8},
        ),
        ("the month a chain starts at", MONTH, 0, [PREV, NEXT, ABOUT], [NEXT], {NEXT: 1}),
        ("a link to itself is no neighbour", MONTH, 3, [MONTH, PREV, NEXT], [NEXT], {NEXT: 4}),
        ("a page of another pattern starts a chain", ABOUT, 9, [ABOUT, PREV, NEXT], [PREV, NEXT], {PREV: 0, NEXT: 0}),
        (
            "a month that lists a new page elsewhere (an event): not a bare chain",
            MONTH,
            7,
            [PREV, NEXT, f"{A}/events/tide-fair.html"],
            [NEXT, f"{A}/events/tide-fair.html"],
            {NEXT: 0, f"{A}/events/tide-fair.html": 0},
        ),
        (
            "'older posts': each page lists new posts",
            f"{A}/blog?page=41",
            0,
            [f"{A}/blog?page=40", f"{A}/blog?page=42", f"{A}/post/81.html"],
            [f"{A}/blog?page=42", f"{A}/post/81.html"],
            {f"{A}/blog?page=42": 0, f"{A}/post/81.html": 0},
        ),
        (
            "'older posts' over posts found elsewhere: a chain",
            f"{A}/blog?page=41",
            12,
            [f"{A}/blog?page=40", f"{A}/blog?page=42", f"{A}/post/81.html"],
            [f"{A}/blog?page=42"],
            {f"{A}/blog?page=42": 13},
        ),
        (
            "a numbered pager links many pages of its pattern: pagination",
            f"{A}/list/10/",
            30,
            [f"{A}/list/{n}/" for n in (1, 8, 9, 11, 12, 200)],
            [f"{A}/list/12/"],
            {f"{A}/list/12/": 0},
        ),
        (
            "a query-string calendar is one pattern",
            f"{A}/events?month=2024-05",
            2,
            [f"{A}/events?month=2024-04", f"{A}/events?month=2024-06"],
            [f"{A}/events?month=2024-06"],
            {f"{A}/events?month=2024-06": 3},
        ),
        ("nothing new: nothing to say", MONTH, 5, [PREV, NEXT], [], {}),
    ],
)
def test_chain_lengths(why, page, chain, links, new, expected) -> None:
    assert Chains(50).lengths(page, chain, links, new) == expected, why


@pytest.mark.parametrize(
    ("limit", "length", "admitted"),
    [
        (50, 0, True),
        (50, 50, True),
        (50, 51, False),
        (1, 2, False),
        (0, 10_000, True),
    ],
)
def test_a_chain_is_admitted_up_to_its_limit(limit, length, admitted) -> None:
    assert Chains(limit).admit(NEXT, length) is admitted


def test_links_the_crawl_saw_before_restart_no_chain() -> None:
    """An event page this process never followed, which another node or an
    earlier run of the crawl did, is no new page: the month still continues
    the chain. A page the crawl never saw restarts it."""
    event = f"{A}/events/tide-fair.html"
    links = [PREV, NEXT, event]
    assert Chains(50).lengths(MONTH, 7, links, [NEXT, event], lambda urls: [True] * len(urls)) == {NEXT: 8, event: 0}
    assert Chains(50).lengths(MONTH, 7, links, [NEXT, event], lambda urls: [False] * len(urls)) == {NEXT: 0, event: 0}


def test_the_crawl_is_asked_only_about_a_page_that_may_continue_a_chain() -> None:
    asked: list[str] = []

    def known(urls):
        asked.extend(urls)
        return [False] * len(urls)

    chains = Chains(50)
    chains.lengths(ABOUT, 0, [PREV, NEXT], [PREV, NEXT], known)  # another pattern: starts chains
    chains.lengths(MONTH, 3, [PREV, NEXT, ABOUT], [ABOUT], known)  # no month new: nothing to continue
    pager = [f"{A}/list/{n}/" for n in (1, 8, 9, 11, 12, 200)]
    chains.lengths(f"{A}/list/10/", 3, [*pager, ABOUT], [pager[4], ABOUT], known)
    assert asked == []


def test_both_ways_of_a_calendar_spend_one_budget() -> None:
    """A calendar entered in its middle: the months before and after together
    stop at the limit, as do the chains of its pattern that start elsewhere."""
    chains = Chains(limit=4)
    back = [chains.admit(f"{A}/cal/2024/{12 - n:02d}/", n) for n in range(1, 4)]
    ahead = [chains.admit(f"{A}/cal/2025/{n:02d}/", n) for n in range(1, 4)]
    assert back + ahead == [True, True, True, True, False, False]
    assert chains.admit(f"{A}/cal/2030/01/", 0)  # reached from another page: a chain's start
    assert chains.admit(f"{A}/blog?page=2", 1)  # another pattern, its own budget


def test_the_examples_in_the_docstrings_hold() -> None:
    failures, _ = doctest.testmod(traps)
    assert failures == 0
