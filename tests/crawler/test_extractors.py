"""The extractor registry: media types, sniffing, PDF, media, skips, headers."""

from __future__ import annotations

import codecs
import io

import pypdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawler.extractors import SKIP_REASONS, Extraction, extract, pdf

URL = "http://site.test/files/report.pdf"


def make_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A minimal valid PDF: one Helvetica text line per string, an optional /Title."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for lines in pages:
        shown = b" ".join(
            b"("
            + line.encode("latin-1").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
            + b") Tj T*"
            for line in lines
        )
        stream = b"BT /F1 12 Tf 72 720 Td 14 TL " + shown + b" ET"
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % len(objects)
        )
        kids.append(b"%d 0 R" % len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))
    info = b""
    if title is not None:
        objects.append(b"<< /Title (" + title.encode("latin-1") + b") >>")
        info = b" /Info %d 0 R" % len(objects)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, info, xref))
    return out.getvalue()


REPORT = make_pdf(
    [["Lighthouse inspection", "The tower was inspected in May."], ["All lamps work."]],
    title="Annual Lighthouse Report",
)


def _encrypted(user_password: str) -> bytes:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(REPORT)))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# --- PDF ---------------------------------------------------------------------


def test_pdf_text_and_title_from_the_document_information() -> None:
    result = extract(REPORT, URL, "application/pdf")
    assert result.skip is None and result.page is not None
    page = result.page
    assert (page.kind, page.media_type) == ("pdf", "application/pdf")
    assert page.title == "Annual Lighthouse Report"
    assert page.text == "Lighthouse inspection The tower was inspected in May. All lamps work."
    assert page.blocks == [
        "Lighthouse inspection The tower was inspected in May.",
        "All lamps work.",
    ]


def test_pdf_title_falls_back_to_the_first_line_then_the_file_name() -> None:
    untitled = make_pdf([["Tide tables for 2024", "High water at noon."]])
    assert extract(untitled, URL, "application/pdf").page.title == "Tide tables for 2024"
    blank = make_pdf([[]])
    page = extract(blank, URL, "application/pdf").page
    assert (page.title, page.text) == ("report.pdf", "")  # known by its anchors, like media


def test_pdf_reading_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    many = make_pdf([[f"Page number {n}"] for n in range(6)])
    monkeypatch.setattr(pdf, "MAX_PAGES", 4)
    expected = [f"Page number {n}" for n in range(4)]
    assert extract(many, URL, "application/pdf").page.blocks == expected
    monkeypatch.setattr(pdf, "MAX_CHARS", 20)
    assert extract(many, URL, "application/pdf").page.blocks == ["Page number 0", "Page nu"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"%PDF-1.4\nnothing else", "pdf_unreadable"),
        (b"%PDF-" + bytes(range(256)) * 4, "pdf_unreadable"),
        (REPORT[:30], "pdf_unreadable"),
        (_encrypted("secret"), "pdf_encrypted"),
    ],
    ids=["header-only", "junk", "truncated", "user-password"],
)
def test_broken_and_locked_pdfs_are_skipped(body: bytes, expected: str) -> None:
    assert extract(body, URL, "application/pdf").skip == expected


def test_damaged_pdfs_are_recovered_or_skipped_never_raised() -> None:
    wrong_root = REPORT.replace(b"/Root 1 0 R", b"/Root 9 0 R")
    assert extract(wrong_root, URL, "application/pdf").page.title == "Annual Lighthouse Report"
    for cut in range(0, len(REPORT), 37):
        result = extract(REPORT[:cut] + REPORT[cut + 20 :], URL, "application/pdf")
        assert (result.page is None) != (result.skip is None)


def test_pdf_with_only_an_owner_password_is_read() -> None:
    assert extract(_encrypted(""), URL, "application/pdf").page.title == "Annual Lighthouse Report"


# --- Choosing the extractor ----------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n" + bytes(40)


@pytest.mark.parametrize(
    ("body", "content_type", "media_type", "kind"),
    [
        (b"<p>x</p>", "text/html; charset=utf-8", "text/html", "html"),
        (b"<p>x</p>", "application/xhtml+xml", "application/xhtml+xml", "html"),
        (b"<!DOCTYPE html><p>x</p>", None, "text/html", "html"),
        (b"<!DOCTYPE html><p>x</p>", "application/octet-stream", "text/html", "html"),
        (b"\xef\xbb\xbf<html><p>x</p>", "", "text/html", "html"),
        (b"<p>x</p>", "html", "text/html", "html"),  # malformed: sniffed
        (b"<p>x</p>", "text/html, text/html", "text/html", "html"),  # a repeated header
        (b"just words", None, "text/plain", "text"),
        (b"# Title\n\nwords", "text/markdown", "text/markdown", "text"),
        (REPORT, "application/pdf", "application/pdf", "pdf"),
        (REPORT, "application/octet-stream", "application/pdf", "pdf"),
        (REPORT, "text/html", "application/pdf", "pdf"),  # a PDF served as HTML
        (b"\r\n" + REPORT, None, "application/pdf", "pdf"),
        (PNG, "image/png", "image/png", "media"),
        (PNG, None, "image/png", "media"),
        (PNG, "text/html", "image/png", "media"),
        (b"GIF89a....", "image/gif", "image/gif", "media"),
        (b"\xff\xd8\xff\xe0junk", "binary/octet-stream", "image/jpeg", "media"),
        (b"PK\x03\x04zipped", "application/zip", "application/zip", "media"),
        (b"\x1f\x8b\x08gzipped", None, "application/gzip", "media"),
        (b"\x00\x00\x00\x18ftypmp42", "video/mp4", "video/mp4", "media"),
        (b"ID3\x03mp3", "audio/mpeg", "audio/mpeg", "media"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", None, "image/webp", "media"),
        (b"\x7fELF\x02\x01\x01\x00\x00", None, "application/octet-stream", "media"),
        (
            b"docx bytes",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "media",
        ),
    ],
)
def test_media_types_declared_and_sniffed(body: bytes, content_type: str | None, media_type: str, kind: str) -> None:
    result = extract(body, "http://site.test/a/Light%20house.png", content_type)
    assert result.media_type == media_type
    assert result.page is not None and result.page.kind == kind
    assert result.page.media_type == media_type


def test_media_is_a_document_known_by_its_file_name_and_anchors() -> None:
    page = extract(PNG, "http://site.test/a/Light%20house.png?v=2", "image/png").page
    assert (page.title, page.text, page.links, page.lang) == ("Light house.png", "", [], "")


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (b"", "text/html", "empty"),
        (b"  \r\n\t ", None, "empty"),
        (b"", "image/png", "empty"),
        (b"body { color: red }", "text/css", "unknown_type"),
        (b"{}", "application/json", "unknown_type"),
        (b"wOF2....", "font/woff2", "unknown_type"),
        (bytes(range(256)) * 8, "text/html", "binary_as_html"),
        (b"<html>\x00\x00\x00\x00" + bytes(range(1, 32)) * 30, "text/html", "binary_as_html"),
        (bytes(range(256)) * 8, "text/plain", "binary_as_text"),
    ],
)
def test_skips_are_reasons(body: bytes, content_type: str | None, reason: str) -> None:
    result = extract(body, "http://site.test/x", content_type)
    assert (result.page, result.skip) == (None, reason)
    assert reason in SKIP_REASONS


# --- Charsets through the registry ---------------------------------------------

TEA = "西湖龙井是中国著名的绿茶，产于浙江省杭州市西湖一带。"
TEA_TW = "西湖龍井是中國著名的綠茶，產於浙江省杭州市西湖一帶。"


def _tea_page(text: str, meta: str = "") -> str:
    return f"<html><head>{meta}<title>{text[:4]}</title></head><body><p>{text}</p></body></html>"


@pytest.mark.parametrize(
    ("encoding", "label", "text"), [("gbk", "gb2312", TEA), ("big5", "big5", TEA_TW)], ids=["gbk", "big5"]
)
@pytest.mark.parametrize("declared_by", ["header", "meta", "nothing"])
def test_gbk_and_big5_pages(encoding: str, label: str, text: str, declared_by: str) -> None:
    meta = f'<meta http-equiv="Content-Type" content="text/html; charset={label}">'
    body = _tea_page(text, meta if declared_by == "meta" else "").encode(encoding)
    content_type = f"text/html; charset={label}" if declared_by == "header" else "text/html"
    page = extract(body, "http://site.test/tea.html", content_type).page
    assert (page.title, page.text, page.lang) == (text[:4], text, "zh")


def test_shift_jis_page_is_japanese() -> None:
    text = "東京は日本の首都です。桜の季節には多くの人が公園を訪れます。"
    page = extract(_tea_page(text).encode("shift_jis"), "http://site.test/", None).page
    assert (page.text, page.lang, page.encoding) == (text, "ja", "cp932")


def test_plain_text_in_gbk() -> None:
    body = ("龙井茶\n\n" + TEA + "\n\n第二段。").encode("gbk")
    page = extract(body, "http://site.test/tea.txt", "text/plain; charset=gbk").page
    assert (page.kind, page.title, page.lang) == ("text", "龙井茶", "zh")
    assert page.blocks == ["龙井茶", TEA, "第二段。"]


# --- HTTP headers ----------------------------------------------------------------

META_REFRESH = b'<meta http-equiv="refresh" content="0; url=/meta.html">'


@pytest.mark.parametrize(
    ("headers", "body", "refresh"),
    [
        ({"Refresh": "0; url=/moved.html"}, b"<p>x</p>", "http://site.test/moved.html"),
        ({"refresh": "3;URL='http://other.test/'"}, b"<p>x</p>", "http://other.test/"),
        ({"REFRESH": "5"}, b"<p>x</p>", None),  # reload, not a redirect
        ({"Refresh": "0; url=/page.html"}, b"<p>x</p>", None),  # itself
        ({"Refresh": "0; url=javascript:alert(1)"}, b"<p>x</p>", None),
        ({"Refresh": "0; url=/header.html"}, META_REFRESH, "http://site.test/header.html"),
        ({}, META_REFRESH, "http://site.test/meta.html"),
        ({"Refresh": "0; url=/moved.txt"}, b"plain text", "http://site.test/moved.txt"),
    ],
)
def test_refresh_header_is_a_redirect(headers: dict, body: bytes, refresh: str | None) -> None:
    page = extract(body, "http://site.test/page.html", None, headers).page
    assert page.refresh == refresh


@pytest.mark.parametrize(
    ("link", "body", "canonical"),
    [
        ('</files/report.pdf>; rel="canonical"', REPORT, "http://site.test/files/report.pdf"),
        ('<http://site.test/r.pdf>; rel="alternate canonical"', REPORT, "http://site.test/r.pdf"),
        ('<http://mirror.test/r.pdf>; rel="canonical"', REPORT, None),  # another site
        ('</next.pdf>; rel="next"', REPORT, None),
        (
            "</from-header>; rel=canonical",
            b'<link rel="canonical" href="/from-markup">',
            "http://site.test/from-markup",
        ),
    ],
)
def test_link_header_canonical(link: str, body: bytes, canonical: str | None) -> None:
    result = extract(body, "http://site.test/files/report.pdf", None, {"Link": link})
    assert result.page.canonical == canonical


def test_content_type_comes_from_headers_when_not_given() -> None:
    body = "<p>龙井</p>".encode("gbk")
    result = extract(body, "http://site.test/", None, {"Content-Type": "text/html; charset=GBK"})
    assert (result.page.text, result.page.encoding) == ("龙井", "gb18030")


# --- Never raises ------------------------------------------------------------------

_PREFIXES = st.sampled_from(
    [
        b"",
        b"%PDF-1.4\n",
        b"<!DOCTYPE html><html>",
        b"\x89PNG\r\n\x1a\n",
        codecs.BOM_UTF8,
        codecs.BOM_UTF16_LE,
        b"<?xml version='1.0' encoding='gbk'?>",
        b'<meta charset="big5">',
    ]
)
_CONTENT_TYPES = st.one_of(
    st.none(),
    st.text(max_size=60),
    st.sampled_from(
        [
            "text/html",
            "text/plain",
            "application/pdf",
            "image/png",
            "application/zip",
            "application/octet-stream",
            "text/css",
            "application/xhtml+xml",
        ]
    ).flatmap(
        lambda media_type: st.sampled_from(
            [
                "",
                "; charset=utf-8",
                "; charset=gbk",
                "; charset=utf-16",
                "; charset=big5",
                "; charset=nonsense",
                ";;;=",
                "; charset=",
            ]
        ).map(lambda suffix: media_type + suffix)
    ),
)
_HEADERS = st.one_of(
    st.none(),
    st.dictionaries(st.sampled_from(["Refresh", "Link", "Content-Type", "X-Other"]), st.text(max_size=60), max_size=3),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PREFIXES, st.binary(max_size=2000), _CONTENT_TYPES, _HEADERS)
def test_extract_never_raises(
    prefix: bytes, body: bytes, content_type: str | None, headers: dict[str, str] | None
) -> None:
    result = extract(prefix + body, "http://site.test/a/b.html", content_type, headers)
    assert isinstance(result, Extraction)
    assert (result.page is None) != (result.skip is None)
    if result.page is not None:
        assert isinstance(result.page.text, str) and isinstance(result.page.title, str)
    else:
        assert result.skip in SKIP_REASONS


# --- sections a result can link into, and the page's language ----------------------------


def test_headings_and_definitions_keep_the_ids_links_point_at() -> None:
    html = (
        '<html lang="en"><title>QuerySet API</title>'
        '<div class="section" id="queryset-api"><h1>QuerySet API<a class="headerlink" href="#queryset-api">¶</a></h1>'
        '<dl><dt class="sig" id="django.db.models.query.QuerySet.filter">filter(*args)<a class="headerlink">¶</a></dt>'
        "<dd>Filters.</dd></dl>"
        '<h3>Promises API<span><a class="mark" href="#promises-api" id="promises-api">#</a></span></h3>'
        '<h3 class="title"><a id="_basic_precautions"></a>2.1.2. Basic precautions</h3>'
        '<h2 id="_synopsis">SYNOPSIS</h2><h2>No id anywhere</h2></div>'
    )
    page = extract(html.encode(), "http://docs.test/q.html", "text/html").page
    assert page.sections == [
        ["queryset-api", "QuerySet API", "h1"],
        ["django.db.models.query.QuerySet.filter", "filter(*args)", "dt"],
        ["promises-api", "Promises API", "h3"],
        ["_basic_precautions", "2.1.2. Basic precautions", "h3"],
        ["_synopsis", "SYNOPSIS", "h2"],
        ["queryset-api", "No id anywhere", "h2"],  # the section it is in
    ]
    # The permalink marks are no words of the page: a snippet read "Promises API#".
    assert "¶" not in page.text and "#" not in page.text
    assert page.headings[:2] == ["QuerySet API", "Promises API"]  # as the text has them
    assert page.text.startswith("QuerySet API filter(*args) Filters. Promises API 2.1.2. Basic precautions")


@pytest.mark.parametrize(
    ("markup", "headers", "lang"),
    [
        ('<html lang="zh-CN">', {}, "zh-cn"),  # declared in markup: wins
        ("<html>", {"Content-Language": "de, en"}, "de"),  # the header, when markup says nothing
        ('<html lang="fr">', {"Content-Language": "de"}, "fr"),
        ("<html>", {}, "en"),  # English text, undeclared: detected
    ],
)
def test_the_language_is_declared_sent_or_detected(markup: str, headers: dict, lang: str) -> None:
    body = (
        markup + "<title>Ferries</title><p>The ferry leaves the harbour at noon, and it is "
        "the only one that goes to the island in winter when the sea is rough.</p>"
    ).encode()
    page = extract(body, "http://a.test/", "text/html", headers).page
    assert page.lang == lang
