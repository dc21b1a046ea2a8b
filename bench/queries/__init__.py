"""Known-item query sets of the search-quality bench (:mod:`bench.search_quality`).

One query a line, JSON, in :mod:`search.eval`'s format with one more key,
the section the query is about::

    {"query": "QuerySet.filter", "url": "{site}/ref/models/querysets.html", "fragment": "filter"}

``{site}`` stands for the base URL the site was crawled at, which changes
from run to run (a free port). ``fragment`` (optional) is the id of the
section inside the page: the page is the right answer, the fragment tells
whether the result also led to the right place in it. ``note`` (optional)
is only shown. ``"urls": [...]`` instead of ``"url"`` lists several
acceptable pages, as in :mod:`search.eval`.

Two sources: ``auto/<site>.<kind>.jsonl``, made from the sites' own files
by :mod:`bench.queries.make_auto` (committed; the same files on disk give
the same bytes), :mod:`bench.queries.make_rewritten` (``rewritten``: those
queries typed as people type them) and :mod:`bench.queries.make_hubs`
(``hub``: a page named with its section); and ``hand/<site>.jsonl`` and
``hand/<site>.questions.jsonl``, written by a person (known items; natural
questions). A set is named by its kind (``titles``, ``headings``, ``api``,
``titles-zh``, ``rewritten``, ``hub``...), ``hand`` or ``questions``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from search.eval import JudgementError, parse_judgements

__all__ = ["HERE", "Query", "QueryFileError", "load", "dump", "sets"]

HERE = Path(__file__).resolve().parent


class QueryFileError(ValueError):
    """A query file that cannot be used, and where."""


@dataclass(frozen=True)
class Query:
    query: str
    urls: tuple[str, ...]  # acceptable pages, with the {site} placeholder
    fragment: str = ""
    note: str = ""

    @property
    def url(self) -> str:
        return self.urls[0]

    def to_json(self) -> str:
        """One line, keys in a fixed order, empty optional keys left out.

        >>> Query("json dumps", ("{site}/library/json.html",), "json.dumps").to_json()
        '{"query": "json dumps", "url": "{site}/library/json.html", "fragment": "json.dumps"}'
        """
        record: dict[str, Any] = {"query": self.query}
        if len(self.urls) == 1:
            record["url"] = self.urls[0]
        else:
            record["urls"] = list(self.urls)
        if self.fragment:
            record["fragment"] = self.fragment
        if self.note:
            record["note"] = self.note
        return json.dumps(record, ensure_ascii=False)


def load(path: Path) -> list[Query]:
    """Every query of a JSON Lines file (blank lines skipped), in file order,
    read by :func:`search.eval.parse_judgements` with the sections."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QueryFileError(f"{path}: cannot read: {exc}") from None
    try:
        return [
            Query(written.query, written.urls, written.fragment, written.note)
            for written in parse_judgements(text, path, fragments=True)
        ]
    except JudgementError as exc:
        raise QueryFileError(str(exc)) from None


def dump(queries: Iterable[Query], path: Path) -> None:
    """Write ``queries`` sorted by page, section and query, one a line: the
    same set gives the same bytes, and a page's queries stand together."""
    path.parent.mkdir(parents=True, exist_ok=True)
    ordered = sorted(set(queries), key=lambda q: (q.urls, q.fragment, q.query, q.note))
    lines = [query.to_json() for query in ordered]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def sets(site: str, directory: Path = HERE) -> dict[str, Path]:
    """The query sets of ``site`` found under ``directory``: kind -> file,
    the automatic ones by name, then ``hand`` and ``questions`` when a person wrote them."""
    found = {
        path.name[len(site) + 1 : -len(".jsonl")]: path for path in sorted((directory / "auto").glob(f"{site}.*.jsonl"))
    }
    for name, written in (("hand", f"{site}.jsonl"), ("questions", f"{site}.questions.jsonl")):
        if (directory / "hand" / written).is_file():
            found[name] = directory / "hand" / written
    return found
