"""Headless Chromium for tests: find it (installing Debian's package if need be) and drive it.

Tests that look at a page the way a person's browser renders it call
:func:`dump_dom` (the DOM after parsing, styles and any script, as HTML) and
:func:`screenshot` (a PNG); tests that use a page as a person does (type,
press keys, measure what is laid out) open a :class:`Tab`, driven over the
DevTools protocol. Chromium is Debian's ``chromium`` package; on a
fresh test machine (Debian, run as root) it is installed with apt-get the first
time it is needed. When that is not possible the test fails with
:class:`BrowserUnavailable` saying why: a browser test never skips.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import threading
import urllib.request
import zlib
from pathlib import Path
from typing import Any

import aiohttp

from tests.system import SystemPackageMissing, ensure

__all__ = ["BrowserUnavailable", "Tab", "chromium", "dump_dom", "screenshot", "png_rows", "busy_rows"]

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


# What a key press sends, for the keys tests press (Enter and the arrows
# need their key codes for the browser to act on them).
_KEYS = {
    "Enter": {"code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"},
    "ArrowDown": {"code": "ArrowDown", "windowsVirtualKeyCode": 40},
    "ArrowUp": {"code": "ArrowUp", "windowsVirtualKeyCode": 38},
    "Backspace": {"code": "Backspace", "windowsVirtualKeyCode": 8},
    "/": {"code": "Slash", "windowsVirtualKeyCode": 191, "text": "/"},
}


class Tab:
    """A headless Chromium showing one page, used as a person would: go to
    a URL, type, press keys, and read what the page shows (an expression
    evaluated in it, a screenshot). The page's own Content-Security-Policy
    holds for its scripts; the expressions the test evaluates are the
    browser's, as a console's are. Closed with the context it opens."""

    def __init__(self, workdir: Path, size: tuple[int, int] = (1280, 900)) -> None:
        profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=workdir)
        self.size = size
        self._process = subprocess.Popen(
            [
                chromium(),
                *_FLAGS,
                f"--user-data-dir={profile}",
                f"--window-size={size[0]},{size[1]}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            cwd=workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._loop = asyncio.new_event_loop()
        self._next_id = 0
        try:
            self._loop.run_until_complete(self._connect(self._listening()))
        except BaseException:
            self.close()
            raise

    def _listening(self) -> str:
        """The browser's DevTools address, from the line it prints once it listens."""
        assert self._process.stderr is not None
        for line in self._process.stderr:
            found = re.search(r"DevTools listening on (ws://\S+)", line)
            if found:  # the rest of its chatter read and dropped, so that it never blocks on a full pipe
                threading.Thread(target=self._process.stderr.read, daemon=True).start()
                return found.group(1)
        raise RuntimeError(f"chromium exited with {self._process.wait()} before listening")

    async def _connect(self, browser_url: str) -> None:
        port = browser_url.split(":")[2].split("/")[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=_RUN_TIMEOUT) as answer:
            target = next(t for t in json.load(answer) if t["type"] == "page")
        self._session = aiohttp.ClientSession()
        self._socket = await self._session.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
        await self._call("Page.enable")
        # The window's size exactly (a headless window is at least 500 pixels
        # wide), a narrow one as a phone lays it out (its viewport meta tag read).
        width, height = self.size
        await self._call(
            "Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=width < 600
        )

    async def _call(self, method: str, wait_for: str | None = None, **params: Any) -> dict[str, Any]:
        """A DevTools command's result, or (``wait_for``) the first event of that name after it."""
        self._next_id += 1
        number = self._next_id
        await self._socket.send_json({"id": number, "method": method, "params": params})
        result: dict[str, Any] | None = None
        async with asyncio.timeout(_RUN_TIMEOUT):
            while True:
                message = json.loads((await self._socket.receive()).data)
                if message.get("id") == number:
                    if "error" in message:
                        raise RuntimeError(f"{method}: {message['error']}")
                    result = message["result"]
                    if wait_for is None:
                        return result
                elif wait_for is not None and message.get("method") == wait_for and result is not None:
                    return result

    def _run(self, method: str, wait_for: str | None = None, **params: Any) -> dict[str, Any]:
        return self._loop.run_until_complete(self._call(method, wait_for, **params))

    def go(self, url: str) -> None:
        """Load ``url`` and wait for its load event."""
        self._run("Page.navigate", "Page.loadEventFired", url=url)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a promise: awaited)."""
        answer = self._run("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression!r} threw: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def wait_for(self, condition: str, timeout: float = 10.0) -> Any:
        """The first truthy value of ``condition`` (an expression), checked
        at each change of the page's DOM, within ``timeout`` seconds."""
        return self.evaluate(
            "new Promise((resolve, reject) => {const check = () => {const v = (" + condition + "); if (v) "
            "{observer.disconnect(); clearTimeout(limit); resolve(v);}}; const observer = new MutationObserver(check);"
            " const limit = setTimeout(() => {observer.disconnect(); reject(new Error('timed out: ' + "
            + json.dumps(condition)
            + "))}, "
            + str(int(timeout * 1000))
            + "); observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});"
            " check();})"
        )

    def type(self, text: str) -> None:
        """Type ``text`` into what has the focus, a key at a time."""
        for char in text:
            self._run("Input.dispatchKeyEvent", type="keyDown", key=char, text=char)
            self._run("Input.dispatchKeyEvent", type="keyUp", key=char)

    def press(self, key: str, loads: bool = False) -> None:
        """Press and release a key of :data:`_KEYS` (``Enter``, ``ArrowDown``...);
        ``loads``: it opens a page, whose load event is waited for."""
        details = _KEYS[key]
        self._run(
            "Input.dispatchKeyEvent", "Page.loadEventFired" if loads else None, type="keyDown", key=key, **details
        )
        self._run("Input.dispatchKeyEvent", type="keyUp", key=key, **{k: v for k, v in details.items() if k != "text"})

    def screenshot(self, path: Path) -> Path:
        """A PNG of what the window shows, written to ``path``."""
        path.write_bytes(base64.b64decode(self._run("Page.captureScreenshot", format="png")["data"]))
        return path

    def close(self) -> None:
        if hasattr(self, "_socket"):
            self._loop.run_until_complete(self._socket.close())
        if hasattr(self, "_session"):
            self._loop.run_until_complete(self._session.close())
        self._loop.close()
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stderr is not None:
            self._process.stderr.close()

    def __enter__(self) -> Tab:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


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
