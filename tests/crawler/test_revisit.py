"""The revisit interval policy (pure)."""

from __future__ import annotations

import pytest

from crawler.revisit import RevisitBounds, conditional_headers, next_interval

HOUR, DAY = 3600.0, 86400.0


@pytest.mark.parametrize(
    ("previous", "changed", "low", "high", "expected"),
    [
        (DAY, True, HOUR, 30 * DAY, DAY / 2),  # changed: twice as often
        (DAY, False, HOUR, 30 * DAY, 2 * DAY),  # unchanged: half as often
        (HOUR, True, HOUR, 30 * DAY, HOUR),  # never below the site's minimum
        (20 * DAY, False, HOUR, 30 * DAY, 30 * DAY),  # never above its maximum
        (DAY, False, 600, 3 * HOUR, 3 * HOUR),  # a previous interval outside new bounds is clamped first
        (60, False, 600, DAY, 1200),
        (DAY, False, 5 * DAY, DAY, 5 * DAY),  # a maximum below the minimum is the minimum
    ],
)
def test_next_interval(previous: float, changed: bool, low: float, high: float, expected: float) -> None:
    assert next_interval(previous, changed, low, high) == expected


def test_a_page_that_keeps_changing_settles_at_the_minimum_and_a_still_one_at_the_maximum() -> None:
    busy = still = DAY
    for _ in range(20):
        busy = next_interval(busy, True, 600, 7 * DAY)
        still = next_interval(still, False, 600, 7 * DAY)
    assert (busy, still) == (600, 7 * DAY)


def test_per_site_bounds_replace_the_defaults_and_bound_the_first_interval() -> None:
    bounds = RevisitBounds(DAY, HOUR, 30 * DAY, {"https://news.example": [600, 6 * HOUR]})
    assert bounds.for_url("https://news.example/today") == (6 * HOUR, 600, 6 * HOUR)
    assert bounds.for_url("https://news.example:443/x") == (6 * HOUR, 600, 6 * HOUR)
    assert bounds.for_url("http://news.example/x") == (DAY, HOUR, 30 * DAY)  # another site
    with pytest.raises(ValueError, match="news.example"):
        RevisitBounds(DAY, HOUR, DAY, {"https://news.example": "often"})


def test_conditional_headers() -> None:
    assert conditional_headers('"abc"', "Mon, 02 Mar 2026 10:00:00 GMT") == {
        "If-None-Match": '"abc"',
        "If-Modified-Since": "Mon, 02 Mar 2026 10:00:00 GMT",
    }
    assert conditional_headers(None, None) == {}
