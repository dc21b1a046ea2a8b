"""Search quality on real documentation sites: our engine against plain Whoosh, same crawl, same run.

    python -m bench.search_quality [--sites django,git] [--keep DIR [--rebuild]]
                                   [--json FILE] [--record] [--reference FILE]

For each site of :mod:`bench.docsites` (installed from Debian when it can
be): serve its directory on 127.0.0.1 (nginx, else Python), crawl it with
our ``scrapy crawl web`` as a user would (a subprocess, embedded Redis,
the index finalized at the end), then answer every query of its sets
(:mod:`bench.queries`) twice, in process: with ``SearchEngine.search(q,
n=10)``, and with the baseline a Whoosh user would write over the same
crawled pages (``PageStore.pages()``): url, title and body fields with
Whoosh's default analyzer, ``MultifieldParser(["title", "body"])``, its
default AND grouping and BM25F, the top 10. The baseline is not to be
improved: it is what ours has to beat.

A query is answered at the rank of the first result whose page (its URL
without the ``#fragment``, canonicalized as the crawler does) is the
expected page. Per set: MRR@10, Success@1 and Success@10 of both, the
difference in MRR, and, for sets whose queries name a section, the
deep-link share: of the queries where ours found the page, the share whose
result URL carries the section's fragment (a result with a ``page``
attribute is compared by it, its ``url`` read for the fragment). The
``uncrawled`` column counts queries whose page is not in the index (not
crawled, or recorded as a duplicate of another page): both engines miss
those, and the coverage lines below the table say why.

Beside MRR, what the results pages show (:mod:`bench.result_pages`), for
ours and the baseline alike: translation copies per top 10 (results that
are a page already shown higher, in another language, told from the
site's file names and language directories); the share of snippets that
come from navigation (a snippet is cut into word trigrams and compared
with the page's file, read with lxml: the text of ``nav``, ``aside``,
``role=navigation``, breadcrumbs, elements whose class or id names nav,
toc, sidebar, menu, related, navheader/navfooter, and "See also" sections,
against the rest of its body; more trigrams found only in the former make
it navigation); and the share of results that carry a ``hierarchy``. The
baseline's snippets are Whoosh's own highlights of the body.

``--keep DIR`` keeps each site's crawl in ``DIR/<site>`` and reuses a
finished one (no server, no network) instead of crawling again;
``--rebuild`` then re-indexes it from its WARC archive (``python -m indexer
rebuild``) first: the fast loop after a change to analysis or ranking.

``bench/search_quality_reference.json``, when present, holds recorded
numbers (``--record`` writes this run's, merged with those of sites not
run): each set's MRR@10 is shown against it, and a set that lost more than
0.01 is flagged REGRESSION and makes the exit status 1. ``--record`` makes
this run the reference, and exits 0. Exit status 2: a crawl, a rebuild or a
query file failed (one line says which).
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from bench import docsites
from bench.crawl import ROOT, SAME, SCRAPY
from bench.docsites import DocSite
from bench.queries import Query, QueryFileError, load, sets
from bench.queries.make_auto import html_files, reachable
from bench.result_pages import Shown, SiteStructure
from crawler.datadir import pages_path
from crawler.urls import canonicalize
from indexer.store import PageStore
from search.engine import SearchEngine, SearchError
from search.eval import expand, mrr, success_at

__all__ = ["BenchError", "Answer", "Verdict", "answer", "judge", "summary", "main"]

logger = logging.getLogger("bench.search_quality")

N = 10
REFERENCE = Path(__file__).with_name("search_quality_reference.json")
REGRESSION = 0.01  # MRR@10 lost against the reference that fails the run
CRAWL_TIMEOUT = 900.0
MARKER = "search-quality.json"  # in a kept data directory: the crawl finished
WORST = 5
_SET_ORDER = ("titles", "headings", "api", "rewritten", "hub", "hand", "questions")


class BenchError(RuntimeError):
    """A crawl, a rebuild or a query file that failed; the message is one line."""


# --- judging (pure) -------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    page: str  # canonical, without the fragment
    fragment: str


def answer(url: str, page: str | None = None) -> Answer:
    """One result as judged: its page canonicalized, the fragment of its URL.

    >>> answer("http://127.0.0.1:80/a/./b.html#Sec")
    Answer(page='http://127.0.0.1/a/b.html', fragment='Sec')
    >>> answer("http://h/x.html#f", page="http://h/x.html")
    Answer(page='http://h/x.html', fragment='f')
    """
    return Answer(canonicalize(page or url), urlsplit(url).fragment)


def answers(results: Iterable[Any]) -> list[Answer]:
    """Results (URL strings, or objects with ``url`` and maybe ``page``) as answers."""
    return [answer(r) if isinstance(r, str) else answer(r.url, getattr(r, "page", None)) for r in results]


@dataclass(frozen=True)
class Verdict:
    rank: int | None  # of the first right page, 1-based; None: not in the list
    deep: bool | None  # that result carries the expected fragment (None: none expected, or not found)
    top: str  # the first result, page and fragment, for the misses table

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def judge(expected: Sequence[str], fragment: str, found: Sequence[Answer]) -> Verdict:
    """Where the first answer whose page is among ``expected`` (canonical) stands.

    >>> found = answers(["http://h/a.html", "http://H:80/b.html#x"])
    >>> judge(["http://h/b.html"], "x", found)
    Verdict(rank=2, deep=True, top='http://h/a.html')
    >>> judge(["http://h/b.html"], "y", found).deep, judge(["http://h/c.html"], "", found).rank
    (False, None)
    """
    top = f"{found[0].page}#{found[0].fragment}" if found and found[0].fragment else (found[0].page if found else "")
    for rank, item in enumerate(found, start=1):
        if item.page in expected:
            return Verdict(rank, (item.fragment == fragment) if fragment else None, top)
    return Verdict(None, None, top)


def summary(verdicts: Sequence[Verdict], k: int = N) -> dict[str, float | None]:
    """MRR@k, Success@1, Success@k, and the deep-link share (None: no query
    with a fragment found its page).

    >>> summary([Verdict(1, True, ""), Verdict(2, False, ""), Verdict(None, None, "")])
    {'mrr@10': 0.5, 'success@1': 0.3333, 'success@10': 0.6667, 'deep_link': 0.5}
    """
    ranks = [verdict.rank for verdict in verdicts]
    deep = [verdict.deep for verdict in verdicts if verdict.deep is not None]
    return {
        f"mrr@{k}": round(mrr(ranks, k), 4),
        "success@1": round(success_at(ranks, 1), 4),
        f"success@{k}": round(success_at(ranks, k), 4),
        "deep_link": round(sum(deep) / len(deep), 4) if deep else None,
    }


# --- crawls ---------------------------------------------------------------------------------


@dataclass
class Crawl:
    data: Path
    base: str  # the URL the site was crawled at: the {site} of its queries
    pages: int
    seconds: float
    reused: bool = False
    rebuild_seconds: float | None = None


def _last_line(log: Path) -> str:
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def _run(command: list[str], log: Path, what: str) -> None:
    """Run a child to its end, its output in ``log``; BenchError when it fails.

    Ctrl-C reaches the child too (same process group): it is given the time
    to save and stop, as it would from a terminal, and killed only after."""
    with log.open("w") as out:
        child = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        try:
            code = child.wait(timeout=CRAWL_TIMEOUT)
        except subprocess.TimeoutExpired:
            child.terminate()
            _reap(child)
            raise BenchError(f"{what} took more than {CRAWL_TIMEOUT:.0f} s (log: {log})") from None
        except BaseException:
            _reap(child)
            raise
    if code != 0:
        raise BenchError(f"{what} failed (exit {code}): {_last_line(log)} (log: {log})")
    # The crawl's own exit status does not say when finalizing failed.
    if "Finalizing the index failed" in log.read_text(errors="replace"):
        raise BenchError(f"{what}: finalizing the index failed (log: {log})")


def _reap(child: subprocess.Popen[bytes]) -> None:
    try:
        child.wait(timeout=120)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def crawl(site: DocSite, data: Path) -> Crawl:
    """Serve ``site`` and crawl it into ``data`` with our crawler, as bench.crawl's ``ours`` does."""
    with docsites.serve_site(site) as served:
        seeds = ",".join(f"{served.base}/{seed}" for seed in site.seeds)
        port = urlsplit(served.base).port
        logger.info("crawling %s (%s) ...", site.name, served.name)
        started = time.monotonic()
        data.mkdir(parents=True, exist_ok=True)
        # Scope is the host, any port: pages linking to 127.0.0.1:8000 (the
        # Django tutorial's runserver) would make the crawl wait minutes for
        # a robots.txt that no server answers.
        others = rf"^https?://127\.0\.0\.1(?!:{port}/)"
        _run(
            [
                *SCRAPY,
                "crawl",
                "web",
                "-a",
                f"seeds={seeds}",
                "-s",
                f"DATA_DIR={data}",
                *SAME,
                "-s",
                f"TRAPS_BLACKLIST_URLS={others}",
            ],
            data / "crawl.log",
            f"crawling {site.name}",
        )
        seconds = time.monotonic() - started
    with PageStore(pages_path(data), readonly=True) as store:
        pages = len(store)
    if not pages:
        raise BenchError(f"crawling {site.name}: no page was indexed (log: {data / 'crawl.log'})")
    (data / MARKER).write_text(
        json.dumps({"site": site.name, "base": served.base, "pages": pages, "seconds": round(seconds, 1)}, indent=1)
        + "\n"
    )
    logger.info("crawling %s ... %d pages in %.0f s", site.name, pages, seconds)
    return Crawl(data, served.base, pages, seconds)


def rebuild(site: DocSite, found: Crawl) -> None:
    """Re-index a kept crawl from its archive (no network)."""
    logger.info("rebuilding %s from its archive ...", site.name)
    started = time.monotonic()
    _run(
        # --force: a change to extraction may leave fewer pages (more of them
        # duplicates), which a user's rebuild refuses unless told.
        [sys.executable, "-m", "indexer", "rebuild", "--force", "--data", str(found.data)],
        found.data / "rebuild.log",
        f"rebuilding {site.name}",
    )
    found.rebuild_seconds = time.monotonic() - started
    with PageStore(pages_path(found.data), readonly=True) as store:
        found.pages = len(store)
    logger.info("rebuilding %s ... %d pages in %.0f s", site.name, found.pages, found.rebuild_seconds)


def prepared(site: DocSite, data: Path, keep: bool, rebuilt: bool) -> Crawl:
    """The site's crawl in ``data``: a finished kept one (rebuilt if asked), or a new one."""
    marker = data / MARKER
    if keep and marker.is_file():
        recorded = json.loads(marker.read_text())
        with PageStore(pages_path(data), readonly=True) as store:
            found = Crawl(data, recorded["base"], len(store), float(recorded["seconds"]), reused=True)
        logger.info("reusing the crawl of %s in %s (%d pages)", site.name, data, found.pages)
        if rebuilt:
            rebuild(site, found)
        return found
    if data.exists():  # a crawl that did not finish: start again
        shutil.rmtree(data)
    return crawl(site, data)


# --- the baseline -------------------------------------------------------------------------------


_TAGS = re.compile(r"<[^>]+>")


class PlainWhoosh:
    """What a Whoosh user writes over the crawled pages; not to be improved."""

    def __init__(self, data: Path, directory: Path) -> None:
        from whoosh import fields, index
        from whoosh.qparser import MultifieldParser

        # The body is stored for Whoosh's own highlights: the snippet a plain
        # Whoosh user shows (stored fields do not change the ranking).
        schema = fields.Schema(
            url=fields.ID(stored=True, unique=True), title=fields.TEXT(stored=True), body=fields.TEXT(stored=True)
        )
        self.index = index.create_in(str(directory), schema)
        writer = self.index.writer()
        with PageStore(pages_path(data), readonly=True) as store:
            for page in store.pages():
                writer.add_document(url=page["url"], title=page.get("title") or "", body=page.get("text") or "")
        writer.commit()
        self.parser = MultifieldParser(["title", "body"], schema)
        self.searcher = self.index.searcher()

    def search(self, text: str) -> list[tuple[str, str]]:
        """The top 10: each hit's URL and Whoosh's highlights of its body (tags off)."""
        hits = self.searcher.search(self.parser.parse(text), limit=N)
        return [(hit["url"], _TAGS.sub("", hit.highlights("body"))) for hit in hits]

    def close(self) -> None:
        self.searcher.close()
        self.index.close()


# --- one site ------------------------------------------------------------------------------------


@dataclass
class Outcome:
    query: Query
    ours: Verdict
    plain: Verdict
    ours_shown: Shown = field(default_factory=Shown)
    plain_shown: Shown = field(default_factory=Shown)


@dataclass
class SetResult:
    site: str
    name: str
    outcomes: list[Outcome]
    uncrawled: int
    base: str

    def numbers(self) -> dict[str, Any]:
        ours: dict[str, Any] = summary([o.ours for o in self.outcomes])
        plain: dict[str, Any] = summary([o.plain for o in self.outcomes])
        plain.pop("deep_link")  # the baseline has no fragments to give
        queries = len(self.outcomes)
        ours.update(sum((o.ours_shown for o in self.outcomes), Shown()).measures(queries))
        plain.update(sum((o.plain_shown for o in self.outcomes), Shown()).measures(queries))
        return {
            "queries": len(self.outcomes),
            "uncrawled": self.uncrawled,
            "ours": ours,
            "plain": plain,
            "delta_mrr@10": round(ours["mrr@10"] - plain["mrr@10"], 4),
        }

    def worst(self, count: int = WORST) -> list[Outcome]:
        """Ours' worst misses: not found before found late; among them, those
        plain Whoosh answered best first."""
        misses = [o for o in self.outcomes if o.ours.rank != 1]
        return sorted(misses, key=lambda o: (-(o.ours.rank or N + 1), o.plain.rank or N + 1, o.query.query))[:count]


@dataclass
class Coverage:
    files: int  # .html files under the root
    linked: int  # of them, reachable from the seeds
    indexed: int  # of them, indexed as pages
    duplicates: dict[str, str]  # of them, crawled but recorded as a copy of another page: file -> page
    missed: list[str]  # linked, yet neither indexed nor a duplicate: a question for the crawler
    unlinked: list[str]  # on disk, linked from no page: no crawler finds them
    other: int  # indexed pages that are not .html files (plain text, PDF...)
    broken: list[str]  # URLs that answered an error (broken links of the site)


@dataclass
class SiteResult:
    site: DocSite
    why: str | None = None  # not available
    crawl: Crawl | None = None
    sets: list[SetResult] = field(default_factory=list)
    coverage: Coverage | None = None
    judge_seconds: float = 0.0


def _set_key(name: str) -> tuple[str, int, str]:
    """English sets first, in ``_SET_ORDER``, then each language's (``titles-fr``...)."""
    kind, _, lang = name.partition("-")
    return (lang, _SET_ORDER.index(kind) if kind in _SET_ORDER else len(_SET_ORDER), name)


def _expected(query: Query, base: str, where: str) -> tuple[str, ...]:
    try:
        return tuple(canonicalize(expand(url, {"site": base})) for url in query.urls)
    except KeyError as exc:
        raise BenchError(f"{where}: {query.query!r}: no site for the placeholder {{{exc.args[0]}}}") from None
    except ValueError as exc:
        raise BenchError(f"{where}: {query.query!r}: bad URL: {exc}") from None


def judge_set(
    site: str,
    name: str,
    queries: Sequence[Query],
    found: Crawl,
    ours: SearchEngine,
    plain: PlainWhoosh,
    indexed: set[str],
    structure: SiteStructure,
) -> SetResult:
    outcomes = []
    uncrawled = 0
    for query in queries:
        expected = _expected(query, found.base, f"{site}/{name}")
        uncrawled += not any(url in indexed for url in expected)
        try:
            results = ours.search(query.query, n=N).results
        except SearchError as exc:
            raise BenchError(f"{site}/{name}: our search of {query.query!r} failed: {exc}") from None
        hits = plain.search(query.query)
        ours_found, plain_found = answers(results), answers([url for url, _ in hits])
        outcomes.append(
            Outcome(
                query,
                judge(expected, query.fragment, ours_found),
                judge(expected, query.fragment, plain_found),
                structure.shown([(a.page, r.snippet or "", r) for a, r in zip(ours_found, results, strict=True)]),
                structure.shown([(a.page, snippet, None) for a, (_, snippet) in zip(plain_found, hits, strict=True)]),
            )
        )
    return SetResult(site, name, outcomes, uncrawled, found.base)


def coverage(site: DocSite, found: Crawl) -> Coverage:
    """The crawl against the files: which pages it indexed, merged, missed."""
    with PageStore(pages_path(found.data), readonly=True) as store:
        indexed, aliases, gone = store.urls(), store.aliases(), store.gone()
    # The site's editions' files: another manual's translations in the same
    # directory (the Debian Reference's) are not this site's pages.
    files = [path for path in html_files(site.root) if site.edition(path) is not None]
    linked = set(reachable(site.root, site.seeds))
    prefix = found.base + "/"
    urls = {path: canonicalize(prefix + quote(path)) for path in files}
    duplicates = {
        path: aliases[url].removeprefix(prefix) for path, url in urls.items() if url not in indexed and url in aliases
    }
    missing = [path for path, url in urls.items() if url not in indexed and path not in duplicates]
    return Coverage(
        files=len(files),
        linked=len(linked & set(files)),
        indexed=sum(1 for url in urls.values() if url in indexed),
        duplicates=duplicates,
        missed=[path for path in missing if path in linked],
        unlinked=[path for path in missing if path not in linked],
        other=len(indexed - set(urls.values())),
        broken=sorted(url.removeprefix(prefix) for url in gone),
    )


def judge_site(result: SiteResult) -> None:
    """Every query set of the site, through both engines."""
    assert result.crawl is not None
    site, found = result.site, result.crawl
    started = time.monotonic()
    with PageStore(pages_path(found.data), readonly=True) as store:
        indexed = store.urls()
    structure = SiteStructure(site, found.base)
    with tempfile.TemporaryDirectory(prefix="bench-plain-") as directory, SearchEngine(found.data) as ours:
        plain = PlainWhoosh(found.data, Path(directory))
        try:
            for name, path in sorted(sets(site.name).items(), key=lambda item: _set_key(item[0])):
                try:
                    queries = load(path)
                except QueryFileError as exc:
                    raise BenchError(str(exc)) from None
                if queries:
                    result.sets.append(judge_set(site.name, name, queries, found, ours, plain, indexed, structure))
        finally:
            plain.close()
    result.judge_seconds = time.monotonic() - started
    count = sum(len(s.outcomes) for s in result.sets)
    logger.info(
        "judging %s ... %d sets, %d queries in %.0f s", site.name, len(result.sets), count, result.judge_seconds
    )
    result.coverage = coverage(site, found)


def run_site(site: DocSite, keep: Path | None, rebuilt: bool) -> SiteResult:
    result = SiteResult(site, why=docsites.unavailable(site))
    if result.why is not None:
        logger.info("%s: not available: %s", site.name, result.why)
        return result
    with _data_dir(keep, site.name) as data:
        result.crawl = prepared(site, data, keep is not None, rebuilt)
        judge_site(result)
    return result


@contextmanager
def _data_dir(keep: Path | None, name: str) -> Iterator[Path]:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep / name
        return
    with tempfile.TemporaryDirectory(prefix=f"bench-sq-{name}-") as work:
        yield Path(work) / "data"


# --- reference -----------------------------------------------------------------------------------


def load_reference(path: Path) -> dict[str, dict[str, Any]]:
    """Recorded numbers by ``site/set``; empty when nothing was recorded."""
    if not path.is_file():
        return {}
    try:
        return dict(json.loads(path.read_text(encoding="utf-8"))["sets"])
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise BenchError(f"{path}: not a reference file ({exc})") from None


def record(path: Path, results: Sequence[SiteResult], reference: dict[str, dict[str, Any]]) -> None:
    merged = dict(reference)
    for result in results:
        for judged in result.sets:
            merged[f"{judged.site}/{judged.name}"] = judged.numbers()
    path.write_text(
        json.dumps(
            {"recorded": datetime.date.today().isoformat(), "n": N, "sets": dict(sorted(merged.items()))},
            indent=1,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )


def change(judged: SetResult, reference: dict[str, dict[str, Any]]) -> float | None:
    recorded = reference.get(f"{judged.site}/{judged.name}")
    if recorded is None:
        return None
    return round(judged.numbers()["ours"]["mrr@10"] - recorded["ours"]["mrr@10"], 4)


# --- output --------------------------------------------------------------------------------------


def _f(value: float | None, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if sign else f"{value:.3f}"


def _pair(ours: dict[str, Any], plain: dict[str, Any], key: str) -> str:
    """Ours' figure and plain's side by side: ``0.25/1.10``."""
    return "/".join("-" if side.get(key) is None else f"{side[key]:.2f}" for side in (ours, plain))


def table(results: Sequence[SiteResult], reference: dict[str, dict[str, Any]]) -> list[str]:
    rows = [
        f"search quality: ours vs plain Whoosh on the same crawl (MRR@{N}, Success@1, Success@{N})",
        f"  {'site':13s} {'set':14s} {'queries':>7s} {'uncrawled':>9s} | {'ours MRR':>8s} {'S@1':>5s} {'S@10':>5s}"
        f" | {'plain MRR':>9s} {'S@1':>5s} {'S@10':>5s} | {'delta':>6s} {'deep':>5s} | {'vs ref':>6s}"
        f" | {'copies/10':>11s} {'nav snip':>11s} {'hierarchy':>11s}",
    ]
    for result in results:
        if result.why is not None:
            rows.append(f"  {result.site.name:13s} not available: {result.why}")
            continue
        for judged in result.sets:
            numbers = judged.numbers()
            ours, plain = numbers["ours"], numbers["plain"]
            moved = change(judged, reference)
            flag = "  REGRESSION" if moved is not None and moved < -REGRESSION else ""
            rows.append(
                f"  {judged.site:13s} {judged.name:14s} {numbers['queries']:7d} {numbers['uncrawled']:9d} | "
                f"{_f(ours['mrr@10']):>8s} {_f(ours['success@1']):>5s} {_f(ours['success@10']):>5s} | "
                f"{_f(plain['mrr@10']):>9s} {_f(plain['success@1']):>5s} {_f(plain['success@10']):>5s} | "
                f"{_f(numbers['delta_mrr@10'], sign=True):>6s} {_f(ours['deep_link']):>5s} | "
                f"{_f(moved, sign=True):>6s} | {_pair(ours, plain, 'copies@10'):>11s} "
                f"{_pair(ours, plain, 'nav_snippets'):>11s} {_pair(ours, plain, 'hierarchy'):>11s}{flag}"
            )
    return rows


def _short(url: str, base: str) -> str:
    return url.removeprefix(base + "/") or "/"


def worst_misses(results: Sequence[SiteResult]) -> list[str]:
    rows = ["worst misses of ours, per set (our rank, plain's rank, query, expected page, our top result):"]
    for result in results:
        for judged in result.sets:
            worst = judged.worst()
            if not worst:
                continue
            rows.append(f"  {judged.site}/{judged.name}:")
            for o in worst:
                expected = _short(canonicalize(expand(o.query.url, {"site": judged.base})), judged.base)
                if o.query.fragment:
                    expected += "#" + o.query.fragment
                top = _short(o.ours.top, judged.base) if o.ours.top else "(none)"
                rows.append(
                    f"    {o.ours.rank or '-':>2} {o.plain.rank or '-':>2}  {o.query.query!r}  "
                    f"expected {expected}  ours: {top}"
                )
    return rows


def _listed(paths: Sequence[str], most: int = 8) -> str:
    shown = ", ".join(paths[:most])
    return shown + (f" (+{len(paths) - most} more)" if len(paths) > most else "")


def coverage_lines(results: Sequence[SiteResult]) -> list[str]:
    rows = ["coverage: the crawl against the .html files on disk"]
    for result in results:
        cover, found = result.coverage, result.crawl
        if cover is None or found is None:
            continue
        how = "reused" if found.reused else f"crawled in {found.seconds:.0f} s"
        if found.rebuild_seconds is not None:
            how += f", rebuilt in {found.rebuild_seconds:.0f} s"
        rows.append(
            f"  {result.site.name}: {found.pages} pages indexed ({how}); {cover.files} .html files, "
            f"{cover.linked} linked from the seeds, {cover.indexed} indexed, "
            f"{len(cover.duplicates)} duplicates of another page, {len(cover.missed)} missed, "
            f"{len(cover.unlinked)} unlinked; {cover.other} other pages; {len(cover.broken)} broken links"
        )
        if cover.duplicates:
            pairs = [f"{path} = {page}" for path, page in sorted(cover.duplicates.items())]
            rows.append(f"    duplicates: {_listed(pairs, 4)}")
        if cover.missed:
            rows.append(f"    missed (linked, not crawled): {_listed(cover.missed)}")
        if cover.unlinked:
            rows.append(f"    unlinked: {_listed(cover.unlinked)}")
        if cover.broken:
            rows.append(f"    broken: {_listed(cover.broken, 3)}")
    return rows


def report(results: Sequence[SiteResult], reference: dict[str, dict[str, Any]], seconds: float) -> dict[str, Any]:
    """Every number of the run, for ``--json``."""
    sites = []
    for result in results:
        entry: dict[str, Any] = {
            "site": result.site.name,
            "lang": result.site.lang,
            "packages": list(result.site.packages),
            "available": result.why is None,
        }
        if result.why is not None:
            entry["why"] = result.why
        if result.crawl is not None:
            entry["crawl"] = {k: v for k, v in asdict(result.crawl).items() if k != "data"}
            entry["crawl"]["data"] = str(result.crawl.data)
            entry["judge_seconds"] = round(result.judge_seconds, 1)
        if result.coverage is not None:
            entry["coverage"] = asdict(result.coverage)
        entry["sets"] = [
            {
                "set": judged.name,
                **judged.numbers(),
                "change_mrr@10": change(judged, reference),
                "outcomes": [
                    {
                        "query": o.query.query,
                        "url": o.query.url,
                        "fragment": o.query.fragment,
                        "ours": o.ours.to_json(),
                        "plain": o.plain.to_json(),
                        "ours_shown": asdict(o.ours_shown),
                        "plain_shown": asdict(o.plain_shown),
                    }
                    for o in judged.outcomes
                ],
            }
            for judged in result.sets
        ]
        sites.append(entry)
    return {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": platform.node(),
        "n": N,
        "seconds": round(seconds, 1),
        "sites": sites,
    }


def regressions(results: Sequence[SiteResult], reference: dict[str, dict[str, Any]]) -> list[str]:
    return [
        f"{judged.site}/{judged.name}"
        for result in results
        for judged in result.sets
        if (moved := change(judged, reference)) is not None and moved < -REGRESSION
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_quality", description=__doc__.split("\n")[0])
    parser.add_argument("--sites", help="comma-separated site names (default: all)")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep (and reuse) each crawl in DIR/<site>")
    parser.add_argument("--rebuild", action="store_true", help="with --keep: re-index kept crawls first")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every number to FILE")
    parser.add_argument("--record", action="store_true", help="make this run's numbers the reference")
    parser.add_argument("--reference", type=Path, default=REFERENCE, help=f"default: {REFERENCE.name} in bench/")
    args = parser.parse_args(argv)
    if args.rebuild and args.keep is None:
        parser.error("--rebuild re-indexes kept crawls: give --keep DIR")
    try:
        sites = docsites.by_name(args.sites)
    except ValueError as exc:
        parser.error(str(exc))
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    logger.setLevel(logging.INFO)

    started = time.monotonic()
    try:
        reference = load_reference(args.reference)
        results = [run_site(site, args.keep, args.rebuild) for site in sites]
    except BenchError as exc:
        print(f"search_quality: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # servers and crawls were stopped on the way out
        print("search_quality: interrupted", file=sys.stderr)
        return 130
    seconds = time.monotonic() - started
    print("\n".join([*table(results, reference), "", *worst_misses(results), "", *coverage_lines(results)]))
    print(f"\nwhole run: {seconds:.0f} s", flush=True)
    if args.json is not None:
        args.json.write_text(
            json.dumps(report(results, reference, seconds), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    lost = regressions(results, reference)
    if args.record:
        record(args.reference, results, reference)
        print(f"recorded as the reference: {args.reference}")
        return 0
    if lost:
        print(f"REGRESSION against {args.reference.name}: {', '.join(lost)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
