"""Page texts compressed with a dictionary trained on the store's own pages:
smaller than zlib's, read back exactly, and a store from before reads as it did."""

from __future__ import annotations

import random
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest

from crawler.datadir import pages_path
from indexer.packing import FIRST_TRAINING, GROWTH, UNPACK_ERRORS, Packer, is_packed_with_dictionary
from indexer.store import PageStore
from tests.items import page

_WORDS = (
    "harbour tide lighthouse keeper boat anchor quay ferry timetable crossing passenger vehicle ticket "
    "season winter summer weather warning storm delay refund booking online counter office opening hours "
    "cabin deck lifeboat captain crew safety drill port starboard engine fuel cargo freight container"
).split()
_BOILERPLATE = (
    "Ferries of the western isles. All sailings are subject to weather. Tickets are sold at the quay "
    "office and online; bookings can be changed up to an hour before departure."
)


def _pages(count: int, seed: int = 7) -> list[Any]:
    """Pages of one site: a shared opening sentence and a few hundred words of its vocabulary."""
    rng = random.Random(seed)
    pages = []
    for k in range(count):
        body = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(300, 600)))
        sections = [
            [f"s{j}", f"{rng.choice(_WORDS).title()} {rng.choice(_WORDS)} and {rng.choice(_WORDS)}"] for j in range(6)
        ]
        pages.append(page(f"http://ferry.test/{k}", f"Crossing {k}", f"{_BOILERPLATE} {body}", sections=sections))
    return pages


def _stored(path: Path, pages: list[Any]) -> None:
    with PageStore(path) as store:
        for item in pages:
            store.put(item, "ferry.test")
        store.commit()


def _columns(path: Path) -> list[tuple[str, bytes, bytes, object]]:
    db = sqlite3.connect(path)
    try:
        return list(db.execute("SELECT url, data, text, sections FROM pages ORDER BY url"))
    finally:
        db.close()


def test_a_store_of_many_pages_keeps_their_text_smaller_than_zlib_did_and_reads_it_back(tmp_path: Path) -> None:
    pages = _pages(FIRST_TRAINING + 72)
    path = pages_path(tmp_path)
    _stored(path, pages)
    columns = _columns(path)
    # Every page, those stored before the dictionary was trained too, is compressed with it.
    assert all(is_packed_with_dictionary(text) for _, _, text, _ in columns)
    zlib_bytes = sum(len(zlib.compress(str(item["text"]).encode(), 3)) for item in pages)
    assert sum(len(text) for _, _, text, _ in columns) < 0.8 * zlib_bytes
    with PageStore(path, readonly=True) as store:
        read = {item["url"]: item for item in store.pages()}
        assert all(read[item["url"]]["text"] == item["text"] for item in pages)
        assert all(read[item["url"]]["sections"] == item["sections"] for item in pages)
        some = [str(item["url"]) for item in pages[::37]]
        assert store.bodies(some) == {str(item["url"]): (item["text"], item["sections"]) for item in pages[::37]}


def test_a_store_opened_again_goes_on_with_its_dictionary(tmp_path: Path) -> None:
    pages = _pages(FIRST_TRAINING + 40)
    path = pages_path(tmp_path)
    _stored(path, pages[: FIRST_TRAINING + 20])
    _stored(path, pages[FIRST_TRAINING + 20 :])
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM dictionaries").fetchone()[0] == 1  # not trained again
    db.close()
    assert all(is_packed_with_dictionary(text) for _, _, text, _ in _columns(path))
    with PageStore(path, readonly=True) as store:
        assert [p["text"] for p in store.pages()] == [p["text"] for p in sorted(pages, key=lambda p: str(p["url"]))]


def test_a_store_from_before_reads_as_it_did_and_learns_from_the_pages_that_follow(tmp_path: Path) -> None:
    path = pages_path(tmp_path)
    old = _pages(3 * FIRST_TRAINING, seed=1)
    db = sqlite3.connect(path)  # the store as it was: every blob zlib's, no dictionaries table
    with PageStore(path) as store:
        pass
    db.execute("DROP TABLE dictionaries")
    for item in old:
        db.execute(
            "INSERT INTO pages (url, host, title, data, sections, text) VALUES (?, ?, ?, ?, ?, ?)",
            (
                item["url"],
                "ferry.test",
                item["title"],
                zlib.compress(b"{}"),
                "[]",
                zlib.compress(str(item["text"]).encode()),
            ),
        )
    db.commit()
    db.close()
    new = [dict(item, url=f"http://ferry.test/new/{k}") for k, item in enumerate(_pages(FIRST_TRAINING + 10, seed=2))]
    _stored(path, new)
    columns = {url: text for url, _, text, _ in _columns(path)}
    assert not any(is_packed_with_dictionary(columns[str(item["url"])]) for item in old)  # left as they were
    assert all(is_packed_with_dictionary(columns[str(item["url"])]) for item in new)
    with PageStore(path, readonly=True) as store:
        read = {p["url"]: p["text"] for p in store.pages()}
    assert read == {item["url"]: item["text"] for item in old + new}


def test_a_crawl_of_many_sites_trains_a_new_dictionary_as_it_grows_and_reads_every_earlier_page() -> None:
    stored: dict[int, bytes] = {}
    packer = Packer(stored.get)
    rng = random.Random(3)
    blobs: list[tuple[bytes, bytes]] = []
    trainings = []
    for k in range(FIRST_TRAINING * GROWTH + 10):
        site = _WORDS[k * len(_WORDS) // (FIRST_TRAINING * GROWTH + 10)]  # a site after another, each its own word
        text = f"{site} " * 20 + " ".join(rng.choice(_WORDS) for _ in range(200))
        data = text.encode()
        blobs.append((packer.pack(data), data))
        trained = packer.stored_one(data)
        if trained is not None:
            stored[trained.dict_id] = trained.dict_content
            trainings.append(k + 1)
    assert trainings == [FIRST_TRAINING, FIRST_TRAINING * GROWTH]
    reader = Packer(stored.get)  # as search reads: every dictionary from the store
    assert all(reader.unpack(blob) == data for blob, data in blobs)


def test_pages_too_small_to_learn_from_are_stored_and_read_without_a_dictionary(tmp_path: Path) -> None:
    pages = [page(f"http://tiny.test/{k}", "T", "ok") for k in range(FIRST_TRAINING + 5)]
    path = pages_path(tmp_path)
    _stored(path, pages)
    with PageStore(path, readonly=True) as store:
        assert [p["text"] for p in store.pages()] == ["ok"] * len(pages)


def test_a_byte_changed_in_a_compressed_text_is_an_error_not_a_wrong_text() -> None:
    stored: dict[int, bytes] = {}
    packer = Packer(stored.get)
    texts = [str(item["text"]).encode() for item in _pages(FIRST_TRAINING)]
    for text in texts:
        trained = packer.stored_one(text)
        if trained is not None:
            stored[trained.dict_id] = trained.dict_content
    blob = bytearray(packer.pack(texts[0]))
    assert is_packed_with_dictionary(bytes(blob))
    blob[len(blob) // 2] ^= 0x5A
    with pytest.raises(UNPACK_ERRORS):
        packer.unpack(bytes(blob))
