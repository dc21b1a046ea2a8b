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
    assert Chains(limit).admit(length) is admitted


def test_the_examples_in_the_docstrings_hold() -> None:
    failures, _ = doctest.testmod(traps)
    assert failures == 0
