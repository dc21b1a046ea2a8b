"""Content codings undone, the decoded size bounded (pure).

A response's ``Content-Encoding`` (gzip, deflate, br, zstd) is undone by the
crawl (:class:`crawler.limits.Decompression`), by a rebuild from the archive
and by search's cached copies (:func:`crawler.archive.decode_body`), each to
the crawl's ``DOWNLOAD_MAXSIZE`` at most: a decompression bomb costs no
more memory than a plain body of that size.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator

import brotli

try:
    from compression import zstd  # Python 3.14
except ImportError:
    from backports import zstd

__all__ = ["ACCEPT_ENCODING", "decode", "inflate"]

_CHUNK = 64 * 1024  # bytes inflated at a time: memory stays bounded by the limit
_DECODE_ERRORS = (zlib.error, brotli.error, zstd.ZstdError, EOFError, ValueError)


def _zlib_chunks(body: bytes, wbits: int) -> Iterator[bytes]:
    """Every member of a gzip body (``wbits`` 31), or a zlib/raw deflate stream."""
    data = body
    while data:
        decompressor = zlib.decompressobj(wbits)
        yield decompressor.decompress(data, _CHUNK)
        while decompressor.unconsumed_tail and not decompressor.eof:
            yield decompressor.decompress(decompressor.unconsumed_tail, _CHUNK)
        yield decompressor.flush()  # what the input held past the last chunk (a few bytes)
        # Concatenated gzip members are one body; anything else after the end
        # (padding, junk) is not part of it.
        data = decompressor.unused_data if wbits == 31 and decompressor.eof else b""
        if data[:2] != b"\x1f\x8b":
            return


def _gunzip(body: bytes) -> Iterator[bytes]:
    return _zlib_chunks(body, 16 + zlib.MAX_WBITS)


def _inflate(body: bytes) -> Iterator[bytes]:
    """``deflate`` as RFC 9110 means it (zlib), or the raw deflate some servers send."""
    try:
        zlib.decompressobj().decompress(body[:_CHUNK], 1)
    except zlib.error:
        return _zlib_chunks(body, -zlib.MAX_WBITS)
    return _zlib_chunks(body, zlib.MAX_WBITS)


def _unbrotli(body: bytes) -> Iterator[bytes]:
    decompressor = brotli.Decompressor()
    yield decompressor.process(body, output_buffer_limit=_CHUNK)
    while not decompressor.is_finished():
        chunk = decompressor.process(b"", output_buffer_limit=_CHUNK)
        if not chunk:
            return
        yield chunk


def _unzstd(body: bytes) -> Iterator[bytes]:
    data = body
    while data:
        decompressor = zstd.ZstdDecompressor()
        yield decompressor.decompress(data, _CHUNK)
        while not decompressor.eof and not decompressor.needs_input:
            yield decompressor.decompress(b"", _CHUNK)
        data = decompressor.unused_data if decompressor.eof else b""


_DECODERS: dict[str, Callable[[bytes], Iterator[bytes]]] = {
    "gzip": _gunzip,
    "x-gzip": _gunzip,
    "deflate": _inflate,
    "br": _unbrotli,
    "zstd": _unzstd,
}
# What the crawl asks for; a site may send any of these.
ACCEPT_ENCODING = b"gzip, deflate, br, zstd"


def inflate(body: bytes, coding: str, limit: int) -> tuple[bytes, bool]:
    """``body`` decoded from one content coding (``gzip``, ``deflate``, ``br``,
    ``zstd``): at most its first ``limit`` bytes (0: all), and whether more
    was left.  A decompression bomb (2 MB that inflate to 2 GiB) inflates no
    further than the limit, 64 KiB at a time, so memory stays bounded
    whatever the ratio.  A stream that breaks off (a body cut off on the
    wire) keeps what was decoded before the break; ValueError when not one
    byte can be decoded.

    >>> import gzip
    >>> inflate(gzip.compress(b"x" * 100_000), "gzip", 10)
    (b'xxxxxxxxxx', True)
    >>> inflate(gzip.compress(b"abc") + gzip.compress(b"def"), "gzip", 10)
    (b'abcdef', False)
    >>> inflate(b"<p>not compressed</p>", "gzip", 10)
    Traceback (most recent call last):
    ValueError: not a gzip body: Error -3 while decompressing data: incorrect header check
    """
    decoder = _DECODERS[coding]
    kept = bytearray()
    try:
        for chunk in decoder(body):
            kept += chunk
            if limit and len(kept) > limit:
                del kept[limit:]
                return bytes(kept), True
    except _DECODE_ERRORS as exc:
        if not kept:
            raise ValueError(f"not a {coding} body: {exc}") from None
    return bytes(kept), False


def decode(body: bytes, codings: list[str], limit: int) -> tuple[bytes, list[str], bool]:
    """``body`` with its content codings (in the order they were applied, as
    ``Content-Encoding`` lists them) undone, the last first, as far as they
    are known (``identity`` is none); the codings left undone, and whether
    the body was cut off at ``limit`` (0: no limit). What the crawl does to
    a response (:class:`crawler.limits.Decompression`) and a rebuild to an archived one
    (:func:`crawler.archive.decode_body`). ValueError for a body that is not
    in its coding.

    >>> import gzip
    >>> decode(gzip.compress(b"<p>page</p>"), ["identity", "gzip"], 0)
    (b'<p>page</p>', [], False)
    >>> decode(gzip.compress(b"x" * 100), ["compress", "gzip"], 10)
    (b'xxxxxxxxxx', ['compress'], True)
    """
    codings = list(codings)
    cut = False
    while codings and (codings[-1] in _DECODERS or codings[-1] == "identity"):
        coding = codings.pop()  # the last coding applied is undone first
        if coding != "identity":
            body, cut_here = inflate(body, coding, limit)
            cut = cut or cut_here
    return body, codings, cut
