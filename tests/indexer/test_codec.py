"""The index's own segment writer gives the index Whoosh's writer gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from whoosh import index
from whoosh.util.numeric import byte_to_length, length_to_byte
from whoosh.writing import SegmentWriter

from indexer.analysis import uncounted_tokens
from indexer.codec import Codec, StoredColumns, Writer
from indexer.schema import schema as make_schema

PAGES = [
    {
        "url": f"http://site.test/{n}.html",
        "title": f"Page {n} about {'json' if n % 2 else 'xml'}",
        "body": " ".join(f"word{(n * k) % 37} json.dumps e-mail 编码{k % 5}" for k in range(60)),
    }
    for n in range(40)
]


def _build(path: Path, writer_class: Any, limit: int | None = None) -> int:
    """Index the pages; how many sorted runs the postings spilled to."""
    path.mkdir()
    ix = index.create_in(str(path), make_schema())
    writer = writer_class(ix, codec=Codec())
    if limit is not None:
        writer.pool.limit = limit  # postings spill to sorted runs on disk
    for page in PAGES:
        writer.add_document(url=page["url"], title=page["title"], body=page["body"])
    runs = len(writer.pool.runs)
    writer.commit()
    return runs


def _postings(path: Path) -> list[tuple[Any, ...]]:
    with index.open_dir(str(path)).reader() as reader:
        return [(field, text, docnum, weight, value) for field, text, docnum, weight, value in reader.iter_postings()]


def _stored(path: Path) -> list[dict[str, Any]]:
    with index.open_dir(str(path)).reader() as reader:
        return [dict(fields) for _, fields in reader.iter_docs()]


@pytest.mark.slow
@pytest.mark.parametrize("limit", [None, 4_000], ids=["in memory", "spilled to runs"])
def test_the_grouped_writer_writes_what_whoosh_writes(tmp_path: Path, limit: int | None) -> None:
    _build(tmp_path / "whoosh", SegmentWriter)
    runs = _build(tmp_path / "ours", Writer, limit)
    assert (runs > 1) == (limit is not None)
    expected = _postings(tmp_path / "whoosh")
    assert len(expected) > 2_000
    assert _postings(tmp_path / "ours") == expected
    assert _stored(tmp_path / "ours") == _stored(tmp_path / "whoosh")
    # The length Whoosh gives the body, but for the Chinese characters
    # indexed beside their bigrams (not counted: see indexer.analysis).
    body = PAGES[0]["body"]
    counted = sum(freq for _, freq, _, _ in make_schema()["body"].index(body))
    with index.open_dir(str(tmp_path / "whoosh")).searcher() as searcher:
        assert searcher.doc_field_length(0, "body") == byte_to_length(length_to_byte(counted))
    with index.open_dir(str(tmp_path / "ours")).searcher() as searcher:
        assert searcher.doc_count() == len(PAGES)
        assert uncounted_tokens(body) == 120  # 编码: one bigram counted, its two characters not
        assert searcher.doc_field_length(0, "body") == byte_to_length(length_to_byte(counted - 120))


def test_plain_postings_are_whooshs_own_for_every_id_and_keyword_field() -> None:
    """The writer's short path for ID and KEYWORD fields gives exactly the
    postings Whoosh's analysis gives, on awkward values too."""
    from indexer.codec import plain_postings
    from indexer.schema import schema

    values = [
        "",
        " ",
        "http://a.test/Path?q=1",
        "zh-CN zh",
        "Docs.Python.org python.org",
        "a\tb\nc\rd e",
        "ÉCOLE école",
        "x\x0by\x0cz",
        "  leading and trailing  ",
        "dup dup DUP",
        "İstanbul",
        "中文 页面",
    ]
    checked = 0
    for name, field in schema().items():
        plain = plain_postings(field) if field.indexed else None
        if plain is None:
            continue
        checked += 1
        for value in values:
            assert sorted(plain(value)) == sorted(field.index(value)), (name, value)
    assert checked >= 5  # url, host, site, lang, type, access


def _postings_with(path: Path, codec: Any) -> list[tuple[Any, ...]]:
    path.mkdir()
    ix = index.create_in(str(path), make_schema())
    writer = SegmentWriter(ix, codec=codec)
    for page in PAGES:
        writer.add_document(url=page["url"], title=page["title"], body=page["body"])
    writer.commit()
    return _postings(path)


@pytest.mark.parametrize("blocklimit", [3, 128])
def test_packed_blocks_read_as_whooshs_pickled_ones(tmp_path: Path, blocklimit: int) -> None:
    """The same postings written in Whoosh 3's blocks (a pickled tuple) and
    in packed ones read back alike: ids, weights (counts, ones), values
    (positions, none for a URL)."""
    from whoosh.codec.whoosh3 import W3Codec

    whooshs = _postings_with(tmp_path / "whoosh", W3Codec(blocklimit=blocklimit, inlinelimit=1))
    packed = _postings_with(tmp_path / "packed", Codec(blocklimit=blocklimit, inlinelimit=1))
    assert len(whooshs) > 2_000
    assert packed == whooshs
    assert {field for field, *_ in packed} >= {"url", "title", "body"}


def test_a_packed_block_keeps_every_kind_of_weight_and_value() -> None:
    from indexer.codec import PackedBlock

    cases = [
        ([5], [1.0], [b"\x01\x03"], None),
        ([0, 1, 70_000, 70_001], [2.0, 2.0, 2.0, 2.0], [b"", b"", b"", b""], 0),
        ([1, 300], [3.0, 700.0], [b"abcd", b"efgh"], 4),
        ([2, 4, 6], [0.5, 1.5, 2.25], [b"x" * 300, b"", b"yz"], -1),
        ([7, 8], [1.0, 5.0], [], 0),
    ]
    for ids, weights, values, fixedsize in cases:
        block = PackedBlock(PackedBlock.pack(ids, weights, values, fixedsize))
        assert block.ids() == ids
        found = block.weights()
        assert (
            [1.0] * len(ids) if found is None else [found] * len(ids) if isinstance(found, float) else found
        ) == weights
        if fixedsize == 0:
            assert block.values(fixedsize) == (None,) * len(ids)
        else:
            assert block.values(fixedsize) == tuple(values)


def _page(n: int, version: str = "first") -> dict[str, Any]:
    return {
        "url": f"http://site.test/{n}",
        "title": f"Page {n} {version}",
        "body": f"lighthouse {version} keeper{n % 7} " + " ".join(f"word{(n * k) % 23}" for k in range(12)),
    }


def _segments_of(path: Path, count: int, size: int) -> Any:
    """An index of ``count`` committed segments of ``size`` pages, merged never."""
    path.mkdir()
    ix = index.create_in(str(path), make_schema())
    for start in range(0, count * size, size):
        writer = Writer(ix, codec=Codec())
        for n in range(start, start + size):
            writer.add_document(**_page(n))
        writer.commit(merge=False)
    return ix


def test_a_merge_writes_what_whooshs_merge_writes(tmp_path: Path) -> None:
    """Segments (some of their documents deleted) merged term by term write
    the postings, stored fields and lengths Whoosh's merge writes through
    its pool, in posting lists of several blocks and in inlined ones."""

    def merged(path: Path, writer_class: Any, blocklimit: int) -> tuple[list, list, list]:
        ix = _segments_of(path, 6, 6)
        for n in (1, 8, 9, 30):
            writer = Writer(ix, codec=Codec(blocklimit=blocklimit))
            writer.update_document(**_page(n, "second"))
            writer.commit(merge=False)
        writer = writer_class(ix, codec=Codec(blocklimit=blocklimit))
        writer.add_document(**_page(99))
        writer.commit(optimize=True)
        with index.open_dir(str(path)).reader() as reader:
            assert len(reader.segments()) == 1
            lengths = [
                [reader.doc_field_length(d, name) for name in ("body", "title", "url")]
                for d in range(reader.doc_count_all())
            ]
            return list(reader.iter_postings()), [dict(stored) for _, stored in reader.iter_docs()], lengths

    for blocklimit in (3, 128):
        ours = merged(tmp_path / f"ours-{blocklimit}", Writer, blocklimit)
        assert ours == merged(tmp_path / f"whoosh-{blocklimit}", SegmentWriter, blocklimit)
        assert len(ours[1]) == 6 * 6 + 1 and len(ours[0]) > 500


def _updated(path: Path, writer_class: Any) -> list[dict[str, Any]]:
    """Pages added, then some updated over three commits (one into a new index)."""
    path.mkdir()
    ix = index.create_in(str(path), make_schema())
    for rounds in (PAGES[:10], PAGES[5:15], PAGES[:3]):
        writer = writer_class(ix, codec=Codec())
        for page in rounds:
            writer.update_document(url=page["url"], title=f"{page['title']} {len(rounds)}", body=page["body"])
        writer.commit()
    with ix.searcher() as searcher:
        return sorted((dict(fields) for fields in searcher.all_stored_fields()), key=lambda stored: stored["url"])


def test_an_update_replaces_the_committed_document_as_whooshs_does(tmp_path: Path) -> None:
    ours = _updated(tmp_path / "ours", Writer)
    assert ours == _updated(tmp_path / "whoosh", SegmentWriter)
    assert [stored["url"] for stored in ours] == sorted({page["url"] for page in PAGES[:15]})
    assert ours[0]["title"].endswith(" 3")


def test_stored_fields_read_back_short_and_long_and_from_whooshs_own_columns(tmp_path: Path) -> None:
    """Short stored fields are kept as they are, long ones compressed; an
    index whose stored fields Whoosh compressed (every one, as indexes
    written before this codec kept them) reads the same."""
    from whoosh.codec.whoosh3 import W3Codec
    from whoosh.reading import SegmentReader

    pages = [{**page, "title": page["title"] * (200 if n % 3 == 0 else 1)} for n, page in enumerate(PAGES)]
    expected = [{"url": page["url"], "title": page["title"]} for page in pages]
    assert max(len(page["title"]) for page in pages) > 2_000
    for name, codec in (("ours", Codec()), ("whoosh", W3Codec())):
        path = tmp_path / name
        path.mkdir()
        ix = index.create_in(str(path), make_schema())
        writer = (Writer if name == "ours" else SegmentWriter)(ix, codec=codec)
        for page in pages:
            writer.add_document(url=page["url"], title=page["title"], body=page["body"])
        writer.commit()
        ix = index.open_dir(str(path))
        segment = ix._segments()[0]
        reader = SegmentReader(ix.storage, ix.schema, segment, codec=Codec())
        try:
            assert [reader.stored_fields(n) for n in range(len(pages))] == expected
            columns = StoredColumns.of([(segment, reader, 0)], ix.schema)
            assert columns is not None
            assert [columns.read(n) for n in range(len(pages))] == expected
        finally:
            reader.close()
        with ix.searcher() as searcher:
            assert searcher.stored_fields(3)["title"] == pages[3]["title"]


@pytest.mark.parametrize("protocol", [2, 4])
def test_an_index_knows_the_codecs_classes_by_the_packages_name(protocol: int) -> None:
    """An index's table of contents pickles its schema (its fields, their
    formats) and each segment's codec, each class by its module's name:
    the codec's are known by the package's, whichever of its modules holds
    them, so that an index reads whatever moves inside the package."""
    import pickle
    import re

    data = pickle.dumps((make_schema(), Codec()), protocol)
    assert set(re.findall(rb"indexer\.[\w.]+", data)) == {b"indexer.codec", b"indexer.analysis"}
    assert pickle.loads(data)[1].__class__ is Codec
