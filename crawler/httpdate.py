"""HTTP dates (RFC 9110 section 5.6.7), read as the crawl meets them.

A server may send any of three forms, all meaning UTC: the IMF-fixdate
everyone should send, and the obsolete RFC 850 and asctime forms a
recipient must still accept.  The asctime form names no zone, and Python's
:func:`email.utils.parsedate_to_datetime` returns it as a naive datetime,
which ``timestamp()`` would read as the machine's local time: hours off
wherever the crawl does not run on UTC.  Every header date the crawler reads
(``Retry-After``, robots.txt's ``Expires`` and ``Date``) goes through
:func:`parse_http_date`, which reads it as UTC.

The module is pure: no Scrapy, Twisted or Redis, no I/O.
"""

from __future__ import annotations

from datetime import UTC
from email.utils import parsedate_to_datetime

__all__ = ["parse_http_date"]


def parse_http_date(value: str) -> float | None:
    """Seconds since the epoch of an HTTP date in any of RFC 9110's three
    forms, or None when ``value`` is not one.  A date without a zone (the
    asctime form, or ``-0000``) is UTC; an explicit offset, which RFC 9110
    does not allow but mail-style senders use, is honoured.  A two-digit
    year is that of :func:`email.utils.parsedate_to_datetime` (69 and above:
    19xx).

    >>> parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT")  # IMF-fixdate
    784111777.0
    >>> parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT")  # obsolete RFC 850
    784111777.0
    >>> parse_http_date("Sun Nov  6 08:49:37 1994")  # obsolete asctime: UTC too
    784111777.0
    >>> parse_http_date("Sun, 06 Nov 1994 09:49:37 +0100"), parse_http_date("soon"), parse_http_date("")
    (784111777.0, None, None)
    """
    try:
        when = parsedate_to_datetime(value)
        if when.tzinfo is None:  # asctime and "-0000" carry no zone: they are GMT
            when = when.replace(tzinfo=UTC)
        return when.timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
