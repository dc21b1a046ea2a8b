"""Members-only areas: a site owner's credentials on requests, at fetch time only.

:class:`AuthMiddleware` applies the entries of ``CRAWLER_CREDENTIALS_FILE``
(:mod:`crawler.credentials`), and what logging in sends
(:mod:`crawler.logins`), to each request as it leaves and to nothing else:
every request loses the headers any entry sets, then gets those of the
entry whose area holds its URL. It answers Digest challenges, logs in to a
form once per node and entry and again when a page comes back logged out
(unless the session is still alive: such a page is not for this account),
gives up an entry whose password is wrong, and marks each page fetched with
credentials ``members_only``. Basic and Digest credentials go, as a
browser sends them, only where the site has asked for them with a 401
(:func:`crawler.logins.protection_space`): one key can then name a whole
site, and only the pages that needed them are marked. A page fetched with credentials that prints
them back (a debug page echoing the request's headers) loses them before
anything keeps it: every secret its request sent, and the area's passwords,
become ``[redacted]`` in its body (:func:`crawler.credentials.without_secrets`).

Design: ARCHITECTURE.md, "Members-only areas" (item 12).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlencode, urljoin, urlparse, urlsplit, urlunparse

from scrapy import Request
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import TextResponse
from scrapy.http.cookies import CookieJar
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import defer

from crawler.archive import REDACTED
from crawler.codings import decode
from crawler.credentials import Credential, Credentials, load, readable_by_others, without_secrets
from crawler.logins import (
    Challenge,
    basic_authorization,
    digest_authorization,
    digest_challenge,
    logged_in,
    login_form,
    parse_challenges,
    protection_space,
)
from crawler.sites import site_of

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

__all__ = ["AuthMiddleware"]

# A request answered by a challenge or a logged-out page is queued again this
# many times at most (then its page counts as auth/failed).
_AGAIN = 2
# Logins in a row with no logged-in page after them, at most: a site whose
# pages all come back logged out is given up, not logged into forever.
_LOGINS_UNCONFIRMED = 3
_REDIRECTS = 5
_LOGIN_TRIES = 3  # attempts of each login request (network errors)
_REMEMBERED = 10_000  # URLs whose tries are counted, at most
# Login requests: redirects followed here (within the site), no retry later
# (a login is now or not at all), and no robots.txt check: the site owner
# named the login page, robots.txt governs what is crawled.
_LOGIN_META = {"dont_redirect": True, "dont_retry": True, "dont_obey_robotstxt": True}


class _Session:
    """What this node knows of one entry: a Digest challenge, a form login's cookies."""

    def __init__(self, credential: Credential) -> None:
        self.credential = credential
        self.challenge: Challenge | None = None
        self.spaces: set[str] = set()  # Basic, Digest: the paths (and below) the site asked credentials for
        self.nc = 0  # requests answered with the challenge's nonce
        self.jar = CookieJar()
        self.active = False  # logged in (form)
        self.generation = 0  # which login a request's cookies came from
        self.unconfirmed = 0  # logins since the last page that showed logged_in
        self.failed: str | None = None  # why the entry is given up
        self.warned = False
        self.home: str | None = None  # the logged-in page the last login led to
        self.told_forbidden = False
        self.waiters: list[defer.Deferred[None]] | None = None  # a login under way, and who waits for it


class AuthMiddleware:
    """Applies the credentials of ``CRAWLER_CREDENTIALS_FILE`` (see the module docstring)."""

    def __init__(
        self,
        credentials: Credentials,
        stats: StatsCollector,
        download: Callable[[Request], Awaitable[Response]],
        maxsize: int = 0,
    ) -> None:
        self.credentials = credentials
        self.stats = stats
        self.download = download
        self.maxsize = maxsize
        self._sessions: dict[str, _Session] = {}
        self._tries: dict[str, int] = {}
        self._form_secrets: dict[str, tuple[str, ...]] = {}  # an entry's key: what its login form's passwords were
        self._headers = tuple(name.encode("latin-1") for name in sorted(credentials.header_names))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> AuthMiddleware:
        settings = crawler.settings
        path = settings.get("CRAWLER_CREDENTIALS_FILE")
        if not path:
            raise NotConfigured  # no members-only area: nothing to say
        credentials = load(path)  # checked before the crawl starts (crawler.spiders.web.check_arguments)
        if not len(credentials):
            raise NotConfigured(f"{path} names no members-only area")
        if readable_by_others(path):
            logger.warning("The credentials file %s can be read by other users of this machine: chmod 600 it", path)
        logger.info(
            "Members-only areas: %s", ", ".join(f"{entry.key} ({entry.method})" for entry in credentials.entries)
        )

        async def download(request: Request) -> Response:
            assert crawler.engine is not None
            return await crawler.engine.download_async(request)

        return cls(credentials, crawler.stats, download, settings.getint("DOWNLOAD_MAXSIZE"))

    # --- requests ----------------------------------------------------------------------

    async def process_request(self, request: Request, spider: Spider | None = None) -> None:
        for header in self._headers:
            request.headers.pop(header, None)
        meta = request.meta
        for key in ("members_only", "auth_headers", "auth_session"):
            meta.pop(key, None)
        self._keep_referer_home(request)
        login = meta.get("auth_login")
        if login is not None:  # a request of a login: the jar's cookies, on the entry's own site only
            session = self._sessions.get(login)
            if session is not None and _site(request.url) == session.credential.site:
                session.jar.add_cookie_header(request)
            return None
        credential = self.credentials.for_url(request.url)
        if credential is None:
            return None
        session = self._session(credential)
        if credential.method == "form":
            if meta.get("robots_txt"):
                return None  # robots.txt comes before anything else on a site, a login too
            await self._add_session(session, request)
        elif not self._add_credentials(session, request):
            return None
        meta["members_only"] = True
        return None

    async def _add_session(self, session: _Session, request: Request) -> None:
        """A form login's session cookies, logging in first if need be;
        IgnoreRequest when the entry cannot log in."""
        if session.failed is None and not session.active:
            await self._login(session)
        if session.failed is not None:
            self._count_failed(session)
            raise IgnoreRequest(f"cannot log in to {session.credential.key}: {session.failed}")
        session.jar.add_cookie_header(request)
        request.meta["auth_session"] = session.generation

    def _add_credentials(self, session: _Session, request: Request) -> bool:
        """The headers of a Basic, Digest, header or cookie entry; False when
        there are none to send yet (Digest before the site's challenge)."""
        credential = session.credential
        method = credential.method
        headers = request.headers
        if method in ("basic", "digest") and not _in_space(request.url, session.spaces):
            return False  # a 401 of the site's says where they are wanted
        if method == "basic":
            headers[b"Authorization"] = basic_authorization(credential.user, credential.password)
        elif method == "digest":
            if session.challenge is None:
                return False  # the site's 401 brings the challenge
            session.nc += 1
            headers[b"Authorization"] = digest_authorization(
                session.challenge,
                request.method,
                _target(request.url),
                credential.user,
                credential.password,
                session.nc,
                os.urandom(16).hex(),
            )
        elif method == "header":
            for name, value in credential.headers:
                headers[name] = value
            request.meta["auth_headers"] = credential.header_names  # names only: the archive redacts them
        else:
            headers[b"Cookie"] = "; ".join(f"{name}={value}" for name, value in credential.cookies)
        return True

    def _keep_referer_home(self, request: Request) -> None:
        """No ``Referer`` from a members-only page to another site."""
        referer = request.headers.get(b"Referer")
        if not referer:
            return
        source = referer.decode("latin-1")
        if _site(source) != _site(request.url) and self.credentials.for_url(source) is not None:
            del request.headers[b"Referer"]

    def _session(self, credential: Credential) -> _Session:
        session = self._sessions.get(credential.key)
        if session is None:
            session = self._sessions[credential.key] = _Session(credential)
        return session

    # --- responses ---------------------------------------------------------------------

    async def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Request | Response:
        meta = request.meta
        login = meta.get("auth_login")
        if login is not None:
            self._keep_login_cookies(login, request, response)
            return response
        credential = self.credentials.for_url(request.url)
        if credential is not None and meta.get("members_only"):
            response = self._without_secrets(credential, request, response)
        if credential is None or meta.get("robots_txt") and credential.method == "form":
            return response
        session = self._session(credential)
        if credential.method == "digest":
            return self._digest(session, request, response)
        if credential.method == "basic" and response.status == 401 and not meta.get("members_only"):
            return self._basic_challenge(session, request, response)
        if not meta.get("members_only"):
            return response
        if credential.method == "form":
            return await self._form(session, request, response)
        if response.status == 401:
            self._count_failed(session, "the site refused the credentials (401)")
        else:
            self._count_page(request)
        return response

    def _digest(self, session: _Session, request: Request, response: Response) -> Request | Response:
        if response.status != 401:
            if request.meta.get("members_only"):
                self._count_page(request)
            return response
        challenge = digest_challenge(value.decode("latin-1") for value in response.headers.getlist(b"WWW-Authenticate"))
        if challenge is not None and (not request.meta.get("members_only") or challenge.stale):
            session.challenge, session.nc = challenge, 0
            session.spaces.add(protection_space(request.url))
            self.stats.inc_value("auth/challenged")
            again = self._again(request)
            if again is not None:
                return again
        self._count_failed(
            session,
            "the site refused the credentials (401)"
            if challenge is not None
            else "the site asks for no Digest authentication this crawler can answer",
        )
        return response

    def _basic_challenge(self, session: _Session, request: Request, response: Response) -> Request | Response:
        """A 401 to a request sent without credentials: a Basic challenge
        opens its protection space to them, and the request goes again;
        any other 401 (a challenge of another scheme) is the page's answer."""
        challenges = parse_challenges(
            value.decode("latin-1") for value in response.headers.getlist(b"WWW-Authenticate")
        )
        if not any(scheme == "basic" for scheme, _ in challenges):
            return response
        session.spaces.add(protection_space(request.url))
        self.stats.inc_value("auth/challenged")
        again = self._again(request)
        if again is not None:
            return again
        self._count_failed(session, "the site keeps asking for credentials (401)")
        return response

    async def _form(self, session: _Session, request: Request, response: Response) -> Request | Response:
        session.jar.extract_cookies(response, request)
        if not self._logged_out(session.credential, response):
            session.unconfirmed = 0
            self._count_page(request)
            return response
        sent = request.meta.get("auth_session")
        if sent == session.generation and session.active:
            alive = await self._still_logged_in(session)
            if sent == session.generation:  # no other login meanwhile
                if alive:
                    _refuse(session, request, self._tries, self.stats)
                session.active = False  # the session this request had is over: the next one logs in
        self.stats.inc_value("auth/logged_out")
        again = self._again(request)
        if again is not None:
            return again
        self._count_failed(session, "its pages come back logged out after a login")
        raise IgnoreRequest(f"logged out of {session.credential.key}")

    def _keep_login_cookies(self, login: str, request: Request, response: Response) -> None:
        """The cookies a login exchange set, into its entry's jar (from its own site only)."""
        session = self._sessions.get(login)
        if session is not None and _site(request.url) == session.credential.site:
            session.jar.extract_cookies(response, request)

    def _without_secrets(self, credential: Credential, request: Request, response: Response) -> Response:
        """``response`` with the secrets its request sent out of its body
        (:func:`_redacted`); IgnoreRequest for a body not in its coding."""
        secrets = _secrets_sent(credential, request, self._form_secrets.get(credential.key, ()))
        try:
            kept, replaced = _redacted(response, secrets, self.maxsize)
        except ValueError:
            self.stats.inc_value("auth/undecodable")
            raise IgnoreRequest(f"{response.url}: a members-only page in a coding this crawler cannot read") from None
        if replaced:
            self.stats.inc_value("auth/redacted")
        return kept

    async def _still_logged_in(self, session: _Session) -> bool:
        """Whether the page the last login led to still shows the session
        logged in: a page that sent it to the login page meanwhile is then
        one this account may not see, and a new login would not open it."""
        if session.home is None:
            return False
        probe = Request(session.home, dont_filter=True, meta={**_LOGIN_META, "auth_login": session.credential.key})
        try:
            response = await self._download(probe)
        except Exception:  # network errors, timeouts, IgnoreRequest: the session is not known to be alive
            return False
        return response.status == 200 and not self._logged_out(session.credential, response)

    def _logged_out(self, credential: Credential, response: Response) -> bool:
        """A 401, a redirect to the login page, or a page without ``logged_in``."""
        if response.status == 401:
            return True
        if 300 <= response.status < 400:
            location = response.headers.get(b"Location")
            if not location:
                return False
            target = urlsplit(urljoin(response.url, location.decode("latin-1")))
            login = urlsplit(credential.login_url)
            return _site(target.geturl()) == credential.site and target.path == login.path
        if (
            response.status != 200
            or not isinstance(response, TextResponse)
            or b"html" not in (response.headers.get(b"Content-Type") or b"text/html").lower()
        ):
            return False
        try:
            body, left, _ = decode(response.body, _codings(response), self.maxsize)
        except ValueError:
            return False  # the crawl's decoder will say what is wrong with it
        if left:
            return False
        return not logged_in(response.replace(body=body).text, credential.logged_in)

    def _again(self, request: Request) -> Request | None:
        """The request queued again with fresh credentials, or None when it has been enough."""
        tries = self._tries.get(request.url, 0)
        if tries >= _AGAIN:
            return None
        if len(self._tries) >= _REMEMBERED:
            self._tries.clear()
        self._tries[request.url] = tries + 1
        again = request.replace(dont_filter=True)
        for key in ("members_only", "auth_headers", "auth_session"):
            again.meta.pop(key, None)
        return again

    def _count_page(self, request: Request) -> None:
        """A response fetched with credentials: its URL's tries are over."""
        self._tries.pop(request.url, None)
        if not request.meta.get("robots_txt"):
            self.stats.inc_value("auth/members_only")

    # --- failures ----------------------------------------------------------------------

    def _count_failed(self, session: _Session, why: str | None = None) -> None:
        """One more page of the area that could not be fetched logged in; said once per entry."""
        self.stats.inc_value("auth/failed")
        if not session.warned:
            session.warned = True
            logger.warning(
                "Members-only area %s: %s; its pages are not fetched logged in (counted as "
                "auth/failed), the rest of the crawl goes on",
                session.credential.key,
                why or session.failed,
            )

    # --- form login --------------------------------------------------------------------

    async def _login(self, session: _Session) -> None:
        """Log in (or wait for the login under way): ``session.active``, or ``session.failed`` set."""
        if session.waiters is not None:
            waiter: defer.Deferred[None] = defer.Deferred()
            session.waiters.append(waiter)
            await maybe_deferred_to_future(waiter)
            return
        session.waiters = []
        try:
            try:
                why = await self._log_in(session)
            except Exception as exc:  # network errors, timeouts, a response too large: no login
                why = f"the login failed ({type(exc).__name__})"
            if why is None:
                session.active, session.generation = True, session.generation + 1
                session.unconfirmed += 1
                self.stats.inc_value("auth/login")
                if session.unconfirmed > _LOGINS_UNCONFIRMED:
                    why = f"its pages came back logged out after each of {_LOGINS_UNCONFIRMED} logins"
            if why is not None:
                session.active, session.failed = False, why
        finally:
            waiters, session.waiters = session.waiters, None
            for waiter in waiters:
                waiter.callback(None)

    async def _log_in(self, session: _Session) -> str | None:
        """Fetch the login page, post its form; None once logged in, else why not."""
        credential = session.credential
        session.jar = CookieJar()  # a new session: nothing of the last one is sent
        response = await self._fetch(session, Request(credential.login_url, dont_filter=True))
        if isinstance(response, str):
            return response
        if response.status != 200 or not isinstance(response, TextResponse):
            return f"its login page {credential.login_url} answered {response.status}"
        form = login_form(response.text, response.url, credential.fields)
        if form is None:
            return f"its login page {credential.login_url} has no login form"
        self._form_secrets[credential.key] = form.secrets
        if form.method != "POST":
            return "its login form would send the password in a URL (method GET)"
        if _site(form.action) != credential.site:
            return "its login form posts to another site"
        submit = Request(
            form.action,
            method="POST",
            body=_form_body(form.data),
            dont_filter=True,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        response = await self._fetch(session, submit)
        if isinstance(response, str):
            return response
        if not isinstance(response, TextResponse) or not logged_in(response.text, credential.logged_in):
            return f"the page after logging in does not show {credential.logged_in!r} (wrong credentials?)"
        session.home = response.url
        return None

    async def _fetch(self, session: _Session, request: Request) -> Response | str:
        """A login request, its redirects followed within the site; or why not."""
        site = session.credential.site
        for _ in range(_REDIRECTS + 1):
            request.meta.update(_LOGIN_META, auth_login=session.credential.key)
            response = await self._download(request)
            location = response.headers.get(b"Location")
            if not (300 <= response.status < 400 and location):
                return response
            target = urljoin(response.url, location.decode("latin-1"))
            if _site(target) != site:
                return "its login redirects to another site"
            request = Request(target, dont_filter=True)
        return "its login redirects too many times"

    async def _download(self, request: Request) -> Response:
        """One login request, tried again (at once) after a network error: a
        connection the site closed while the crawl kept it for reuse fails
        the next request sent on it."""
        attempt = 1
        while True:
            try:
                return await self.download(request)
            except IgnoreRequest:
                raise
            except Exception as exc:  # network errors, timeouts
                if attempt >= _LOGIN_TRIES:
                    raise
                logger.debug("Login request to %s failed (%s): trying again", request.url, type(exc).__name__)
            attempt += 1
            request = request.replace()


def _site(url: str) -> str | None:
    try:
        return site_of(url)
    except ValueError:
        return None


def _secrets_sent(credential: Credential, request: Request, form_secrets: Iterable[str]) -> list[str]:
    """What ``request`` sent that opens the area (its ``Authorization``,
    ``Cookie`` and the entry's headers; a token and each cookie also
    alone), and the entry's passwords (a form's, as its last login sent them)."""
    found = [credential.password, *form_secrets]
    for name in {*credential.header_names, "Authorization", "Cookie"}:
        for raw in request.headers.getlist(name):
            value = raw.decode("latin-1")
            found += [value, value.partition(" ")[2]]  # "Basic TOKEN": the token too
            if name == "Cookie":
                for pair in value.split(";"):
                    found += [pair.strip(), pair.partition("=")[2].strip()]
    return found


def _redacted(response: Response, secrets: list[str], maxsize: int) -> tuple[Response, bool]:
    """``response`` with ``secrets`` replaced in its body by ``[redacted]``,
    decoded first when it came in a content coding (and kept decoded: the
    archive then holds it so), and whether a secret was there; ValueError
    for a body not in its coding."""
    body, headers = response.body, response.headers.copy()
    codings = _codings(response)
    if codings:
        body, left, _ = decode(body, codings, maxsize)
        if left:
            raise ValueError(f"unknown content coding {left[-1]!r}")
        del headers[b"Content-Encoding"]
    encoding = response.encoding if isinstance(response, TextResponse) else "utf-8"
    redacted = without_secrets(body, secrets, REDACTED.encode(), encoding)
    if redacted == response.body:
        return response, False
    if b"Content-Length" in headers:
        headers[b"Content-Length"] = str(len(redacted)).encode()
    return response.replace(body=redacted, headers=headers), redacted != body


def _in_space(url: str, spaces: set[str]) -> bool:
    """Whether ``url``'s path is at or below one of ``spaces``."""
    path = urlsplit(url).path or "/"
    return any(path.startswith(space) for space in spaces)


def _codings(response: Response) -> list[str]:
    """The content codings ``Content-Encoding`` lists, in the order applied."""
    return [
        part.strip().lower()
        for value in response.headers.getlist(b"Content-Encoding")
        for part in value.decode("latin-1").split(",")
        if part.strip()
    ]


def _target(url: str) -> str:
    """The request target Scrapy sends for ``url`` (what Digest's ``uri`` must be)."""
    parts = urlparse(url)
    return urlunparse(("", "", parts.path or "/", parts.params, parts.query, ""))


def _form_body(data: Iterable[tuple[str, str]]) -> bytes:
    return urlencode(list(data)).encode("utf-8")


def _refuse(session: _Session, request: Request, tries: dict[str, int], stats: Any) -> NoReturn:
    """A page that is not for this account: counted, said once per entry, not fetched again."""
    tries.pop(request.url, None)
    session.unconfirmed = 0  # the session showed logged in
    stats.inc_value("auth/forbidden")
    if not session.told_forbidden:
        session.told_forbidden = True
        logger.info(
            "Members-only area %s: pages that send this account to the login page while it is logged in "
            "are not for it; they are not fetched (counted as auth/forbidden)",
            session.credential.key,
        )
    raise IgnoreRequest(f"{request.url} is not for this account of {session.credential.key}")
