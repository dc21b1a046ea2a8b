"""Debian packages the test suite uses, installed with apt-get when missing.

``make test`` runs ``python -m tests.system`` before pytest, so a fresh
machine (Debian, as root) gets them visibly, once: Chromium and a CJK font
for the search page's browser tests, redis-server for the multi-node
tests (which run Debian's server, as a user's shared Redis would be), and
iproute2's ss (a listening socket's queue length). When
they cannot be installed, the tests that need them fail saying why: a test
never skips.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

__all__ = ["SystemPackageMissing", "ensure", "PACKAGES"]

# Package -> the executable that shows it is installed (None: a data package).
PACKAGES = {
    "chromium": "chromium",
    "fonts-wqy-zenhei": None,
    "redis-server": "redis-server",
    "iproute2": "ss",
    "redis-tools": "redis-cli",
}
_TIMEOUT = 500  # seconds per apt-get step; below pytest's 600 s timeout


class SystemPackageMissing(RuntimeError):
    """A Debian package a test needs is not installed and could not be."""


def _installed(package: str) -> bool:
    executable = PACKAGES.get(package)
    if executable is not None:
        return shutil.which(executable) is not None
    done = subprocess.run(["dpkg", "-s", package], capture_output=True, text=True)
    return done.returncode == 0 and "Status: install ok installed" in done.stdout


@functools.cache
def ensure(*packages: str) -> None:
    """Install the given Debian packages (default: all of ``PACKAGES``) if missing."""
    missing = [p for p in (packages or tuple(PACKAGES)) if not _installed(p)]
    if not missing:
        return
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        raise SystemPackageMissing(
            f"the tests need Debian's {', '.join(missing)}: run `apt-get install -y {' '.join(missing)}` as root"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-o", "DPkg::Lock::Timeout=300", *missing]
    for command in (["apt-get", "update"], install):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=_TIMEOUT)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
            raise SystemPackageMissing(f"`{' '.join(command)}` failed ({done.returncode}):\n{tail}")


if __name__ == "__main__":
    missing = [p for p in PACKAGES if not _installed(p)]
    if missing:
        print(f"Installing Debian packages for the tests: {', '.join(missing)} ...", flush=True)
    ensure()
    print("Test system packages: " + ", ".join(PACKAGES) + " installed.")
