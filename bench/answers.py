"""Every benchmark query's answer, written down: a change meant to make
searches cheaper must leave each of them exactly as it was.

    python -m bench.answers OUT.json [--sizes 10000] [--demo DIR]
    python -m bench.answers --compare BEFORE.json AFTER.json

Writes the JSON of :meth:`SearchEngine.search` (URLs, order, titles,
snippets, scores, totals, facets, suggestions) for the synthetic query mix
of :mod:`bench.query` on each synthetic index (built on first use) and for
the saved demo query sets (``tests/search/queries``) on a demo data
directory: the first and second page of ten, and the first page with
``--explain``'s numbers. Run it with the old code and the new, then
``--compare``: it prints each query whose answer differs and exits 1 if any.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench import query, synthetic

# (n, page, explain) of each answer written.
_ASKED = ((10, 1, False), (10, 2, False), (10, 1, True))


def answers(data: Path, queries: list[str]) -> dict[str, Any]:
    """Each query's answers on ``data``, keyed by ``n/page/explain query``."""
    from search.engine import SearchEngine, SearchError

    found: dict[str, Any] = {}
    with SearchEngine(data) as engine:
        for text in queries:
            for n, page, explain in _ASKED:
                key = f"{n}/{page}/{int(explain)} {text}"
                try:
                    found[key] = engine.search(text, n=n, page=page, explain=explain).to_json(explain)
                except SearchError as exc:
                    found[key] = {"error": str(exc)}
    return found


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The keys whose answers differ (or that one side lacks)."""
    differ = []
    for index in sorted(set(before) | set(after)):
        old, new = before.get(index, {}), after.get(index, {})
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                differ.append(f"{index}: {key}")
    return differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.answers", description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="file to write the answers to")
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000], help="synthetic index sizes")
    parser.add_argument("--demo", type=Path, default=query.DEMO, help="demo data directory (default: data/demo)")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two answer files")
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads(Path(name).read_text(encoding="utf-8")) for name in args.compare)
        differ = compare(before, after)
        for line in differ[:50]:
            print(f"differs: {line}")
        total = sum(len(answers) for answers in before.values())
        print(f"{len(differ)} of {total} answers differ")
        return 1 if differ else 0
    if not args.out:
        parser.error("give a file to write the answers to, or --compare BEFORE AFTER")
    written: dict[str, Any] = {}
    if args.demo.is_dir():
        written["demo"] = answers(args.demo, query._saved_queries())
    for pages in args.sizes:
        synthetic.build(pages)
        written[f"synthetic-{pages}"] = answers(synthetic.index_dir(pages), query.synthetic_queries(pages))
    Path(args.out).write_text(json.dumps(written, ensure_ascii=False, indent=0, sort_keys=True), encoding="utf-8")
    print(f"{sum(len(a) for a in written.values())} answers of {', '.join(written)} written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
