"""Character sets: BOM, header, meta, detection, lies, and never raising."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawler.charset import _LABELS, codec_for_label, decode

# Fixtures: one sentence or two per script, as real pages would carry them.
ZH = "西湖龙井茶产于浙江省杭州市西湖一带，是中国十大名茶之一。龙井茶色泽翠绿，香气浓郁。"
ZH_TW = "西湖龍井茶產於浙江省杭州市西湖一帶，是中國十大名茶之一。龍井茶色澤翠綠，香氣濃郁。"
JA = "東京は日本の首都であり、世界でも有数の大都市です。桜の季節には多くの人が公園を訪れます。"
KO = "서울은 대한민국의 수도이며 한강을 끼고 있는 대도시입니다. 조선 시대부터 중심지였습니다."
EN = "The “smart” quotes — and the café’s naïve résumé — cost €5. It’s not UTF-8."
FR = "Les élèves ont étudié à l’école où l’on apprend le français. « Ça va ? » Noël approche."
RU = "Москва — столица России, крупнейший по численности населения город страны."
PL = "Zażółć gęślą jaźń. Pójdźmy do źródła, gdzie łąka się kończy, w Europie Środkowej."

_NAV = "".join(f'<li><a href="/section/{n}.html">Section {n}</a></li>' for n in range(20))


def _page(text: str, meta: str = "") -> str:
    return (
        f"<!DOCTYPE html><html><head>{meta}<title>Page</title></head><body><ul>{_NAV}</ul><p>{text}</p></body></html>"
    )


def _meta(label: str) -> str:
    return f'<meta http-equiv="Content-Type" content="text/html; charset={label}">'


@pytest.mark.parametrize(
    ("encoding", "label", "text", "codec"),
    [
        ("gbk", "GBK", ZH, "gb18030"),
        ("gb2312", "gb2312", ZH, "gb18030"),
        ("gb18030", "GB18030", ZH + "𠀀", "gb18030"),
        ("big5", "big5", ZH_TW, "big5hkscs"),
        ("shift_jis", "Shift_JIS", JA, "cp932"),
        ("euc_jp", "EUC-JP", JA, "euc_jp"),
        ("euc_kr", "euc-kr", KO, "cp949"),
        ("cp1252", "windows-1252", EN, "cp1252"),
        ("cp1251", "windows-1251", RU, "cp1251"),
        ("utf-8", "utf-8", ZH + EN, "utf-8"),
    ],
    ids=lambda value: value if isinstance(value, str) and value.isascii() else "",
)
@pytest.mark.parametrize("declared_by", ["header", "meta", "meta charset", "nothing"])
def test_pages_decode_declared_or_not(encoding: str, label: str, text: str, codec: str, declared_by: str) -> None:
    meta = {"meta": _meta(label), "meta charset": f'<meta charset="{label}">'}.get(declared_by, "")
    html = _page(text, meta)
    content_type = f"text/html; charset={label}" if declared_by == "header" else "text/html"
    assert decode(html.encode(encoding), content_type) == (html, codec)


@pytest.mark.parametrize(
    ("text", "encoding", "codec"),
    [
        (FR, "cp1252", "cp1252"),
        (PL, "cp1250", "cp1250"),
        (ZH * 20, "gbk", "gb18030"),
        (ZH_TW * 20, "big5", "big5hkscs"),
        (JA[:12], "euc_jp", "euc_jp"),  # short: charset-normalizer alone says EUC-KR
        (JA, "iso2022_jp", "iso2022_jp"),
    ],
    ids=["french-1252", "polish-1250", "gbk", "big5", "short-euc-jp", "iso-2022-jp"],
)
def test_detection_without_any_declaration(text: str, encoding: str, codec: str) -> None:
    html = _page(text)
    assert decode(html.encode(encoding), None) == (html, codec)


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        # A byte order mark wins over every declaration.
        (codecs.BOM_UTF8 + "西湖".encode(), "text/html; charset=big5", ("西湖", "utf-8")),
        (codecs.BOM_UTF16_LE + "西湖".encode("utf-16-le"), None, ("西湖", "utf-16-le")),
        (codecs.BOM_UTF16_BE + "西湖".encode("utf-16-be"), "text/html; charset=gbk", ("西湖", "utf-16-be")),
        (codecs.BOM_UTF32_LE + "西湖".encode("utf-32-le"), None, ("西湖", "utf-32-le")),
        # The header wins over meta...
        ('<meta charset="big5">西湖'.encode("gbk"), "text/html; charset=gbk", ('<meta charset="big5">西湖', "gb18030")),
        # ...unless it is a Latin-1 server default.
        (
            '<meta charset="gb2312"><p>西湖龙井</p>'.encode("gbk"),
            "text/html; charset=ISO-8859-1",
            ('<meta charset="gb2312"><p>西湖龙井</p>', "gb18030"),
        ),
        # Declared UTF-8, sent GBK: the lie is caught.
        (_page(ZH).encode("gbk"), "text/html; charset=utf-8", (_page(ZH), "gb18030")),
        # Declared GBK (or Latin-1), sent valid UTF-8.
        (_page(ZH).encode(), "text/html; charset=gbk", (_page(ZH), "utf-8")),
        ("café".encode(), "text/plain; charset=iso-8859-1", ("café", "utf-8")),
        # A UTF-16 label on ASCII-compatible bytes cannot be right.
        (b"<p>plain</p>", "text/html; charset=utf-16", ("<p>plain</p>", "utf-8")),
        # Unknown labels are no labels.
        ("naïve".encode("cp1252"), "text/html; charset=x-klingon", ("naïve", "cp1252")),
        # One stray byte in a UTF-8 page is not a lie: it becomes U+FFFD.
        ("西湖龙井茶 ".encode() + b"\xff", "text/html; charset=utf-8", ("西湖龙井茶 \ufffd", "utf-8")),
        # Empty and ASCII bodies.
        (b"", None, ("", "utf-8")),
        (b"plain", "text/plain; charset=us-ascii", ("plain", "cp1252")),
    ],
)
def test_precedence_and_lies(body: bytes, content_type: str | None, expected: tuple) -> None:
    assert decode(body, content_type) == expected


def test_meta_is_read_in_the_first_4_kb_only() -> None:
    late = "<p>" + "x" * 5000 + '</p><meta charset="gbk">' + ZH
    assert decode(late.encode("gbk"), None)[1] == "gb18030"  # found by detection instead
    assert decode(late.encode("gbk"), None)[0] == late


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("gb2312", "gb18030"),
        ("GBK", "gb18030"),
        ("x-gbk", "gb18030"),
        ("gb18030", "gb18030"),
        ("big5", "big5hkscs"),
        ("Big5-HKSCS", "big5hkscs"),
        ("shift_jis", "cp932"),
        ("sjis", "cp932"),
        ("windows-31j", "cp932"),
        ("euc-kr", "cp949"),
        ("iso-8859-1", "cp1252"),
        ("latin1", "cp1252"),
        ("US-ASCII", "cp1252"),
        ("utf8", "utf-8"),
        ("UTF-8", "utf-8"),
        ("'utf-8'", "utf-8"),
        ("koi8-r", "koi8-r"),
        ("iso-8859-9", "cp1254"),
        ("tis-620", "cp874"),
        ("hz-gb-2312", None),
        ("utf-7", None),
        ("base64", None),
        ("", None),
    ],
)
def test_whatwg_labels(label: str, codec: str | None) -> None:
    assert codec_for_label(label) == codec


def test_every_codec_in_the_label_table_exists() -> None:
    for codec in _LABELS:
        assert codecs.lookup(codec).name


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.binary(max_size=3000),
    st.one_of(
        st.none(),
        st.text(max_size=40),
        st.sampled_from(
            [
                "gbk",
                "big5",
                "utf-8",
                "utf-16",
                "utf-32",
                "shift_jis",
                "iso-2022-jp",
                "latin1",
                "euc-jp",
                "x-user-defined",
            ]
        ).map("text/html; charset={}".format),
    ),
)
def test_decode_never_raises(body: bytes, content_type: str | None) -> None:
    text, codec = decode(body, content_type)
    assert isinstance(text, str)
    assert codecs.lookup(codec)
