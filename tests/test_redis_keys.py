"""ARCHITECTURE.md's table of Redis keys names every key the programs use.

The sources of ``crawler/``, ``indexer/`` and ``search/`` are read with
``ast`` for the ways a key is named there: a literal after the spider's
name (``"web:items"``, ``"%(spider)s:requests"``, ``"{name}:stats:finished"``),
an f-string or a sum that appends to a name or another key
(``f"{name}:nodes"``, ``f"{self.queue}:waiting"``, ``prefix + ":purged"``).
Each such piece, its parts between colons, must appear in that order in a
key of the table's first column. Placeholders (``{t}``, ``<site>``) and the
pieces built from variables alone are not checked: the table describes them,
the code cannot say what they hold.
"""

from __future__ import annotations

import ast
import re

from tests.commands import ROOT

_PACKAGES = ("crawler", "indexer", "search")
# A key's own text: a letter first, no spaces (a log line's "{x}: ..." is not one).
_PIECE = r":[A-Za-z_][\w:.-]*"
_NAMED = re.compile(r"^(?:web|%\(spider\)s|%\(name\)s|\{name\})(" + _PIECE + ")")
_APPENDED = re.compile("^" + _PIECE)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def key_pieces(source: str) -> set[str]:
    """The pieces of Redis keys a Python source names (``:stats:finished``).

    >>> sorted(key_pieces('K = "web:items"; f"{name}:nodes"; q + ":purged"; f"{a}: {b}"; "{name}:stats:x"'))
    [':items', ':nodes', ':purged', ':stats:x']
    """
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    pieces = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            named = _NAMED.match(node.value)
            if named:
                pieces.add(named.group(1))
        elif isinstance(node, ast.JoinedStr):
            for before, after in zip(node.values, node.values[1:], strict=False):
                if isinstance(before, ast.FormattedValue) and isinstance(after, ast.Constant):
                    appended = _APPENDED.match(str(after.value))
                    if appended:
                        pieces.add(appended.group())
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.right, ast.Constant):
            appended = _APPENDED.match(str(node.right.value))
            if appended:
                pieces.add(appended.group())
    return pieces


def table_keys(markdown: str) -> list[list[str]]:
    """The keys of the table under "### Redis keys", each as its parts between colons."""
    section = markdown.split("\n### Redis keys\n", 1)[1].split("\n#", 1)[0]
    keys = []
    for line in section.splitlines():
        if line.startswith("| `"):
            for key in re.findall(r"`([^`]+)`", line.split("|")[1]):
                keys.append([part for part in key.replace("[", "").replace("]", "").split(":") if part])
    return keys


def unlisted(pieces: set[str], keys: list[list[str]]) -> list[str]:
    """The pieces no key of the table holds, its parts in a row.

    >>> unlisted({":nodes", ":node:", ":lease:seq", ":seq:lease"}, [["web", "nodes"], ["web", "lease", "seq", "{t}"]])
    [':node:', ':seq:lease']
    """

    def listed(parts: list[str]) -> bool:
        return any(key[n : n + len(parts)] == parts for key in keys for n in range(len(key)))

    return sorted(piece for piece in pieces if not listed([part for part in piece.split(":") if part]))


def _code_pieces() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for package in _PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for piece in key_pieces(path.read_text(encoding="utf-8")):
                found.setdefault(piece, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_redis_key_the_code_names_is_in_the_architecture_table() -> None:
    found = _code_pieces()
    keys = table_keys((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    # The scan sees the keys it must (else it would pass by finding nothing).
    assert {":requests", ":dupefilter", ":items", ":nodes", ":start_urls", ":simhash:urls"} <= set(found)
    missing = unlisted(set(found), keys)
    assert not missing, {piece: sorted(found[piece]) for piece in missing}


def test_a_key_the_table_lacks_is_found() -> None:
    keys = table_keys((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    assert unlisted(key_pieces('client.get(f"{self.name}:stats:brand_new")'), keys) == [":stats:brand_new"]
