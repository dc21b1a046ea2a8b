"""HTTP dates: every form is UTC, whatever the local time zone of the crawl.

The asctime form (``Sun Nov  6 08:49:37 1994``) names no zone; read as local
time it put a ``Retry-After`` date hours off on a machine not on UTC.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from email.utils import formatdate

import pytest

from crawler.httpdate import parse_http_date
from crawler.middlewares import retry_after_seconds
from crawler.robots import expiry_seconds

# RFC 9110's example, 1994-11-06 08:49:37 UTC, in its three forms.
WHEN = 784111777.0
FORMS = {
    "imf-fixdate": "Sun, 06 Nov 1994 08:49:37 GMT",
    "rfc850": "Sunday, 06-Nov-94 08:49:37 GMT",
    "asctime": "Sun Nov  6 08:49:37 1994",
}


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's local zone is New York's winter time (UTC-5) for one
    test; a POSIX zone, so no time zone database is needed."""
    monkeypatch.setenv("TZ", "EST5")
    time.tzset()
    try:
        assert time.localtime(WHEN).tm_hour == 3  # the zone is in force: 08:49 UTC is 03:49 there
        yield
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.usefixtures("new_york")
@pytest.mark.parametrize("text", FORMS.values(), ids=FORMS.keys())
def test_every_form_of_http_date_is_utc_in_any_local_zone(text: str) -> None:
    assert parse_http_date(text) == WHEN


@pytest.mark.usefixtures("new_york")
@pytest.mark.parametrize("text", FORMS.values(), ids=FORMS.keys())
def test_a_retry_after_date_is_waited_for_to_the_second_in_any_local_zone(text: str) -> None:
    assert retry_after_seconds(text.encode("latin-1"), now=WHEN - 30) == 30.0


@pytest.mark.usefixtures("new_york")
def test_robots_txt_expires_at_its_asctime_date_in_any_local_zone() -> None:
    expires = time.asctime(time.gmtime(WHEN + 7200))
    assert expiry_seconds({"Expires": expires, "Date": formatdate(WHEN, usegmt=True)}, now=WHEN) == 7200.0
    assert expiry_seconds({"Expires": expires}, now=WHEN) == 7200.0


@pytest.mark.parametrize(
    "text", ["", "soon", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 99999999999999999999 08:49:37 GMT"]
)
def test_what_is_not_an_http_date_is_none(text: str) -> None:
    assert parse_http_date(text) is None
    assert retry_after_seconds(text) is None
