"""``python -m search``: search a data directory from the command line.

python -m search --data DIR [--data DIR...] [--json] [-n 10] [--page P] [--explain] [--anchor-only rank|last|hide]
                 [--members-snippet short|none] QUERY...
"""

from __future__ import annotations

import os

# A search runs no matrix algebra: numpy's BLAS need not start a thread per
# core when it loads (55 of a command's 320 ms on two cores). Set before
# anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import sys
import textwrap
from typing import Any

from search.lean import start_lean

start_lean()  # before Whoosh is imported

from crawler.version import add_version_option, typed_command  # noqa: E402
from indexer.output import emit  # noqa: E402
from search.display import marked  # noqa: E402
from search.engine import Result, Results, SearchEngine, SearchError, page_language  # noqa: E402
from search.options import DEFAULT_N, add_data_option, add_engine_options, data_dirs, engine_options  # noqa: E402


def render(results: Results, explain: bool = False, color: bool = False) -> str:
    """Results as a person reads them in a terminal."""
    first = (results.page - 1) * results.per_page + 1
    lines = _summary(results, first)
    language = page_language(results)
    for number, result in enumerate(results.results, start=first):
        lines.append("")
        lines.extend(_result_lines(number, result, language, explain, color))
    if explain:
        formulas = dict.fromkeys(result.explain.get("formula", "") for result in results.results)
        lines.extend(["", *(textwrap.fill(f"score = {formula}", 100) for formula in formulas if formula)])
    return "\n".join(lines)


def _summary(results: Results, first: int) -> list[str]:
    """The lines above the results: a respelling, and how many there are."""
    if results.showing:
        lines = [f"Showing results for {results.showing!r}; search instead for {results.query!r} with --as-typed."]
    else:
        lines = [f"Did you mean: {results.suggestion}?"] if results.suggestion else []
    if not results.results and results.total and results.page > 1:
        lines.append(
            f"Page {results.page} is past the last page: {results.total} results for "
            f"{results.query!r}, page {results.last_page} is the last."
        )
    elif not results.results:
        lines.append(f"No results for {results.query!r}.")
    else:
        last = first + len(results.results) - 1
        lines.append(
            f"Results {first}-{last} of {results.total} for {results.showing or results.query!r} "
            f"({results.seconds * 1000:.0f} ms)"
        )
    return lines


def _result_lines(number: int, result: Result, language: str, explain: bool, color: bool) -> list[str]:
    """One result: its title, its place in its site, its URL and facts, its
    snippet, its other languages, and what more its site has."""
    title = result.title if result.crawled else f"{result.title} [not fetched]"
    if result.members_only:
        title += " [members only]"
    snippet = _snippet_shown(result.snippet, color)
    if color:
        title = f"\033[1m{title}\033[0m"
    lines = [f"{number:2d}. {title}"]
    if result.hierarchy:
        lines.append("    " + " › ".join(result.hierarchy))
    facts = result.facts(language)
    lines.append(f"    {result.url}" + (f"  ({' · '.join(facts)})" if facts else ""))
    if snippet:
        lines.append(f"    {snippet}")
    if result.also_in:
        lines.append("    also in: " + ", ".join(other["lang"] for other in result.also_in))
    if result.more_from_host:
        lines.append(f"    ({result.more_from_host} more from this site: site:{result.host})")
    if explain:
        lines.append(f"    score {_number(result.score)}")
        lines.extend(_factor_lines(result.explain))
    return lines


def _factor_lines(explain: dict[str, Any]) -> list[str]:
    """The numbers behind a score as a table, one factor a line (the
    formula, the same for every result, is printed once below them).

    >>> print("\\n".join(_factor_lines({"fields": {"title": 4.5, "body": 1.25}, "pagerank": 0.000071,
    ...                                "exact_title": True, "rules": ["a", "b"], "formula": "text"})))
          fields       title 4.5000 · body 1.2500
          pagerank     7.1e-05
          exact_title  yes
          rules        a
                       b
    """
    factors = {name: value for name, value in explain.items() if name != "formula"}
    width = max(map(len, factors), default=0)
    lines: list[str] = []
    for name, value in factors.items():
        shown = value if isinstance(value, list) and value else [value]
        lines.extend(
            f"      {label:<{width}}  {_value(item)}"
            for label, item in zip([name, *[""] * (len(shown) - 1)], shown, strict=True)
        )
    return lines


def _value(value: Any) -> str:
    """A factor as the table shows it: numbers to four places, a mapping's
    items on one line, yes or no."""
    if isinstance(value, dict):
        return " · ".join(f"{name} {_value(item)}" for name, item in value.items())
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return _number(value)
    return str(value)


def _number(value: float) -> str:
    """A number to four places, or three figures when smaller (a PageRank
    in a large index).

    >>> _number(5.72516), _number(0.0000712), _number(0.0)
    ('5.7252', '7.12e-05', '0.0000')
    """
    return f"{value:.4f}" if value == 0 or abs(value) >= 0.001 else f"{value:.3g}"


def _snippet_shown(snippet: str, color: bool) -> str:
    """A snippet as a terminal shows it: the engine's matches bold (``color``), or plain.

    >>> _snippet_shown(r"a **tea** \\*\\*cup\\*\\*", color=False)
    'a tea **cup**'
    """
    on, off = ("\033[1m", "\033[0m") if color else ("", "")
    return "".join(f"{on}{text}{off}" if mark else text for text, mark in marked(snippet))


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """The command; ``prog`` is its name as typed (``lantern search``), else the script's or ``python -m search``."""
    parser = argparse.ArgumentParser(
        prog=prog or typed_command("search"), description="Search a crawled data directory."
    )
    add_data_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("-n", type=int, default=DEFAULT_N, help=f"results per page (default: {DEFAULT_N})")
    parser.add_argument("--page", type=int, default=1, help="page of results (default: 1)")
    parser.add_argument("--explain", action="store_true", help="show the numbers behind each score")
    parser.add_argument(
        "--as-typed", action="store_true", help="search the words as typed, even when a respelling would find more"
    )
    add_engine_options(parser)
    add_version_option(parser)
    parser.add_argument(
        "query",
        nargs="*",
        help='words, "phrases", OR, -word, site:host, lang:xx, type:pdf (html, pdf, text, '
        "media, other), access:members, title:word",
    )
    args = parser.parse_args(argv)
    try:
        with SearchEngine(data_dirs(args), **engine_options(args)) as engine:
            results = engine.search(
                " ".join(args.query),
                n=args.n,
                page=args.page,
                explain=args.explain,
                facets=args.json,
                respell=not args.as_typed,
            )
            empty = None if results.total else engine.empty()
            if empty is not None:
                raise empty
    except SearchError as exc:
        print(f"search: {exc}", file=sys.stderr)
        return 2
    text = (
        json.dumps(results.to_json(args.explain), ensure_ascii=False)
        if args.json
        else render(results, args.explain, color=sys.stdout.isatty())
    )
    emit(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
