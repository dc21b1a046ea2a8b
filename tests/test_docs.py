"""The documentation holds together: ARCHITECTURE.md's module map names every
module there is and no other."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("crawler", "indexer", "search")
_MAP_LINE = re.compile(r"^- `([\w/]+\.py)`:")


# --- The module map ----------------------------------------------------------------


def modules(root: Path = ROOT) -> set[str]:
    """Every module of the three packages, as its path from the checkout."""
    return {str(path.relative_to(root)) for package in PACKAGES for path in (root / package).rglob("*.py")}


def map_names(architecture: str) -> list[str]:
    """The modules the "## Module map" section names, one a line: ``- `path.py`: what it is for``."""
    section = architecture.split("\n## Module map\n", 1)[1].split("\n## ", 1)[0]
    return [found[1] for line in section.splitlines() if (found := _MAP_LINE.match(line))]


def map_errors(named: Iterable[str], existing: set[str]) -> list[str]:
    """What is wrong with a map naming ``named``: modules it lacks, names of
    modules that do not exist, names given twice (one line each)."""
    named = list(named)
    errors = [f"missing (a module the map does not name): {name}" for name in sorted(existing - set(named))]
    errors += [f"stale (the map names no such module): {name}" for name in sorted(set(named) - existing)]
    errors += [f"named twice: {name}" for name in sorted({name for name in named if named.count(name) > 1})]
    return errors


def test_the_module_map_names_every_module_and_no_other() -> None:
    named = map_names((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    errors = map_errors(named, modules())
    assert not errors, 'ARCHITECTURE.md, "Module map", one line a module:\n' + "\n".join(errors)


def test_the_map_check_lists_missing_stale_and_repeated_names() -> None:
    text = (
        "# Design\n\n## Module map\n\nText.\n\n### `crawler/`\n\n"
        "- `crawler/urls.py`: canonical URLs.\n- `crawler/gone.py`: removed.\n"
        "- `crawler/urls.py`: again.\n  - `crawler/nested.py`: not a map line.\n\n"
        "## Next\n\n- `crawler/later.py`: another section.\n"
    )
    named = map_names(text)
    assert named == ["crawler/urls.py", "crawler/gone.py", "crawler/urls.py"]
    assert map_errors(named, {"crawler/urls.py", "crawler/new.py"}) == [
        "missing (a module the map does not name): crawler/new.py",
        "stale (the map names no such module): crawler/gone.py",
        "named twice: crawler/urls.py",
    ]
