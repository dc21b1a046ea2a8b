"""Lantern as a user installs it: ``pip install .`` into a virtualenv of its
own, then the ``lantern`` command run from a directory that is not the
checkout.

The virtualenv sees the test environment's packages through a ``.pth`` file
and the package is built with ``--no-deps --no-build-isolation``: nothing
is downloaded, and what is tested is this project's packaging (its files,
its commands), not pip's resolver. The checkout itself is not on the new
virtualenv's path: only what ``pip install .`` put there runs.
"""

from __future__ import annotations

import ensurepip
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawler.version import VERSION
from tests.webserver import page, serve_site

ROOT = Path(__file__).parents[1]
#: What ``pip install .`` reads from the checkout.
_PACKAGED = ("pyproject.toml", "README.md", "crawler", "indexer", "search")
_SITE = {
    "/": page("<title>Keeper's manual</title><p>Welcome, keeper.</p><a href='/beacon.html'>The beacon</a>"),
    "/beacon.html": page("<title>The beacon</title><p>The lighthouse beacon turns.</p><a href='/lamp.html'>Lamp</a>"),
    "/lamp.html": page("<title>The lamp</title><p>Two links from the start: past DEPTH_LIMIT=1.</p>"),
    "/log.html": page("<title>The log</title><p>Linked from nowhere: a seed of its own.</p>"),
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The bin directory of a new virtualenv that ``pip install .`` of a copy of the checkout went into."""
    root = tmp_path_factory.mktemp("installed")
    source = root / "source"
    for name in _PACKAGED:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy(ROOT / name, source / name)
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    site_packages = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site_packages, "test-environment.pth").write_text(str(Path(sysconfig.get_paths()["purelib"]).resolve()))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps"]
        + ["--no-build-isolation", "--no-index", str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    yield venv / "bin"


def run(command: list[str | Path], where: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=where, capture_output=True, text=True, timeout=timeout)


def test_lantern_crawl_runs_a_crawl_from_any_directory(installed: Path, tmp_path: Path) -> None:
    """Outside the checkout, even beside another Scrapy project's scrapy.cfg,
    ``lantern crawl URL --data DIR`` crawls with Lantern's settings and
    passes ``-s`` and ``-a`` through; ``lantern search`` and ``lantern status`` then
    read what it wrote."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "scrapy.cfg").write_text("[settings]\ndefault = someone_elses.settings\n")
    with serve_site(_SITE) as site:
        crawl = run(
            [installed / "lantern", "crawl", site.url("/"), "--data", "docs", "-s", "DOWNLOAD_DELAY=0"]
            + ["-s", "DEPTH_LIMIT=1", "-a", f"seeds={site.url('/log.html')}"],
            elsewhere,
            timeout=300,
        )
        fetched = site.paths()
    assert crawl.returncode == 0, crawl.stderr[-3000:]
    assert {"/", "/beacon.html", "/log.html"} <= set(fetched)
    assert "/lamp.html" not in fetched
    found = run([installed / "lantern", "search", "--data", "docs", "--json", "lighthouse", "beacon"], elsewhere)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["url"] == site.url("/beacon.html")
    status = run([installed / "lantern", "status", "--data", "docs"], elsewhere)
    assert status.returncode == 0, status.stderr
    assert "127.0.0.1" in status.stdout


def test_every_installed_command_answers_version_under_its_own_name(installed: Path, tmp_path: Path) -> None:
    for command in ("lantern", "lantern-crawl", "lantern-index", "lantern-search", "lantern-web"):
        done = run([installed / command, "--version"], tmp_path)
        assert (done.returncode, done.stdout) == (0, f"{command} (Lantern) {VERSION}\n"), done.stderr


def test_usage_lines_name_the_command_typed(installed: Path, tmp_path: Path) -> None:
    for command in (["lantern", "search"], ["lantern", "crawl"], ["lantern", "status"], ["lantern-search"]):
        done = run([installed / command[0], *command[1:], "--help"], tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"usage: {' '.join(command)} "), done.stdout
    bad = run([installed / "lantern", "crawl", "ftp://example.org/"], tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.splitlines()[-1] == (
        "lantern crawl: error: bad seed URL 'ftp://example.org/': only http and https can be crawled"
    )
    lost = run([installed / "lantern"], tmp_path)
    assert lost.returncode == 2 and "crawl" in lost.stderr and "search" in lost.stderr


def test_the_installed_package_needs_no_test_tools_and_fits_the_environment(installed: Path, tmp_path: Path) -> None:
    """Its metadata asks for no test tool but through the ``test`` and
    ``dev`` extras, and ``pip check`` finds every requirement met by the
    versions this environment already has: installing forced none."""
    script = "import importlib.metadata, json; print(json.dumps(importlib.metadata.requires('lantern')))"
    requires = run([installed / "python", "-c", script], tmp_path)
    assert requires.returncode == 0, requires.stderr
    listed = json.loads(requires.stdout)
    tools = [line for line in listed if line.split()[0].startswith(("pytest", "hypothesis", "ruff", "mypy"))]
    assert tools and all("extra ==" in line for line in tools), tools
    assert all("==" not in line.split(";")[0] for line in listed), listed
    check = run([sys.executable, "-m", "pip", "--python", installed / "python", "check"], tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.parametrize("module", ["crawler", "indexer", "search", "search.web"])
def test_python_m_keeps_its_name_in_the_checkout(module: str) -> None:
    done = run([sys.executable, "-m", module, "--help"], ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m {module} ")
    version = run([sys.executable, "-m", module, "--version"], ROOT)
    assert (version.returncode, version.stdout) == (0, f"python -m {module} (Lantern) {VERSION}\n")


def test_the_first_install_says_what_it_does_stage_by_stage(tmp_path: Path) -> None:
    """``make``'s first step on a fresh checkout (the one ``make demo``
    takes) names each stage and lets pip say which package it is at. Run on
    a copy of the Makefile whose requirements.txt pins what a new
    virtualenv holds already: nothing is downloaded."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "requirements.txt").write_text(f"# what a new virtualenv has\npip=={ensurepip.version()}\n")
    done = subprocess.run(
        ["make", "--no-print-directory", ".venv/.installed", f"PYTHON={sys.executable}"],
        cwd=tmp_path,
        env={**os.environ, "PIP_NO_INDEX": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"Creating the virtualenv .venv with {sys.executable}..."
    assert lines[1].startswith("Installing 1 pinned Python packages into .venv")
    assert any(line.startswith(f"Requirement already satisfied: pip=={ensurepip.version()}") for line in lines)
    assert lines[-1] == "Installed: .venv is ready."
