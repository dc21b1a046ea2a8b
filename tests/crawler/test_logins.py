"""What logging in sends and sees: Basic and Digest answers, the login form, a logged-in page (pure)."""

from __future__ import annotations

import hashlib

import pytest

from crawler.logins import (
    Challenge,
    basic_authorization,
    digest_authorization,
    digest_challenge,
    logged_in,
    login_form,
    parse_challenges,
)

SECRET = "Zq9-secret-value"


# --- HTTP answers --------------------------------------------------------------------------


def test_basic_is_rfc_7617() -> None:
    assert basic_authorization("Aladdin", "open sesame") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
    assert basic_authorization("test", "123£") == "Basic dGVzdDoxMjPCow=="  # RFC 7617 2.1, UTF-8


def _response(answer: str) -> str:
    return dict(part.split("=", 1) for part in answer.removeprefix("Digest ").split(", "))["response"].strip('"')


@pytest.mark.parametrize(
    "algorithm, expected",
    [
        # RFC 7616 3.9.1
        ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
        ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
    ],
)
def test_digest_answers_rfc_7616s_example(algorithm: str, expected: str) -> None:
    challenge = digest_challenge(
        [
            f'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm={algorithm}, '
            'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", '
            'opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"'
        ]
    )
    assert challenge is not None and challenge.qop == "auth"
    answer = digest_authorization(
        challenge,
        "GET",
        "/dir/index.html",
        "Mufasa",
        "Circle of Life",
        1,
        "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
    )
    assert _response(answer) == expected
    assert 'uri="/dir/index.html"' in answer and "nc=00000001" in answer and "qop=auth" in answer
    assert 'opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"' in answer and f"algorithm={algorithm}," in answer


def test_digest_answers_rfc_2617s_example() -> None:
    challenge = Challenge(
        "testrealm@host.com", "dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"
    )
    answer = digest_authorization(challenge, "GET", "/dir/index.html", "Mufasa", "Circle Of Life", 1, "0a4f113b")
    assert _response(answer) == "6629fae49393a05397450978507c4ef1"


def test_digest_sess_and_userhash_and_no_qop() -> None:
    md5 = lambda text: hashlib.md5(text.encode()).hexdigest()  # noqa: E731
    sess = Challenge("r", "n", "MD5-SESS", "auth")
    secret = md5(f"{md5('u:r:p')}:n:c")
    assert _response(digest_authorization(sess, "GET", "/", "u", "p", 2, "c")) == md5(
        f"{secret}:n:00000002:c:auth:{md5('GET:/')}"
    )
    legacy = Challenge("r", "n", "MD5", None)
    answer = digest_authorization(legacy, "GET", "/x", "u", "p", 1, "c")
    assert _response(answer) == md5(f"{md5('u:r:p')}:n:{md5('GET:/x')}") and "nc=" not in answer
    hashed = digest_authorization(Challenge("r", "n", userhash=True), "GET", "/", "u", "p", 1, "c")
    assert f'username="{md5("u:r")}"' in hashed and "userhash=true" in hashed


def test_challenges_are_read_however_they_are_written() -> None:
    assert parse_challenges(
        ['Basic realm="simple"', 'Newauth realm="apps", type=1, title="Login to \\"apps\\""', "Negotiate abcdef=="]
    ) == [
        ("basic", {"realm": "simple"}),
        ("newauth", {"realm": "apps", "type": "1", "title": 'Login to "apps"'}),
        ("negotiate", {}),
    ]
    # SHA-256 is preferred; a challenge offering only auth-int, or an unknown algorithm, is not answered.
    found = digest_challenge(
        [
            'Digest realm="r", nonce="a", algorithm=MD5, qop="auth", '
            'Digest realm="r", nonce="b", algorithm=SHA-256, qop="auth", stale=true'
        ]
    )
    assert found is not None and (found.nonce, found.algorithm, found.stale) == ("b", "SHA-256", True)
    assert digest_challenge(['Digest realm="r", nonce="a", qop="auth-int"']) is None
    assert digest_challenge(['Digest realm="r", nonce="a", algorithm=SHA-512-256']) is None
    assert digest_challenge(['Basic realm="r"']) is None


# --- a form login ---------------------------------------------------------------------------


LOGIN = """<html><body><form action="/search" method="get"><input name="q"></form>
<form action="/session" method="post"><input type="hidden" name="csrf" value="t0k">
<input name="user"><input type="password" name="pass"><input type="checkbox" name="remember" value="1">
<button type="submit" name="go" value="in">Log in</button></form></body></html>"""


def test_the_login_form_is_found_and_filled_in() -> None:
    form = login_form(LOGIN, "https://a.example.org/login", [("user", "u"), ("pass", SECRET)])
    assert form is not None
    assert (form.action, form.method) == ("https://a.example.org/session", "POST")
    assert dict(form.data) == {"csrf": "t0k", "user": "u", "pass": SECRET, "go": "in"}
    assert SECRET not in repr(form)
    # Fields the page names differently: the form with a password input.
    other = login_form(LOGIN, "https://a.example.org/login", [("login", "u")])
    assert other is not None and other.action == "https://a.example.org/session"
    assert login_form("<p>No form here</p>", "https://a.example.org/login", [("user", "u")]) is None


def test_a_logged_in_page_is_told_by_a_selector_or_a_text() -> None:
    member = "<p>Welcome back</p><script>var x = 'Log in'</script><a class='logout' href='/logout'>Log\nout</a>"
    assert logged_in(member, "css:a.logout") and logged_in(member, "text:Log out")
    assert not logged_in(LOGIN, "css:a.logout") and not logged_in(LOGIN, "text:Log out")
    assert not logged_in(member, "text:Log in")  # not in a script
    assert not logged_in("", "css:a.logout")
