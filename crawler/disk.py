"""A full disk, recognised in whatever error says so.

Each part of the crawl meets a full disk in its own words: an ``OSError``
``ENOSPC`` (or ``EDQUOT``, a quota) from a file write, ``MISCONF`` from
Redis (it cannot write its append-only file, and refuses every write),
``database or disk is full`` from SQLite; wrapped in other errors, or only
in the text of a logged message. :func:`disk_full` reads them all, so the
crawl (:mod:`crawler.halt`) and the indexer can stop at once with one line
instead of failing again at every step.

No I/O, but it imports Redis for its error class: glue, by the rule of
ARCHITECTURE.md ("Layers").
"""

from __future__ import annotations

import errno
import re
import sqlite3

import redis

__all__ = ["disk_full", "FULL_DISK_STATUS"]

#: The exit status of ``python -m indexer`` that stopped on a full disk
#: (the crawl that runs it reads it: crawler/halt.py).
FULL_DISK_STATUS = 3

_FULL = (errno.ENOSPC, errno.EDQUOT)
# An OSError quoted in a message ("[Errno 28] No space left on device"), and
# Redis's refusal in a traceback's text. Both need spaces, which a canonical
# URL (what crawled sites put in the log) never holds: no page can stop a crawl.
_ERRNO_TEXT = re.compile(rf"\[Errno (?:{'|'.join(str(n) for n in _FULL)})\] [^\n)]*")
_MISCONF = re.compile(r"MISCONF [^\n]*")
_MISCONF_TEXT = re.compile(r"redis\.exceptions\.\w+: [^\n]*?(MISCONF [^\n]*)")
_SQLITE_FULL = "database or disk is full"


def disk_full(error: BaseException | None = None, text: str = "") -> str | None:
    """What an error (or, failing that, a logged message) says when it means
    the disk is full; None when it means something else. Causes are followed.

    >>> disk_full(OSError(errno.ENOSPC, "No space left on device", "/data/archive/a.warc.gz"))
    '/data/archive/a.warc.gz: No space left on device'
    >>> disk_full(redis.ResponseError("Command # 1 (EVALSHA 9f2c) of pipeline caused error: Error running "
    ...                               "script: @user_script:44: -MISCONF Errors writing to the AOF file: No space "
    ...                               "left on device"))
    'MISCONF Errors writing to the AOF file: No space left on device'
    >>> disk_full(text="Cannot write the archive in /d/archive ([Errno 28] No space left on device): ...")
    '[Errno 28] No space left on device'
    >>> disk_full(sqlite3.OperationalError("database or disk is full")), disk_full(OSError(errno.EACCES, "no"))
    ('database or disk is full', None)
    >>> disk_full(text="Gave up retrying <GET http://example.org/MISCONF-errors/> (failed 3 times)") is None
    True
    >>> try:
    ...     try:
    ...         raise OSError(errno.ENOSPC, "No space left on device")
    ...     except OSError as exc:
    ...         raise RuntimeError("commit failed") from exc
    ... except RuntimeError as exc:
    ...     disk_full(exc)
    'No space left on device'
    """
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        message = str(error)
        if isinstance(error, OSError) and error.errno in _FULL:
            return f"{error.filename}: {error.strerror}" if error.filename else f"{error.strerror or error}"
        if isinstance(error, redis.ResponseError) and (found := _MISCONF.search(message)):
            return found.group(0).strip()
        if isinstance(error, sqlite3.Error) and _SQLITE_FULL in message:
            return _SQLITE_FULL
        if found := _ERRNO_TEXT.search(message):  # an OSError told in another error's words
            return found.group(0).strip()
        error = error.__cause__ or error.__context__
    if found := _ERRNO_TEXT.search(text):
        return found.group(0).strip()
    if found := _MISCONF_TEXT.search(text):
        return found.group(1).strip()
    return None
