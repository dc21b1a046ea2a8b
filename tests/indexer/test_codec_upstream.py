"""The codec is written against one version of Whoosh, whose private names it overrides and calls.

Another version of Whoosh fails these tests until each private name the
codec relies on (:data:`indexer.codec.upstream.PRIVATE_NAMES`) is checked
against it and :data:`indexer.codec.WHOOSH_VERSION` is raised.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from indexer.codec import WHOOSH_VERSION
from indexer.codec.upstream import PRIVATE_NAMES

ROOT = Path(__file__).resolve().parents[2]
# The search modules that read the codec's files themselves (array scoring).
READERS = ("postings.py", "topdocs.py")


def test_the_installed_whoosh_is_the_version_the_codec_was_written_against() -> None:
    assert version("Whoosh-Reloaded") == WHOOSH_VERSION, (
        f"Whoosh-Reloaded {version('Whoosh-Reloaded')} is installed; the codec overrides and calls private "
        f"names of {WHOOSH_VERSION}: check each of indexer.codec.upstream.PRIVATE_NAMES against the new "
        "version, then raise WHOOSH_VERSION"
    )


def _owner(path: str) -> Any:
    """A module, or a class of a module, by its dotted name."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ImportError(path)


def _whoosh_classes(cls: type) -> list[type]:
    return [base for base in cls.__mro__ if base.__module__.startswith("whoosh")]


@cache
def _source(cls: type) -> str:
    return inspect.getsource(cls)


def _has(owner: Any, name: str) -> bool:
    """Whether a Whoosh module or class has ``name``: a module's name, a
    class's attribute or method, or an attribute its code sets or reads on
    ``self``."""
    if not inspect.isclass(owner):
        return hasattr(owner, name)
    if any(name in vars(base) for base in _whoosh_classes(owner)):
        return True
    pattern = re.compile(rf"\bself\.{re.escape(name)}\b")
    return any(pattern.search(_source(base)) for base in _whoosh_classes(owner))


@pytest.mark.parametrize("owner", sorted(PRIVATE_NAMES))
def test_every_private_whoosh_name_the_codec_relies_on_is_there(owner: str) -> None:
    found = _owner(owner)
    missing = [name for name in PRIVATE_NAMES[owner] if not _has(found, name)]
    assert not missing, f"{owner} has no {missing}"


def _is_self(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _named(node: ast.AST) -> str | None:
    """The attribute ``node`` reads or sets (``x.name``, or a name given to ``getattr``/``hasattr``)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr"):
        name = node.args[1] if len(node.args) > 1 else None
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return name.value
    return None


def _functions(trees: list[ast.Module]) -> set[str]:
    """The names of the functions, methods and classes the modules define."""
    return {node.name for tree in trees for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def _classes(tree: ast.Module, module: Any) -> list[tuple[ast.ClassDef, type]]:
    """The classes a module defines (nested ones too), each with its class object."""
    found = []
    pending: list[tuple[ast.AST, Any]] = [(tree, module)]
    while pending:
        node, owner = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                cls = getattr(owner, child.name)
                found.append((child, cls))
                pending.append((child, cls))
    return found


def _own_nodes(node: ast.ClassDef) -> list[ast.AST]:
    """The nodes of a class's body, but for those of the classes nested in it."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = list(node.body)
    while pending:
        child = pending.pop()
        found.append(child)
        if not isinstance(child, ast.ClassDef):
            pending.extend(ast.iter_child_nodes(child))
    return found


def _overridden(node: ast.ClassDef, cls: type) -> set[tuple[str, str]]:
    """The private names of Whoosh's classes a class of ours overrides, or
    uses on ``self``: each with the Whoosh class that defines it."""
    nodes = _own_nodes(node)
    names = {child.attr for child in nodes if isinstance(child, ast.Attribute) and _is_self(child.value)}
    names |= {child.name for child in node.body if isinstance(child, ast.FunctionDef)}
    found = set()
    for name in filter(_private, names):
        bases = [base for base in _whoosh_classes(cls) if _has(base, name)]
        if bases:  # the most basic of them: the class that defines it
            found.add((f"{bases[-1].__module__}.{bases[-1].__qualname__}", name))
    return found


def _needed() -> tuple[set[tuple[str, str]], set[str]]:
    """The private Whoosh names the codec's modules (and the search
    modules that read its files) use: by owner, where the use tells it (a
    name imported from Whoosh; one a class of ours overrides or uses on
    ``self``, found in its Whoosh bases); and the private names used on
    other objects, but for our functions'."""
    paths = sorted((ROOT / "indexer" / "codec").glob("*.py")) + [ROOT / "search" / name for name in READERS]
    trees = {path: ast.parse(path.read_text()) for path in paths}
    ours = _functions(list(trees.values()))
    owned: set[tuple[str, str]] = set()
    loose: set[str] = set()
    for path, tree in trees.items():
        module = importlib.import_module(
            ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        )
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("whoosh"):
                owned |= {(str(node.module), alias.name) for alias in node.names if _private(alias.name)}
            name = _named(node)
            if name and _private(name) and name not in ours and not _is_self(getattr(node, "value", None)):
                loose.add(name)
        for node, cls in _classes(tree, module):
            owned |= _overridden(node, cls)
    return owned, loose


def test_every_private_whoosh_name_the_codec_uses_is_listed() -> None:
    """A private name of Whoosh the codec starts to use is listed with the
    others, so that the next version of Whoosh is checked for it too."""
    owned, loose = _needed()
    listed = {(owner, name) for owner, names in PRIVATE_NAMES.items() for name in names}
    assert owned - listed == set()
    assert loose - {name for _, name in listed} == set()
