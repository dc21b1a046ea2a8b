"""A generated web of N pages over N / 100 sites on loopback, written once and served by nginx.

The pages are :mod:`bench.synthetic`'s (page ``k``'s title, text, headings
and links are ``synthetic.page(k)``'s), dressed as documentation and news
pages are: a header of navigation, breadcrumbs, the article, a sidebar of
related pages, a footer, and the markup, styles and scripts around them, so
that a page weighs 20-100 KB of HTML and holds 20-150 links (as Python's
or Django's documentation pages do). One page in eight has a Chinese
paragraph, one in thirty is mostly Chinese, as in :mod:`bench.synthetic`.

Site ``s`` is ``http://127.0.X.Y:PORT/`` (its own loopback address, so
each is a site of its own to the crawl's politeness, on one port for all);
it holds the pages ``k`` with ``k % sites == s``, its home page the lowest.
Each page links to its site's home and first pages (the navigation), to
eight pages further down its site (so that every page is reached within a
few steps of the home page), to its neighbours, to the pages its synthetic
links name (four in five of them moved onto its own site, keeping the
power law of in-links: a site's first pages are its hubs), and to related
pages of its site up to its drawn count of links.

The files are written once per N into ``bench/.cache/scale-web-N`` (rewritten
when this module or :mod:`bench.synthetic` changes). Links to other sites
carry a placeholder for the port, which nginx's ``sub_filter`` replaces as
it serves a page (:data:`PORT_MARK`), so the files do not depend on the
free port a run finds.

    python -m bench.scaleweb N        (writes the files, then serves them until Ctrl-C)
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from bench import synthetic

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache"
PAGES_PER_SITE = 100
PORT_MARK = "__PORT__"
MIN_BYTES, MODE_BYTES, MAX_BYTES = 20_000, 40_000, 100_000
MIN_LINKS, MAX_LINKS = 20, 150
LOCAL_SHARE = 0.8  # of a page's synthetic links, moved onto its own site
SECTIONS = ("docs", "news", "guide", "api", "blog", "forum")
_SEED = "lantern-scale-1"
_CHUNK = 500  # pages a generating process writes at a time
_FIXED_LINKS = 2  # the site's name in the header, and Home in the breadcrumbs


@dataclass(frozen=True)
class ScaleWeb:
    """N pages over N / 100 sites: where each page lives, and its HTML."""

    pages: int
    sites: int = field(init=False)

    def __post_init__(self) -> None:
        if self.pages < 1:
            raise ValueError(f"a web needs 1 page or more, not {self.pages}")
        object.__setattr__(self, "sites", max(1, self.pages // PAGES_PER_SITE))

    def site_of(self, k: int) -> int:
        return k % self.sites

    def rank_in_site(self, k: int) -> int:
        """0 for a site's home page, then 1, 2, ... in the order of ``k``."""
        return k // self.sites

    def site_size(self, site: int) -> int:
        return len(range(site, self.pages, self.sites))

    def page_at(self, site: int, rank: int) -> int:
        return rank * self.sites + site

    def address(self, site: int) -> str:
        """The site's loopback address; 127.0.0.x is left to other servers.

        >>> web = ScaleWeb(100_000)
        >>> web.address(0), web.address(249), web.address(250), web.address(999)
        ('127.0.1.1', '127.0.1.250', '127.0.2.1', '127.0.4.250')
        """
        return f"127.0.{1 + site // 250}.{1 + site % 250}"

    def path(self, k: int) -> str:
        rank = self.rank_in_site(k)
        return "/" if rank == 0 else f"/{SECTIONS[rank % len(SECTIONS)]}/{k}.html"

    def file(self, k: int) -> str:
        """The page's file, relative to the web's root directory."""
        path = self.path(k)
        return (
            f"{self.address(self.site_of(k))}{path}index.html" if path == "/" else self.address(self.site_of(k)) + path
        )

    def url(self, k: int, port: int | str) -> str:
        return f"http://{self.address(self.site_of(k))}:{port}{self.path(k)}"

    def seeds(self, port: int) -> list[str]:
        return [f"http://{self.address(site)}:{port}/" for site in range(self.sites)]

    def href(self, k: int, target: int) -> str:
        """A link from page ``k`` to ``target``: a path on its own site, else a URL."""
        if self.site_of(k) == self.site_of(target):
            return self.path(target)
        return self.url(target, PORT_MARK)

    def links(self, k: int, item: dict[str, Any], rng: random.Random) -> dict[str, list[tuple[str, str]]]:
        """The page's links (href, anchor text) by the part of the page they are in, ``item``
        its synthetic page; as many as drawn, with the two of the header and breadcrumbs."""
        site, rank, size = self.site_of(k), self.rank_in_site(k), self.site_size(self.site_of(k))
        local = [self.page_at(site, r) for r in range(size)]
        parts: dict[str, list[tuple[str, str]]] = {
            "nav": [("/", "Home")] + [(self.path(p), _short(p)) for p in local[1:12]],
            "children": [(self.path(p), _title(p)) for p in local[8 * rank + 1 : 8 * rank + 9]],
            "neighbours": [(self.path(p), _short(p)) for p in local[max(rank - 1, 0) : rank + 2] if p != k],
            "content": [self._content_link(k, target, anchor, rng) for target, anchor in _synthetic_links(item)],
            "footer": [("/", "Home"), (self.path(local[min(1, size - 1)]), "Contents"), ("/", "Top")],
        }
        count = sum(len(part) for part in parts.values()) + _FIXED_LINKS
        wanted = rng.randint(MIN_LINKS, MAX_LINKS)
        parts["related"] = [(self.path(p), _short(p)) for p in rng.choices(local, k=max(0, wanted - count))]
        return parts

    def _content_link(self, k: int, target: int, anchor: str, rng: random.Random) -> tuple[str, str]:
        if rng.random() < LOCAL_SHARE:
            moved = self.page_at(self.site_of(k), self.rank_in_site(target))
            if moved != k:
                return self.path(moved), _anchor(moved, anchor, rng)
        return self.href(k, target), anchor

    def html(self, k: int) -> str:
        """Page ``k``'s HTML: the same on every call and every machine."""
        item = synthetic.page(k)
        rng = random.Random(f"{_SEED}-{k}")
        links = self.links(k, item, rng)
        site = self.site_of(k)
        body = "\n".join(
            [
                _header(site, links["nav"]),
                _breadcrumbs(self.path(k), item["title"]),
                _article(item, links["content"], links["children"]),
                _sidebar(links["related"], links["neighbours"]),
                _footer(links["footer"]),
            ]
        )
        head = (
            f'<!DOCTYPE html>\n<html lang="{item["lang"]}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(item['title'])} | Site {site}</title>\n"
            f'<meta name="description" content="{html.escape(item["description"])}">\n'
            f'<link rel="stylesheet" href="/static/site.css">\n'
        )
        target = int(rng.triangular(MIN_BYTES, MAX_BYTES, MODE_BYTES))
        room = target - len(head.encode()) - len(body.encode()) - 60
        return f"{head}{_styles(rng, room)}</head>\n<body>\n{body}\n</body>\n</html>\n"


def _synthetic_links(item: dict[str, Any]) -> list[tuple[int, str]]:
    return [(int(url.rsplit("/", 1)[1].removesuffix(".html")), anchor) for url, anchor in item["links"]]


@cache
def _title(k: int) -> str:
    """Page ``k``'s title: a page names its site's first pages, and each its neighbours, many times."""
    return synthetic.title_of(k)


def _short(k: int) -> str:
    title = _title(k)
    return " ".join(title.split()[:3]) or title


def _anchor(target: int, anchor: str, rng: random.Random) -> str:
    """The moved link's anchor: the words of its new target's title, as the synthetic one's were."""
    if anchor == "read more":
        return anchor
    words = _title(target).split()
    return " ".join(words[: rng.randint(1, 3)]) or _title(target)


def _a(href: str, text: str, kind: str) -> str:
    return f'<a class="reference {kind}" href="{html.escape(href)}">{html.escape(text)}</a>'


def _list(links: list[tuple[str, str]], kind: str) -> str:
    return "\n".join(f'<li class="toctree-l1">{_a(href, text, kind)}</li>' for href, text in links)


def _header(site: int, nav: list[tuple[str, str]]) -> str:
    return (
        f'<header class="site-header"><div class="brand"><a href="/">Site {site}</a></div>\n'
        f'<nav class="navigation" role="navigation" aria-label="main"><ul class="nav-list">\n'
        f"{_list(nav, 'internal')}\n</ul></nav></header>"
    )


def _breadcrumbs(path: str, title: str) -> str:
    section = path.split("/")[1] if path != "/" else ""
    return (
        '<div class="breadcrumbs" aria-label="breadcrumbs"><a href="/">Home</a> &raquo; '
        f"<span>{html.escape(section)}</span> &raquo; <span>{html.escape(title)}</span></div>"
    )


def _paragraphs(text: str, chinese: bool) -> list[str]:
    sentences = [s for s in re.split(r"(?<=[.。])\s*", text) if s]
    per = 6 if chinese else 4
    return [
        "".join(sentences[i : i + per]) if chinese else " ".join(sentences[i : i + per])
        for i in range(0, len(sentences), per)
    ]


def _article(item: dict[str, object], content: list[tuple[str, str]], children: list[tuple[str, str]]) -> str:
    paragraphs = _paragraphs(str(item["text"]), item["lang"] == "zh")
    headings = list(item["headings"])  # type: ignore[call-overload]
    parts = [f'<main class="document"><article class="body" role="main">\n<h1>{html.escape(str(item["title"]))}</h1>']
    for n, paragraph in enumerate(paragraphs):
        if headings and n and n % 2 == 0:
            parts.append(f'<section class="section"><h2>{html.escape(headings.pop(0))}</h2></section>')
        parts.append(f'<p class="text">{html.escape(paragraph)}</p>')
    if content:
        parts.append(
            f'<div class="seealso"><p class="admonition-title">See also</p><ul>{_list(content, "external")}</ul></div>'
        )
    if children:
        parts.append(f'<div class="toctree-wrapper compound"><ul>{_list(children, "internal")}</ul></div>')
    parts.append("</article></main>")
    return "\n".join(parts)


def _sidebar(related: list[tuple[str, str]], neighbours: list[tuple[str, str]]) -> str:
    return (
        '<aside class="sphinxsidebar" role="navigation"><h3>Related</h3><ul>\n'
        f"{_list(related, 'internal')}\n</ul><h3>Next and previous</h3><ul>{_list(neighbours, 'internal')}</ul></aside>"
    )


def _footer(links: list[tuple[str, str]]) -> str:
    return f'<footer class="footer"><ul>{_list(links, "internal")}</ul><p>&copy; Copyright the authors.</p></footer>'


def _styles(rng: random.Random, room: int) -> str:
    """An inline style sheet of about ``room`` bytes: the weight of a real page's markup that holds no text."""
    lines: list[str] = []
    size = 0
    while True:
        count = max(1, (room - size) // 60 + 1)
        names = rng.choices(synthetic.english().words, k=2 * count)
        numbers = rng.randbytes(5 * count)
        for n in range(count):
            margin, colour = numbers[5 * n : 5 * n + 2], numbers[5 * n + 2 : 5 * n + 5].hex()
            line = (
                f".{names[2 * n]}-{names[2 * n + 1]} {{ margin: {margin[0] % 41}px {margin[1] % 41}px; "
                f"color: #{colour}; }}"
            )
            if size + len(line) + 1 > room:
                return _style_sheet(lines)
            lines.append(line)
            size += len(line) + 1


def _style_sheet(lines: list[str]) -> str:
    return "<style>\n" + "\n".join(lines) + "\n</style>\n"


# --- the files, written once ----------------------------------------------------------------


def fingerprint() -> str:
    digest = hashlib.sha256()
    for name in ("bench/scaleweb.py", "bench/synthetic.py"):
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()[:16]


def web_dir(n: int) -> Path:
    return CACHE / f"scale-web-{n}"


def _write_chunk(n: int, root: str, start: int, stop: int) -> int:
    web = ScaleWeb(n)
    written = 0
    for k in range(start, stop):
        path = Path(root) / web.file(k)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = web.html(k).encode()
        path.write_bytes(data)
        written += len(data)
    return written


def written(n: int, log: Callable[[str], object] = print) -> Path:
    """The directory of the ``n``-page web, written unless it is already, for this code."""
    target = web_dir(n)
    record = target / "built.json"
    if record.exists() and json.loads(record.read_text()).get("fingerprint") == fingerprint():
        return target
    stamp = fingerprint()
    partial = CACHE / f"scale-web-{n}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    log(f"Writing a web of {n:,} pages over {ScaleWeb(n).sites:,} sites in {target.relative_to(ROOT)} (cached)...")
    started = time.monotonic()
    with ProcessPoolExecutor(max(1, min(2, os.cpu_count() or 1))) as pool:
        chunks = [(start, min(start + _CHUNK, n)) for start in range(0, n, _CHUNK)]
        total = sum(pool.map(_write_chunk, *zip(*[(n, str(partial), a, b) for a, b in chunks], strict=True)))
    info = {"pages": n, "bytes": total, "seconds": round(time.monotonic() - started, 1), "fingerprint": stamp}
    (partial / "built.json").write_text(json.dumps(info) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    log(f"  written: {total / 2**20:,.0f} MiB in {info['seconds']:.0f} s")
    return target


# --- serving them -----------------------------------------------------------------------------

_NGINX_CONF = """daemon off;
worker_processes 1;
worker_rlimit_nofile {files};
pid {work}/nginx.pid;
error_log {work}/error.log;
events {{ worker_connections {connections}; }}
http {{
    default_type text/html;
    types {{ text/html html; }}
    charset utf-8;
    log_format arrival '$msec $request_uri';
    access_log {work}/access.log arrival;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    keepalive_requests 1000000;
    server {{
{listen}
        root {root}/$server_addr;
        sub_filter '{mark}' '$server_port';
        sub_filter_once off;
    }}
}}
"""


@dataclass
class Served:
    """A web being served: its port, and the arrival times of its page requests (wall clock)."""

    port: int
    log: Path

    def arrivals(self) -> list[float]:
        times = []
        if self.log.exists():
            for line in self.log.read_text().splitlines():
                stamp, _, path = line.partition(" ")
                if stamp and not path.startswith("/robots.txt"):
                    times.append(float(stamp))
        return times


def nginx_config(web: ScaleWeb, root: Path, work: Path, port: int) -> str:
    listen = "\n".join(f"        listen {web.address(site)}:{port};" for site in range(web.sites))
    return _NGINX_CONF.format(
        work=work,
        root=root,
        listen=listen,
        mark=PORT_MARK,
        connections=web.sites + 1024,
        files=2 * web.sites + 4096,
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(address: str, port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex((address, port)) == 0


@contextmanager
def serve(web: ScaleWeb, root: Path) -> Iterator[Served]:
    """Every site of ``web`` served by one nginx process (installed when missing and possible)."""
    from bench.sites import _nginx

    nginx = _nginx()
    if nginx is None:
        raise RuntimeError("nginx is not installed and cannot be: the scale benchmark needs it")
    with tempfile.TemporaryDirectory(prefix="bench-scale-nginx-") as work:
        for _ in range(5):  # a port free on 127.0.0.1 may be taken on another address
            port = _free_port()
            (Path(work) / "nginx.conf").write_text(nginx_config(web, root, Path(work), port))
            server = subprocess.Popen(
                [nginx, "-c", f"{work}/nginx.conf", "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            if _started(server, web, port):
                break
        else:
            raise RuntimeError("nginx could not listen on the web's addresses: " + _error(server))
        try:
            yield Served(port, Path(work) / "access.log")
        finally:
            server.send_signal(signal.SIGQUIT)  # graceful: the access log complete
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            if server.stderr:
                server.stderr.close()


def _started(server: subprocess.Popen[bytes], web: ScaleWeb, port: int) -> bool:
    last = web.address(web.sites - 1)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return False
        if _listening(last, port):
            return True
        time.sleep(0.05)
    server.kill()
    server.wait()
    return False


def _error(server: subprocess.Popen[bytes]) -> str:
    return server.stderr.read().decode(errors="replace").strip()[-500:] if server.stderr else ""


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not args[0].replace("_", "").isdigit() or int(args[0]) < 1:
        raise SystemExit("usage: python -m bench.scaleweb N   (N: pages, 1 or more)")
    web = ScaleWeb(int(args[0]))
    with serve(web, written(web.pages)) as served:
        print(f"Serving {web.pages:,} pages over {web.sites:,} sites, e.g. {web.seeds(served.port)[0]} (Ctrl-C stops)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
