"""The compact term index: what it holds, how little it spends on a term,
and an index of segments in Whoosh's hash file (as written before it)
read, searched and merged as before, merged into the compact format."""

from __future__ import annotations

import bisect
import pickle
from pathlib import Path
from typing import Any

import pytest
from whoosh import index
from whoosh.filedb.filestore import FileStorage, RamStorage
from whoosh.qparser import FuzzyTermPlugin, QueryParser

from indexer.codec import Codec, Writer
from indexer.codec.term_index import SAMPLE_EVERY, TAG, TermIndex, TermIndexWriter
from indexer.codec.terms import WHOOSH_HASH_FILE, open_term_index
from indexer.schema import schema as make_schema

QUERIES = ["json", "json*", "jsom~", "keeper3", '"lighthouse first"', "word1*", "编码", "nothing-here", "e-mail"]


def _page(n: int, version: str = "first") -> dict[str, str]:
    return {
        "url": f"http://site.test/{n}",
        "title": f"Page {n} {version} about {'json' if n % 2 else 'xml'}",
        "body": f"lighthouse {version} keeper{n % 7} e-mail 编码{n % 5} {'json' if n % 3 else 'jsonl'} "
        + " ".join(f"word{(n * k) % 53}" for k in range(40)),
    }


def _index(path: Path, term_index: int, segments: int = 3, size: int = 12) -> Any:
    """An index of ``segments`` committed segments (a page of each updated
    in the next), their term index in the format ``term_index``."""
    path.mkdir()
    ix = index.create_in(str(path), make_schema())
    for start in range(0, segments * size, size):
        writer = Writer(ix, codec=Codec(term_index=term_index))
        if start:
            writer.update_document(**_page(start - 1, "second"))
        for n in range(start, start + size):
            writer.add_document(**_page(n))
        writer.commit(merge=False)
    return index.open_dir(str(path))


def _term_index_tags(ix: Any) -> set[bytes]:
    """How the term index of each segment of ``ix`` begins."""
    tags = set()
    for segment in ix._segments():
        storage = segment.open_compound_file(ix.storage)
        name = segment.make_filename(".trm")
        with storage.open_file(name) as terms:
            tags.add(bytes(terms.read(4)))
        storage.close()
    return tags


def _what_search_sees(ix: Any) -> dict[str, Any]:
    """Everything the terms reader answers, through Whoosh's reader and searcher."""
    seen: dict[str, Any] = {}
    with ix.searcher() as searcher:
        reader = searcher.reader()
        seen["terms"] = list(reader.all_terms())
        seen["infos"] = [
            [
                (term, info.weight(), info.doc_frequency(), info.max_weight(), info.min_id(), info.max_id())
                for term, info in leaf
            ]
            + [term for term, _ in leaf.iter_from("body", "word2")]
            for leaf, _ in reader.leaf_readers()
        ]
        seen["postings"] = list(reader.iter_postings())
        seen["frequencies"] = [
            (reader.frequency("body", text), reader.doc_frequency("body", text), ("body", text) in reader)
            for text in (b"json", b"lighthouse", b"keeper3", b"absent")
        ]
        seen["prefix"] = [list(reader.expand_prefix("body", prefix)) for prefix in ("word1", "k", "zz", "")]
        seen["terms_from"] = [list(reader.terms_from("body", text))[:5] for text in ("word2", "lighthouse", "\uffff")]
        seen["lexicon"] = list(reader.lexicon("title"))
        seen["within"] = sorted(reader.terms_within("body", "keepr3", 1))
        seen["suggest"] = searcher.corrector("body").suggest("lighthose", limit=3)
        seen["frequent"] = reader.most_frequent_terms("body", 5)
        parser = QueryParser("body", ix.schema)
        parser.add_plugin(FuzzyTermPlugin())
        seen["hits"] = [[hit["url"] for hit in searcher.search(parser.parse(q), limit=None)] for q in QUERIES]
    return seen


def test_a_new_segment_spends_a_dozen_bytes_on_a_term_at_most(tmp_path: Path) -> None:
    """Besides its key and entry, a term costs some 8 bytes in the compact
    format (36 in Whoosh's hash file): lengths, fingerprint, position and
    bucket start, a sample of its position."""
    sizes = {}
    for name, term_index in (("compact", Codec().term_index), ("hash file", WHOOSH_HASH_FILE)):
        ix = _index(tmp_path / name, term_index, segments=1, size=60)
        (segment,) = ix._segments()
        storage = segment.open_compound_file(ix.storage)
        filename = segment.make_filename(".trm")
        terms = open_term_index(storage.open_file(filename), storage.file_length(filename))
        items = list(terms.items())
        assert len(items) > 200
        payload = sum(len(key) + len(entry) for key, entry in items)
        sizes[name] = (storage.file_length(filename) - payload) / len(items)
        terms.close()
        storage.close()
    assert sizes["compact"] <= 12 < 30 < sizes["hash file"]


def test_an_index_in_whooshs_hash_file_reads_searches_and_merges_as_a_compact_one(tmp_path: Path) -> None:
    old = _index(tmp_path / "old", WHOOSH_HASH_FILE)
    new = _index(tmp_path / "new", Codec().term_index)
    assert _term_index_tags(old) == {b"HSH3"}
    assert _term_index_tags(new) == {TAG}
    expected = _what_search_sees(new)
    assert expected["suggest"] == ["lighthous"] and "keeper3" in expected["within"]  # stemmed
    assert all(expected["hits"][:-2]) and expected["lexicon"]
    assert _what_search_sees(old) == expected
    for ix in (old, new):  # every segment merged into one by today's writer, and a page added
        writer = Writer(ix, codec=Codec())
        writer.add_document(**_page(99))
        writer.commit(optimize=True)
    old, new = index.open_dir(str(tmp_path / "old")), index.open_dir(str(tmp_path / "new"))
    assert len(old._segments()) == 1 and _term_index_tags(old) == {TAG}
    merged = _what_search_sees(old)
    assert merged == _what_search_sees(new)
    assert len(merged["hits"][1]) == len(expected["hits"][1]) + 1  # the page added
    assert merged["postings"] != expected["postings"]


def test_a_codec_pickled_before_the_compact_term_index_names_whooshs_hash_file() -> None:
    """A segment's codec, pickled in the index's table of contents before
    the term index had formats, says its segment's term index is Whoosh's."""
    codec = Codec()
    del codec.term_index
    assert pickle.loads(pickle.dumps(codec)).term_index == WHOOSH_HASH_FILE
    assert pickle.loads(pickle.dumps(Codec())).term_index == Codec().term_index != WHOOSH_HASH_FILE


def _written(storage: Any, items: list[tuple[bytes, bytes]]) -> TermIndex:
    writer = TermIndexWriter(storage.create_file("t.trm"))
    writer.extras["fieldmap"] = {"body": 0}
    for key, entry in items:
        writer.add(key, entry)
    writer.close()
    return TermIndex(storage.open_file("t.trm"), storage.file_length("t.trm"))


@pytest.mark.parametrize("count", [0, 1, SAMPLE_EVERY, 1_000])
@pytest.mark.parametrize("where", ["in memory", "on disk"])
def test_the_term_index_finds_each_key_and_the_first_at_or_after_any(tmp_path: Path, count: int, where: str) -> None:
    """Look-ups, ordered iteration and the first key at or after another,
    against a sorted list, for keys and entries of every length (past a
    one-byte length too), in a mapped file and in one read whole."""
    keys = sorted({b"\x00\x00" + f"k{n * 7919 % 10_007:05d}".encode() * (1 + n % 40) for n in range(count)})
    items = [(key, bytes([n % 256]) * (n % 300)) for n, key in enumerate(keys)]
    storage = RamStorage() if where == "in memory" else FileStorage(str(tmp_path))
    terms = _written(storage, items)
    assert terms.extras == {"fieldmap": {"body": 0}} and len(terms) == count
    assert list(terms.items()) == items and list(terms.keys()) == keys
    assert all(terms.get(key) == entry for key, entry in items)
    probes = [b"", b"\x00", b"\x00\x00k0", b"\x00\x00k5", b"\xff"] + [key[:-1] for key in keys[:50]]
    probes += [key + b"\x00" for key in keys[:50]]
    for probe in probes:
        at = bisect.bisect_left(keys, probe)
        assert terms.closest_key(probe) == (keys[at] if at < count else None), probe
        assert list(terms.keys_from(probe)) == keys[at:]
        assert [key for key, _ in terms.items_from(probe)] == keys[at:]
        assert terms.get(probe) == (items[at][1] if at < count and keys[at] == probe else None)
    terms.close()


def test_keys_must_increase() -> None:
    writer = TermIndexWriter(RamStorage().create_file("t.trm"))
    writer.add(b"b", b"")
    with pytest.raises(ValueError, match="Keys must increase"):
        writer.add(b"a", b"")
