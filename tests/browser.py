"""Headless Chromium for tests: find it (installing Debian's package if need be) and drive it.

Tests that look at a page the way a person's browser renders it call
:func:`dump_dom` (the DOM after parsing, styles and any script, as HTML) and
:func:`screenshot` (a PNG). Chromium is Debian's ``chromium`` package; on a
fresh test machine (Debian, run as root) it is installed with apt-get the first
time it is needed. When that is not possible the test fails with
:class:`BrowserUnavailable` saying why: a browser test never skips.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

from tests.system import SystemPackageMissing, ensure

__all__ = ["BrowserUnavailable", "chromium", "dump_dom", "screenshot", "png_rows", "busy_rows"]

_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
_RUN_TIMEOUT = 60
# Headless, no sandbox (tests run as root), and nothing that talks to the
# network on its own: the only requests are the ones the test asks for.
_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
)


class BrowserUnavailable(RuntimeError):
    """Chromium is not installed and could not be installed here."""


def chromium() -> str:
    """The path of the chromium executable, installed with apt-get if missing."""
    found = _find()
    if found:
        return found
    try:
        ensure("chromium", "fonts-wqy-zenhei")
    except SystemPackageMissing as exc:
        raise BrowserUnavailable(str(exc)) from None
    found = _find()
    if not found:
        raise BrowserUnavailable("apt-get installed chromium but no chromium executable was found")
    return found


def _find() -> str | None:
    for path in _CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("chromium")


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Chromium with a throwaway profile under ``cwd``; its own chatter stays on stderr."""
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=cwd)
    command = [chromium(), *_FLAGS, f"--user-data-dir={profile}", *args]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=_RUN_TIMEOUT)
    if done.returncode != 0:
        raise RuntimeError(f"chromium exited with {done.returncode}:\n{done.stderr[-2000:]}")
    return done


def dump_dom(url: str, workdir: Path) -> str:
    """The DOM of ``url`` once loaded, serialized as HTML."""
    return _run(["--dump-dom", url], workdir).stdout


def screenshot(url: str, path: Path, workdir: Path, size: tuple[int, int] = (1280, 900)) -> Path:
    """A PNG of ``url`` in a ``size`` window, written to ``path``."""
    _run([f"--screenshot={path}", f"--window-size={size[0]},{size[1]}", url], workdir)
    if not path.is_file():
        raise RuntimeError(f"chromium wrote no screenshot to {path}")
    return path


def png_rows(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and unfiltered pixel rows of an 8-bit RGB or RGBA PNG.

    Enough PNG for Chromium's screenshots (no palette, no interlace), so the
    tests need nothing beyond the standard library.
    """
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    offset, idat, header = 8, [], b""
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat.append(body)
        offset += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    channels = {2: 3, 6: 4}.get(color)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"{path}: unsupported PNG (depth {depth}, color type {color}, interlace {interlace})")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(kind, line, previous, channels)
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def _unfilter(kind: int, line: bytearray, previous: bytearray, bpp: int) -> None:
    if kind == 0:
        return
    if kind == 2:
        for i in range(len(line)):
            line[i] = (line[i] + previous[i]) & 0xFF
        return
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            up, up_left = previous[i], previous[i - bpp] if i >= bpp else 0
            p = left + up - up_left
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
            predictor = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
            line[i] = (line[i] + predictor) & 0xFF
        else:
            raise ValueError(f"unknown PNG filter {kind}")


def busy_rows(path: Path) -> float:
    """The share of pixel rows that are not one uniform colour (text, rules, boxes)."""
    width, height, rows = png_rows(path)
    channels = len(rows[0]) // width if rows else 0
    busy = sum(1 for row in rows if row.count(row[:channels]) != width)
    return busy / height if height else 0.0
