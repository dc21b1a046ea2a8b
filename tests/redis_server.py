"""Debian's redis-server for the multi-node tests: a shared Redis as users run one.

TCP on 127.0.0.1 and a free port, append-only persistence in a directory of
the test's, stopped (and restartable, keeping its data) by the test.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

from tests.system import ensure

__all__ = ["RedisServer"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class RedisServer:
    def __init__(self, directory: Path) -> None:
        ensure("redis-server")
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> RedisServer:
        self._process = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(self.directory), "--appendonly", "yes", "--save", "", "--logfile", "",
             "--daemonize", "no"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        assert self._process.stdout is not None
        for line in self._process.stdout:  # wait for the server to say it is ready
            if "ready to accept connections" in line.lower():
                return self
        raise RuntimeError(f"redis-server exited: {self._process.wait()}")

    def stop(self) -> None:
        """SIGTERM: redis saves its append-only file and exits."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            self._process.wait(timeout=30)
        self._process = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
