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
