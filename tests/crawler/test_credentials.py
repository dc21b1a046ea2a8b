"""The credentials file, and where each entry's credentials may go (pure)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawler.credentials import CredentialsError, load, parse

SECRET = "Zq9-secret-value"
BASIC = {"basic": {"user": "member", "password": SECRET}}
FORM = {
    "form": {
        "login_url": "https://reports.example.org/login",
        "fields": {"user": "u", "pass": SECRET},
        "logged_in": "css:a.logout",
    }
}


# --- which entry covers a URL --------------------------------------------------------------


def test_an_entry_covers_its_site_and_path_only() -> None:
    credentials = parse(
        {
            "https://reports.example.org/members/": BASIC,
            "http://127.0.0.1:8080": {"header": {"Authorization": "Bearer " + SECRET}},
        }
    )
    covered = {
        "https://reports.example.org/members/q3.html": "basic",
        "https://reports.example.org/members/": "basic",
        "https://REPORTS.example.org:443/members/x": "basic",  # the default port is the same site
        "https://reports.example.org/public.html": None,  # outside the path
        "https://reports.example.org:8443/members/x": None,  # another port
        "http://reports.example.org/members/x": None,  # another scheme
        "https://example.org/members/x": None,  # another host, even a parent domain
        "https://evil.reports.example.org/members/x": None,  # a subdomain
        "https://reports.example.org.evil.test/members/x": None,
        "http://127.0.0.1:8080/anything": "header",
        "http://127.0.0.1:8081/anything": None,
        "http://localhost:8080/anything": None,  # the same machine under another name is another site
    }
    for url, method in covered.items():
        entry = credentials.for_url(url)
        assert (entry.method if entry else None) == method, url


def test_the_longest_prefix_wins() -> None:
    credentials = parse(
        {
            "https://a.example.org": {"cookie": {"s": "1"}},
            "https://a.example.org/members/": BASIC,
            "https://a.example.org/members/board/": {"digest": {"user": "u", "password": "p"}},
        }
    )
    assert credentials.for_url("https://a.example.org/x").method == "cookie"
    assert credentials.for_url("https://a.example.org/members/x").method == "basic"
    assert credentials.for_url("https://a.example.org/members/board/x").method == "digest"


def test_log_out_links_get_no_session() -> None:
    credentials = parse({"https://reports.example.org/": FORM})
    assert credentials.for_url("https://reports.example.org/members/x.html") is not None
    for url in (
        "https://reports.example.org/logout",
        "https://reports.example.org/members/sign-out",
        "https://reports.example.org/account?action=logoff",
        "https://reports.example.org/log_out.php",
    ):
        assert credentials.for_url(url) is None, url
    assert credentials.for_url("https://reports.example.org/blog/logo-outline.html") is not None
    # The login page is fetched to log in, not with the session it opens.
    assert credentials.for_url("https://reports.example.org/login") is None
    assert credentials.for_url("https://reports.example.org/login?next=/members/") is None


def test_header_names_lists_every_header_an_entry_sets() -> None:
    credentials = parse({"https://a.example.org": {"header": {"X-Api-Key": SECRET}}, "https://b.example.org": BASIC})
    assert credentials.header_names == {"authorization", "cookie", "x-api-key"}


# --- the file --------------------------------------------------------------------------


def test_a_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps({"http://127.0.0.1:8080/basic/": BASIC}))
    entry = load(path).entries[0]
    assert (entry.site, entry.prefix, entry.method, entry.user, entry.password) == (
        "http://127.0.0.1:8080",
        "/basic/",
        "basic",
        "member",
        SECRET,
    )
    assert SECRET not in repr(entry)


def test_no_file_means_no_credentials() -> None:
    assert len(load(None)) == 0 and len(load("")) == 0


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "one JSON object"),
        ({"ftp://a.example.org/": BASIC}, "must be an http(s) URL"),
        ({"https://a.example.org:99999/": BASIC}, "must be an http(s) URL"),
        ({"a.example.org": BASIC}, "must be an http(s) URL"),
        ({"https://member:" + SECRET + "@a.example.org/": BASIC}, "holds no credentials"),
        ({"https://a.example.org/?x=1": BASIC}, "no query or fragment"),
        ({"https://a.example.org/": "basic"}, "an object naming one method"),
        ({"https://a.example.org/": {}}, "exactly one method"),
        ({"https://a.example.org/": {**BASIC, "cookie": {"s": "1"}}}, "exactly one method"),
        ({"https://a.example.org/": {"ntlm": {}}}, "unknown name(s) 'ntlm'"),
        ({"https://a.example.org/": {"basic": {"user": "u"}}}, "missing password"),
        ({"https://a.example.org/": {"basic": {"user": "u", "password": 5}}}, "password must be a string"),
        ({"https://a.example.org/": {"basic": {"user": "u:v", "password": "p"}}}, "cannot hold ':'"),
        ({"https://a.example.org/": {"basic": {"user": "u", "password": "p\r\nX: y"}}}, "without control"),
        ({"https://a.example.org/": {**BASIC, "allow_insecure": "yes"}}, "allow_insecure must be true or false"),
        ({"http://a.example.org/": BASIC}, "plain http to another machine"),
        ({"http://10.1.2.3/": BASIC}, "plain http to another machine"),
        ({"https://a.example.org/": {"header": {"User-Agent": SECRET}}}, "cannot carry credentials"),
        ({"https://a.example.org/": {"header": {"Bad Name": SECRET}}}, "cannot carry credentials"),
        ({"https://a.example.org/": {"cookie": {"s": "a;b"}}}, "cookie characters"),
        (
            {"https://a.example.org/": {"form": {**FORM["form"], "login_url": "https://other.example.org/login"}}},
            "login_url must be on the site it logs into",
        ),
        (
            {"https://a.example.org/": {"form": {**FORM["form"], "login_url": "http://a.example.org/login"}}},
            "login_url must be on the site",
        ),
        (
            {
                "https://a.example.org/": {
                    "form": {**FORM["form"], "login_url": "https://a.example.org/login"},
                }
            }
            | {"https://a.example.org": BASIC},
            "another key names the same area",
        ),
        (
            {
                "https://a.example.org/": {
                    "form": {**FORM["form"], "login_url": "https://a.example.org/login", "logged_in": "Log out"}
                }
            },
            "logged_in must be",
        ),
        (
            {
                "https://a.example.org/": {
                    "form": {**FORM["form"], "login_url": "https://a.example.org/login", "logged_in": "css:a[["}
                }
            },
            "bad CSS selector",
        ),
        (
            {
                "https://a.example.org/": {
                    "form": {**FORM["form"], "login_url": "https://a.example.org/login", "fields": {}}
                }
            },
            "fields must be",
        ),
    ],
)
def test_a_bad_file_is_one_line_naming_the_entry_never_a_secret(data: object, message: str) -> None:
    with pytest.raises(CredentialsError) as raised:
        parse(data, "creds.json")
    text = str(raised.value)
    assert message in text and text.startswith("creds.json")
    assert "\n" not in text and SECRET not in text


def test_plain_http_is_allowed_on_this_machine_or_when_the_entry_says_so() -> None:
    parse({"http://127.0.0.1:8080/": BASIC, "http://localhost:8080/": BASIC, "http://[::1]:8080/": BASIC})
    parse(
        {
            "http://intranet.example.org/": {**BASIC, "allow_insecure": True},
            "http://wiki.example.org/": {
                "form": {**FORM["form"], "login_url": "http://wiki.example.org/login"},
                "allow_insecure": True,
            },
        }
    )


def test_an_unreadable_or_malformed_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(CredentialsError, match="cannot read the credentials file .*missing.json"):
        load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"https://a.example.org/": {"basic": {"user": "u", "password": "' + SECRET + '"}')
    with pytest.raises(CredentialsError) as raised:
        load(bad)
    assert "is not JSON" in str(raised.value) and SECRET not in str(raised.value)


# --- every fault of an entry, word for word ------------------------------------------------------

SITE = "https://a.example.org/"
PAIR = {"user": "u", "password": "p"}
LOGIN = {"login_url": "https://a.example.org/login", "fields": {"user": "u"}, "logged_in": "css:a.logout"}
METHODS = "(basic, digest, form, header, cookie)"


def _bad(**form: object) -> dict[str, object]:
    """A file of one form entry, ``form`` changing some of its fields."""
    return {SITE: {"form": {**LOGIN, **form}}}


@pytest.mark.parametrize(
    "data, message",
    [
        # the key
        (
            {"https://a.example.org:99999/": {"basic": PAIR}},
            "'https://a.example.org:99999/': a key must be an http(s) URL",
        ),
        (
            {"ftp://a.example.org/": {"basic": PAIR}},
            "'ftp://a.example.org/': a key must be an http(s) URL (scheme://host[:port][/path])",
        ),
        (
            {"https:///path": {"basic": PAIR}},
            "'https:///path': a key must be an http(s) URL (scheme://host[:port][/path])",
        ),
        (
            {"https://u:p@a.example.org/": {"basic": PAIR}},
            f"{SITE!r}: a key holds no credentials (they go in its entry)",
        ),
        (
            {"https://a.example.org/#top": {"basic": PAIR}},
            "'https://a.example.org/#top': a key has no query or fragment",
        ),
        (
            {SITE: {"basic": PAIR}, "https://a.example.org": {"basic": PAIR}},
            "'https://a.example.org': another key names the same area",
        ),
        # the entry
        ({SITE: ["basic"]}, f"{SITE!r}: the entry must be an object naming one method {METHODS}"),
        (
            {SITE: {"basic": PAIR, "ntlm": {}, "Allow_insecure": True}},
            f"{SITE!r}: unknown name(s) 'Allow_insecure', 'ntlm'; an entry names one method {METHODS} "
            "and may say allow_insecure",
        ),
        ({SITE: {}}, f"{SITE!r}: the entry must name exactly one method {METHODS}"),
        ({SITE: {"allow_insecure": True}}, f"{SITE!r}: the entry must name exactly one method {METHODS}"),
        ({SITE: {"basic": PAIR, "digest": PAIR}}, f"{SITE!r}: the entry must name exactly one method {METHODS}"),
        ({SITE: {"basic": PAIR, "allow_insecure": 1}}, f"{SITE!r}: allow_insecure must be true or false"),
        ({SITE: {"digest": {}}}, f"{SITE!r}: digest must be a non-empty object"),
        ({SITE: {"header": ["Authorization"]}}, f"{SITE!r}: header must be a non-empty object"),
        (
            {"http://a.example.org/": {"cookie": {"s": "1"}}},
            "'http://a.example.org/': plain http to another machine would show the credentials to anyone on the way: "
            'use https, or say "allow_insecure": true',
        ),
        # the names a method takes
        ({SITE: {"basic": {"user": "u"}}}, f"{SITE!r}: basic takes password, user (missing password)"),
        (
            {SITE: {"digest": {**PAIR, "realm": "r", "Nonce": "n"}}},
            f"{SITE!r}: digest takes password, user (unknown 'Nonce', 'realm')",
        ),
        (
            {SITE: {"form": {"login_url": SITE, "user": "u"}}},
            f"{SITE!r}: form takes fields, logged_in, login_url (missing fields, logged_in; unknown 'user')",
        ),
        # basic and digest
        ({SITE: {"basic": {**PAIR, "user": 5}}}, f"{SITE!r}: basic user must be a string without control characters"),
        (
            {SITE: {"digest": {**PAIR, "password": "p\x00"}}},
            f"{SITE!r}: digest password must be a string without control characters",
        ),
        ({SITE: {"basic": {**PAIR, "user": "u:v"}}}, f"{SITE!r}: a Basic user name cannot hold ':' (RFC 7617)"),
        # header
        (
            {SITE: {"header": {"X Token": "t"}}},
            f"{SITE!r}: header 'X Token' cannot carry credentials "
            "(a token name, not one the crawl sets; cookies use the cookie method)",
        ),
        (
            {SITE: {"header": {"X-Token": "t", "cookie": "t"}}},
            f"{SITE!r}: header 'cookie' cannot carry credentials "
            "(a token name, not one the crawl sets; cookies use the cookie method)",
        ),
        (
            {SITE: {"header": {"X-Token": ""}}},
            f"{SITE!r}: header 'X-Token' must be a non-empty string without control characters",
        ),
        (
            {SITE: {"header": {"X-Token": 7}}},
            f"{SITE!r}: header 'X-Token' must be a non-empty string without control characters",
        ),
        (
            {SITE: {"header": {"X-Token": "a\nb"}}},
            f"{SITE!r}: header 'X-Token' must be a non-empty string without control characters",
        ),
        # cookie
        ({SITE: {"cookie": {"s": "1", "a=b": "1"}}}, f"{SITE!r}: 'a=b' is not a cookie name"),
        ({SITE: {"cookie": {"s": "a b"}}}, f"{SITE!r}: cookie 's' must be a string of cookie characters (RFC 6265)"),
        ({SITE: {"cookie": {"s": 1}}}, f"{SITE!r}: cookie 's' must be a string of cookie characters (RFC 6265)"),
        # form
        (_bad(login_url=5), f"{SITE!r}: login_url must be a URL"),
        (_bad(login_url="/login"), "'/login': login_url must be an http(s) URL (scheme://host[:port][/path])"),
        (
            _bad(login_url="https://a.example.org/login?next=1"),
            "'https://a.example.org/login?next=1': login_url has no query or fragment",
        ),
        (
            _bad(login_url="https://b.example.org/login"),
            f"{SITE!r}: login_url must be on the site it logs into (https://a.example.org:443), "
            "so that the credentials go nowhere else",
        ),
        (_bad(fields=[]), f"{SITE!r}: fields must be an object of form field names and string values"),
        (_bad(fields={}), f"{SITE!r}: fields must be an object of form field names and string values"),
        (_bad(fields={"": "u"}), f"{SITE!r}: fields must be an object of form field names and string values"),
        (_bad(fields={"user": 1}), f"{SITE!r}: fields must be an object of form field names and string values"),
        (_bad(fields={"user": "a\rb"}), f"{SITE!r}: fields must be an object of form field names and string values"),
        (
            _bad(logged_in=1),
            f"{SITE!r}: logged_in must be 'css:SELECTOR' or 'text:TEXT' (what only a logged-in page shows)",
        ),
        (
            _bad(logged_in="xpath://a"),
            f"{SITE!r}: logged_in must be 'css:SELECTOR' or 'text:TEXT' (what only a logged-in page shows)",
        ),
        (
            _bad(logged_in="text:  "),
            f"{SITE!r}: logged_in must be 'css:SELECTOR' or 'text:TEXT' (what only a logged-in page shows)",
        ),
        (_bad(logged_in="css:a[["), f"{SITE!r}: logged_in has a bad CSS selector (SelectorSyntaxError)"),
        # several faults: the first in the order above is the one said
        (
            {"http://a.example.org/": {"basic": {"user": "u"}}},
            "'http://a.example.org/': plain http to another machine would show the credentials to anyone on the way: "
            'use https, or say "allow_insecure": true',
        ),
        ({SITE: {"basic": {"user": 5}}}, f"{SITE!r}: basic takes password, user (missing password)"),
        (
            _bad(login_url="https://b.example.org/login", fields={}, logged_in=""),
            f"{SITE!r}: login_url must be on the site it logs into (https://a.example.org:443), "
            "so that the credentials go nowhere else",
        ),
        (_bad(fields={}, logged_in=""), f"{SITE!r}: fields must be an object of form field names and string values"),
    ],
)
def test_each_fault_of_an_entry_has_its_own_message(data: dict[str, object], message: str) -> None:
    with pytest.raises(CredentialsError) as raised:
        parse(data, "creds.json")
    assert str(raised.value) == f"creds.json: {message}"
