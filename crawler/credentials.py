"""Credentials a site owner gave the crawler for members-only pages (pure).

:func:`load` reads the JSON file of ``-s CRAWLER_CREDENTIALS_FILE=FILE`` (its
format: docs/members-only.md) into :class:`Credentials`, whose
:meth:`~Credentials.for_url` names the entry, a :class:`Credential`, whose
area holds a URL: same scheme, host and port, the longest path prefix.
:class:`CredentialsError` says in one line why a file cannot be used, never
showing a value of it.  :mod:`crawler.logins` computes what logging in
sends; :mod:`crawler.auth_middleware` applies both to requests.

Design: ARCHITECTURE.md, "Members-only areas" (item 12).
"""

from __future__ import annotations

import html
import ipaddress
import json
import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from parsel import Selector

from crawler.logins import TOKEN
from crawler.sites import site_of

__all__ = [
    "METHODS",
    "Credential",
    "Credentials",
    "CredentialsError",
    "is_loopback",
    "load",
    "looks_like_logout",
    "parse",
    "readable_by_others",
    "without_secrets",
]

METHODS = ("basic", "digest", "form", "header", "cookie")
_FIELDS = {
    "basic": {"user", "password"},
    "digest": {"user", "password"},
    "form": {"login_url", "fields", "logged_in"},
}
# Headers the crawl sets itself, or that frame the message: not credentials.
_NOT_CREDENTIAL_HEADERS = frozenset(
    "host content-length content-type transfer-encoding connection cookie user-agent from referer accept "
    "accept-encoding accept-language if-none-match if-modified-since te upgrade".split()
)
_HEADER_NAME = re.compile(rf"{TOKEN}\Z")
_COOKIE_NAME = re.compile(rf"{TOKEN}\Z")
_COOKIE_VALUE = re.compile(r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*\Z")  # RFC 6265 cookie-octet
_FIELD_VALUE = re.compile(r"[^\x00-\x08\x0a-\x1f\x7f]*\Z")  # no control characters but tab
# Shorter values are not looked for in a page: replacing them would mangle its text.
_SHORTEST_SECRET = 4
# A URL that logs out: never sent a session (the crawl would end its own).
_LOGOUT = re.compile(r"(?i)(?:^|[/_.\-=?&])(?:log|sign)[_\-]?(?:out|off)(?:$|[/_.\-?&=;])")


class CredentialsError(ValueError):
    """The credentials file cannot be used: one line saying why (never a value of it)."""


@dataclass(frozen=True)
class Credential:
    """One entry of the file: the area it opens and how.

    ``key`` is as written (a URL without secrets); ``site`` is
    :func:`crawler.sites.site_of` of it and ``prefix`` its path ("/"
    for the whole site). Secret values are kept out of ``repr``.
    """

    key: str
    site: str
    prefix: str
    method: str
    user: str = field(default="", repr=False)
    password: str = field(default="", repr=False)
    login_url: str = ""
    fields: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    logged_in: str = ""
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    cookies: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    allow_insecure: bool = False

    def covers(self, url: str) -> bool:
        """Whether ``url`` is in this entry's area: same scheme, host and port,
        its path under the prefix.

        >>> entry = parse({"https://a.test/members/": {"basic": {"user": "u", "password": "p"}}}).entries[0]
        >>> [entry.covers(url) for url in ("https://a.test/members/x", "https://a.test:8443/members/x",
        ...                                "http://a.test/members/x", "https://a.test/public")]
        [True, False, False, False]
        """
        try:
            if site_of(url) != self.site:
                return False
            path = urlsplit(url).path or "/"
        except ValueError:
            return False
        return path.startswith(self.prefix)

    @property
    def header_names(self) -> tuple[str, ...]:
        """The request headers this entry sets."""
        if self.method in ("basic", "digest"):
            return ("Authorization",)
        if self.method == "header":
            return tuple(name for name, _ in self.headers)
        return ("Cookie",)


class Credentials:
    """Every entry of a credentials file, asked which one covers a URL."""

    def __init__(self, entries: Iterable[Credential] = ()) -> None:
        # Longest prefix first: the first entry that covers a URL is the one.
        self.entries = sorted(entries, key=lambda entry: (entry.site, -len(entry.prefix)))
        self._by_site: dict[str, list[Credential]] = {}
        for entry in self.entries:
            self._by_site.setdefault(entry.site, []).append(entry)
        #: Every request header any entry sets (lower case): no request
        #: outside an entry's area may carry one.
        self.header_names = frozenset(
            {"authorization", "cookie", *(name.lower() for entry in self.entries for name in entry.header_names)}
        )

    def for_url(self, url: str) -> Credential | None:
        """The entry whose area holds ``url`` (the longest prefix), or None.

        The login page and a URL that looks like a log-out link are given no
        session of a form login (a shorter prefix may still cover them): the
        one is fetched to log in, the other would end the crawl's own session.

        >>> creds = parse({"https://a.test": {"cookie": {"s": "1"}},
        ...                "https://a.test/m/": {"form": {"login_url": "https://a.test/login",
        ...                                              "fields": {"u": "x"}, "logged_in": "text:Bye"}}})
        >>> [getattr(creds.for_url(url), "method", None)
        ...  for url in ("https://a.test/m/x", "https://a.test/x", "https://b.test/m/x", "https://a.test/m/logout")]
        ['form', 'cookie', None, 'cookie']

        """
        try:
            site = site_of(url)
        except ValueError:
            return None
        for entry in self._by_site.get(site, ()):
            if entry.covers(url):
                if entry.method == "form" and (looks_like_logout(url) or _same_path(url, entry.login_url)):
                    continue
                return entry
        return None

    def __len__(self) -> int:
        return len(self.entries)


def _same_path(url: str, other: str) -> bool:
    return urlsplit(url).path == urlsplit(other).path


def without_secrets(body: bytes, secrets: Iterable[str], replacement: bytes, encoding: str = "utf-8") -> bytes:
    """``body`` with each secret (of 4 characters or more) replaced, as written
    and as HTML writes it, in UTF-8 and in the body's ``encoding``; the
    longest first, so a secret that holds another goes whole.

    >>> without_secrets(b"<p>Authorization: Basic bTpw</p><p>sid=a&amp;bc</p>", ["Basic bTpw", "bTpw", "a&bc", "no"],
    ...                 b"[redacted]")
    b'<p>Authorization: [redacted]</p><p>sid=[redacted]</p>'
    """
    found: set[bytes] = set()
    for secret in secrets:
        if len(secret) < _SHORTEST_SECRET:
            continue
        for text in (secret, html.escape(secret, quote=True), html.escape(secret, quote=False)):
            for codec in ("utf-8", encoding):
                try:
                    found.add(text.encode(codec))
                except (LookupError, UnicodeError):
                    continue
    for written in sorted(found, key=len, reverse=True):
        body = body.replace(written, replacement)
    return body


def looks_like_logout(url: str) -> bool:
    """Whether ``url`` reads like a log-out link (``/logout``, ``sign-out``, ``?action=logoff``).

    >>> [looks_like_logout(u) for u in ("http://a/logout", "http://a/m/sign-out.html",
    ...                                 "http://a/?action=logoff", "http://a/blog/logo-outline")]
    [True, True, True, False]
    """
    parts = urlsplit(url)
    return bool(_LOGOUT.search(parts.path) or _LOGOUT.search("?" + parts.query))


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine (where plain http stays on the machine).

    >>> [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "app.localhost", "10.0.0.1", "example.org")]
    [True, True, True, True, False, False]
    """
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# --- the file ---------------------------------------------------------------------


def load(path: str | os.PathLike[str] | None) -> Credentials:
    """The credentials of the JSON file at ``path`` (none without a path).

    :class:`CredentialsError` for a file that cannot be read or used; its
    message names the file and the entry, never a value.
    """
    if not path:
        return Credentials()
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise CredentialsError(f"cannot read the credentials file {source}: {reason}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        # Its message names a position, not the text there.
        raise CredentialsError(
            f"the credentials file {source} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    return parse(data, str(source))


def readable_by_others(path: str | os.PathLike[str]) -> bool:
    """Whether users other than its owner may read the file (``chmod 600`` it)."""
    try:
        return bool(os.stat(path).st_mode & (stat.S_IRGRP | stat.S_IROTH))
    except OSError:
        return False


def parse(data: Any, source: str = "credentials") -> Credentials:
    """Credentials from the file's JSON value (its format: docs/members-only.md).

    >>> parse({"http://127.0.0.1:8080": {"basic": {"user": "u", "password": "p"}}}).entries
    ... # doctest: +NORMALIZE_WHITESPACE
    [Credential(key='http://127.0.0.1:8080', site='http://127.0.0.1:8080', prefix='/', method='basic',
                login_url='', logged_in='', allow_insecure=False)]
    >>> parse({"https://u:secret@a.test/": {"basic": {"user": "u", "password": "p"}}})
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    crawler.credentials.CredentialsError: credentials: 'https://a.test/':
        a key holds no credentials (they go in its entry)
    >>> parse({"http://docs.example.org/": {"basic": {"user": "u", "password": "p"}}})
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    crawler.credentials.CredentialsError: credentials: 'http://docs.example.org/':
        plain http to another machine would show the credentials to anyone on the way:
        use https, or say "allow_insecure": true
    """
    if not isinstance(data, dict):
        raise CredentialsError(f"{source}: the file must hold one JSON object of sites and their credentials")
    entries: list[Credential] = []
    areas: set[tuple[str, str]] = set()
    for key, value in data.items():
        entry = _entry(key, value, source)
        if (entry.site, entry.prefix) in areas:
            raise CredentialsError(f"{source}: {_shown(key)!r}: another key names the same area")
        areas.add((entry.site, entry.prefix))
        entries.append(entry)
    return Credentials(entries)


def _shown(key: str) -> str:
    """A key as messages show it: without what a user may have put before ``@``."""
    try:
        parts = urlsplit(key)
    except ValueError:
        return "<not a URL>"
    if "@" in parts.netloc:
        return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
    return key


def _area(key: str, source: str, what: str = "a key") -> tuple[str, str, str]:
    """``(site, prefix, host)`` of a URL in the file, or CredentialsError."""
    shown = _shown(key)
    try:
        parts = urlsplit(key)
        site = site_of(key)  # reads the port: ValueError for a bad one
    except ValueError:
        raise CredentialsError(f"{source}: {shown!r}: {what} must be an http(s) URL") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise CredentialsError(f"{source}: {shown!r}: {what} must be an http(s) URL (scheme://host[:port][/path])")
    if "@" in parts.netloc:
        raise CredentialsError(f"{source}: {shown!r}: {what} holds no credentials (they go in its entry)")
    if parts.query or parts.fragment:
        raise CredentialsError(f"{source}: {shown!r}: {what} has no query or fragment")
    return site, parts.path or "/", parts.hostname


def _entry(key: Any, value: Any, source: str) -> Credential:
    """One entry of the file, read in order: its key, the method it names,
    then that method's fields; the first fault found is the message."""
    if not isinstance(key, str):
        raise CredentialsError(f"{source}: keys must be URLs")
    site, prefix, host = _area(key, source)
    where = f"{source}: {_shown(key)!r}"
    method, spec, insecure = _method(value, where)
    scheme = site.split(":", 1)[0]
    if scheme == "http" and not is_loopback(host) and not insecure:
        raise CredentialsError(
            f"{where}: plain http to another machine would show the credentials to anyone "
            f'on the way: use https, or say "allow_insecure": true'
        )
    if method in _FIELDS:
        _check_names(method, spec, where)
    secrets: dict[str, Any]
    if method in ("basic", "digest"):
        secrets = _user_and_password(method, spec, where)
    elif method == "form":
        secrets = _form(spec, where, site, insecure, source)
    elif method == "header":
        secrets = {"headers": _headers(spec, where)}
    else:
        secrets = {"cookies": _cookies(spec, where)}
    return Credential(key=key, site=site, prefix=prefix, method=method, allow_insecure=insecure, **secrets)


def _method(value: Any, where: str) -> tuple[str, dict[str, Any], bool]:
    """The method an entry names, its object, and whether the entry allows plain http."""
    if not isinstance(value, dict):
        raise CredentialsError(f"{where}: the entry must be an object naming one method ({', '.join(METHODS)})")
    unknown = sorted(set(value) - {*METHODS, "allow_insecure"})
    if unknown:
        raise CredentialsError(
            f"{where}: unknown name(s) {', '.join(map(repr, unknown))}; "
            f"an entry names one method ({', '.join(METHODS)}) and may say allow_insecure"
        )
    methods = [name for name in METHODS if name in value]
    if len(methods) != 1:
        raise CredentialsError(f"{where}: the entry must name exactly one method ({', '.join(METHODS)})")
    method = methods[0]
    insecure = value.get("allow_insecure", False)
    if not isinstance(insecure, bool):
        raise CredentialsError(f"{where}: allow_insecure must be true or false")
    spec = value[method]
    if not isinstance(spec, dict) or not spec:
        raise CredentialsError(f"{where}: {method} must be a non-empty object")
    return method, spec, insecure


def _check_names(method: str, spec: Mapping[str, Any], where: str) -> None:
    """A method of fixed fields names each of them, and nothing else."""
    names, wanted = set(spec), _FIELDS[method]
    if names == wanted:
        return
    missing, extra = wanted - names, names - wanted
    detail = "; ".join(
        filter(
            None,
            (
                f"missing {', '.join(sorted(missing))}" if missing else "",
                f"unknown {', '.join(map(repr, sorted(extra)))}" if extra else "",
            ),
        )
    )
    raise CredentialsError(f"{where}: {method} takes {', '.join(sorted(wanted))} ({detail})")


def _user_and_password(method: str, spec: Mapping[str, Any], where: str) -> dict[str, str]:
    """Basic's or Digest's user and password: strings a header can carry."""
    for name in ("user", "password"):
        if not isinstance(spec[name], str) or not _FIELD_VALUE.match(spec[name]):
            raise CredentialsError(f"{where}: {method} {name} must be a string without control characters")
    if method == "basic" and ":" in spec["user"]:
        raise CredentialsError(f"{where}: a Basic user name cannot hold ':' (RFC 7617)")
    return {"user": spec["user"], "password": spec["password"]}


def _headers(spec: Mapping[str, Any], where: str) -> tuple[tuple[str, str], ...]:
    """The headers of a header entry: token names the crawl does not set itself, values of one line."""
    for name, value in spec.items():
        if not _HEADER_NAME.match(name) or name.lower() in _NOT_CREDENTIAL_HEADERS:
            raise CredentialsError(
                f"{where}: header {name!r} cannot carry credentials "
                "(a token name, not one the crawl sets; cookies use the cookie method)"
            )
        if not isinstance(value, str) or not value or not _FIELD_VALUE.match(value):
            raise CredentialsError(f"{where}: header {name!r} must be a non-empty string without control characters")
    return tuple(spec.items())


def _cookies(spec: Mapping[str, Any], where: str) -> tuple[tuple[str, str], ...]:
    """The cookies of a cookie entry, each name and value as RFC 6265 allows."""
    for name, value in spec.items():
        if not _COOKIE_NAME.match(name):
            raise CredentialsError(f"{where}: {name!r} is not a cookie name")
        if not isinstance(value, str) or not _COOKIE_VALUE.match(value):
            raise CredentialsError(f"{where}: cookie {name!r} must be a string of cookie characters (RFC 6265)")
    return tuple(spec.items())


def _form(spec: Mapping[str, Any], where: str, site: str, insecure: bool, source: str) -> dict[str, Any]:
    """A form login's three fields, each checked in turn."""
    return {
        "login_url": _login_url(spec["login_url"], where, site, insecure, source),
        "fields": _form_fields(spec["fields"], where),
        "logged_in": _logged_in_marker(spec["logged_in"], where),
    }


def _login_url(login_url: Any, where: str, site: str, insecure: bool, source: str) -> str:
    """The login page: on the very site it logs into, so the password goes nowhere else."""
    if not isinstance(login_url, str):
        raise CredentialsError(f"{where}: login_url must be a URL")
    login_site, _, login_host = _area(login_url, source, "login_url")
    if login_site != site:
        raise CredentialsError(
            f"{where}: login_url must be on the site it logs into ({site}), so that the credentials go nowhere else"
        )
    if login_site.startswith("http:") and not is_loopback(login_host) and not insecure:
        raise CredentialsError(
            f"{where}: a login over plain http to another machine would show the "
            f'credentials to anyone on the way: use https, or say "allow_insecure": true'
        )
    return login_url


def _form_fields(fields: Any, where: str) -> tuple[tuple[str, str], ...]:
    """What the login form is filled in with: named fields, values of one line."""
    if not isinstance(fields, dict) or not fields or not all(map(_form_field, fields.items())):
        raise CredentialsError(f"{where}: fields must be an object of form field names and string values")
    return tuple(fields.items())


def _form_field(field: tuple[Any, Any]) -> bool:
    name, value = field
    return bool(isinstance(name, str) and name and isinstance(value, str) and _FIELD_VALUE.match(value))


def _logged_in_marker(marker: Any, where: str) -> str:
    """``css:SELECTOR`` (one cssselect can read) or ``text:TEXT``, not empty."""
    if not isinstance(marker, str) or not marker.startswith(("css:", "text:")) or not marker.split(":", 1)[1].strip():
        raise CredentialsError(
            f"{where}: logged_in must be 'css:SELECTOR' or 'text:TEXT' (what only a logged-in page shows)"
        )
    if marker.startswith("css:"):
        try:
            Selector(text="<html></html>").css(marker[4:])
        except Exception as exc:  # cssselect's syntax errors, and others it may raise
            raise CredentialsError(f"{where}: logged_in has a bad CSS selector ({type(exc).__name__})") from None
    return marker
