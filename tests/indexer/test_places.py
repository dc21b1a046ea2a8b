"""A hub's listing counted part by part, as a page listed in it asks, is the
one counted over its whole text: the places it gives stay the same."""

from __future__ import annotations

import itertools

from indexer.places import Listings, heading_path, listings, outline

_SECTIONS = [["a", "Commands", "h2"], ["b", "Porcelain", "h3"], ["c", "Notes", "h2"]]


def _counted_in_turn(
    headings: list[tuple[int, list[str]]], text: str, anchors: list[str], order: list[int]
) -> list[int]:
    listed = Listings(headings, text, anchors)
    counts = {part: listed[part] for part in order}
    return [counts[part] for part in range(len(headings) + 1)]


def test_each_part_counts_the_links_listing_counts_there_in_any_order() -> None:
    text = (
        "Intro: see git-add(1) and git-mv(1). Commands Porcelain git-add(1) git-mv(1) git-rm(1) "
        "git-add(1) agit-tag(1) Notes git-tag(1)x git-rm(1) and git-rm(1)."
    )
    headings = outline(text, _SECTIONS)
    anchors = ["git-add(1)", "git-mv(1)", "git-rm(1)", "git-tag(1)", "", "nowhere"]
    whole = listings(headings, text, anchors)
    assert whole == [2, 0, 3, 2]
    for order in itertools.permutations(range(len(headings) + 1)):
        assert _counted_in_turn(headings, text, anchors, list(order)) == whole


def test_a_link_text_that_overlaps_itself_counts_where_the_search_from_the_start_finds_it() -> None:
    # "a a" stands at 0 and 2 of "a a a"; searched from the start, the second
    # overlaps the first and is not found: the part after "Notes" has none.
    for text in ("Commands Porcelain a a Notes a", "Commands Porcelain a aNotes a a"):
        headings = outline(text, _SECTIONS)
        anchors = ["a a", "1.1", "a"]
        whole = listings(headings, text, anchors)
        for order in itertools.permutations(range(len(headings) + 1)):
            assert _counted_in_turn(headings, text, anchors, list(order)) == whole


def test_a_place_found_with_the_parts_counted_as_asked_is_the_place_found_before() -> None:
    links = [f"git-{name}(1)" for name in ("add", "mv", "rm", "tag", "log", "show")]
    text = "Intro: see git-add(1). Commands Porcelain " + " ".join(links) + " Notes see git-add(1)."
    headings = outline(text, _SECTIONS)
    lazily = Listings(headings, text, links)
    assert heading_path(headings, text, ["git-add(1)"], lazily) == ["Commands", "Porcelain"]
    assert heading_path(headings, text, ["git-add(1)"], listings(headings, text, links)) == ["Commands", "Porcelain"]
