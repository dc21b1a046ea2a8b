"""The project's commands as the tests run them: real subprocesses, like a user's."""

from __future__ import annotations

import selectors
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parents[1]


def crawl(
    seeds: list[str],
    data: Path,
    *settings: str,
    timeout: float = 300,
    spider_args: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """``scrapy crawl web -a seeds=... [-a NAME=value...] -s DATA_DIR=data -s NAME=value...``
    (settings and spider arguments as "NAME=value")."""
    command = crawl_command(seeds, data, *settings, spider_args=spider_args)
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def crawling(seeds: list[str], data: Path, *settings: str) -> subprocess.Popen[str]:
    """The same crawl, running: its log (standard error) to read as it comes."""
    return subprocess.Popen(
        crawl_command(seeds, data, *settings), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def crawl_command(seeds: list[str], data: Path, *settings: str, spider_args: tuple[str, ...] = ()) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        "web",
        "-a",
        f"seeds={','.join(seeds)}",
        "-s",
        f"DATA_DIR={data}",
    ]
    for argument in spider_args:
        command += ["-a", argument]
    for setting in settings:
        command += ["-s", setting]
    return command


def run(module: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m module args...``"""
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


# Runs a command and prints the peak RSS (KiB) of it and its descendants. A
# process spawned straight from the test process would report the test
# process's own peak (Linux keeps a process's peak across an exec, and the
# forked child starts as large as pytest); one spawned from this small one
# does not.
_PEAK = (
    "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], stdout=sys.stderr); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(done.returncode)"
)


def measured(command: list[str], timeout: float = 300) -> tuple[int, str, int]:
    """``command`` run from the checkout: (exit status, its standard error, the peak RSS
    in bytes of it and the processes it waited for, as the kernel counted them)."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, *command], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    peak = int(done.stdout.split()[-1]) * 1024 if done.stdout.split() else 0
    return done.returncode, done.stderr, peak


def log_until(process: subprocess.Popen[str], seen: list[str], wanted: Callable[[str], bool], timeout: float) -> bool:
    """Read a running command's log (its stderr) until a line is ``wanted``
    (False if it never came within ``timeout`` or the log ended); every line
    read is added to ``seen``."""
    assert process.stderr is not None
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(process.stderr, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not selector.select(max(0.0, deadline - time.monotonic())):
                break
            line = process.stderr.readline()
            if not line:
                return False
            seen.append(line)
            if wanted(line):
                return True
    return False
