"""A synthetic web of N pages, indexed once with :class:`IndexBuilder` and cached.

    python -m bench.synthetic [N ...]        (default: 10000 100000)

Query benchmarks need indexes far larger than the demo web, built the way a
crawl builds them: through ``IndexBuilder.add`` in batches (one commit per
5,000 pages, as the indexer commits while draining the item queue), then
``finalize`` for anchors and PageRank. Building 100,000 pages through Whoosh
takes many minutes, so each index is cached in ``bench/.cache/index-N`` with a
``build.json`` recording how long it took; it is rebuilt only when this file
or the indexer's code changes (a fingerprint of their sources), because an
index written by older analysis code may not even open.

The pages are realistic-ish and deterministic: page ``k`` is a function of
``k`` alone (so a query can be drawn from any page without building them
all), on 500 hosts. Words follow a Zipf law over a 30,000-word vocabulary
(common English words first, then made-up words); titles are 2-8 words,
bodies 200-800 words in sentences; one page in eight has a Chinese paragraph
and one in thirty is mostly Chinese, from the words of the demo web's Chinese
site. Each page links to 5-25 pages with anchor text taken from the target's
title, chosen with a strong bias towards a few hub pages, so in-degrees follow
a power law and PageRank has something to say.

Every link points to a page with a lower number, and pages are added from the
highest number down: when a page is indexed, every page linking to it already
is. The anchor text is written by ``finalize``, as anchor documents of their
own (one per linked URL, counted in its report); no page is analysed again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import resource
import shutil
import sys
import time
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache"
SIZES = (10_000, 100_000)
BATCH = 5_000
VOCABULARY = 30_000
HOSTS = 500
SEED = "lantern-synthetic-1"
# The sources an index's bytes depend on (or patterns of their names): a change to
# any rebuilds the cache.
_SOURCES = (
    "bench/synthetic.py",
    "indexer/schema.py",
    "indexer/analysis.py",
    "indexer/builder.py",
    "indexer/store.py",
    "indexer/graph.py",
    "indexer/codec/*.py",
    "indexer/layout.py",
    "indexer/shards.py",
)

_COMMON = """the of and to in a is that for it as was with be by on not he this are or his from at
which but have an they you were her she there been one all we their has would when if so no will
what more can about out up into do time only some could new them other than then its two may first
any like now my these over such our man me even most made after also did many before must through
back years where much your way well down should because each just those people how too little state
good very make world still own see men work long get here between both life being under never day
same another know while last might us great old year off come since against go came right used take
three water page city house part number system report place point found group small large public
local data world light market river music school press road open power search""".split()
_ONSETS = [
    "",
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "w",
    "z",
    "br",
    "ch",
    "cl",
    "dr",
    "fl",
    "gr",
    "pl",
    "pr",
    "sh",
    "st",
    "th",
    "tr",
    "qu",
]
_NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "oo", "ou", "y"]
_CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "ng", "rt"]


@dataclass(frozen=True)
class _Words:
    """A vocabulary and the cumulative Zipf weights to draw from it."""

    words: list[str]
    cumulative: list[float]

    def draw(self, rng: random.Random, k: int, skip: int = 0) -> list[str]:
        """``k`` words by frequency; ``skip`` leaves out the most frequent ones."""
        if not skip:
            return rng.choices(self.words, cum_weights=self.cumulative, k=k)
        low = self.cumulative[skip - 1]
        total = self.cumulative[-1]
        return [self.words[bisect_left(self.cumulative, rng.uniform(low, total))] for _ in range(k)]


def _zipf(words: list[str], s: float = 1.0, q: float = 2.7) -> _Words:
    """Zipf-Mandelbrot weights 1 / (rank + q)^s, the shape of word counts in text."""
    return _Words(words, list(accumulate(1.0 / (rank + q) ** s for rank in range(1, len(words) + 1))))


@lru_cache(maxsize=1)
def english() -> _Words:
    rng = random.Random(SEED + "-vocabulary")
    words = list(dict.fromkeys(_COMMON))
    seen = set(words)
    while len(words) < VOCABULARY:
        word = "".join(
            rng.choice(_ONSETS) + rng.choice(_NUCLEI) + rng.choice(_CODAS)
            for _ in range(rng.choice((1, 2, 2, 2, 3, 3, 4)))
        )
        if len(word) >= 3 and word not in seen:
            seen.add(word)
            words.append(word)
    return _zipf(words)


@lru_cache(maxsize=1)
def chinese() -> _Words:
    """Chinese words of two or more characters from the demo web's Chinese site."""
    import jieba

    from tests.demoweb import zh_data

    jieba.setLogLevel(60)
    text = json.dumps([zh_data.CATEGORIES, zh_data.GENERIC], ensure_ascii=False)
    counts: dict[str, int] = {}
    for word in jieba.cut(text):
        if len(word) >= 2 and all("\u4e00" <= char <= "\u9fff" for char in word):
            counts[word] = counts.get(word, 0) + 1
    ordered = sorted(counts, key=lambda w: (-counts[w], w))
    return _zipf(ordered)


def url_of(k: int) -> str:
    return f"http://site{k % HOSTS}.synthetic.test/{_section(k)}/{k}.html"


def _section(k: int) -> str:
    return ("news", "docs", "wiki", "shop", "blog", "forum")[(k // HOSTS) % 6]


def _rng(k: int) -> random.Random:
    return random.Random(f"{SEED}-{k}")


def title_of(k: int) -> str:
    rng = _rng(k)
    if _is_chinese(rng):
        return "".join(chinese().draw(rng, rng.randint(2, 4)))
    return " ".join(english().draw(rng, rng.randint(2, 8), skip=60)).capitalize()


def _is_chinese(rng: random.Random) -> bool:
    return rng.random() < 1 / 30


def _sentence(rng: random.Random, words: _Words, lo: int, hi: int) -> list[str]:
    return words.draw(rng, rng.randint(lo, hi))


def page(k: int) -> dict[str, Any]:
    """Page ``k`` as a crawler item: the same dict on every call and every machine."""
    rng = _rng(k)
    mostly_chinese = _is_chinese(rng)
    title = title_of(k)
    length = rng.randint(200, 800)
    sentences: list[str] = []
    count = 0
    if mostly_chinese:
        while count < length:
            words = _sentence(rng, chinese(), 6, 20)
            count += len(words)
            sentences.append("".join(words) + "。")
        body = "".join(sentences)
    else:
        while count < length:
            words = _sentence(rng, english(), 6, 24)
            count += len(words)
            sentences.append(" ".join(words).capitalize() + ".")
        if rng.random() < 1 / 8:
            sentences.insert(
                rng.randrange(len(sentences) + 1), "".join(chinese().draw(rng, rng.randint(20, 60))) + "。"
            )
        body = " ".join(sentences)
    headings = [
        " ".join(english().draw(rng, rng.randint(2, 5), skip=60)).capitalize() for _ in range(rng.randint(0, 4))
    ]
    links = []
    for _ in range(rng.randint(5, 25) if k else 0):
        # Lower-numbered targets only (see the module docstring), most of
        # them among the first few hundred pages: a power law of in-degrees.
        target = min(k - 1, int(k * rng.random() ** 3))
        words = title_of(target).split()
        anchor = " ".join(words[: rng.randint(1, 3)]) if rng.random() < 0.85 else "read more"
        links.append([url_of(target), anchor])
    return {
        "type": "page",
        "url": url_of(k),
        "title": title,
        "text": body,
        "headings": headings,
        "description": body[:160],
        "links": links,
        "lang": "zh" if mostly_chinese else "en",
        "fetched": 1_700_000_000.0 + k,
    }


def pages(n: int) -> Iterator[dict[str, Any]]:
    """Pages ``n-1`` down to 0: every page's in-links come before it."""
    for k in range(n - 1, -1, -1):
        yield page(k)


def fingerprint() -> str:
    digest = hashlib.sha256()
    for pattern in _SOURCES:
        for path in sorted(ROOT.glob(pattern)) or [ROOT / pattern]:
            name = path.relative_to(ROOT).as_posix()
            digest.update(name.encode() + b"\0" + (path.read_bytes() if path.exists() else b"") + b"\0")
    return digest.hexdigest()[:16]


def index_dir(n: int) -> Path:
    return CACHE / f"index-{n}"


def cached(n: int) -> dict[str, Any] | None:
    """The build record of a usable cached index of ``n`` pages, else None."""
    record = index_dir(n) / "build.json"
    if not record.exists():
        return None
    info = json.loads(record.read_text())
    return info if info.get("fingerprint") == fingerprint() else None


def build(n: int, log: Any = print) -> dict[str, Any]:
    """The data directory of an ``n``-page index, built unless cached; its build record."""
    from indexer.builder import IndexBuilder

    info = cached(n)
    if info is not None:
        return info
    # Taken before building: sources edited during a long build make it stale.
    stamp = fingerprint()
    target, partial = index_dir(n), CACHE / f"index-{n}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    log(
        f"Building a synthetic index of {n:,} pages in {target.relative_to(ROOT)} "
        f"(one commit per {BATCH:,} pages; cached for later runs)..."
    )
    started = time.monotonic()
    generating = 0.0
    with IndexBuilder(partial) as builder:
        batch: list[dict[str, Any]] = []
        stream = pages(n)
        done = 0
        while True:
            mark = time.monotonic()
            batch = [item for _, item in zip(range(BATCH), stream, strict=False)]
            generating += time.monotonic() - mark
            if not batch:
                break
            builder.add(batch)
            builder.commit()
            done += len(batch)
            elapsed = time.monotonic() - started
            log(f"  {done:>7,} pages, {elapsed:6.0f} s, {done / elapsed:5.0f} pages/s")
        mark = time.monotonic()
        report = builder.finalize()
        finalize = time.monotonic() - mark
    seconds = time.monotonic() - started
    info = {
        "pages": n,
        "documents": report.documents,
        "links": report.links,
        "reindexed_by_finalize": report.reindexed,
        "seconds": round(seconds, 1),
        "generate_seconds": round(generating, 1),
        "finalize_seconds": round(finalize, 1),
        "docs_per_second": round(n / seconds, 1),
        "index_bytes": sum(f.stat().st_size for f in partial.rglob("*") if f.is_file()),
        # This process's peak (python -m bench.synthetic N builds in a process of its own).
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "fingerprint": stamp,
        "built": time.strftime("%Y-%m-%d %H:%M:%S"),
        "python": sys.version.split()[0],
    }
    (partial / "build.json").write_text(json.dumps(info, indent=1) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    log(summary(info))
    return info


def summary(info: dict[str, Any]) -> str:
    minutes = info["seconds"] / 60
    return (
        f"synthetic index of {info['pages']:,} pages ({info['documents']:,} documents, "
        f"{info['links']:,} links, {info['index_bytes'] / 2**20:,.0f} MiB): built in "
        f"{info['seconds']:,.0f} s ({minutes:.1f} min), {info['docs_per_second']:.0f} docs/s "
        f"(generating pages {info['generate_seconds']:.0f} s, finalize {info['finalize_seconds']:.0f} s, "
        f"{info['reindexed_by_finalize']:,} anchor documents written by finalize; peak memory "
        f"{info.get('peak_rss_mib', '?')} MiB)"
    )


def _size(text: str) -> int:
    try:
        size = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of pages: {text!r}") from None
    if size < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {size}")
    return size


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.synthetic", description=__doc__.splitlines()[0])
    parser.add_argument(
        "sizes",
        nargs="*",
        type=_size,
        metavar="N",
        help=f"pages in each index (default: {' '.join(str(n) for n in SIZES)})",
    )
    sizes = parser.parse_args(argv).sizes or list(SIZES)
    for n in sizes:
        info = cached(n)
        if info is not None:
            print(f"cached: {summary(info)} on {info['built']}")
        else:
            build(n)


if __name__ == "__main__":
    main()
