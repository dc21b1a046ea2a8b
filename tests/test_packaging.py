"""The dependencies, said three times and kept in step.

``pyproject.toml`` declares what ``pip install .`` needs, in ranges, so that
Lantern installs beside other packages without forcing their versions; the
test and maintainer tools are its extras, never runtime dependencies.
``requirements.txt`` (and ``requirements-dev.txt``) pin the versions tested,
which ``make`` installs. Each declared dependency is pinned at a version in
its range; each library the code imports is declared; and nothing is pinned
that nothing declared needs.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).parents[1]
PACKAGES = ("crawler", "indexer", "search")
#: What the tests and the maintainer use, and Lantern never does when it runs.
TOOLS = {"pytest", "pytest-timeout", "pytest-xdist", "hypothesis", "radon", "ruff", "mypy", "wheel", "setuptools"}
#: Modules the code imports that no distribution provides here, and why.
NOT_DISTRIBUTED = {"compression": "the standard library's from Python 3.14 (compression.zstd), tried first"}


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def runtime() -> list[Requirement]:
    return [Requirement(line) for line in project()["dependencies"]]


def extras() -> dict[str, list[Requirement]]:
    return {name: [Requirement(line) for line in lines] for name, lines in project()["optional-dependencies"].items()}


def pins(*files: str) -> dict[str, Version]:
    """``name==version`` lines (a marker allowed), by canonical name."""
    found = {}
    for file in files:
        for line in (ROOT / file).read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                requirement = Requirement(line)
                (specifier,) = requirement.specifier
                assert specifier.operator == "==", f"{file}: {line} is not an exact pin"
                found[canonicalize_name(requirement.name)] = Version(specifier.version)
    return found


def imported_libraries() -> Iterator[tuple[str, str]]:
    """(top-level module, file) for every import of a module from outside
    the project and the standard library, in the code that runs."""
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in (*PACKAGES, "__future__"):
                        yield top, str(path.relative_to(ROOT))


def test_runtime_dependencies_are_ranges_without_test_tools() -> None:
    for requirement in runtime():
        assert canonicalize_name(requirement.name) not in TOOLS, f"{requirement} is a tool, not a runtime dependency"
        operators = {specifier.operator for specifier in requirement.specifier}
        assert operators & {">=", "~="}, f"{requirement}: give the lowest version known to work"
        assert not operators & {"==", "==="}, (
            f"{requirement}: an exact pin fights other packages; pin in requirements.txt"
        )


def test_the_tools_are_extras() -> None:
    names = {name: {canonicalize_name(r.name) for r in requirements} for name, requirements in extras().items()}
    assert {"pytest", "pytest-timeout", "pytest-xdist", "hypothesis", "radon"} <= names["test"]
    assert {"ruff", "mypy", "lantern"} <= names["dev"]  # lantern[test]: the checks run the tests too


def test_every_declared_dependency_is_pinned_within_its_range() -> None:
    pinned = pins("requirements.txt", "requirements-dev.txt")
    for requirement in runtime() + [r for requirements in extras().values() for r in requirements]:
        name = canonicalize_name(requirement.name)
        if name == "lantern":
            continue
        assert name in pinned, f"{requirement} is declared in pyproject.toml but pinned in no requirements file"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"requirements.txt pins {name}=={pinned[name]}, outside pyproject.toml's {requirement}"
        )


def test_every_library_the_code_imports_is_a_runtime_dependency() -> None:
    declared = {canonicalize_name(requirement.name) for requirement in runtime()}
    providers = importlib.metadata.packages_distributions()
    for module, where in imported_libraries():
        if module in NOT_DISTRIBUTED:
            continue
        distributions = {canonicalize_name(name) for name in providers.get(module, [])}
        assert distributions & declared, f"{where} imports {module}, which pyproject.toml does not declare"


def test_nothing_is_pinned_that_nothing_declared_needs() -> None:
    """Every pin of requirements.txt is a declared dependency or a tool, or
    is needed by one (read from the installed packages' metadata), so the
    pins that are runtime dependencies are exactly those pyproject.toml
    declares."""
    wanted = {canonicalize_name(r.name) for r in runtime()} | {
        canonicalize_name(r.name) for requirements in extras().values() for r in requirements
    }
    needed = set(wanted)
    todo = list(wanted - {"lantern"})
    environment = dict(default_environment())
    while todo:
        name = todo.pop()
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # an optional dependency of one (an extra of it), not installed
        for line in requires:
            requirement = Requirement(line)
            extra = re.search(r"extra\s*==", str(requirement.marker or ""))
            if requirement.marker and not extra and not requirement.marker.evaluate(environment):
                continue
            dependency = canonicalize_name(requirement.name)
            if dependency not in needed:
                needed.add(dependency)
                todo.append(dependency)
    unneeded = sorted(set(pins("requirements.txt")) - needed)
    assert not unneeded, f"requirements.txt pins what nothing declared in pyproject.toml needs: {unneeded}"
