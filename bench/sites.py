"""Local sites to crawl in benchmarks: a directory served over HTTP, or the demo web.

Each records when page requests arrive, so a crawl's rate is measured from
its first to its last page fetch, apart from start-up and shutdown costs.
A directory is served by nginx (Debian's, installed with apt-get when
missing and possible), which takes little of the CPU the crawlers share,
or else by Python's threaded HTTP server, which takes a good part of it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from tests.demoweb import serve as serve_demo_web
from tests.system import SystemPackageMissing, ensure

PYTHON3_DOC = Path("/usr/share/doc/python3/html")


@dataclass
class Site:
    name: str
    seed: str
    times: Callable[[], list[float]]  # arrival of every page request so far
    deny: str = ""  # a trap the plain CrawlSpider must be kept out of

    @property
    def base(self) -> str:
        """The site's scheme and authority, to which a seed's path is relative.

        >>> Site("x", "http://127.0.0.1:8080/api/index.html", list).base
        'http://127.0.0.1:8080'
        """
        parts = urlsplit(self.seed)
        return f"{parts.scheme}://{parts.netloc}"

    def pages_since(self, mark: int) -> tuple[int, float]:
        """Pages fetched since ``mark`` requests, and the seconds from the first to the last."""
        times = self.times()[mark:]
        return len(times), (times[-1] - times[0]) if len(times) > 1 else 0.0


@contextmanager
def serve_directory(name: str, root: Path, seed: str = "index.html") -> Iterator[Site]:
    """Serve ``root`` on 127.0.0.1 and a free port, threaded and quiet;
    ``seed``: the path, relative to ``root``, that the crawl starts from."""
    arrivals: list[float] = []

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def send_head(self):  # type: ignore[no-untyped-def]
            if not self.path.startswith("/robots.txt"):
                arrivals.append(time.monotonic())
            return super().send_head()

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(name, f"http://127.0.0.1:{server.server_port}/{seed}", lambda: list(arrivals))
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


_NGINX_CONF = """daemon off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    log_format arrival '$msec $request_uri';
    access_log {work}/access.log arrival;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    sendfile on;
    server {{
        listen 127.0.0.1:{port};
        root {root};
    }}
}}
"""


def _nginx() -> str | None:
    try:
        ensure("nginx")
    except SystemPackageMissing:
        return None
    return shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve_with_nginx(name: str, root: Path, nginx: str, seed: str = "index.html") -> Iterator[Site]:
    """Serve ``root`` on 127.0.0.1 with nginx; arrivals read from its access log.

    nginx follows symbolic links (``disable_symlinks`` is off by default), so
    a root that is a link, or holds links (python3-doc's ``html`` is
    ``../python3.11-doc/html``), is served as the files they point at.
    """
    with tempfile.TemporaryDirectory(prefix="bench-nginx-") as work:
        port = _free_port()
        conf = Path(work) / "nginx.conf"
        conf.write_text(_NGINX_CONF.format(work=work, port=port, root=root))
        log = Path(work) / "access.log"
        server = subprocess.Popen(
            [nginx, "-c", str(conf), "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            for _ in range(100):  # until it listens
                if server.poll() is not None:
                    error = server.stderr.read().decode(errors="replace").strip() if server.stderr else ""
                    raise RuntimeError(f"nginx exited ({server.returncode}) on start: {error}")
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.05)

            def arrivals() -> list[float]:
                if not log.exists():
                    return []
                times = []
                for line in log.read_text().splitlines():
                    stamp, _, path = line.partition(" ")
                    if not path.startswith("/robots.txt"):
                        # nginx stamps the end of a request; wall-clock
                        # seconds, as comparable among themselves as monotonic.
                        times.append(float(stamp))
                return times

            yield Site(f"{name} (nginx)", f"http://127.0.0.1:{port}/{seed}", arrivals)
        finally:
            server.terminate()
            server.wait(timeout=10)


@contextmanager
def demo_web() -> Iterator[Site]:
    with serve_demo_web() as web:
        yield Site(
            "demo web",
            web.seeds[0],
            lambda: [r.time for r in web.requests if r.path != "/robots.txt"],
            deny="/calendar/|/almanac/",
        )


def serve(name: str, root: Path, seed: str = "index.html") -> AbstractContextManager[Site]:
    """``root`` served by nginx when it is (or can be) installed, else by Python."""
    nginx = _nginx()
    if nginx is not None:
        return serve_with_nginx(name, root, nginx, seed)
    return serve_directory(name, root, seed)


def available() -> tuple[list[Callable[[], AbstractContextManager[Site]]], list[str]]:
    """A factory for every benchmark site, python3-doc installed from Debian
    when it is missing; and a line for each site that cannot run, with why."""
    sites: list[Callable[[], AbstractContextManager[Site]]] = [demo_web]
    missing: list[str] = []
    try:
        ensure("python3-doc")
    except SystemPackageMissing as exc:
        missing.append(f"python3-doc: cannot run: {str(exc).splitlines()[0]}")
    else:
        if (PYTHON3_DOC / "index.html").exists():
            sites.append(partial(serve, "python3-doc", PYTHON3_DOC))
        else:
            missing.append(f"python3-doc: cannot run: {PYTHON3_DOC / 'index.html'} is missing")
    return sites, missing
