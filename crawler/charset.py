"""From a body's bytes to text: which character set, and why (pure).

:func:`decode` gives a body's text and the codec that decoded it, and never
raises: a byte order mark, else the declared charset (the HTTP header, then
``<meta>``), else detection, in the WHATWG order with the corrections that
misconfigured servers call for (its docstring lists them).
:func:`codec_for_label` maps a charset label to its codec as the WHATWG
Encoding Standard does; :func:`declared_charset` reads a Content-Type's.
Design: ARCHITECTURE.md, "Design notes by module", ``crawler/charset.py``.
"""

from __future__ import annotations

import codecs
import re

import charset_normalizer

__all__ = ["decode", "codec_for_label", "declared_charset"]

_PRESCAN = 4096
_SAMPLE = 64 * 1024

_WINDOWS_1252 = "cp1252"
# WHATWG labels, grouped by the Python codec that decodes them.
_LABELS: dict[str, tuple[str, ...]] = {
    "utf-8": ("unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"),
    "cp866": ("866", "cp866", "csibm866", "ibm866"),
    "iso8859-2": (
        "csisolatin2",
        "iso-8859-2",
        "iso-ir-101",
        "iso8859-2",
        "iso88592",
        "iso_8859-2",
        "iso_8859-2:1987",
        "l2",
        "latin2",
    ),
    "iso8859-3": (
        "csisolatin3",
        "iso-8859-3",
        "iso-ir-109",
        "iso8859-3",
        "iso88593",
        "iso_8859-3",
        "iso_8859-3:1988",
        "l3",
        "latin3",
    ),
    "iso8859-4": (
        "csisolatin4",
        "iso-8859-4",
        "iso-ir-110",
        "iso8859-4",
        "iso88594",
        "iso_8859-4",
        "iso_8859-4:1988",
        "l4",
        "latin4",
    ),
    "iso8859-5": (
        "csisolatincyrillic",
        "cyrillic",
        "iso-8859-5",
        "iso-ir-144",
        "iso8859-5",
        "iso88595",
        "iso_8859-5",
        "iso_8859-5:1988",
    ),
    "iso8859-6": (
        "arabic",
        "asmo-708",
        "csiso88596e",
        "csiso88596i",
        "csisolatinarabic",
        "ecma-114",
        "iso-8859-6",
        "iso-8859-6-e",
        "iso-8859-6-i",
        "iso-ir-127",
        "iso8859-6",
        "iso88596",
        "iso_8859-6",
        "iso_8859-6:1987",
    ),
    "iso8859-7": (
        "csisolatingreek",
        "ecma-118",
        "elot_928",
        "greek",
        "greek8",
        "iso-8859-7",
        "iso-ir-126",
        "iso8859-7",
        "iso88597",
        "iso_8859-7",
        "iso_8859-7:1987",
        "sun_eu_greek",
    ),
    "iso8859-8": (
        "csiso88598e",
        "csisolatinhebrew",
        "hebrew",
        "iso-8859-8",
        "iso-8859-8-e",
        "iso-ir-138",
        "iso8859-8",
        "iso88598",
        "iso_8859-8",
        "iso_8859-8:1988",
        "visual",
        "csiso88598i",
        "iso-8859-8-i",
        "logical",
    ),
    "iso8859-10": ("csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910", "l6", "latin6"),
    "iso8859-13": ("iso-8859-13", "iso8859-13", "iso885913"),
    "iso8859-14": ("iso-8859-14", "iso8859-14", "iso885914"),
    "iso8859-15": ("csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15", "l9"),
    "iso8859-16": ("iso-8859-16",),
    "koi8-r": ("cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"),
    "koi8-u": ("koi8-ru", "koi8-u"),
    "mac-roman": ("csmacintosh", "mac", "macintosh", "x-mac-roman"),
    "mac-cyrillic": ("x-mac-cyrillic", "x-mac-ukrainian"),
    "cp874": ("dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"),
    "cp1250": ("cp1250", "windows-1250", "x-cp1250"),
    "cp1251": ("cp1251", "windows-1251", "x-cp1251"),
    _WINDOWS_1252: (
        "ansi_x3.4-1968",
        "ascii",
        "cp1252",
        "cp819",
        "csisolatin1",
        "ibm819",
        "iso-8859-1",
        "iso-ir-100",
        "iso8859-1",
        "iso88591",
        "iso_8859-1",
        "iso_8859-1:1987",
        "l1",
        "latin1",
        "us-ascii",
        "windows-1252",
        "x-cp1252",
    ),
    "cp1253": ("cp1253", "windows-1253", "x-cp1253"),
    "cp1254": (
        "cp1254",
        "csisolatin5",
        "iso-8859-9",
        "iso-ir-148",
        "iso8859-9",
        "iso88599",
        "iso_8859-9",
        "iso_8859-9:1989",
        "l5",
        "latin5",
        "windows-1254",
        "x-cp1254",
    ),
    "cp1255": ("cp1255", "windows-1255", "x-cp1255"),
    "cp1256": ("cp1256", "windows-1256", "x-cp1256"),
    "cp1257": ("cp1257", "windows-1257", "x-cp1257"),
    "cp1258": ("cp1258", "windows-1258", "x-cp1258"),
    "gb18030": (
        "chinese",
        "csgb2312",
        "csiso58gb231280",
        "gb2312",
        "gb_2312",
        "gb_2312-80",
        "gbk",
        "iso-ir-58",
        "x-gbk",
        "gb18030",
    ),
    "big5hkscs": ("big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"),
    "euc_jp": ("cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"),
    "iso2022_jp": ("csiso2022jp", "iso-2022-jp"),
    "cp932": ("csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis"),
    "cp949": (
        "cseuckr",
        "csksc56011987",
        "euc-kr",
        "iso-ir-149",
        "korean",
        "ks_c_5601-1987",
        "ks_c_5601-1989",
        "ksc5601",
        "ksc_5601",
        "windows-949",
    ),
    "utf-16-be": ("unicodefffe", "utf-16be"),
    "utf-16-le": ("csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"),
    # Not WHATWG (browsers never supported them), but a BOM or a header may say so.
    "utf-32-be": ("utf-32be",),
    "utf-32-le": ("utf-32", "utf-32le"),
}
_CODECS = {label: codec for codec, labels in _LABELS.items() for label in labels}
_WIDE = frozenset(["utf-16-be", "utf-16-le", "utf-32-be", "utf-32-le"])
# A Latin-1-family header is more often a server default than a decision.
_WEAK = frozenset([_WINDOWS_1252])
# Codecs whose bytes are ASCII when the text is: an ASCII body needs no decoding.
_NOT_ASCII_COMPATIBLE = _WIDE | {"iso2022_jp"}

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([^\s"';,]+)""", re.I)
_META_CHARSET = re.compile(rb"""<meta\s[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9][A-Za-z0-9_.:+\-]*)""", re.I)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:+\-]+)""")
_HIGH_RUNS = re.compile(rb"[\x80-\xff]+")
_HIGH_BYTES = bytes(range(0x80, 0x100))
_UTF8_LEADS = bytes(range(0xC2, 0xF5))
# Bytes windows-1252 leaves undefined: text that has them is not windows-1252.
_CP1252_HOLES = re.compile(rb"[\x81\x8d\x8f\x90\x9d]")
# Non-letters Western text uses: quotes, dashes, currency, common symbols.
_WESTERN_MARKS = frozenset("\u00a0“”‘’„‚—–…•«»‹›€£¥¢©®™°±·¡¿§¶×÷²¼½¾†‡")
_ISO2022_JP = re.compile(rb"\x1b\$[@B]|\x1b\(J")
# What detection may answer: the WHATWG legacy encodings of any weight.
_CJK_CODECS = frozenset(["gb18030", "big5hkscs", "cp932", "euc_jp", "cp949"])
_CJK_CORE = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uff00-\uffef]")
_DETECTABLE = [
    "gb18030",
    "big5",
    "cp932",
    "euc_jp",
    "cp949",
    "cp1250",
    "cp1251",
    "cp1252",
    "cp1253",
    "cp1254",
    "cp1255",
    "cp1256",
    "cp1257",
    "cp1258",
    "cp874",
    "koi8_r",
]


def codec_for_label(label: str) -> str | None:
    """The Python codec for a charset label, or None for an unknown label.

    >>> codec_for_label(" GB2312 "), codec_for_label("Big5"), codec_for_label("Shift_JIS")
    ('gb18030', 'big5hkscs', 'cp932')
    >>> codec_for_label("ISO-8859-1"), codec_for_label("UTF8"), codec_for_label("rot13")
    ('cp1252', 'utf-8', None)
    """
    return _CODECS.get(label.strip().strip("\"'").lower())


def declared_charset(content_type: str | None) -> str | None:
    """The codec the Content-Type header's ``charset`` names, if it names one.

    >>> declared_charset('text/html; Charset="GBK"'), declared_charset("text/html")
    ('gb18030', None)
    """
    if not content_type:
        return None
    match = _HEADER_CHARSET.search(content_type)
    return codec_for_label(match.group(1)) if match else None


def _meta_charset(body: bytes) -> str | None:
    """``<meta>`` or XML-declared charset in the first 4 KB (HTML prescan, lenient)."""
    head = body[:_PRESCAN]
    match = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    if match is None:
        return None
    codec = codec_for_label(match.group(1).decode("ascii"))
    # A meta tag readable as ASCII cannot be in UTF-16: WHATWG reads it as UTF-8.
    return "utf-8" if codec in _WIDE else codec


def _decode_counting(body: bytes, codec: str) -> tuple[str, int]:
    """Text with U+FFFD for undecodable bytes, and how many there were."""
    try:
        return body.decode(codec), 0
    except UnicodeDecodeError:
        text = body.decode(codec, "replace")
        return text, text.count("\ufffd")


def _too_many_errors(body: bytes, errors: int) -> bool:
    if errors <= 2:
        return False
    high = len(body) - len(body.translate(None, _HIGH_BYTES))
    return errors * 50 > high


def _valid_utf8(body: bytes, min_chars: int) -> str | None:
    """The body as UTF-8 when it is valid and has ``min_chars`` non-ASCII characters."""
    if len(body) - len(body.translate(None, _UTF8_LEADS)) < min_chars:
        return None
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _looks_western(sample: bytes) -> bool:
    """Non-ASCII bytes one at a time, read as windows-1252 letters or punctuation.

    Western European text has an accent or a curly quote here and there
    between ASCII letters (mean run of non-ASCII bytes under 1.5); every CJK
    character is a run of 2 or more, Cyrillic and Greek words longer runs.
    Central European text in windows-1250 also comes one byte at a time, but
    read as windows-1252 its commonest letters become symbols (ą is ¹, ł is
    ³): more than 5% of such characters means it is not windows-1252.

    >>> _looks_western("naïve “quotes”".encode("cp1252")), _looks_western("中文".encode("gbk"))
    (True, False)
    >>> _looks_western("Zażółć gęślą jaźń, łąka".encode("cp1250"))
    False
    """
    runs = _HIGH_RUNS.findall(sample)
    if not runs or _CP1252_HOLES.search(sample):
        return False
    high = b"".join(runs)
    if len(high) >= 1.5 * len(runs):
        return False
    chars = high.decode(_WINDOWS_1252)
    odd = sum(1 for char in chars if not char.isalpha() and char not in _WESTERN_MARKS)
    return odd * 20 <= len(chars)


def _detect(body: bytes) -> tuple[str, str]:
    """The text and codec of an undeclared (or wrongly declared) body."""
    text = _valid_utf8(body, 1)
    if text is not None:
        return text, "utf-8"
    sample = body[:_SAMPLE]
    if _looks_western(sample):
        codec = _WINDOWS_1252
    else:
        codec = _normalizer_guess(sample)
    return body.decode(codec, "replace"), codec


def _normalizer_guess(sample: bytes) -> str:
    """charset-normalizer's answer, with CJK near-ties settled by script.

    charset-normalizer scores EUC-JP and EUC-KR alike on short Japanese text
    (hiragana bytes are Hangul jamo in EUC-KR). Among CJK candidates about
    as good as its best, the one whose text is most made of what CJK text
    is made of (Han, kana, Hangul syllables, CJK punctuation) wins.
    """
    matches = list(charset_normalizer.from_bytes(sample, cp_isolation=_DETECTABLE))
    if not matches:
        return _WINDOWS_1252
    best = matches[0]
    if _codec_of(best.encoding) not in _CJK_CODECS:
        return _codec_of(best.encoding)
    near = [m for m in matches[:4] if m.chaos <= best.chaos + 0.05 and _codec_of(m.encoding) in _CJK_CODECS]
    return _codec_of(max(near, key=lambda match: _cjk_share(str(match))).encoding)


def _cjk_share(text: str) -> float:
    """The share of non-ASCII characters that are core CJK script."""
    wide = len(text) - len(text.encode("ascii", "ignore"))
    return len(_CJK_CORE.findall(text)) / wide if wide else 0.0


def _codec_of(name: str) -> str:
    """charset-normalizer's answer (a Python codec name) as the WHATWG codec."""
    return codec_for_label(name.replace("_", "-")) or name


def decode(body: bytes, content_type: str | None = None) -> tuple[str, str]:
    """The body as text, and the codec that decoded it. Never raises.

    The order is the WHATWG one (HTML Standard, "determining the character
    encoding"), with corrections, because servers lie:

    1. a byte order mark (UTF-8, UTF-16, UTF-32) wins over any declaration;
    2. the HTTP header's ``charset``, then ``<meta charset>`` or
       ``<meta http-equiv="Content-Type" content="...; charset=...">`` (or an
       XML declaration) in the first 4 KB; an unknown label counts as no
       label, never as an error;
    3. detection, when nothing is declared or a declaration is a lie;
    4. windows-1252 with replacement characters, so decoding never raises.

    Corrections: a header charset of the Latin-1 family gives way to a
    ``<meta>`` one; a body that is valid UTF-8 with non-ASCII characters is
    UTF-8 whatever the declaration (two multi-byte characters against a CJK
    declaration, one against a Latin-1-family one); a declared charset that
    leaves many undecodable bytes (more than 2 and more than 2% of the
    non-ASCII bytes) gives way to detection; a UTF-16/32 declaration on a
    body without NUL bytes is ignored.

    >>> decode(b"caf\\xc3\\xa9", "text/html; charset=utf-8")
    ('café', 'utf-8')
    >>> decode('<meta charset="gb2312">西湖'.encode("gbk"), "text/html")
    ('<meta charset="gb2312">西湖', 'gb18030')
    >>> decode("“Quoted” naïve text".encode("cp1252"), None)
    ('“Quoted” naïve text', 'cp1252')
    >>> decode(b"\\xef\\xbb\\xbfBOM wins", "text/plain; charset=big5")
    ('BOM wins', 'utf-8')
    """
    found = _by_bom(body)
    if found is not None:
        return found
    declared = _declared(body, content_type)
    if body.isascii() and declared not in _NOT_ASCII_COMPATIBLE:
        return _ascii(body, declared)
    if declared is None:
        return _detect(body)
    return _as_declared(body, declared)


def _by_bom(body: bytes) -> tuple[str, str] | None:
    """The text and codec a byte order mark says, or None without one: it wins over any declaration."""
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(codec, "replace"), codec
    return None


def _declared(body: bytes, content_type: str | None) -> str | None:
    """The codec the header declares, else the markup (which also wins over
    a Latin-1-family header); None for a UTF-16/32 declaration on a body
    without NUL bytes, which cannot be true.

    >>> _declared(b'<meta charset="utf-8">', "text/html; charset=iso-8859-1")
    'utf-8'
    >>> _declared(b"<p>", "text/html; charset=utf-16") is None
    True
    """
    declared = declared_charset(content_type)
    if declared is None or declared in _WEAK:
        declared = _meta_charset(body) or declared
    if declared in _WIDE and b"\x00" not in body[:_PRESCAN]:
        return None
    return declared


def _ascii(body: bytes, declared: str | None) -> tuple[str, str]:
    """An ASCII body, as ASCII-compatible text: ISO-2022-JP when nothing is
    declared and it has that encoding's escapes; its codec the declared one, else UTF-8."""
    if declared is None and _ISO2022_JP.search(body, 0, _SAMPLE):
        return body.decode("iso2022_jp", "replace"), "iso2022_jp"
    return body.decode("ascii"), declared or "utf-8"


def _as_declared(body: bytes, declared: str) -> tuple[str, str]:
    """A body in its declared codec, unless it is valid UTF-8 (servers lie),
    or the declaration leaves too many undecodable bytes and detection leaves fewer."""
    if declared != "utf-8" and declared not in _WIDE:
        text = _valid_utf8(body, 1 if declared in _WEAK else 2)
        if text is not None:
            return text, "utf-8"
    text, errors = _decode_counting(body, declared)
    if not _too_many_errors(body, errors):
        return text, declared
    other, codec = _detect(body)
    return (other, codec) if other.count("\ufffd") < errors else (text, declared)
