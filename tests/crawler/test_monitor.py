"""Watching a crawl: the progress line, alerts, and a report whose counts are the servers' own.

Real `scrapy crawl` runs against literal sites on 127.0.0.1; each server's
request log (with the status and body size it answered) is the ground truth
the report must equal, robots.txt, retries and redirect hops included.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from crawler.alerts import AlertRules
from crawler.datadir import reports_dir
from crawler.report import Tally, progress_line, report, table
from tests.commands import crawl
from tests.webserver import Reply, Site, page, serve_site, text

WORDS = (
    "harbour lighthouse keeper ferry market storm tide village council museum red green blue "
    "north south east west old new small large quiet"
).split()


def _prose(seed: str) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) + rng.choice("abcdefgh") for _ in range(80))


def _page(name: str, links: str = "") -> Reply:
    return page(f"<title>{name}</title><p>{_prose(name)}</p>{links}")


def _links(*paths: str) -> str:
    return " ".join(f'<a href="{path}">{path}</a>' for path in paths)


def _main_site(other: str) -> dict[str, Reply]:
    """200s, a 404, a 500 (retried twice), a redirect, a robots.txt refusal,
    a duplicate page, a trap-shaped link and a link to the other site."""
    oks = [f"/ok{n}.html" for n in range(10)]
    return {
        "/robots.txt": text("User-agent: *\nDisallow: /private/\n"),
        "/": _page(
            "Main home",
            _links(*oks, "/missing.html", "/old.html", "/private/x.html", "/copy.html", "/s/s/s/s/", f"{other}/"),
        ),
        **{path: _page(f"Main {path}") for path in oks[:-1]},
        oks[-1]: _page("Main last", _links("/broken.html")),  # depth 2: after the others
        "/broken.html": page("<title>Oops</title>", status=500),
        "/old.html": Reply(b"", 301, {"Location": "/new.html"}),
        "/new.html": _page("Main new"),
        "/copy.html": _page("Main /ok0.html"),  # the same text as /ok0.html
        "/private/x.html": _page("Never"),
    }


def _second_site() -> dict[str, Reply]:
    return {
        "/": _page("Second home", _links("/b1.html", "/b2.html")),
        "/b1.html": _page("Second b1"),
        "/b2.html": _page("Second b2"),
    }


def _site_key(site: Site) -> str:
    return site.base  # http://127.0.0.1:PORT, as crawler.urls.site_of names it


def _report(data: Path) -> tuple[dict, str]:
    reports = sorted(reports_dir(data).glob("crawl-*.json"))
    assert len(reports) == 1, reports
    assert re.fullmatch(r"crawl-\d{8}T\d{6}Z-[\w.-]+\.json", reports[0].name)
    return json.loads(reports[0].read_text()), reports[0].with_name(reports[0].stem + ".txt").read_text()


def _classes(statuses: list[int | None]) -> Counter[str]:
    return Counter(f"{status // 100}xx" for status in statuses if status is not None)


def _assert_counts_equal_the_logs(found: dict, sites: dict[str, Site]) -> None:
    """The report's totals, status classes and per-site counts equal the servers' logs."""
    logs = {_site_key(site): site.requests for site in sites.values()}
    everything = [r for log in logs.values() for r in log]
    assert found["requests"]["total"] == len(everything)
    assert found["requests"]["robots_txt"] == sum(r.path == "/robots.txt" for r in everything)
    assert found["bytes"] == sum(r.size for r in everything)
    classes = _classes([r.status for r in everything])
    assert {k: v for k, v in found["status_classes"].items() if v} == dict(classes)
    assert found["status_codes"] == {str(code): n for code, n in Counter(r.status for r in everything).items()}
    assert set(found["sites"]) == {key for key, log in logs.items() if log}
    for key, log in logs.items():
        row = found["sites"][key]
        assert row["requests"] == len(log), key
        assert row["robots_txt"] == sum(r.path == "/robots.txt" for r in log), key
        assert row["sitemaps"] == sum(r.path == "/sitemap.xml" for r in log), key
        assert row["probes"] == sum(r.path.startswith("/lantern-probe-") for r in log), key
        assert row["pages"] == row["requests"] - row["robots_txt"] - row["sitemaps"] - row["probes"]
        assert {c: row[c] for c in ("2xx", "3xx", "4xx", "5xx") if row[c]} == dict(_classes([r.status for r in log]))
        assert row["bytes"] == sum(r.size for r in log), key


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Site], Path, str]]:
    data = tmp_path_factory.mktemp("healthy")
    with ExitStack() as stack:
        second = stack.enter_context(serve_site(_second_site()))
        main = stack.enter_context(serve_site(_main_site(second.base)))
        sites = {"main": main, "second": second}
        done = crawl(
            [main.url("/"), second.url("/")], data, "DOWNLOAD_DELAY=0.1", "MONITOR_INTERVAL=0.5", "LOG_LEVEL=INFO"
        )
        assert done.returncode == 0, done.stderr[-3000:]
        yield sites, data, done.stderr


def test_the_report_counts_equal_the_servers_request_logs(healthy) -> None:
    sites, data, _ = healthy
    found, _ = _report(data)
    _assert_counts_equal_the_logs(found, sites)
    main = found["sites"][_site_key(sites["main"])]
    assert main["5xx"] == 3 and main["3xx"] == 1  # a 500 and its two retries; one redirect hop
    assert found["status_codes"]["500"] == 3


def test_the_report_names_refusals_traps_duplicates_and_errors(healthy) -> None:
    sites, data, _ = healthy
    found, _ = _report(data)
    main = _site_key(sites["main"])
    assert "/private/x.html" not in sites["main"].paths()
    assert found["robots"]["refused"] == 1 and found["robots"]["refused_by_site"] == {main: 1}
    assert found["traps"] == {"repeated_path": 1} and "/s/s/s/s/" not in sites["main"].paths()
    assert found["duplicates"] == {"content": 1}
    assert found["errors"] == {"HTTP 500": {"count": 3, "examples": [sites["main"].url("/broken.html")]}}
    assert found["client_errors"]["HTTP 404"]["examples"] == [sites["main"].url("/missing.html")]
    assert found["items"]["page"] == found["requests"]["pages"] - 3 - 1 - 1 - 1  # 500s, 301, 404, copy
    assert found["finish_reason"] == "finished" and found["seconds"] > 0


def test_the_text_report_is_a_table_of_the_sites(healthy) -> None:
    sites, data, log = healthy
    found, written = _report(data)
    rows = [line for line in written.splitlines() if line.startswith("http://127.0.0.1:")]
    assert [row.split()[0] for row in rows] == list(found["sites"])
    assert {row.split()[0] for row in rows} == {_site_key(site) for site in sites.values()}
    header = next(line for line in written.splitlines() if line.startswith("site "))
    assert all(len(row) == len(header) for row in rows)  # fixed-width columns
    assert f"Requests       {found['requests']['total']} = " in written
    assert "HTTP 500" in written and sites["main"].url("/broken.html") in written
    assert re.search(r"Crawl report: \d+ requests .* written to .*reports/crawl-.*\.txt", log)


def test_progress_lines_replace_scrapys_during_the_crawl(healthy) -> None:
    _, _, log = healthy
    lines = re.findall(r"\[crawler\.monitor\] INFO: (Crawled .*)", log)
    assert lines, log[-3000:]
    for found in lines:
        assert re.fullmatch(
            r"Crawled [\d,]+ pages? \([\d.,]+/s\), [\d,]+ queued, \d of \d sites? with work "
            r"served in [\d.]+ s, \d sites? fetched, \d+ errors?, "
            r"indexer ([\d,]+ behind|up to date)",
            found,
        ), found
    assert "\r" not in log and "\x1b" not in log
    assert "scrapy.extensions.logstats" not in log and "pages/min" not in log


def test_no_alert_on_a_healthy_crawl(healthy) -> None:
    _, data, log = healthy
    found, written = _report(data)
    assert found["alerts"] == {}
    assert "Alert " not in log and "alerts/" not in log
    assert "Alerts         none" in written


class _Calendar:
    """An item listing whose pages link to ever more items: a trap no URL shape catches."""

    def __call__(self, path: str) -> Reply | None:
        match = re.fullmatch(r"/item\?id=(\d+)", path)
        if not match:
            return None
        n = int(match.group(1))
        return _page(f"Item {n}", _links(f"/item?id={n + 1}", f"/item?id={n + 2}"))


def test_alerts_for_errors_an_unreachable_robots_txt_and_a_growing_pattern(tmp_path: Path) -> None:
    # Error pages of as many URL patterns: only the items share one.
    failing = {"/": _page("Failing home", _links(*(f"/down-{c}.html" for c in "abcdefghijkl"), "/item?id=1"))}
    with ExitStack() as stack:
        sites = {
            "failing": stack.enter_context(serve_site(failing, default=_failing_or_item)),
            "closed": stack.enter_context(serve_site({"/robots.txt": text("busy", status=503), "/": _page("Never")})),
            "fine": stack.enter_context(serve_site(_second_site())),
        }
        done = crawl(
            [site.url("/") for site in sites.values()],
            tmp_path,
            "DOWNLOAD_DELAY=0.05",
            "RETRY_TIMES=0",
            "ROBOTS_RETRY_DELAY=0.2",
            "ROBOTS_RETRY_TIMES=1",
            "TRAPS_MAX_PAGES_PER_PATTERN=6",
            "MONITOR_INTERVAL=0.5",
        )
    assert done.returncode == 0, done.stderr[-3000:]
    log = done.stderr
    found, written = _report(tmp_path)
    _assert_counts_equal_the_logs(found, sites)
    failing_key, closed_key = _site_key(sites["failing"]), _site_key(sites["closed"])
    assert sites["closed"].paths() == ["/robots.txt", "/robots.txt"]  # tried twice, never past it
    assert set(found["alerts"]) == {"error_rate", "robots_unreachable", "trap_pattern"}
    [error_rate] = found["alerts"]["error_rate"]
    assert failing_key in error_rate and "e.g. HTTP 500 " in error_rate
    assert re.search(rf"WARNING: Alert error_rate: \d+ of the last \d+ answers from {failing_key} were errors", log)
    assert re.search(
        rf"WARNING: Alert robots_unreachable: robots.txt of {closed_key} could not be fetched "
        r"\(HTTP 503\)",
        log,
    )
    assert re.search(r"WARNING: Alert trap_pattern: 3 URLs of the pattern http://127\.0\.0\.1:\d+/item\?id=\* ", log)
    for kind in ("error_rate", "robots_unreachable", "trap_pattern"):
        assert log.count(f"Alert {kind}:") == 1, kind  # once per site or pattern
        assert f"'alerts/{kind}': 1" in log
    assert _site_key(sites["fine"]) not in error_rate
    assert found["traps"]["pattern_budget"] >= 1
    assert found["errors"]["HTTP 500"]["count"] == 12
    assert "error_rate: " in written and "robots_unreachable: " in written


def _failing_or_item(path: str) -> Reply | None:
    if re.fullmatch(r"/down-[a-z]\.html", path):
        return page("<title>Down</title>", status=500)
    return _Calendar()(path)


# --- the rules and renderings alone -----------------------------------------------------------


def test_an_error_rate_alert_once_past_the_threshold_and_once_only() -> None:
    rules = AlertRules(window=20, error_rate=0.2, min_samples=10)
    raised = []
    for n in range(60):  # one answer in five fails: at the threshold, not above it
        raised += rules.answered("http://a.test:80", error=n % 5 == 4, example=f"HTTP 500 http://a.test/{n}")
    assert raised == []
    rules = AlertRules(window=20, error_rate=0.3, min_samples=10)
    outcomes = [False] * 10 + [True] * 5
    raised = [alert for error in outcomes for alert in rules.answered("http://a.test:80", error)]
    assert [(a.kind, a.subject) for a in raised] == [("error_rate", "http://a.test:80")]
    assert raised[0].message.startswith("5 of the last 15 answers from http://a.test:80 were errors (33%")


def test_a_few_errors_among_few_answers_raise_nothing() -> None:
    rules = AlertRules(window=100, error_rate=0.2, min_samples=10)
    raised = [alert for _ in range(9) for alert in rules.answered("http://a.test:80", error=True)]
    assert raised == []


def test_a_dominant_site_alert_needs_it_sustained_while_sites_known_before_wait() -> None:
    rules = AlertRules(window=10, site_share=0.8)
    rules.answered("http://b.test:80", error=False)  # b is known from the start
    candidates = [rules.fetched("http://a.test:80") for _ in range(30)]
    assert [n for n, site in enumerate(candidates, 1) if site] == [30]  # three windows in a row
    assert rules.dominant("http://a.test:80", lambda: []) == []  # nothing else waits: no harm
    [alert] = rules.dominant("http://a.test:80", lambda: ["http://a.test:80", "http://b.test:80"])
    assert alert.message.startswith("http://a.test:80 took 30 of the last 30 page fetches (100%) while 1 other site")
    assert rules.dominant("http://a.test:80", lambda: ["http://b.test:80"]) == []  # once


def test_one_window_of_one_site_is_no_dominance() -> None:
    rules = AlertRules(window=10, site_share=0.8)
    rules.answered("http://b.test:80", error=False)
    sites = ["http://a.test:80"] * 10 + ["http://a.test:80", "http://b.test:80"] * 5 + ["http://a.test:80"] * 20
    assert {rules.fetched(site) for site in sites} == {None}
    assert rules.dominant("http://a.test:80", lambda: ["http://b.test:80"]) == []


def test_sites_found_during_the_windows_do_not_make_a_dominant_site() -> None:
    rules = AlertRules(window=10, site_share=0.8)
    for n in range(30):
        rules.fetched("http://a.test:80")
        if n == 5:
            rules.answered("http://c.test:80", error=False)  # found late, e.g. linked from a
    assert rules.dominant("http://a.test:80", lambda: ["http://c.test:80"]) == []


def test_pattern_and_robots_alerts_once_each() -> None:
    rules = AlertRules()
    assert len(rules.pattern_growing("http://a.test/cal/N/", 2500, 5000)) == 1
    assert rules.pattern_growing("http://a.test/cal/N/", 2500, 5000) == []
    [alert] = rules.robots_unreachable("http://a.test:80", "HTTP 503")
    assert alert.message.startswith("robots.txt of http://a.test:80 could not be fetched (HTTP 503): ")
    assert rules.robots_unreachable("http://a.test:80", "TimeoutError") == []


def test_the_progress_line() -> None:
    assert progress_line(1204, 38.46, 3410, 34, 2, 120, (28, 30), 10.02) == (
        "Crawled 1,204 pages (38.5/s), 3,410 queued, 28 of 30 sites with work served in 10 s, "
        "34 sites fetched, 2 errors, indexer 120 behind"
    )
    assert progress_line(0, 0.0, 0, 0, 0, 0, (0, 1), 0.5) == (
        "Crawled 0 pages (0.0/s), 0 queued, 0 of 1 site with work served in 0.5 s, 0 sites fetched, 0 errors, "
        "indexer up to date"
    )


def test_the_table_of_a_report() -> None:
    tally = Tally()
    tally.answered("http://a.test/robots.txt", "http://a.test:80", "robots_txt", 200, 30, now=1.0)
    for n in range(3):
        tally.answered(f"http://a.test/{n}", "http://a.test:80", "page", 200, 1000, now=1.0 + n)
    tally.answered("http://a.test/x", "http://a.test:80", "page", 404, 10, now=4.0)
    tally.failed(
        "http://long-site-name.test:8080/", "http://long-site-name.test:8080", "page", "ConnectionRefusedError", now=5.0
    )
    tally.refused("http://a.test:80", now=5.0)
    data = report(
        tally,
        {"traps/calendar": 4, "dupes/content": 2, "robots/denied": 1, "items/page": 3},
        node="n1",
        started="2026-01-01T00:00:00Z",
        finished="2026-01-01T00:00:10Z",
        seconds=10.0,
        reason="finished",
    )
    written = table(data)
    assert "Requests       6 = 5 pages + 1 robots.txt + 0 sitemaps + 0 soft-404 probes" in written
    assert "Status         2xx 4   3xx 0   4xx 1   5xx 0   network errors 1" in written
    rows = {line.split()[0]: line.split()[1:] for line in written.splitlines() if line.startswith("http://")}
    assert rows["http://a.test:80"][:4] == ["5", "4", "1", "0"]  # requests, pages, robots, other
    assert rows["http://a.test:80"][-2:] == ["3,040", "1.33"]  # bytes; 4 pages over 3 s
    assert rows["http://long-site-name.test:8080"][8] == "1"  # the network error
    assert "Traps          calendar 4" in written and "Duplicates     content 2" in written
    assert "ConnectionRefusedError" in written and "e.g. http://long-site-name.test:8080/" in written
    assert "HTTP 404" in written and "e.g. http://a.test/x" in written


def test_the_starved_sites_alert_once() -> None:
    rules = AlertRules(served_share=0.5)
    assert rules.turns(15, 30, 10.0) == [] and rules.turns(1, 1, 10.0) == []
    [alert] = rules.turns(4, 30, 10.0)
    assert alert.kind == "sites_starved"
    assert alert.message.startswith("only 4 of the 30 sites with requests queued were served in the last 10 s")
    assert rules.turns(3, 30, 10.0) == []  # once per crawl


def _slow_site(name: str, pages: int) -> dict:
    """A site whose pages take a while to answer (as a loaded server's would)."""

    def slow(path: str) -> Reply | None:
        time.sleep(0.3)  # the server's own slowness, not the test's
        return _page(f"{name} {path}") if path.startswith("/p") else None

    return {"/": _page(f"{name} home", _links(*(f"/p{n}.html" for n in range(pages)))), "slow": slow}


def test_sites_kept_waiting_raise_an_alert_within_one_interval(tmp_path: Path) -> None:
    # Six sites with work and one request at a time in all, each taking 0.3 s:
    # at most two sites can be served in a 0.5 s interval. Two pages a site
    # (with its robots.txt, probe and sitemap) keep all six waiting for seconds.
    with ExitStack() as stack:
        sites = []
        for n in range(6):
            routes = _slow_site(f"site{n}", 2)
            sites.append(stack.enter_context(serve_site({"/": routes["/"]}, default=routes["slow"])))
        done = crawl(
            [site.url("/") for site in sites],
            tmp_path,
            "DOWNLOAD_DELAY=0.05",
            "CONCURRENT_REQUESTS=1",
            "MONITOR_INTERVAL=0.5",
            "POLITENESS_SLOWDOWN=0",
        )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = re.findall(r"\[crawler\.monitor\] INFO: (Crawled .*)", done.stderr)
    starved = [
        line
        for line in lines
        if (m := re.search(r"(\d+) of (\d+) sites with work", line)) and int(m[2]) >= 4 and 2 * int(m[1]) < int(m[2])
    ]
    assert starved, lines
    alert = re.search(r"Alert sites_starved: only (\d+) of the (\d+) sites with requests queued", done.stderr)
    assert alert and 2 * int(alert[1]) < int(alert[2])
    # The alert comes with the first line that shows it (the same tick).
    first = done.stderr.index(starved[0])
    assert done.stderr.index("Alert sites_starved") - first < len(starved[0]) + 200
    found, _ = _report(tmp_path)
    assert "sites_starved" in found["alerts"]
