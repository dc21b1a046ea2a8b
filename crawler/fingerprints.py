"""Content fingerprints: is this page one the crawl has already seen? (pure)

Two checks, both on what a page says rather than how it is marked up
(ARCHITECTURE.md, item 6):

- :func:`content_fingerprint`, an MD5 of the text with its volatile parts
  left out (numbers: dates, times, counters; month and day names), catches
  exact copies and copies that differ only by a date or a visit counter.
  Version numbers (``2.2.27``, ``v1.4``) are not volatile: they stay in,
  and take part in the 3-grams, so two release notes that differ only in
  the release they describe stay two pages (Django's documentation has 35
  such pairs);
- :func:`simhash`, a 64-bit SimHash of the text's word 3-grams, catches near
  copies: pages whose fingerprints differ in at most a few bits share almost
  all their phrases (Charikar's sketch; Manku, Jain and Das Sarma used it
  with 3 differing bits of 64 to find near-duplicate web pages).
"""

from __future__ import annotations

import hashlib
import itertools
import re

import numpy as np

from crawler.extract import Page

__all__ = ["content_fingerprint", "simhash", "fingerprints", "simhash_blocks", "hamming", "SIMHASH_BITS"]

SIMHASH_BITS = 64

# Matched in case-folded text; the look-aheads skip most positions quickly
# (the first: a character no alternative starts with; 30% of the time).
_VOLATILE = re.compile(
    r"(?=[\dvadfjmnostw])(?:(?<![\w.])v?\d+(?:\.\d+)+|\d+|\b(?=[adfjmnostw])(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?"
    r"|aug(?:ust)?|sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
    r"|mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:rs|rsday)?|fri(?:day)?"
    r"|sat(?:urday)?|sun(?:day)?)\b)"
)
# Words of alphabetic scripts, version numbers kept by _volatile, and single
# CJK characters (no spaces there).
_WORDS = re.compile(r"v\d+(?:_\d+)+|[^\W\d_]+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]", re.UNICODE)
_SHINGLE = 3


# 64-bit mixing constants (the golden ratio; MurmurHash3's finalizer).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_FMIX1 = np.uint64(0xFF51AFD7ED558CCD)
_FMIX2 = np.uint64(0xC4CEB9FE1A85EC53)


def _stable_text(page: Page) -> str:
    """The title and the text, volatile parts out: one line each."""
    title, text = (" ".join(_VOLATILE.sub(_volatile, part.casefold()).split()) for part in (page.title, page.text))
    return f"{title}\n{text}"


def _volatile(match: re.Match[str]) -> str:
    """A version number stays (as one word, ``v2_2_27``); any other number
    or date word goes."""
    found = match.group()
    if "." in found and found[0] in "v0123456789" and not _DOTTED_DATE.fullmatch(found):
        return " v" + found.lstrip("v").replace(".", "_") + " "
    return " "


# 1.4.2024 is a date written with dots, not a version (2.2.27 is a version).
_DOTTED_DATE = re.compile(r"\d{1,2}\.\d{1,2}\.\d{4}")


def fingerprints(page: Page) -> tuple[bytes, int | None]:
    """Both :func:`content_fingerprint` and :func:`simhash`, reading the text once."""
    text = _stable_text(page)
    return _md5(text), _titled(_simhash(text), text)


def _titled(value: int | None, text: str) -> int | None:
    """A SimHash keyed by the page's title (the stable text's first line):
    pages with different titles are never near copies (their hashes are
    about 32 bits apart), as exact copies need the same title too. Two
    security releases with the same notes are two pages."""
    if value is None:
        return None
    title = text.split("\n", 1)[0]
    return value ^ int.from_bytes(hashlib.blake2b(title.encode(), digest_size=8).digest(), "big")


def _md5(text: str) -> bytes:
    return hashlib.md5(text.encode(), usedforsecurity=False).digest()


def content_fingerprint(page: Page) -> bytes:
    """MD5 of what a page says, markup, links and volatile parts left out.

    >>> def page(title, text): return Page("http://a.test/", title=title, text=text)
    >>> a = page("Archive: March 2001", "Mon Tue 1 2 3 No stories in March 2001.")
    >>> b = page("Archive: April 2001", "Mon Tue 1 2 3 4 No stories in April 2001.")
    >>> content_fingerprint(a) == content_fingerprint(b)
    True
    >>> content_fingerprint(a) == content_fingerprint(page("Archive", "A story."))
    False
    >>> notes = "Django {} fixes a security issue in {}. Bugfixes: none."
    >>> old = page("Django 2.2.27 release notes", notes.format("2.2.27", "2.2.26"))
    >>> new = page("Django 3.2.12 release notes", notes.format("3.2.12", "3.2.11"))
    >>> content_fingerprint(old) == content_fingerprint(new)
    False
    >>> content_fingerprint(page("On 1.4.2024", "x")) == content_fingerprint(page("On 2.4.2024", "x"))
    True
    """
    return _md5(_stable_text(page))


def simhash(page: Page) -> int | None:
    """The 64-bit SimHash of the page's word 3-grams; None for too little text.

    Each 3-gram is hashed to 64 bits; bit i of the result is set when more
    3-grams have bit i set than not. A page too short to have 3-grams has no
    near duplicates worth finding (its exact fingerprint decides).

    >>> from itertools import product
    >>> def page(text): return Page("http://a.test/", text=text)
    >>> text = " ".join(map("".join, product("abcdefghij", repeat=3)))  # 1000 words
    >>> hamming(simhash(page(text)), simhash(page(text + " extra")))  # one more word
    2
    >>> hamming(simhash(page(text)), simhash(page(text[:2000])))  # the first half
    20
    >>> simhash(page("too short")) is None
    True
    """
    text = _stable_text(page)
    return _titled(_simhash(text), text)


def _simhash(text: str) -> int | None:
    words = _WORDS.findall(text)
    if len(words) < _SHINGLE:
        return None
    # Each distinct word is hashed once; a 3-gram's hash mixes its words'
    # hashes (rotated by position), all in numpy.
    # Every loop below runs in C (a generator's frame per word was a third
    # of the time on Python's documentation).
    ids = dict(zip(dict.fromkeys(words), itertools.count()))
    order = np.fromiter(map(ids.__getitem__, words), dtype=np.int64, count=len(words))
    hashes = np.frombuffer(
        b"".join([hashlib.blake2b(word, digest_size=8).digest() for word in map(str.encode, ids)]), dtype=np.uint64
    )[order]
    first, second, third = hashes[:-2], hashes[1:-1], hashes[2:]
    with np.errstate(over="ignore"):
        shingles = np.unique(
            (first * _GOLDEN)
            ^ ((second << np.uint64(21)) | (second >> np.uint64(43)))
            ^ ((third << np.uint64(42)) | (third >> np.uint64(22)))
        )
        shingles ^= shingles >> np.uint64(33)
        shingles *= _FMIX1
        shingles ^= shingles >> np.uint64(33)
        shingles *= _FMIX2
        shingles ^= shingles >> np.uint64(33)
    bits = np.unpackbits(shingles.view(np.uint8).reshape(-1, 8), axis=1)
    majority = bits.sum(axis=0, dtype=np.int64) * 2 > len(shingles)
    return int.from_bytes(np.packbits(majority).tobytes(), "big")


def hamming(a: int, b: int) -> int:
    """How many bits differ.

    >>> hamming(0b1011, 0b0010)
    2
    """
    return (a ^ b).bit_count()


def simhash_blocks(value: int, distance: int) -> list[str]:
    """Key suffixes of the ``distance + 1`` bit blocks of a 64-bit SimHash.

    Two hashes at most ``distance`` bits apart agree on at least one whole
    block (pigeonhole), so looking up each block finds every candidate.

    >>> simhash_blocks(0xFFFF_0000_FFFF_0000, 3)
    ['0:ffff', '1:0', '2:ffff', '3:0']
    """
    blocks = distance + 1
    width = -(-64 // blocks)
    suffixes = []
    for index in range(blocks):
        shift = max(0, 64 - width * (index + 1))
        bits = min(width, 64 - width * index)
        suffixes.append(f"{index}:{(value >> shift) & ((1 << bits) - 1):x}")
    return suffixes
