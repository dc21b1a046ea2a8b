"""Members-only pages in results: marked, with a snippet of one sentence at most (or none)."""

from __future__ import annotations

import pytest

from search.engine import SearchError
from search.snippets import sentence, word_pattern
from tests.items import page
from tests.search.conftest import Build

REPORT = (
    "Quarterly harbour report for members. Ferry revenue grew by a third in the northern district "
    "this quarter. The board approved two new boats. Revenue from parking fell in the south."
)
PAGES = [
    page("http://members.test/q3.html", "Q3 report", REPORT, members_only=True),
    page("http://public.test/news.html", "Harbour news", "Ferry revenue grew, the board says. Read the report."),
]


def test_a_members_page_is_marked_and_shows_one_sentence(build: Build) -> None:
    engine = build(*PAGES)
    results = {result.url: result for result in engine.search("ferry revenue northern").results}
    members = results["http://members.test/q3.html"]
    assert members.members_only and members.to_json()["members_only"] is True
    assert members.snippet == "**Ferry** **revenue** grew by a third in the **northern** district this quarter."
    public = engine.search("board says").results[0]
    assert public.url == "http://public.test/news.html" and public.members_only is False


def test_none_shows_no_snippet_and_other_values_are_refused(build: Build) -> None:
    engine = build(*PAGES, members_snippet="none")
    results = {result.url: result for result in engine.search("ferry revenue").results}
    assert results["http://members.test/q3.html"].snippet == ""
    assert results["http://public.test/news.html"].snippet  # other pages keep theirs
    with pytest.raises(SearchError, match="members-only snippets must be one of short, none"):
        build(*PAGES, members_snippet="long")


def test_the_sentence_with_most_query_words_and_no_more() -> None:
    pattern = word_pattern(["revenu", "south"])
    assert sentence(REPORT, pattern) == "**Revenue** from parking fell in the **south**."
    assert sentence(REPORT, word_pattern(["elephant"])) == "" and sentence(REPORT, None) == ""
    long = "Revenue " + "and more words " * 40 + "ended the year. Next sentence."
    cut = sentence(long, word_pattern(["revenu"]), width=60)
    assert cut.startswith("**Revenue** and more") and cut.endswith(" ...") and "Next" not in cut
    assert sentence("西湖龙井茶是绿茶。产于杭州。", word_pattern(["杭州"])) == "产于**杭州**。"
