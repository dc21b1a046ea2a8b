"""The documentation holds together: ARCHITECTURE.md's module map names every
module there is and no other, and every relative link of the Markdown pages
(README.md, ARCHITECTURE.md, docs/) leads to a file that exists and, with a
``#fragment``, to a heading of it, as GitHub renders them."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("crawler", "indexer", "search")
_MAP_LINE = re.compile(r"^- `([\w/]+\.py)`:")
_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# [text](target): the text may hold code spans and run over lines; images too (![alt](target)).
_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


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


# --- Links between pages -----------------------------------------------------------


def pages(root: Path = ROOT) -> list[Path]:
    """The Markdown pages a reader follows links between."""
    return [root / "README.md", root / "ARCHITECTURE.md", *sorted((root / "docs").rglob("*.md"))]


def _prose(markdown: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of the lines outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(markdown.splitlines(), start=1):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
        elif not fenced:
            yield number, line


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lower-cased, punctuation
    but hyphens and underscores dropped, spaces made hyphens.

    >>> slug("robots.txt and robots META"), slug("From outside: `status`"), slug("The archive's cost")
    ('robotstxt-and-robots-meta', 'from-outside-status', 'the-archives-cost')
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").strip().lower()
    kept = "".join(c for c in text if c in "-_ " or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """The anchors of a page's headings (a repeated one gets ``-1``, ``-2``... as on GitHub)."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in _prose(markdown):
        if heading := _HEADING.match(line):
            base = slug(heading[2])
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(markdown: str) -> Iterator[tuple[int, str]]:
    """``(line number, target)`` of each link outside code."""
    prose = list(_prose(markdown))
    text = "\n".join(line for _, line in prose)
    numbers = [number for number, _ in prose]
    text = _CODE_SPAN.sub(lambda span: re.sub(r"[^\n]", " ", span[0]), text)
    for found in _LINK.finditer(text):
        yield numbers[text.count("\n", 0, found.start())], found[1]


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """The relative links of ``page`` that lead nowhere: to no file, or to no heading of it."""
    broken = []
    for number, target in links(page.read_text(encoding="utf-8")):
        if _SCHEME.match(target):
            continue
        path, _, fragment = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        where = f"{page.relative_to(root)}:{number}: {target}"
        if not destination.exists():
            broken.append(f"{where}: no such file")
        elif fragment and (destination.is_dir() or destination.suffix != ".md"):
            broken.append(f"{where}: a fragment of a file that is no Markdown page")
        elif fragment and fragment not in anchors(destination.read_text(encoding="utf-8")):
            broken.append(f"{where}: no such heading")
    return broken


def test_every_relative_link_leads_to_a_page_and_a_heading() -> None:
    found = pages()
    assert (ROOT / "docs" / "README.md") in found and len(found) > 5
    assert sum(1 for page in found for _ in links(page.read_text(encoding="utf-8"))) > 50  # the scan sees links
    broken = [line for page in found for line in broken_links(page)]
    assert not broken, "links that lead nowhere:\n" + "\n".join(broken)


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# B page\n\n## Some part\n\n```\n## Not a heading\n```\n")
    (tmp_path / "README.md").write_text(
        "# A\n\n## Same\n\n## Same\n\n"
        "[ok](docs/b.md), [part](docs/b.md#some-part), [self](#same-1), [web](https://example.org/x#y),\n"
        "[gone](docs/c.md), [no part](docs/b.md#not-a-heading), [no self](#same-2),\n"
        "`[code](docs/d.md)`, [dir](docs/), [in `code`](docs/b.md#b-page)\n"
    )
    assert broken_links(tmp_path / "README.md", tmp_path) == [
        "README.md:8: docs/c.md: no such file",
        "README.md:8: docs/b.md#not-a-heading: no such heading",
        "README.md:8: #same-2: no such heading",
    ]
