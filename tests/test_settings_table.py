"""Each setting's default has one home, ``crawler/settings.py``; its other
appearances must agree with it, or not repeat it.

- the settings page (``docs/settings.md``) documents every setting of
  ``crawler/settings.py``, Lantern's with the default the code has, and no
  other page describes one;
- the code reads settings by name without a fallback of its own (``scrapy
  crawl`` loads ``crawler/settings.py``; code outside the crawl takes it from
  :mod:`crawler.project`), and every name it reads exists;
- constructor and dataclass defaults that stand for a setting, and the
  docstrings that state one, equal it.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from scrapy.settings import default_settings as scrapy_defaults

from crawler import settings as defaults
from crawler.alerts import AlertRules
from crawler.frontier import Frontier
from crawler.leases import Leases
from crawler.linkfilter import LinkFilter
from crawler.pages import PAGE_SETTINGS, PageLogic
from crawler.scheduler import Scheduler
from crawler.seen import BloomSeen, seen_set
from crawler.urls import TrapRules, UrlPolicy

ROOT = Path(__file__).parents[1]
SETTINGS_PAGE = ROOT / "docs" / "settings.md"
# The page's second table: Scrapy's settings as crawler/settings.py sets them.
SCRAPY_SECTION = "Scrapy's settings as the project sets them"
SOURCES = ("crawler", "indexer", "search")
# Settings' methods (Scrapy's Settings; a dict's get for recorded settings).
GETTERS = frozenset(
    ["get", "getint", "getfloat", "getbool", "getlist", "getdict", "getdictorlist", "getwithbase", "getpriority"]
)
SETTING_NAME = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]")
# The table's words for a default of None: "unset" (nothing configured: the
# feature is off, or the embedded default is used) and "auto" (worked out
# when the crawl starts, as the row says). Every other default is in backticks.
NONE_WORDS = ("unset", "auto")
# Settings read with a fallback on purpose: {(file, setting): why}. Empty: the
# one home of a default is crawler/settings.py.
FALLBACKS_ALLOWED: dict[tuple[str, str], str] = {}

# Constructor and dataclass parameters that stand for a setting: (what, parameter, setting).
MIRRORS: list[tuple[Callable[..., Any], str, str]] = [
    *((UrlPolicy, field, name) for field, name in UrlPolicy._SETTINGS.items()),
    *((TrapRules, field, name) for field, name in TrapRules._SETTINGS.items()),
    (Frontier, "queue_key", "SCHEDULER_QUEUE_KEY"),
    (Frontier, "seen_key", "SCHEDULER_DUPEFILTER_KEY"),
    (Frontier, "items_key", "REDIS_ITEMS_KEY"),
    (Frontier, "site_budget", "TRAPS_MAX_PAGES_PER_SITE"),
    (Frontier, "near_distance", "TRAPS_NEAR_DUPLICATE_BITS"),
    (Scheduler, "persist", "SCHEDULER_PERSIST"),
    (Scheduler, "flush_on_start", "SCHEDULER_FLUSH_ON_START"),
    (Scheduler, "pop_batch", "FRONTIER_POP_BATCH"),
    (Scheduler, "local_seen_max", "FRONTIER_LOCAL_SEEN_MAX"),
    (Scheduler, "lease_seconds", "FRONTIER_LEASE_SECONDS"),
    (Scheduler, "heartbeat", "FRONTIER_HEARTBEAT"),
    (Leases, "lease_seconds", "FRONTIER_LEASE_SECONDS"),
    (LinkFilter, "remember", "FRONTIER_LOCAL_SEEN_MAX"),
    (BloomSeen, "capacity", "FRONTIER_BLOOM_CAPACITY"),
    (BloomSeen, "error_rate", "FRONTIER_BLOOM_ERROR_RATE"),
    (seen_set, "capacity", "FRONTIER_BLOOM_CAPACITY"),
    (seen_set, "error_rate", "FRONTIER_BLOOM_ERROR_RATE"),
    (AlertRules, "window", "MONITOR_WINDOW"),
    (AlertRules, "error_rate", "MONITOR_ERROR_RATE"),
    (AlertRules, "site_share", "MONITOR_SITE_SHARE"),
    (AlertRules, "served_share", "MONITOR_SITES_SERVED"),
    (PageLogic, "max_links", "LINKS_MAX_PER_PAGE"),
    (PageLogic, "max_offsite_links", "LINKS_MAX_OFFSITE_PER_PAGE"),
]


def _ours() -> dict[str, Any]:
    """crawler/settings.py's settings."""
    return {name: getattr(defaults, name) for name in dir(defaults) if SETTING_NAME.fullmatch(name)}


def _exists(name: str) -> bool:
    return hasattr(defaults, name) or hasattr(scrapy_defaults, name)


def _default(name: str) -> Any:
    """What a crawl gets for ``name`` when nobody sets it."""
    return getattr(defaults, name) if hasattr(defaults, name) else getattr(scrapy_defaults, name)


def _same(documented: Any, actual: Any) -> bool:
    """Equal values of the same kind (2 is 2.0, not True)."""
    if isinstance(documented, bool) or isinstance(actual, bool):
        return documented is actual
    if isinstance(documented, (int, float)) and isinstance(actual, (int, float)):
        return documented == actual
    return type(documented) is type(actual) and documented == actual


def _literal(text: str) -> Any:
    """A default as written: a Python literal, else a plain string (``data``, ``exact``)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def table(page: str, heading: str = "Settings") -> dict[str, str]:
    """The settings table under ``heading`` (the page's title or a section's):
    setting name -> its default column."""
    section = next(part for part in re.split(r"^##? ", page, flags=re.M) if part.startswith(heading + "\n"))
    rows: dict[str, str] = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            found = re.fullmatch(r"\| `([A-Z][A-Z0-9_]*)` \| (.*?) \| .* \|", line)
            assert found, f"a settings row the table cannot read: {line}"
            assert found[1] not in rows, f"{found[1]} has two rows"
            rows[found[1]] = found[2]
    return rows


@pytest.fixture(scope="module")
def rows() -> dict[str, str]:
    return table(SETTINGS_PAGE.read_text(encoding="utf-8"))


def test_every_row_documents_the_default_the_code_has(rows: dict[str, str]) -> None:
    wrong = []
    for name, cell in rows.items():
        if not _exists(name):
            wrong.append(f"{name}: no such setting (neither in crawler/settings.py nor Scrapy's)")
        elif cell in NONE_WORDS:
            if _default(name) is not None:
                wrong.append(f"{name}: the table says {cell}, the default is {_default(name)!r}")
        elif not (cell.startswith("`") and cell.endswith("`")):
            wrong.append(f"{name}: write the default in backticks (or {' or '.join(NONE_WORDS)}), not {cell}")
        elif not _same(_literal(cell[1:-1]), _default(name)):
            wrong.append(f"{name}: the table says {cell}, the default is {_default(name)!r}")
    assert not wrong, "\n".join(wrong)


def test_every_lantern_setting_has_a_row(rows: dict[str, str]) -> None:
    missing = [name for name in _ours() if not hasattr(scrapy_defaults, name) and name not in rows]
    assert not missing, f"settings of crawler/settings.py the settings page's table lacks: {missing}"


def test_the_table_reads_its_conventions() -> None:
    readme = (
        "## Settings\n\n| setting | default | what |\n|---|---|---|\n"
        "| `A_B` | `1.0` | x |\n| `C` | unset | y |\n| `D_E` | `data` | z |\n\n## Next\n| `F` | `1` | no |\n"
    )
    rows = table(readme)
    assert rows == {"A_B": "`1.0`", "C": "unset", "D_E": "`data`"}
    assert _same(_literal("1"), 1.0) and not _same(_literal("1"), True) and _literal("data") == "data"
    assert not _same(_literal("[]"), {}) and _same(_literal("{}"), {})


@pytest.fixture(scope="module")
def scrapy_rows() -> dict[str, str]:
    return table(SETTINGS_PAGE.read_text(encoding="utf-8"), SCRAPY_SECTION)


def test_every_setting_the_project_sets_has_one_row(rows: dict[str, str], scrapy_rows: dict[str, str]) -> None:
    """Scrapy's settings that crawler/settings.py sets have their rows too, in
    the page's second table, with the value the project gives them."""
    missing = [name for name in _ours() if name not in rows and name not in scrapy_rows]
    wrong = [f"{name}: crawler/settings.py sets it, the page has no row" for name in missing]
    wrong += [f"{name}: a row in both tables" for name in sorted(rows.keys() & scrapy_rows.keys())]
    for name, cell in scrapy_rows.items():
        if not hasattr(defaults, name):
            wrong.append(f"{name}: crawler/settings.py does not set it")
        elif cell.startswith("`") and cell.endswith("`") and not _same(_literal(cell[1:-1]), getattr(defaults, name)):
            wrong.append(f"{name}: the table says {cell}, crawler/settings.py sets {getattr(defaults, name)!r}")
    assert not wrong, "\n".join(wrong)


def setting_rows(markdown: str) -> list[str]:
    """The settings a page's tables describe: rows whose first cell is a setting's name alone."""
    return [name for name in re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", markdown, flags=re.M) if _exists(name)]


def test_no_other_page_describes_a_setting() -> None:
    pages = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = [
        f"{page.relative_to(ROOT)}: {name}"
        for page in pages
        if page != SETTINGS_PAGE
        for name in setting_rows(page.read_text(encoding="utf-8"))
    ]
    assert not found, "settings are described on docs/settings.md alone; link to it instead:\n" + "\n".join(found)


def test_a_settings_row_is_told_from_a_row_that_names_one() -> None:
    page = "| `DOWNLOAD_DELAY` | `1.0` | x |\n| `REDIS_URL` unset | y |\n| `NO_SUCH_SETTING` | z |\n"
    assert setting_rows(page) == ["DOWNLOAD_DELAY"]


# --- Settings read in the code ---------------------------------------------------------


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for directory in SOURCES:
        for path in sorted((ROOT / directory).rglob("*.py")):
            if path != ROOT / "crawler" / "settings.py":
                yield str(path.relative_to(ROOT)), ast.parse(path.read_text(encoding="utf-8"))


def _read_name(node: ast.AST) -> str | None:
    """The setting ``node`` reads, for ``x.get("NAME", ...)`` and ``x["NAME"]``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in GETTERS:
        receiver = node.func.value
        if isinstance(receiver, ast.Attribute) and receiver.attr == "environ":
            return None
        first = node.args[0] if node.args else None
    elif isinstance(node, ast.Subscript):
        first = node.slice
    else:
        return None
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and SETTING_NAME.fullmatch(first.value):
        return first.value
    return None


def _module_aliases(tree: ast.Module) -> set[str]:
    """The names ``crawler/settings.py`` is imported as."""
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "crawler":
            aliases |= {alias.asname or alias.name for alias in node.names if alias.name == "settings"}
        elif isinstance(node, ast.Import):
            aliases |= {alias.asname for alias in node.names if alias.name == "crawler.settings" and alias.asname}
    return aliases


def reads(tree: ast.Module) -> Iterator[tuple[int, str, str | None]]:
    """Each setting a module reads: (line, name, its fallback or None). A
    fallback is a getter's second argument, or a value after ``or`` (a false
    one, ``or 0``, only makes an empty value None or 0: not a fallback)."""
    for node in ast.walk(tree):
        name = _read_name(node)
        if isinstance(node, (ast.Call, ast.Subscript)) and name is not None:
            extra = [*node.args[1:], *node.keywords] if isinstance(node, ast.Call) else []
            yield node.lineno, name, ast.unparse(extra[0]) if extra else None
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            for before, after in zip(node.values, node.values[1:], strict=False):
                name = _read_name(before)
                if name is not None and isinstance(after, ast.Constant) and after.value:
                    yield node.lineno, name, f"or {after.value!r}"


def test_the_code_reads_settings_without_fallbacks() -> None:
    found = [
        f"{path}:{line}: {name} falls back to {fallback}"
        for path, tree in _sources()
        for line, name, fallback in reads(tree)
        if fallback is not None and (path, name) not in FALLBACKS_ALLOWED
    ]
    assert not found, "defaults belong in crawler/settings.py:\n" + "\n".join(found)


def test_every_setting_the_code_reads_exists() -> None:
    unknown = []
    count = 0
    for path, tree in _sources():
        for line, name, _ in reads(tree):
            count += 1
            if not _exists(name):
                unknown.append(f"{path}:{line}: {name}")
        aliases = _module_aliases(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and SETTING_NAME.fullmatch(node.attr)
            ):
                count += 1
                if not hasattr(defaults, node.attr):
                    unknown.append(f"{path}:{node.lineno}: {node.value.id}.{node.attr}")
    unknown += [f"crawler/pages.py: PAGE_SETTINGS {name}" for name in PAGE_SETTINGS if not _exists(name)]
    assert count > 100  # the scan finds the reads
    assert not unknown, "settings read but defined nowhere:\n" + "\n".join(unknown)


def test_the_scan_sees_a_fallback_and_an_unknown_name() -> None:
    tree = ast.parse(
        's.getint("A_B", 3)\ns.get("C_D") or "x"\ns["E_F"]\nos.environ.get("G_H", "1")\n'
        'd.get("mode", 1)\nfloat(s.get("I_J") or 0)\n'
    )
    assert sorted(reads(tree), key=str) == [
        (1, "A_B", "3"),
        (2, "C_D", "or 'x'"),
        (2, "C_D", None),
        (3, "E_F", None),
        (6, "I_J", None),
    ]


# --- Defaults that stand for a setting -------------------------------------------------


@pytest.mark.parametrize(
    "owner, parameter, name", MIRRORS, ids=[f"{owner.__name__}.{parameter}" for owner, parameter, _ in MIRRORS]
)
def test_a_default_standing_for_a_setting_equals_it(owner: Callable[..., Any], parameter: str, name: str) -> None:
    if dataclasses.is_dataclass(owner):
        default = next(field.default for field in dataclasses.fields(owner) if field.name == parameter)
    else:
        default = inspect.signature(owner).parameters[parameter].default
    assert _same(default, getattr(defaults, name)), (
        f"{owner.__name__}({parameter}={default!r}) stands for {name} = {getattr(defaults, name)!r}"
    )


def test_docstrings_state_the_defaults_there_are() -> None:
    stated = re.compile(r"``([A-Z][A-Z0-9_]*)``, default ([^):;,]+)")
    wrong, count = [], 0
    for directory in SOURCES:
        for path in sorted((ROOT / directory).rglob("*.py")):
            for found in stated.finditer(path.read_text(encoding="utf-8")):
                count += 1
                name, value = found[1], _literal(found[2].strip())
                if not _exists(name) or not _same(value, _default(name)):
                    wrong.append(f"{path.relative_to(ROOT)}: {found[0]}")
    assert count >= 10
    assert not wrong, "docstrings that state another default:\n" + "\n".join(wrong)
