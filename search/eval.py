"""``python -m search.eval``: judge the ranking against saved relevance judgements.

    python -m search.eval --data DIR QUERIES.jsonl [--n 10] [--sites SITES] [--json]

ARCHITECTURE.md, item 32: a ranking change is judged by what it does to queries whose
right answers a person wrote down, before it is adopted. Each line of
``QUERIES.jsonl`` is one known-item query, what a user would type, and the
page they mean::

    {"query": "json encoder", "url": "{docs}/library/json.html", "note": "a word on many pages"}

It prints MRR@n, Success@1 and Success@n, query latency, and a table of the
misses.  The query file, the placeholders of ``--sites`` and the metrics:
ARCHITECTURE.md, "Design notes by module", ``search/eval.py``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crawler import settings as defaults
from crawler.urls import canonicalize
from search.engine import SearchEngine, SearchError

__all__ = [
    "Judgement",
    "JudgementError",
    "Outcome",
    "Report",
    "mrr",
    "success_at",
    "percentile",
    "load_judgements",
    "parse_judgements",
    "WrittenJudgement",
    "load_sites",
    "evaluate",
    "main",
]

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w-]*)\}")


class JudgementError(ValueError):
    """A query file or ``--sites`` value that cannot be used, and where."""


# --- metrics (pure) ----------------------------------------------------------


def mrr(ranks: Sequence[int | None], k: int = 10) -> float:
    """Mean reciprocal rank: the mean of ``1/rank``, counting 0 beyond ``k``.

    ``ranks`` holds, per query, the 1-based rank of the first right answer,
    or ``None`` when none was returned.

    >>> mrr([1, 2, None, 4])
    0.4375
    >>> mrr([1, 11], k=10)
    0.5
    >>> mrr([])
    Traceback (most recent call last):
    ...
    ValueError: no queries to average over
    """
    if not ranks:
        raise ValueError("no queries to average over")
    return sum(1.0 / rank for rank in ranks if rank is not None and rank <= k) / len(ranks)


def success_at(ranks: Sequence[int | None], k: int) -> float:
    """The share of queries whose first right answer is within the top ``k``.

    >>> success_at([1, 2, None, 4], 1), success_at([1, 2, None, 4], 10)
    (0.25, 0.75)
    """
    if not ranks:
        raise ValueError("no queries to average over")
    return sum(1 for rank in ranks if rank is not None and rank <= k) / len(ranks)


def percentile(values: Iterable[float], p: float) -> float:
    """The ``p``-th percentile (0-100), interpolated linearly between samples.

    The same definition as ``numpy.percentile``'s default and
    ``statistics.quantiles(method="inclusive")``: p50 of an even count is the
    mean of the two middle values, p100 the maximum.

    >>> percentile([3, 1, 2], 50), percentile([1, 2, 3, 4], 50)
    (2.0, 2.5)
    >>> percentile(range(1, 101), 95)
    95.05
    >>> percentile([7], 95)
    7.0
    """
    ordered = sorted(float(value) for value in values)
    if not ordered:
        raise ValueError("no values")
    if not 0 <= p <= 100:
        raise ValueError(f"percentile {p} is not between 0 and 100")
    position = (len(ordered) - 1) * p / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


# --- judgements --------------------------------------------------------------


@dataclass(frozen=True)
class Judgement:
    """One query and the canonical URLs of its acceptable answers."""

    query: str
    urls: tuple[str, ...]
    written: tuple[str, ...]  # the URLs as the file writes them, for display
    note: str = ""
    line: int = 0


def load_sites(value: str | None) -> dict[str, str]:
    """``--sites``: a JSON object of name -> base URL, inline or in a file.

    >>> load_sites('{"docs": "http://127.0.0.1:8301/"}')
    {'docs': 'http://127.0.0.1:8301'}
    """
    if not value:
        return {}
    text = value
    if value.lstrip()[:1] not in ("{", "["):
        try:
            text = Path(value).read_text(encoding="utf-8")
        except OSError as exc:
            raise JudgementError(f"--sites: cannot read {value}: {exc.strerror}") from None
    try:
        sites = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JudgementError(f"--sites: not JSON ({exc.msg})") from None
    if not isinstance(sites, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in sites.items()):
        raise JudgementError('--sites: expected an object of names to base URLs, like {"docs": "http://..."}')
    # A trailing slash would double the one that starts each placeholder's path.
    return {name: base.rstrip("/") for name, base in sites.items()}


def expand(url: str, sites: Mapping[str, str]) -> str:
    """``url`` with every ``{name}`` replaced by that site's base URL.

    >>> expand("{docs}/library/json.html", {"docs": "http://127.0.0.1:8301"})
    'http://127.0.0.1:8301/library/json.html'
    >>> expand("{wiki}/", {})
    Traceback (most recent call last):
    ...
    KeyError: 'wiki'
    """
    return _PLACEHOLDER.sub(lambda match: sites[match.group(1)], url)


def load_judgements(path: str | Path, sites: Mapping[str, str] | None = None) -> list[Judgement]:
    """Every judgement in a JSON Lines file; :class:`JudgementError` names the bad line."""
    sites = sites or {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise JudgementError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise JudgementError(f"{path}: not UTF-8 text") from None
    judgements = [_judgement(written, sites) for written in parse_judgements(text, path)]
    if not judgements:
        raise JudgementError(f"{path}: no queries")
    return judgements


@dataclass(frozen=True)
class WrittenJudgement:
    """One line of a judgement file as it is written: the query with its
    white space collapsed, the URLs with their placeholders, the fragment
    without its ``#``."""

    query: str
    urls: tuple[str, ...]
    fragment: str
    note: str
    where: str  # "FILE:LINE", for messages
    line: int


def parse_judgements(text: str, source: str | Path, *, fragments: bool = False) -> Iterator[WrittenJudgement]:
    """The judgements of a JSON Lines text, one a line, blank lines skipped,
    in file order; :class:`JudgementError` names the first bad line of
    ``source``.  The one reader of the format, which the search-quality bench
    (:mod:`bench.queries`) reads too: it judges sections as well as pages,
    so it asks for ``fragments`` (the key is then checked, like ``note``).

    >>> [j.urls for j in parse_judgements('{"query": "a", "urls": ["{d}/a", "{d}/b"]}\\n\\n', "q.jsonl")]
    [('{d}/a', '{d}/b')]
    >>> next(parse_judgements('{"query": "a", "url": "{d}/", "fragment": 5}', "q.jsonl", fragments=True))
    Traceback (most recent call last):
    ...
    search.eval.JudgementError: q.jsonl:1: "fragment" and "note" must be strings
    """
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise JudgementError(f"{where}: not JSON ({exc.msg})") from None
        yield _written(record, where, number, fragments)


def _written(record: Any, where: str, number: int, fragments: bool) -> WrittenJudgement:
    if not isinstance(record, dict):
        raise JudgementError(f"{where}: expected an object with query and url")
    query = record.get("query")
    if not isinstance(query, str) or not query.strip():
        raise JudgementError(f'{where}: "query" must be a non-empty string')
    urls = _written_urls(record, where)
    optional = _optional_strings(record, ("fragment", "note") if fragments else ("note",), where)
    fragment = optional.get("fragment", "").lstrip("#")
    return WrittenJudgement(" ".join(query.split()), urls, fragment, optional["note"], where, number)


def _written_urls(record: dict[str, Any], where: str) -> tuple[str, ...]:
    if ("url" in record) == ("urls" in record):
        raise JudgementError(f'{where}: give either "url" or "urls"')
    urls = [record["url"]] if "url" in record else record["urls"]
    if not isinstance(urls, list) or not urls or not all(isinstance(url, str) and url for url in urls):
        raise JudgementError(f'{where}: "url" must be a URL, "urls" a non-empty list of URLs')
    return tuple(urls)


def _optional_strings(record: dict[str, Any], names: tuple[str, ...], where: str) -> dict[str, str]:
    """The values of the optional keys ``names``, "" for one that is absent."""
    values = {name: record.get(name, "") for name in names}
    if not all(isinstance(value, str) for value in values.values()):
        written = " and ".join(f'"{name}"' for name in names)
        raise JudgementError(f"{where}: {written} must be {'strings' if len(names) > 1 else 'a string'}")
    return values


def _judgement(written: WrittenJudgement, sites: Mapping[str, str]) -> Judgement:
    """A written judgement with its placeholders expanded and its URLs canonical."""
    urls = []
    for url in written.urls:
        try:
            full = expand(url, sites)
        except KeyError as exc:
            hint = "pass --sites" if not sites else f"--sites names {', '.join(sorted(sites))}"
            raise JudgementError(f"{written.where}: no base URL for {{{exc.args[0]}}} ({hint})") from None
        try:
            urls.append(canonicalize(full))
        except ValueError as exc:
            raise JudgementError(f"{written.where}: bad URL {full!r}: {exc}") from None
    return Judgement(written.query, tuple(urls), written.urls, written.note, written.line)


# --- evaluation --------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What the engine did with one judgement."""

    judgement: Judgement
    rank: int | None
    top: str | None
    seconds: float


@dataclass
class Report:
    n: int
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def ranks(self) -> list[int | None]:
        return [outcome.rank for outcome in self.outcomes]

    @property
    def misses(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.rank != 1]

    def metrics(self) -> dict[str, Any]:
        ranks, n = self.ranks, self.n
        latency = [outcome.seconds * 1000 for outcome in self.outcomes]
        return {
            "queries": len(ranks),
            f"mrr@{n}": round(mrr(ranks, n), 4),
            "success@1": round(success_at(ranks, 1), 4),
            f"success@{n}": round(success_at(ranks, n), 4),
            "latency_ms": {
                "p50": round(percentile(latency, 50), 2),
                "p95": round(percentile(latency, 95), 2),
                "max": round(max(latency), 2),
            },
        }


def evaluate(engine: SearchEngine, judgements: Sequence[Judgement], n: int = 10) -> Report:
    """Run every query once (timed) after one untimed warm-up query."""
    _search(engine, judgements[0], n)
    report = Report(n)
    for judgement in judgements:
        started = time.perf_counter()
        urls = _search(engine, judgement, n)
        seconds = time.perf_counter() - started
        rank = next((i for i, url in enumerate(urls, start=1) if url in judgement.urls), None)
        report.outcomes.append(Outcome(judgement, rank, urls[0] if urls else None, seconds))
    return report


def _search(engine: SearchEngine, judgement: Judgement, n: int) -> list[str]:
    try:
        return [result.url for result in engine.search(judgement.query, n=n).results]
    except SearchError as exc:
        raise JudgementError(f"line {judgement.line}: {exc}") from None


def render(report: Report, sites: Mapping[str, str], source: str) -> str:
    """The report as a person reads it: metrics, then a table of the misses."""
    metrics, n = report.metrics(), report.n
    total = metrics["queries"]
    hits_1 = sum(1 for rank in report.ranks if rank == 1)
    hits_n = sum(1 for rank in report.ranks if rank is not None)
    latency = metrics["latency_ms"]
    lines = [
        f"{total} queries from {source}, top {n} results",
        f"  MRR@{n:<8d} {metrics[f'mrr@{n}']:.3f}",
        f"  Success@1    {metrics['success@1']:.3f}  ({hits_1}/{total})",
        f"  Success@{n:<4d} {metrics[f'success@{n}']:.3f}  ({hits_n}/{total})",
        f"  Latency      p50 {latency['p50']:.1f} ms, p95 {latency['p95']:.1f} ms, max {latency['max']:.1f} ms"
        " (in-process SearchEngine.search, after one warm-up query)",
    ]
    misses = report.misses
    if not misses:
        lines.append("\nNo misses: every query's page ranked first.")
        return "\n".join(lines)
    lines += ["", f"Misses ({len(misses)} queries not answered at rank 1):"]
    rows = [("rank", "query", "expected", "top result")]
    for outcome in misses:
        judgement = outcome.judgement
        rows.append(
            (
                str(outcome.rank) if outcome.rank else "-",
                judgement.query,
                " | ".join(judgement.written),
                _shorten(outcome.top, sites) if outcome.top else "(no results)",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        lines.append(
            "  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[3]
        )
    return "\n".join(lines)


def _shorten(url: str, sites: Mapping[str, str]) -> str:
    """``url`` with a known base URL written back as its placeholder."""
    for name, base in sites.items():
        if url == base or url.startswith(base + "/"):
            return "{" + name + "}" + url[len(base) :]
    return url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m search.eval",
        description="Measure MRR, Success@k and latency of known-item queries.",
    )
    parser.add_argument("queries", help='JSON Lines file: {"query": ..., "url": ...} per line')
    parser.add_argument("--data", default=defaults.DATA_DIR, help=f"data directory (default: {defaults.DATA_DIR})")
    parser.add_argument("-n", "--n", type=int, default=10, help="results looked at per query (default: 10)")
    parser.add_argument("--sites", help="base URLs for {name} placeholders: JSON object or a file holding one")
    parser.add_argument("--json", action="store_true", help="print the metrics as one JSON object")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be at least 1")
    try:
        sites = load_sites(args.sites)
        judgements = load_judgements(args.queries, sites)
        with SearchEngine(args.data) as engine:
            report = evaluate(engine, judgements, args.n)
    except (JudgementError, SearchError) as exc:
        print(f"search.eval: {exc}", file=sys.stderr)
        return 2
    if args.json:
        data = report.metrics()
        data["misses"] = [
            {
                "query": o.judgement.query,
                "rank": o.rank,
                "expected": list(o.judgement.written),
                "top": _shorten(o.top, sites) if o.top else None,
                "line": o.judgement.line,
            }
            for o in report.misses
        ]
        print(json.dumps(data, ensure_ascii=False))
    else:
        print(render(report, sites, args.queries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
