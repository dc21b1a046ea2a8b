"""The codebase stays easy to change: limits on the size of its parts.

- A function of cyclomatic complexity over :data:`MOST_COMPLEX` (radon's
  measure, closures counted on their own) is allowed only when
  :data:`COMPLEX_ALLOWED` names it with the reason it is left whole; the list
  holds at most :data:`MOST_COMPLEX_FUNCTIONS`. A function that drops under
  the limit must leave the list, so the list never names more than there is.
- No class is longer than :data:`LONGEST_CLASS` lines.
- No module of ``search/`` or ``indexer/`` is longer than
  :data:`LONGEST_MODULE` lines.
- The README stays an entrance (:data:`LONGEST_README` lines); ``docs/``
  holds the rest.

The figures are those the project set itself; raising one is a decision to
say in the commit that does it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class, Function

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("crawler", "indexer", "search")

MOST_COMPLEX = 15
MOST_COMPLEX_FUNCTIONS = 10
LONGEST_CLASS = 400
LONGEST_MODULE = 700
LONGEST_README = 200

#: The functions allowed over :data:`MOST_COMPLEX`, by ``module:qualified name``, and why.
COMPLEX_ALLOWED: dict[str, str] = {}


def modules(packages: tuple[str, ...] = PACKAGES) -> Iterator[Path]:
    for package in packages:
        yield from sorted((ROOT / package).rglob("*.py"))


def _functions(blocks: list[Function | Class], prefix: str = "") -> Iterator[tuple[str, int]]:
    for block in blocks:
        name = f"{prefix}{block.name}"
        if isinstance(block, Class):
            yield from _functions(block.methods + block.inner_classes, f"{name}.")
        else:
            yield name, block.complexity
            yield from _functions(block.closures, f"{name}.")


def complexities() -> dict[str, int]:
    """``module:qualified name`` -> complexity, for every function, method and closure."""
    found = {}
    for path in modules():
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        top = [block for block in cc_visit(path.read_text(encoding="utf-8")) if not getattr(block, "is_method", False)]
        for name, complexity in _functions(top):
            found[f"{module}:{name}"] = complexity
    return found


def test_the_complex_functions_are_few_and_each_says_why_it_is_whole() -> None:
    over = {name: value for name, value in complexities().items() if value > MOST_COMPLEX}
    unexplained = sorted(f"{name} ({over[name]})" for name in set(over) - set(COMPLEX_ALLOWED))
    stale = sorted(set(COMPLEX_ALLOWED) - set(over))
    assert not unexplained, (
        f"over complexity {MOST_COMPLEX}: split them, or name them in COMPLEX_ALLOWED with the reason: {unexplained}"
    )
    assert not stale, f"COMPLEX_ALLOWED names functions no longer over {MOST_COMPLEX}: {stale}"
    assert len(COMPLEX_ALLOWED) <= MOST_COMPLEX_FUNCTIONS


def test_no_class_is_longer_than_the_limit() -> None:
    long = []
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST_CLASS:
                    long.append(f"{path.relative_to(ROOT)}:{node.name} ({lines} lines)")
    assert not long, f"classes over {LONGEST_CLASS} lines: {long}"


def test_no_module_of_search_or_indexer_is_longer_than_the_limit() -> None:
    long = [
        f"{path.relative_to(ROOT)} ({lines} lines)"
        for path in modules(("indexer", "search"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST_MODULE
    ]
    assert not long, f"modules over {LONGEST_MODULE} lines: {long}"


def test_the_readme_is_an_entrance() -> None:
    lines = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines <= LONGEST_README, f"README.md has {lines} lines; the rest belongs in docs/"
