"""What a body is, when its Content-Type does not say or says wrong (pure).

Servers send no Content-Type, a generic one (``application/octet-stream``),
a malformed one, or ``text/html`` for whatever they have. The rules, after
the WHATWG MIME Sniffing Standard, kept small:

- a declared type is used when it is well formed and not generic, except
  that a known binary signature (``%PDF-``, PNG, JPEG, ZIP, gzip...) wins
  over a declared ``text/*``: a PDF served as text/html is still a PDF;
- an undeclared or generic body is identified by its signature, then by the
  HTML markers browsers look for (``<!DOCTYPE html``, ``<html``, ``<p``...,
  plus a few tags pages start with that no other format does: ``<meta``,
  ``<link``, ``<ul``...), then as text/plain when its first 1445 bytes have
  no binary byte (control characters other than whitespace), else it stays
  application/octet-stream.

:func:`binary_text` is the last check, on decoded text: junk served as text
(NUL characters, or more than 10% control or undecodable characters at the
start) is no document.
"""

from __future__ import annotations

import re

__all__ = ["GENERIC", "media_type_of", "magic", "sniff", "binary_text"]

#: Types that say nothing about the body.
GENERIC = frozenset(
    [
        "application/octet-stream",
        "binary/octet-stream",
        "application/unknown",
        "unknown/unknown",
        "application/x-unknown-content-type",
        "application/force-download",
        "application/download",
        "*/*",
    ]
)

_MEDIA_TYPE = re.compile(r"\s*([a-z0-9!#$&^_.+\-]+/[a-z0-9!#$&^_.+\-*]+)\s*(?:[;,]|$)", re.I)
_SIGNATURES: tuple[tuple[bytes, int, str], ...] = (
    # (bytes, at offset, media type)
    (b"%PDF-", 0, "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"II*\x00", 0, "image/tiff"),
    (b"MM\x00*", 0, "image/tiff"),
    (b"\x00\x00\x01\x00", 0, "image/x-icon"),
    (b"\x00\x00\x00", 0, ""),  # an ISO media box size: "ftyp" follows (below)
    (b"\x1a\x45\xdf\xa3", 0, "video/webm"),
    (b"RIFF", 0, ""),  # a RIFF container: its type follows (below)
    (b"ID3\x02", 0, "audio/mpeg"),
    (b"ID3\x03", 0, "audio/mpeg"),
    (b"ID3\x04", 0, "audio/mpeg"),
    (b"OggS\x00", 0, "audio/ogg"),
    (b"fLaC", 0, "audio/flac"),
    (b"PK\x03\x04", 0, "application/zip"),
    (b"\x1f\x8b\x08", 0, "application/gzip"),
    (b"7z\xbc\xaf\x27\x1c", 0, "application/x-7z-compressed"),
    (b"Rar!\x1a\x07", 0, "application/vnd.rar"),
    (b"\xfd7zXZ\x00", 0, "application/x-xz"),
    (b"\x28\xb5\x2f\xfd", 0, "application/zstd"),
    (b"ustar\x00", 257, "application/x-tar"),
    (b"ustar  \x00", 257, "application/x-tar"),
)
# Second halves of two-part signatures: (bytes, at offset, media type).
_CONTAINERS = {
    b"\x00\x00\x00": ((b"ftyp", 4, "video/mp4"),),
    b"RIFF": ((b"WEBP", 8, "image/webp"), (b"AVI ", 8, "video/x-msvideo"), (b"WAVE", 8, "audio/wav")),
}
_HTML_MARKER = re.compile(
    rb"\s*(?:<\?xml[^>]*>\s*)?(?:<!--|(?:<!doctype\s+html|<html|<head|<script|<iframe|<h1|<div"
    rb"|<font|<table|<a|<style|<title|<b|<body|<br|<p"
    # not in the standard's list, but no other format starts with them
    rb"|<meta|<link|<base|<main|<nav|<header|<section|<article|<ul|<span|<img|<form|<frameset"
    rb"|<center|<noscript)[\s>/])",
    re.I,
)
_BINARY_BYTES = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]")
_BINARY_CHARS = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\ufffd]")
_SNIFF_LENGTH = 1445
_TEXT_CHECK = 4096


def media_type_of(content_type: str | None) -> str | None:
    """The lower-cased ``type/subtype`` of a header value, None if malformed.

    Lenient: parameters, spaces and a second value joined by a comma
    (duplicated headers) are ignored.

    >>> media_type_of("Text/HTML; charset=gbk"), media_type_of("text/html, text/html")
    ('text/html', 'text/html')
    >>> media_type_of("html"), media_type_of(None)
    (None, None)
    """
    if not content_type:
        return None
    match = _MEDIA_TYPE.match(content_type)
    return match.group(1).lower() if match else None


def magic(body: bytes) -> str | None:
    """The media type a binary signature at the start of ``body`` proves.

    >>> magic(b"%PDF-1.7 ..."), magic(b"\\x89PNG\\r\\n\\x1a\\n..."), magic(b"<html>")
    ('application/pdf', 'image/png', None)
    """
    for signature, offset, media_type in _SIGNATURES:
        if body.startswith(signature, offset):
            if media_type:
                return media_type
            for inner, at, contained in _CONTAINERS[signature]:
                if body.startswith(inner, at):
                    return contained
    if body[:1024].lstrip().startswith(b"%PDF-"):  # PDF readers allow junk before it
        return "application/pdf"
    return None


def sniff(body: bytes) -> str:
    """The media type of an undeclared body: signature, HTML markers, text or binary.

    >>> sniff(b"  <!DOCTYPE html><title>x</title>"), sniff(b"plain words\\n")
    ('text/html', 'text/plain')
    >>> sniff(b"\\x00\\x01\\x02junk")
    'application/octet-stream'
    """
    found = magic(body)
    if found is not None:
        return found
    head = body[:_SNIFF_LENGTH]
    for bom in (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"):
        if head.startswith(bom):
            head = head[len(bom) :].replace(b"\x00", b"") if len(bom) == 2 else head[3:]
            break
    if _HTML_MARKER.match(head):
        return "text/html"
    if _BINARY_BYTES.search(head):
        return "application/octet-stream"
    return "text/plain"


def binary_text(text: str) -> bool:
    """Whether decoded text is really binary junk.

    >>> binary_text("<p>fine</p>"), binary_text("a\\x00b"), binary_text("\\ufffd\\x01" * 50 + "abc")
    (False, True, True)
    """
    head = text[:_TEXT_CHECK]
    if _BINARY_CHARS.search(head) is None:
        return False
    if "\x00" in head:
        return True
    return len(_BINARY_CHARS.findall(head)) * 10 > len(head)
