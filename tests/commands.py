"""The project's commands as the tests run them: real subprocesses, like a user's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def crawl(
    seeds: list[str], data: Path, *settings: str, timeout: float = 300, spider_args: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """``scrapy crawl web -a seeds=... [-a NAME=value...] -s DATA_DIR=data -s NAME=value...``
    (settings and spider arguments as "NAME=value")."""
    command = [sys.executable, "-m", "scrapy", "crawl", "web", "-a", f"seeds={','.join(seeds)}",
               "-s", f"DATA_DIR={data}"]
    for argument in spider_args:
        command += ["-a", argument]
    for setting in settings:
        command += ["-s", setting]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def run(module: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m module args...``"""
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
