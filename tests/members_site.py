"""A site with members-only areas, served on 127.0.0.1 for the tests of crawling with credentials.

    with other_site() as other, serve_members(other.base) as site:
        site.url("/basic/")      # behind HTTP Basic
        site.url("/digest/")     # behind HTTP Digest (SHA-256 or MD5, qop=auth; nonces go stale)
        site.url("/form/")       # behind a login form (/login); a session lasts SESSION_REQUESTS pages
        site.url("/form/admin/") # admins only: the member is sent to the login page, logged in or not
        site.url("/api/")        # behind a bearer token (TOKEN)
        site.url("/premium/")    # behind a cookie (COOKIE)
        site.requests            # every request, with its headers, in order

Everything else is public. The members' pages link to another site (``other``, on
another port) and redirect to it, so a test can see what reached it. Each area
but Digest's has a debug page, ``echo.html``, that prints the request's
credentials back (the form area's, the password on file too). The server
checks credentials itself, the way a web server would: Digest answers are
verified from RFC 7616's formulas written here, not by the crawler's code.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote

USER = "member"
PASSWORD = "pw-Zebra-7f3a-lantern"
REALM = "members@lantern.test"
TOKEN = "tok-Quokka-91b2-lantern"
COOKIE = "ck-Walrus-5d0e-lantern"
SESSION_REQUESTS = 4  # pages a form login's session lasts
ADMIN_PAGES = ("/form/admin/users.html", "/form/admin/audit.html")  # linked from /form/, never shown to a member
NONCE_USES = 2  # requests a Digest nonce answers before it goes stale

_SENTENCES = {
    "report-1": (
        "Quarterly harbour report for members. Ferry revenue grew by a third in the northern district "
        "this quarter. The board approved two new boats. Fuel costs fell slightly. Passenger numbers "
        "rose on every route."
    ),
    "report-2": "Minutes of the spring meeting. The lighthouse fund reached its goal. Volunteers painted the pier.",
    "report-3": "Digest of the winter season. Storm repairs cost less than planned. The quay reopened in March.",
    "report-4": "Second part of the digest. Cargo tonnage doubled at the eastern wharf. Cranes were renewed.",
    "report-5": "Form area report five. Salmon quotas were cut by the ministry. Fishermen protested at the harbour.",
    "report-6": "Form area report six. The marina added forty berths. Waiting lists shrank.",
    "report-7": "Form area report seven. Ice cream sales at the promenade broke records in July.",
    "report-8": "Form area report eight. The tide gauge was replaced after sixty years of service.",
    "data": "Tide tables as data. Each row holds a high water mark.",
    "story": "A premium story. The old harbour master remembers the flood of 1953.",
}


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    status: int = 0


@dataclass
class MembersSite:
    base: str = ""
    other: str = ""
    requests: list[Seen] = field(default_factory=list)
    logins: int = 0  # successful ones
    failed_logins: int = 0
    stale_nonces: int = 0
    sessions: dict[str, int] = field(default_factory=dict)  # session id: pages served with it
    issued: list[str] = field(default_factory=list)  # every session id handed out
    logouts_with_session: int = 0
    password: str = PASSWORD
    session_requests: int = SESSION_REQUESTS
    lock: threading.Lock = field(default_factory=threading.Lock)
    _nonces: dict[str, int] = field(default_factory=dict)
    _tokens: set[str] = field(default_factory=set)

    def url(self, path: str = "/") -> str:
        return self.base + path

    def members_urls(self) -> list[str]:
        """Every members-only page a crawl should index."""
        return [
            self.url(path)
            for path in (
                "/basic/",
                "/basic/report-1.html",
                "/basic/report-2.html",
                "/basic/echo.html",
                "/digest/",
                "/digest/report-3.html",
                "/digest/report-4.html?part=2",
                "/form/",
                "/form/report-5.html",
                "/form/report-6.html",
                "/form/report-7.html",
                "/form/report-8.html",
                "/form/echo.html",
                "/api/",
                "/api/data.html",
                "/api/echo.html",
                "/premium/",
                "/premium/story.html",
                "/premium/echo.html",
            )
        ]


def _page(title: str, body: str, links: tuple[tuple[str, str], ...] = (), head: str = "", logout: bool = False) -> str:
    anchors = "".join(f'<li><a href="{href}">{text}</a></li>' for href, text in links)
    if logout:  # what only a logged-in page shows
        anchors = '<li><a class="logout" href="/form/logout">Log out</a></li>' + anchors
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head><body><h1>{title}</h1>"
        f"<p>{body}</p><ul>{anchors}</ul></body></html>"
    )


def _echo(area: str, headers: Message, extra: str = "", logout: bool = False) -> str:
    """A debug page printing the request's credentials back, as such pages do."""
    shown = " ".join(f"{name}: {html.escape(headers.get(name) or '')}" for name in ("Authorization", "Cookie"))
    title = f"Request echo of the {area} area"
    return _page(title, f"The {area} area's debug echo of the request headers. {shown} {extra}", logout=logout)


def _login_page(token: str, message: str = "") -> str:
    return (
        "<!doctype html><html><head><title>Log in</title></head><body><h1>Log in</h1>"
        f"<p>{message}Members log in here to read the harbour reports.</p>"
        '<form method="post" action="/login">'
        f'<input type="hidden" name="csrf" value="{token}">'
        '<label>User <input name="user"></label><label>Password <input type="password" name="pass"></label>'
        '<button type="submit">Log in</button></form></body></html>'
    )


def _digest_params(header: str) -> dict[str, str]:
    return {
        name.lower(): quoted if quoted else token
        for name, quoted, token in re.findall(r'(\w+)=(?:"([^"]*)"|([^,\s]+))', header)
    }


def _h(algorithm: str, text: str) -> str:
    return (hashlib.sha256 if algorithm.upper().startswith("SHA-256") else hashlib.md5)(text.encode()).hexdigest()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    site: MembersSite

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def _answer(self) -> None:
        site = self.site
        with site.lock:
            site.requests.append(Seen(self.command, self.path, dict(self.headers)))
            index = len(site.requests) - 1
        status, headers, body = self._route()
        with site.lock:
            site.requests[index].status = status
        data = body.encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self) -> tuple[int, list[tuple[str, str]], str]:
        path = self.path
        if path == "/robots.txt":
            return 200, [], "User-agent: *\nDisallow: /basic/private/\n"
        if path == "/":
            return (
                200,
                [],
                _page(
                    "Harbour society",
                    "Welcome to the harbour society.",
                    (
                        ("/public.html", "Timetable"),
                        ("/login", "Members: log in"),
                        ("/basic/", "Bulletin"),
                        ("/digest/", "Digest"),
                        ("/form/", "Reports"),
                        ("/api/", "Data"),
                        ("/premium/", "Premium"),
                    ),
                ),
            )
        if path == "/public.html":
            return 200, [], _page("Timetable", "The public ferry timetable. Ferries leave at nine and at noon.")
        if path.split("?")[0] == "/login":
            return self._login()
        if path.startswith("/basic/"):
            return self._basic(path)
        if path.startswith("/digest/"):
            return self._digest(path)
        if path.startswith("/form/"):
            return self._form(path)
        if path.startswith(("/api/", "/premium/")):
            return self._token(path)
        return 404, [], _page("Not found", "No such page.")

    # --- a bearer token, a cookie -----------------------------------------------------------

    def _token(self, path: str) -> tuple[int, list[tuple[str, str]], str]:
        if path.startswith("/api/"):
            valid = self.headers.get("Authorization") == f"Bearer {TOKEN}"
            pages = {
                "/api/": _page(
                    "Data", "Data for members.", (("/api/data.html", "Tide data"), ("/api/echo.html", "Echo"))
                ),
                "/api/data.html": _page("Tide data", _SENTENCES["data"]),
                "/api/echo.html": _echo("data", self.headers),
            }
        else:
            valid = self.headers.get("Cookie") == f"session={COOKIE}"
            pages = {
                "/premium/": _page(
                    "Premium", "Premium stories.", (("/premium/story.html", "Story"), ("/premium/echo.html", "Echo"))
                ),
                "/premium/story.html": _page("Story", _SENTENCES["story"]),
                "/premium/echo.html": _echo("premium", self.headers),
            }
        if not valid:
            return 401, [("WWW-Authenticate", 'Bearer realm="api"')], _page("Unauthorized", "Members only.")
        if path not in pages:
            return 404, [], _page("Not found", "No such page.")
        return 200, [], pages[path]

    # --- a login form, and a session of a few pages ---------------------------------------

    def _login(self) -> tuple[int, list[tuple[str, str]], str]:
        site = self.site
        token = secrets.token_hex(8)
        with site.lock:
            site._tokens.add(token)
        if self.command != "POST":
            return 200, [], _login_page(token)
        length = int(self.headers.get("Content-Length") or 0)
        form = {name: values[0] for name, values in parse_qs(self.rfile.read(length).decode()).items()}
        with site.lock:
            valid = form.get("csrf") in site._tokens and form.get("user") == USER and form.get("pass") == site.password
            if not valid:
                site.failed_logins += 1
                return 200, [], _login_page(token, "Wrong user name or password. ")
            session = secrets.token_hex(12)
            site.sessions[session] = 0
            site.issued.append(session)
            site.logins += 1
        return 302, [("Location", "/form/"), ("Set-Cookie", f"sid={session}; Path=/; HttpOnly")], ""

    def _session(self) -> str | None:
        match = re.search(r"(?:^|;\s*)sid=([0-9a-f]+)", self.headers.get("Cookie") or "")
        return match.group(1) if match else None

    def _form(self, path: str) -> tuple[int, list[tuple[str, str]], str]:
        site = self.site
        session = self._session()
        with site.lock:
            if path == "/form/logout":
                if session in site.sessions:
                    site.logouts_with_session += 1
                    del site.sessions[session]
                return 302, [("Location", "/login")], ""
            valid = session in site.sessions and site.sessions[session] < site.session_requests
            if valid:
                site.sessions[session] += 1
            elif session in site.sessions:
                del site.sessions[session]  # expired
        if not valid or path.startswith("/form/admin/"):
            if re.fullmatch(r"/form/report-[57]\.html", path):  # some pages answer with the login form itself
                return 200, [], _login_page("expired")
            return 302, [("Location", f"/login?next={quote(path)}")], ""
        if path == "/form/go":
            return 302, [("Location", f"{site.other}/landing-form.html")], ""
        if path == "/form/echo.html":
            return (
                200,
                [],
                _echo("reports", self.headers, f"Password on file: {html.escape(site.password)}", logout=True),
            )
        if path == "/form/":
            links = (*((f"/form/report-{n}.html", f"Report {n}") for n in (5, 6, 7, 8)), ("/form/echo.html", "Echo"))
            return (
                200,
                [],
                _page(
                    "Reports",
                    "Reports for members.",
                    (
                        *links,
                        *((admin, "Administration") for admin in ADMIN_PAGES),
                        ("/form/go", "Elsewhere"),
                        (f"{site.other}/from-form.html", "Partner"),
                    ),
                    logout=True,
                ),
            )
        match = re.fullmatch(r"/form/(report-[5-8])\.html", path)
        if match is None:
            return 404, [], _page("Not found", "No such page.")
        return 200, [], _page(f"Report {match.group(1)[-1]}", _SENTENCES[match.group(1)], logout=True)

    # --- HTTP Basic -----------------------------------------------------------------------

    def _basic(self, path: str) -> tuple[int, list[tuple[str, str]], str]:
        site = self.site
        expected = "Basic " + base64.b64encode(f"{USER}:{site.password}".encode()).decode()
        if self.headers.get("Authorization") != expected:
            return 401, [("WWW-Authenticate", f'Basic realm="{REALM}"')], _page("Unauthorized", "Members only.")
        if path == "/basic/":
            return (
                200,
                [],
                _page(
                    "Bulletin",
                    "The members' bulletin.",
                    (
                        ("/basic/report-1.html", "Quarterly report"),
                        ("/basic/report-2.html", "Minutes"),
                        ("/basic/private/minutes.html", "Board minutes"),
                        ("/basic/noindex.html", "Draft"),
                        ("/basic/go", "Partner landing"),
                        ("/basic/echo.html", "Echo"),
                        (f"{site.other}/from-basic.html", "Partner"),
                    ),
                ),
            )
        if path == "/basic/echo.html":
            return 200, [], _echo("bulletin", self.headers)
        if path == "/basic/go":
            return 302, [("Location", f"{site.other}/landing.html")], ""
        if path == "/basic/noindex.html":
            return 200, [], _page("Draft", "A draft nobody should find.", head='<meta name="robots" content="noindex">')
        if path == "/basic/private/minutes.html":
            return 200, [], _page("Board minutes", "Forbidden by robots.txt.")
        match = re.fullmatch(r"/basic/(report-[12])\.html", path)
        if match is None:
            return 404, [], _page("Not found", "No such page.")
        return 200, [], _page(f"Report {match.group(1)[-1]}", _SENTENCES[match.group(1)])

    # --- HTTP Digest (RFC 7616) -----------------------------------------------------------

    def _challenge(self, stale: bool = False) -> list[tuple[str, str]]:
        nonce = secrets.token_hex(16)
        with self.site.lock:
            self.site._nonces[nonce] = 0
        flag = ", stale=true" if stale else ""
        return [
            (
                "WWW-Authenticate",
                f'Digest realm="{REALM}", qop="auth", algorithm=SHA-256, nonce="{nonce}", opaque="xyz"{flag}',
            ),
            (
                "WWW-Authenticate",
                f'Digest realm="{REALM}", qop="auth", algorithm=MD5, nonce="{nonce}", opaque="xyz"{flag}',
            ),
        ]

    def _digest(self, path: str) -> tuple[int, list[tuple[str, str]], str]:
        site = self.site
        header = self.headers.get("Authorization") or ""
        if not header.startswith("Digest "):
            return 401, self._challenge(), _page("Unauthorized", "Members only.")
        given = _digest_params(header)
        algorithm = given.get("algorithm", "MD5")
        secret = _h(algorithm, f"{USER}:{REALM}:{site.password}")
        expected = _h(
            algorithm,
            f"{secret}:{given.get('nonce')}:{given.get('nc')}:{given.get('cnonce')}:"
            f"{given.get('qop')}:{_h(algorithm, f'{self.command}:{path}')}",
        )
        if given.get("username") != USER or given.get("uri") != path or given.get("response") != expected:
            return 401, self._challenge(), _page("Unauthorized", "Members only.")
        with site.lock:
            uses = site._nonces.get(given["nonce"])
            if uses is not None:
                site._nonces[given["nonce"]] = uses + 1
        if uses is None or uses >= NONCE_USES:
            with site.lock:
                site.stale_nonces += 1
            return 401, self._challenge(stale=True), _page("Unauthorized", "Members only.")
        if path == "/digest/":
            return (
                200,
                [],
                _page(
                    "Digest",
                    "The members' digest.",
                    (
                        ("/digest/report-3.html", "Winter"),
                        ("/digest/report-4.html?part=2", "Second part"),
                        (f"{site.other}/from-digest.html", "Partner"),
                    ),
                ),
            )
        if path == "/digest/report-3.html":
            return 200, [], _page("Report 3", _SENTENCES["report-3"])
        if path == "/digest/report-4.html?part=2":
            return 200, [], _page("Report 4", _SENTENCES["report-4"])
        return 404, [], _page("Not found", "No such page.")


@contextmanager
def serve_members(
    other: str, password: str = PASSWORD, session_requests: int = SESSION_REQUESTS
) -> Iterator[MembersSite]:
    """The members' site until the block ends; ``other``: the base URL of the site it links to;
    a form login's session lasts ``session_requests`` pages."""
    site = MembersSite(other=other, password=password, session_requests=session_requests)
    handler = type("Handler", (_Handler,), {"site": site})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    site.base = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
