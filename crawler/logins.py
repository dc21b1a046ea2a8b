"""What logging in to a members-only area sends, and what it sees (pure).

ARCHITECTURE.md, item 12. The HTTP answers (RFC 7617 Basic; RFC 7616
Digest with MD5 or SHA-256, ``-sess`` or not, ``qop=auth``), the login form
of a page filled in as a browser would, and whether a page is one that only
a logged-in member sees. :mod:`crawler.credentials` says which entry a URL
gets; :mod:`crawler.auth_middleware` sends what this module computes. No
Scrapy, Twisted or Redis here.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import lxml.etree
import lxml.html
from parsel import Selector

__all__ = [
    "TOKEN",
    "Challenge",
    "LoginForm",
    "basic_authorization",
    "digest_authorization",
    "digest_challenge",
    "logged_in",
    "login_form",
    "parse_challenges",
    "protection_space",
]

#: An HTTP token (RFC 9110 5.6.2): a header's, an authentication scheme's or parameter's name.
TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"


# --- a logged-in page -----------------------------------------------------------------


def logged_in(html: str, marker: str) -> bool:
    """Whether a page shows ``marker`` (``css:SELECTOR`` or ``text:TEXT``), what
    only a logged-in page has. The text is looked for in the page's text,
    white space collapsed, scripts and styles left out.

    >>> page = "<p>Hello, <b>member</b>.</p><a class='logout' href='/bye'>Log  out</a>"
    >>> logged_in(page, "css:a.logout"), logged_in(page, "text:Log out"), logged_in(page, "text:Log in")
    (True, True, False)
    """
    selector = Selector(text=html or "<html></html>")
    kind, _, wanted = marker.partition(":")
    if kind == "css":
        return bool(selector.css(wanted))
    words = selector.xpath("//text()[not(ancestor::script) and not(ancestor::style)]").getall()
    return " ".join(wanted.split()) in " ".join(" ".join(words).split())


@dataclass(frozen=True)
class LoginForm:
    """What submitting a login form sends: where, how, and its fields;
    ``secrets``, the values given for its password inputs (all given values
    when it has none): what a page of the area must never be kept showing."""

    action: str
    method: str
    data: tuple[tuple[str, str], ...] = field(repr=False)
    secrets: tuple[str, ...] = field(default=(), repr=False)


def login_form(html: str, url: str, fields: Iterable[tuple[str, str]]) -> LoginForm | None:
    """The login form of a page at ``url``, filled in with ``fields``: the
    first form that has every field named, else the first with a password
    input; None when there is neither. Its own values (hidden tokens, the
    first named submit button) are kept, as a browser sends them.

    >>> form = login_form('<form action="/in" method=post><input type=hidden name=t value=7>'
    ...                   '<input name=user><input type=password name=pw><button name=go value=1>Go</button>'
    ...                   '</form>', "http://a.test/login", [("user", "u"), ("pw", "p")])
    >>> form.action, form.method, [name for name, _ in form.data], form.secrets
    ('http://a.test/in', 'POST', ['t', 'user', 'pw', 'go'], ('p',))
    """
    fields = list(fields)
    try:
        document = lxml.html.document_fromstring(html or "<html></html>", base_url=url)
    except (lxml.etree.ParserError, ValueError):
        return None
    wanted = {name for name, _ in fields}
    chosen = _login_form_of(list(document.forms), wanted)
    if chosen is None:
        return None
    data = [(name, value) for name, value in chosen.form_values() if name not in wanted]
    data += fields
    data += _submit_button(chosen)
    passwords = {control.name for control in chosen.inputs if (control.get("type") or "").lower() == "password"}
    secrets = tuple(value for name, value in fields if name in passwords or not passwords)
    return LoginForm(chosen.action or url, (chosen.method or "GET").upper(), tuple(data), secrets)


def _login_form_of(forms: list[lxml.html.FormElement], wanted: set[str]) -> lxml.html.FormElement | None:
    """The first form with every field of ``wanted``, else the first with a password input."""
    for form in forms:
        if wanted <= {control.name for control in form.inputs}:
            return form
    for form in forms:
        if form.xpath(".//input[translate(@type, 'PASSWORD', 'password')='password']"):
            return form
    return None


def _submit_button(form: lxml.html.FormElement) -> list[tuple[str, str]]:
    """The name and value of the form's first submit button, as a browser
    sends them when it is clicked; none when that button has no name."""
    submit = form.xpath(
        ".//button[not(@type) or translate(@type, 'SUBMIT', 'submit')='submit']"
        " | .//input[translate(@type, 'SUBMIT', 'submit')='submit']"
    )
    if submit and submit[0].get("name"):
        return [(submit[0].get("name"), submit[0].get("value") or "")]
    return []


# --- HTTP authentication ------------------------------------------------------------------


def basic_authorization(user: str, password: str) -> str:
    """An ``Authorization`` value of RFC 7617 (UTF-8).

    >>> basic_authorization("Aladdin", "open sesame")
    'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=='
    """
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


@dataclass(frozen=True)
class Challenge:
    """A Digest challenge (``WWW-Authenticate: Digest ...``), as RFC 7616 names its parameters."""

    realm: str
    nonce: str
    algorithm: str = "MD5"
    qop: str | None = "auth"  # None: the server offered no qop (RFC 2069)
    opaque: str | None = None
    stale: bool = False
    userhash: bool = False


_HASHES = {"MD5": "md5", "SHA-256": "sha256"}
# Stronger first: a server may offer several (RFC 7616 3.7).
_PREFERENCE = ("SHA-256", "SHA-256-SESS", "MD5", "MD5-SESS")
_SCHEME = re.compile(rf"\s*({TOKEN})")
_PARAM = re.compile(rf'\s*({TOKEN})\s*=\s*(?:"((?:[^"\\]|\\.)*)"|({TOKEN}))\s*')
_TOKEN68 = re.compile(r"\s*[A-Za-z0-9\-._~+/]+=*\s*(?=,|$)")


def protection_space(url: str) -> str:
    """The paths a 401 challenge to ``url`` is taken to cover, as browsers
    take it (RFC 7617 2.2): those at or below the directory of its path.
    Credentials go to them only once the site has asked for them there.

    >>> protection_space("http://a.test/members/report.html"), protection_space("http://a.test/m/?q=1")
    ('/members/', '/m/')
    >>> protection_space("http://a.test")
    '/'
    """
    path = urlsplit(url).path or "/"
    return path[: path.rfind("/") + 1]


def parse_challenges(values: Iterable[str]) -> list[tuple[str, dict[str, str]]]:
    """Every challenge of ``WWW-Authenticate`` values: (scheme in lower case, parameters).

    >>> parse_challenges(['Digest realm="a, b", nonce="n", qop="auth,auth-int", Basic realm="x"'])
    [('digest', {'realm': 'a, b', 'nonce': 'n', 'qop': 'auth,auth-int'}), ('basic', {'realm': 'x'})]
    """
    found: list[tuple[str, dict[str, str]]] = []
    for value in values:
        position, length = 0, len(value)
        while position < length:
            if value[position] in ", \t":
                position += 1
                continue
            scheme = _SCHEME.match(value, position)
            if scheme is None:
                break  # not a challenge: the rest is unreadable
            position = scheme.end()
            params: dict[str, str] = {}
            token68 = _TOKEN68.match(value, position)
            if token68 is not None and not _PARAM.match(value, position):
                position = token68.end()
            while True:
                param = _PARAM.match(value, position)
                if param is None:
                    break
                name, quoted, token = param.groups()
                params[name.lower()] = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else token
                position = param.end()
                if position < length and value[position] == ",":
                    position += 1
            found.append((scheme.group(1).lower(), params))
    return found


def digest_challenge(values: Iterable[str]) -> Challenge | None:
    """The strongest Digest challenge among ``WWW-Authenticate`` values that
    this crawler can answer (MD5 or SHA-256, with or without ``-sess``, and
    ``qop=auth`` or none), or None.

    >>> digest_challenge(['Digest realm="r", nonce="1", algorithm=MD5, qop="auth"',
    ...                   'Digest realm="r", nonce="2", algorithm=SHA-256, qop="auth,auth-int", stale=TRUE'])
    Challenge(realm='r', nonce='2', algorithm='SHA-256', qop='auth', opaque=None, stale=True, userhash=False)
    >>> digest_challenge(['Basic realm="r"']) is None
    True
    """
    usable: list[Challenge] = []
    for scheme, params in parse_challenges(values):
        if scheme != "digest" or "nonce" not in params or "realm" not in params:
            continue
        algorithm = params.get("algorithm", "MD5").upper()
        if algorithm not in _PREFERENCE:
            continue
        qop: str | None = None
        if "qop" in params:
            offered = {part.strip().lower() for part in params["qop"].split(",")}
            if "auth" not in offered:
                continue  # auth-int alone: the body would have to be hashed too
            qop = "auth"
        usable.append(
            Challenge(
                realm=params["realm"],
                nonce=params["nonce"],
                algorithm=algorithm,
                qop=qop,
                opaque=params.get("opaque"),
                stale=params.get("stale", "").lower() == "true",
                userhash=params.get("userhash", "").lower() == "true",
            )
        )
    if not usable:
        return None
    return min(usable, key=lambda challenge: _PREFERENCE.index(challenge.algorithm))


def digest_authorization(
    challenge: Challenge,
    method: str,
    uri: str,
    user: str,
    password: str,
    nc: int,
    cnonce: str,
) -> str:
    """The ``Authorization`` answer to a Digest challenge (RFC 7616 3.4) for a
    request of ``method`` to ``uri`` (the request target: path and query), the
    ``nc``-th with this nonce.

    RFC 7616's example (3.9.1), SHA-256:

    >>> challenge = Challenge("http-auth@example.org", "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
    ...                       "SHA-256", "auth", "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS")
    >>> answer = digest_authorization(challenge, "GET", "/dir/index.html", "Mufasa", "Circle of Life", 1,
    ...                               "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
    >>> 'response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"' in answer
    True
    """
    algorithm = challenge.algorithm.upper()
    name = _HASHES[algorithm.removesuffix("-SESS")]

    def digest(text: str) -> str:
        return hashlib.new(name, text.encode("utf-8")).hexdigest()

    secret = digest(f"{user}:{challenge.realm}:{password}")
    if algorithm.endswith("-SESS"):
        secret = digest(f"{secret}:{challenge.nonce}:{cnonce}")
    target = digest(f"{method}:{uri}")
    count = f"{nc:08x}"
    if challenge.qop:
        response = digest(f"{secret}:{challenge.nonce}:{count}:{cnonce}:{challenge.qop}:{target}")
    else:
        response = digest(f"{secret}:{challenge.nonce}:{target}")
    username = digest(f"{user}:{challenge.realm}") if challenge.userhash else user
    parts = [
        f'username="{_quoted(username)}"',
        f'realm="{_quoted(challenge.realm)}"',
        f'uri="{_quoted(uri)}"',
        f"algorithm={algorithm}",
        f'nonce="{_quoted(challenge.nonce)}"',
    ]
    if challenge.qop:
        parts += [f"nc={count}", f'cnonce="{_quoted(cnonce)}"', f"qop={challenge.qop}"]
    parts.append(f'response="{response}"')
    if challenge.opaque is not None:
        parts.append(f'opaque="{_quoted(challenge.opaque)}"')
    if challenge.userhash:
        parts.append("userhash=true")
    return "Digest " + ", ".join(parts)


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
