"""Hand-written facts for the docs site: the Kestrel standard library.

Kestrel is an invented Python-like language. Names in backticks inside the
prose (```json.dumps```) become links to that entry's page when rendered, so
the link graph follows what the text talks about.

Each entry is ``(name, kind, signature, summary, detail)``.
"""

from __future__ import annotations

LIBRARY = "Kestrel"
VERSION = "2.6"

MODULES: list[dict] = [
    {
        "name": "json",
        "title": "Encoding and decoding JSON",
        "intro": [
            "The json module converts between Kestrel objects and JSON text, the data "
            "interchange format used by most web APIs.",
            "Its encoder turns dicts, lists, strings, numbers, booleans and None into JSON; "
            "its decoder reads JSON text back into the same types.",
            "For quick work call `json.dumps` and `json.loads`; to control how unusual "
            "types are encoded, subclass `JSONEncoder`.",
            "The encoder writes compact JSON by default; pass indent for output people can read, and "
            "sort_keys for output that stays the same from run to run.",
        ],
        "related": ["http", "csv", "logging"],
        "entries": [
            (
                "json.dumps",
                "function",
                "json.dumps(obj, *, indent=None, sort_keys=False, cls=None)",
                "Serialize obj to a string holding a JSON document.",
                "Pass indent to pretty-print nested objects, and cls to use a custom encoder "
                "such as a subclass of `JSONEncoder`.",
            ),
            (
                "json.loads",
                "function",
                "json.loads(text, *, cls=None, object_hook=None)",
                "Decode a string containing a JSON document into Kestrel objects.",
                "JSON objects become dicts and arrays become lists; invalid input raises `JSONDecodeError`.",
            ),
            (
                "json.dump",
                "function",
                "json.dump(obj, fp, *, indent=None, sort_keys=False)",
                "Encode obj as JSON and write it to the file object fp.",
                "It accepts the same keyword arguments as `json.dumps` and writes text, so "
                "open the file in text mode with UTF-8 encoding.",
            ),
            (
                "json.load",
                "function",
                "json.load(fp, *, object_hook=None)",
                "Read a whole JSON document from the file object fp and decode it.",
                "It is a thin wrapper that reads the file and calls `json.loads` on the text.",
            ),
            (
                "JSONEncoder",
                "class",
                "class json.JSONEncoder(*, indent=None, sort_keys=False)",
                "The extensible JSON encoder behind `json.dumps` and `json.dump`.",
                "Subclass it and override the default() method to encode types that JSON "
                "lacks, such as dates from the datetime module or sets.",
            ),
            (
                "JSONDecoder",
                "class",
                "class json.JSONDecoder(*, object_hook=None)",
                "The JSON decoder behind `json.loads`, turning JSON text into dicts, lists and strings.",
                "An object_hook receives every decoded dict and may return any object in "
                "its place, which is how records become instances of your own classes.",
            ),
            (
                "JSONDecodeError",
                "exception",
                "exception json.JSONDecodeError(msg, doc, pos)",
                "Raised when the decoder meets text that is not valid JSON.",
                "The pos, lineno and colno attributes point at the first character the decoder could not understand.",
            ),
        ],
    },
    {
        "name": "path",
        "title": "Filesystem paths",
        "intro": [
            "The path module builds, splits and examines filesystem paths without "
            "caring which operating system the program runs on.",
            "Most programs only need `path.join` and `path.exists`; the `Path` class "
            "offers the same operations as methods on an object.",
        ],
        "related": ["gzip", "csv"],
        "entries": [
            (
                "path.join",
                "function",
                "path.join(*parts)",
                "Join path components with the separator of the current platform.",
                "An absolute component discards everything before it, so path.join('logs', '/tmp') returns '/tmp'.",
            ),
            (
                "path.split",
                "function",
                "path.split(p)",
                "Split a path into a pair of the directory and the final component.",
                "It is the inverse of `path.join` for two parts.",
            ),
            (
                "path.exists",
                "function",
                "path.exists(p)",
                "Return True when p names an existing file or directory.",
                "Broken symbolic links count as missing; checking before opening a file "
                "still leaves a race, so prefer catching the error from open().",
            ),
            (
                "path.expand_user",
                "function",
                "path.expand_user(p)",
                "Replace a leading tilde with the home directory of the current user.",
                "Paths that do not start with a tilde are returned unchanged.",
            ),
            (
                "path.glob",
                "function",
                "path.glob(pattern, *, recursive=False)",
                "Return the paths matching a shell-style wildcard pattern.",
                "With recursive set, two asterisks match any number of directories; the "
                "result is sorted so that programs behave the same on every run.",
            ),
            (
                "Path",
                "class",
                "class path.Path(*parts)",
                "An object-oriented path with methods for reading, writing and listing.",
                "Path objects can be joined with the slash operator and passed anywhere a "
                "string path is accepted, including `read_csv` and `gzip.open`.",
            ),
        ],
    },
    {
        "name": "http",
        "title": "HTTP clients and servers",
        "intro": [
            "The http module sends requests to web servers and answers them.",
            "`http.get` and `http.post` cover most client needs and return a `Response`, "
            "whose json() method decodes a JSON body with the json module.",
            "`HTTPServer` is a small threaded server meant for tests and tools, not for production traffic.",
        ],
        "related": ["json", "socket", "threading"],
        "entries": [
            (
                "http.get",
                "function",
                "http.get(url, *, headers=None, timeout=30)",
                "Send a GET request and return the `Response`.",
                "Redirects are followed up to ten times; a status of 400 or above does not "
                "raise unless you call raise_for_status() on the response.",
            ),
            (
                "http.post",
                "function",
                "http.post(url, *, data=None, json=None, timeout=30)",
                "Send a POST request with a form body or a JSON body.",
                "When the json argument is given the body is encoded with `json.dumps` and "
                "the content type is set to application/json.",
            ),
            (
                "Response",
                "class",
                "class http.Response",
                "The status, headers and body of an HTTP response.",
                "The text attribute decodes the body with the charset the server declared; "
                "json() parses it with `json.loads`.",
            ),
            (
                "HTTPServer",
                "class",
                "class http.HTTPServer(address, handler)",
                "A threaded HTTP server that calls handler for every request.",
                "Each connection runs on its own thread from the threading module, so "
                "handlers that share state must protect it with a `Lock`.",
            ),
            (
                "http.status_text",
                "function",
                "http.status_text(code)",
                "Return the standard reason phrase for a status code, such as Not Found for 404.",
                "Unknown codes give an empty string rather than an error.",
            ),
            (
                "HTTPError",
                "exception",
                "exception http.HTTPError(response)",
                "Raised by raise_for_status() when the server answered with an error status.",
                "The response attribute keeps the whole `Response` for reading headers and body.",
            ),
        ],
    },
    {
        "name": "csv",
        "title": "Reading and writing CSV files",
        "intro": [
            "The csv module reads and writes comma-separated values, the plain-text "
            "table format understood by every spreadsheet.",
            "`read_csv` loads a whole file into a list of rows; `DictReader` streams rows "
            "as dicts keyed by the header line, which are easy to hand to `json.dumps` "
            "when a table has to become JSON.",
        ],
        "related": ["json", "path", "sqlite"],
        "entries": [
            (
                "read_csv",
                "function",
                "csv.read_csv(path, *, delimiter=',', header=True)",
                "Read a CSV file and return its rows as a list of lists of strings.",
                "With header set, the first row is returned separately as the column names; "
                "use `DictReader` for files too large to hold in memory.",
            ),
            (
                "write_csv",
                "function",
                "csv.write_csv(path, rows, *, delimiter=',')",
                "Write an iterable of rows to a CSV file, quoting fields when needed.",
                "Fields that contain the delimiter, quotes or newlines are quoted so that "
                "`read_csv` gets the same rows back.",
            ),
            (
                "DictReader",
                "class",
                "class csv.DictReader(fp, *, fieldnames=None)",
                "Iterate over the rows of a CSV file as dicts.",
                "Keys come from the header line unless fieldnames is given; missing fields are filled with None.",
            ),
            (
                "DictWriter",
                "class",
                "class csv.DictWriter(fp, fieldnames)",
                "Write dicts as CSV rows in a fixed column order.",
                "Call writeheader() once before the first writerow() to emit the column names.",
            ),
            (
                "csv.sniff",
                "function",
                "csv.sniff(sample)",
                "Guess the delimiter and quoting style from a sample of a CSV file.",
                "Sniffing is a heuristic; pass the delimiter explicitly when you know it.",
            ),
            (
                "CSVError",
                "exception",
                "exception csv.CSVError",
                "Raised for malformed input such as an unterminated quoted field.",
                "The message includes the line number where reading stopped.",
            ),
        ],
    },
    {
        "name": "regex",
        "title": "Regular expressions",
        "intro": [
            "The regex module matches text against patterns written in the familiar regular expression syntax.",
            "Compile a pattern once with `regex.compile` when it is used in a loop; the "
            "module-level functions compile and cache patterns for you.",
        ],
        "related": ["csv", "logging"],
        "entries": [
            (
                "regex.compile",
                "function",
                "regex.compile(pattern, flags=0)",
                "Compile a pattern string into a `Pattern` object.",
                "Compiled patterns are immutable and safe to share between threads.",
            ),
            (
                "regex.search",
                "function",
                "regex.search(pattern, text, flags=0)",
                "Find the first place where pattern matches text and return a `MatchObject`.",
                "It returns None when there is no match anywhere in the string.",
            ),
            (
                "regex.match",
                "function",
                "regex.match(pattern, text, flags=0)",
                "Match pattern only at the beginning of text.",
                "Use `regex.search` to look for a match anywhere in the string.",
            ),
            (
                "regex.sub",
                "function",
                "regex.sub(pattern, replacement, text, count=0)",
                "Replace matches of pattern in text with replacement.",
                "The replacement may refer to groups as \\1 or be a function that receives each `MatchObject`.",
            ),
            (
                "regex.split",
                "function",
                "regex.split(pattern, text, maxsplit=0)",
                "Split text wherever pattern matches.",
                "Captured groups in the pattern are kept in the result list.",
            ),
            (
                "Pattern",
                "class",
                "class regex.Pattern",
                "A compiled regular expression with search, match, sub and split methods.",
                "Its pattern and flags attributes record how it was built.",
            ),
            (
                "MatchObject",
                "class",
                "class regex.MatchObject",
                "The result of a successful match: the groups and where they were found.",
                "group(0) is the whole match; start() and end() give its position in the text.",
            ),
        ],
    },
    {
        "name": "datetime",
        "title": "Dates and times",
        "intro": [
            "The datetime module represents dates, times and durations and does arithmetic on them.",
            "Always attach a `TimeZone` to timestamps that leave your program; "
            "`datetime.parse_iso` reads the ISO 8601 strings that JSON APIs usually carry.",
        ],
        "related": ["json", "logging", "sqlite"],
        "entries": [
            (
                "datetime.now",
                "function",
                "datetime.now(tz=None)",
                "Return the current date and time as a `DateTime`.",
                "Without tz the result is naive, meaning it carries no time zone; pass "
                "TimeZone.utc for a value that can be compared across machines.",
            ),
            (
                "datetime.parse_iso",
                "function",
                "datetime.parse_iso(text)",
                "Parse an ISO 8601 date or timestamp such as 2024-03-14T09:30:00+01:00.",
                "It is the inverse of the isoformat() method and accepts a trailing Z for UTC.",
            ),
            (
                "datetime.strftime",
                "function",
                "datetime.strftime(dt, fmt)",
                "Format a `DateTime` with strftime-style directives such as %Y-%m-%d.",
                "Month and weekday names follow the current locale.",
            ),
            (
                "DateTime",
                "class",
                "class datetime.DateTime(year, month, day, hour=0, minute=0, second=0, tz=None)",
                "A point in time with a date, a time of day and an optional time zone.",
                "Subtracting two DateTime values gives a `TimeDelta`; adding a TimeDelta gives a new DateTime.",
            ),
            (
                "TimeDelta",
                "class",
                "class datetime.TimeDelta(days=0, seconds=0)",
                "A duration, such as the difference between two `DateTime` values.",
                "total_seconds() converts it to a float for arithmetic.",
            ),
            (
                "TimeZone",
                "class",
                "class datetime.TimeZone(offset, name=None)",
                "A fixed offset from UTC, such as TimeZone.utc.",
                "Daylight saving rules are not modelled; use fixed offsets for stored data.",
            ),
        ],
    },
    {
        "name": "sqlite",
        "title": "Embedded SQL database",
        "intro": [
            "The sqlite module stores data in a single-file SQL database with no server to run.",
            "Open a `Connection` with `sqlite.connect`, run statements through a `Cursor`, "
            "and commit transactions; columns of JSON text can be queried with the "
            "database's own JSON functions.",
        ],
        "related": ["csv", "datetime", "threading"],
        "entries": [
            (
                "sqlite.connect",
                "function",
                "sqlite.connect(path, *, timeout=5.0)",
                "Open or create the database file at path and return a `Connection`.",
                "Pass ':memory:' for a database that lives only as long as the connection.",
            ),
            (
                "Connection",
                "class",
                "class sqlite.Connection",
                "An open database with methods to execute statements and commit transactions.",
                "Used as a context manager, a connection commits on success and rolls back when the block raises.",
            ),
            (
                "Cursor",
                "class",
                "class sqlite.Cursor",
                "Runs statements and walks through the rows they return.",
                "fetchone(), fetchmany() and fetchall() return rows as tuples.",
            ),
            (
                "sqlite.register_adapter",
                "function",
                "sqlite.register_adapter(type, adapter)",
                "Teach the module how to store values of a Kestrel type.",
                "Adapters are commonly used to store a `DateTime` as ISO text or a dict as JSON.",
            ),
            (
                "IntegrityError",
                "exception",
                "exception sqlite.IntegrityError",
                "Raised when a statement would break a constraint such as a unique key.",
                "The transaction stays open, so roll back or retry before continuing.",
            ),
        ],
    },
    {
        "name": "logging",
        "title": "Event logging",
        "intro": [
            "The logging module records what a program does, for the people who will have to understand it later.",
            "Get a `Logger` with `logging.get_logger`, attach handlers such as "
            "`StreamHandler`, and choose a format; `JsonFormatter` writes one JSON "
            "object per line for log collectors.",
        ],
        "related": ["threading", "json", "datetime"],
        "entries": [
            (
                "logging.get_logger",
                "function",
                "logging.get_logger(name=None)",
                "Return the `Logger` with the given dotted name, creating it on first use.",
                "Loggers form a tree by name, so a handler on 'app' also sees records from 'app.db'.",
            ),
            (
                "logging.basic_config",
                "function",
                "logging.basic_config(*, level='WARNING', fmt=None)",
                "Configure the root logger with a `StreamHandler` in one call.",
                "It does nothing if the root logger already has handlers.",
            ),
            (
                "Logger",
                "class",
                "class logging.Logger(name)",
                "Emits records at levels from debug to critical.",
                "Pass arguments separately, as in log.info('saved %s', name), so the "
                "message is only formatted when a handler will use it.",
            ),
            (
                "StreamHandler",
                "class",
                "class logging.StreamHandler(stream=None)",
                "Writes formatted records to a stream, standard error by default.",
                "It takes a `Lock` around each write so lines from different threads do not interleave.",
            ),
            (
                "FileHandler",
                "class",
                "class logging.FileHandler(filename, mode='a')",
                "Writes formatted records to a file.",
                "The file is opened lazily on the first record.",
            ),
            (
                "JsonFormatter",
                "class",
                "class logging.JsonFormatter(fields=None)",
                "Formats each record as a single line of JSON.",
                "It uses `json.dumps` internally; timestamps are written in ISO 8601 form.",
            ),
        ],
    },
    {
        "name": "threading",
        "title": "Threads and locks",
        "intro": [
            "The threading module runs functions concurrently in threads that share memory.",
            "Shared data needs a `Lock`; an `Event` lets one thread wait for another "
            "without polling, and `ThreadPool` runs many small tasks on a few threads.",
        ],
        "related": ["socket", "http", "logging"],
        "entries": [
            (
                "Thread",
                "class",
                "class threading.Thread(target, args=(), *, daemon=False)",
                "A thread of control that runs target when started.",
                "Call start() to run it and join() to wait for it; daemon threads do not keep the program alive.",
            ),
            (
                "Lock",
                "class",
                "class threading.Lock",
                "A mutual exclusion lock; only one thread may hold it at a time.",
                "Use it as a context manager so it is released even when the block raises.",
            ),
            (
                "Event",
                "class",
                "class threading.Event",
                "A flag that threads can wait on until another thread sets it.",
                "wait() accepts a timeout and returns whether the flag was set, which "
                "makes tests wait for real events instead of sleeping.",
            ),
            (
                "ThreadPool",
                "class",
                "class threading.ThreadPool(workers=4)",
                "Runs submitted functions on a fixed number of worker threads.",
                "submit() returns a future whose result() blocks until the task is done.",
            ),
            (
                "threading.current_thread",
                "function",
                "threading.current_thread()",
                "Return the `Thread` object for the caller.",
                "Its name is handy in log messages; see the logging module.",
            ),
        ],
    },
    {
        "name": "socket",
        "title": "Low-level networking",
        "intro": [
            "The socket module exposes the operating system's network sockets.",
            "Most programs should use the http module instead; reach for sockets when "
            "you implement a protocol yourself.",
        ],
        "related": ["http", "threading"],
        "entries": [
            (
                "socket.create_connection",
                "function",
                "socket.create_connection(address, timeout=None)",
                "Connect to a (host, port) address and return a connected `Socket`.",
                "Every address the name resolves to is tried in turn until one accepts.",
            ),
            (
                "socket.create_server",
                "function",
                "socket.create_server(address, *, backlog=128)",
                "Create a listening `Socket` bound to address.",
                "Binding to port 0 lets the operating system choose a free port, which tests use to avoid collisions.",
            ),
            (
                "socket.getaddrinfo",
                "function",
                "socket.getaddrinfo(host, port)",
                "Resolve a host name to a list of addresses.",
                "The order of the results is the order in which to try them.",
            ),
            (
                "Socket",
                "class",
                "class socket.Socket",
                "A network endpoint with send, recv, close and settimeout methods.",
                "Sockets are context managers and close themselves at the end of the block.",
            ),
            (
                "SocketTimeout",
                "exception",
                "exception socket.SocketTimeout",
                "Raised when a blocking operation exceeds the timeout set on the `Socket`.",
                "The connection may still be usable after a timeout while reading.",
            ),
        ],
    },
    {
        "name": "gzip",
        "title": "Compressed files",
        "intro": [
            "The gzip module reads and writes files in the gzip format.",
            "`gzip.open` works like the built-in open() but compresses on the fly, so "
            "a large JSON or CSV export can be written compressed without extra steps.",
        ],
        "related": ["path", "csv"],
        "entries": [
            (
                "gzip.open",
                "function",
                "gzip.open(path, mode='rb', *, level=9)",
                "Open a gzip-compressed file in binary or text mode.",
                "Lower compression levels are faster and produce larger files.",
            ),
            (
                "gzip.compress",
                "function",
                "gzip.compress(data, level=9)",
                "Compress bytes and return the gzip-format result.",
                "The output includes a header with a modification time of zero, so equal input gives equal output.",
            ),
            (
                "gzip.decompress",
                "function",
                "gzip.decompress(data)",
                "Decompress gzip-format bytes.",
                "Concatenated gzip members are decompressed one after another.",
            ),
            (
                "GzipFile",
                "class",
                "class gzip.GzipFile(fileobj, mode='rb')",
                "A file object that compresses or decompresses another file object.",
                "`gzip.open` returns one of these, wrapped for text mode when asked.",
            ),
        ],
    },
    {
        "name": "hashlib",
        "title": "Secure hashes and message digests",
        "intro": [
            "The hashlib module computes cryptographic digests such as SHA-256.",
            "Digests identify content: equal input gives an equal digest, and a tiny "
            "change gives a completely different one.",
        ],
        "related": ["gzip", "path"],
        "entries": [
            (
                "hashlib.sha256",
                "function",
                "hashlib.sha256(data=b'')",
                "Return a `Hash` object computing SHA-256.",
                "Feed more data with update() and read the result with hexdigest().",
            ),
            (
                "hashlib.md5",
                "function",
                "hashlib.md5(data=b'')",
                "Return a `Hash` object computing MD5.",
                "MD5 is broken for security but still fine as a fast fingerprint for "
                "deduplicating content you produced yourself.",
            ),
            (
                "hashlib.blake2b",
                "function",
                "hashlib.blake2b(data=b'', *, digest_size=64)",
                "Return a `Hash` object computing BLAKE2b with a chosen digest size.",
                "It is faster than SHA-256 on most machines and accepts a key for message authentication.",
            ),
            (
                "hashlib.file_digest",
                "function",
                "hashlib.file_digest(fp, name)",
                "Hash the contents of an open binary file without reading it all at once.",
                "name selects the algorithm, for example 'sha256'.",
            ),
            (
                "Hash",
                "class",
                "class hashlib.Hash",
                "The common interface of every hash object: update, digest and hexdigest.",
                "copy() returns an independent hash of the data seen so far.",
            ),
        ],
    },
]

TUTORIALS: list[dict] = [
    {
        "slug": "getting-started",
        "title": "Getting started with Kestrel",
        "summary": "Install Kestrel, run your first program and find your way around the standard library.",
        "steps": [
            (
                "Your first program",
                "Save a file called hello.ks and run it with the kestrel command.",
                "print('Hello from Kestrel')",
            ),
            (
                "Using a module",
                "Modules are imported by name; `path.join` builds a file name that works on every platform.",
                "import path\nprint(path.join('data', 'notes.txt'))",
            ),
            (
                "Where to go next",
                "The other tutorials each take one module further, starting with JSON, the format most programs end up reading.",
                "import json\nprint(json.dumps({'ok': True}))",
            ),
        ],
    },
    {
        "slug": "json-config",
        "title": "Reading a JSON configuration file",
        "summary": "Load settings from a JSON file, check them, and write them back with a custom encoder.",
        "steps": [
            (
                "Loading the file",
                "Open the file in text mode and decode it with `json.load`; errors in the file raise `JSONDecodeError` with a line number.",
                "import json\nwith open('config.json', encoding='utf-8') as fp:\n    config = json.load(fp)",
            ),
            (
                "Checking values",
                "Decoded JSON is made of plain dicts and lists, so ordinary comparisons are enough to validate it.",
                "if config.get('port', 0) <= 0:\n    raise ValueError('port must be positive')",
            ),
            (
                "Writing it back",
                "Dates are not JSON types; a small subclass of `JSONEncoder` writes them as ISO text, and `json.dump` uses it through the cls argument.",
                "class Encoder(json.JSONEncoder):\n    def default(self, value):\n        return value.isoformat()\njson.dump(config, fp, cls=Encoder, indent=2)",
            ),
        ],
    },
    {
        "slug": "web-client",
        "title": "Writing a small web client",
        "summary": "Fetch JSON from a web API with the http module and handle errors politely.",
        "steps": [
            (
                "Making a request",
                "`http.get` returns a `Response`; always pass a timeout so a slow server cannot hang your program.",
                "import http\nresponse = http.get('https://example.org/api/items', timeout=10)",
            ),
            (
                "Decoding the body",
                "The json() method of the response calls `json.loads` on the text of the body.",
                "items = response.json()\nprint(len(items), 'items')",
            ),
            (
                "Handling errors",
                "A 404 or 500 status does not raise by itself; raise_for_status() turns it into an `HTTPError`.",
                "try:\n    response.raise_for_status()\nexcept http.HTTPError as error:\n    print('failed:', error.response.status)",
            ),
        ],
    },
    {
        "slug": "csv-data",
        "title": "Working with CSV data",
        "summary": "Read a spreadsheet export, clean it up and save the result as CSV and as JSON.",
        "steps": [
            (
                "Reading rows",
                "`DictReader` gives one dict per row, keyed by the header line.",
                "import csv\nwith open('sales.csv', encoding='utf-8') as fp:\n    rows = list(csv.DictReader(fp))",
            ),
            (
                "Cleaning values",
                "CSV fields are always strings; convert numbers yourself and skip rows that fail.",
                "clean = [r for r in rows if r['amount'].strip()]",
            ),
            (
                "Saving the result",
                "`write_csv` writes rows back out, and `json.dumps` turns the same dicts into JSON for a web page.",
                "csv.write_csv('clean.csv', [[r['date'], r['amount']] for r in clean])",
            ),
        ],
    },
    {
        "slug": "sqlite-records",
        "title": "Storing records in SQLite",
        "summary": "Create a table, insert rows safely with parameters, and query them back.",
        "steps": [
            (
                "Opening the database",
                "`sqlite.connect` creates the file if it does not exist.",
                "import sqlite\ndb = sqlite.connect('notes.db')",
            ),
            (
                "Inserting safely",
                "Always pass values as parameters; never build SQL by pasting strings together. A duplicate key raises `IntegrityError`.",
                "with db:\n    db.execute('INSERT INTO notes VALUES (?, ?)', (1, 'first'))",
            ),
            (
                "Reading rows back",
                "A `Cursor` walks through the results one row at a time.",
                "for row in db.execute('SELECT * FROM notes'):\n    print(row)",
            ),
        ],
    },
    {
        "slug": "threads",
        "title": "Concurrency with threads",
        "summary": "Run work in parallel threads, protect shared data and wait for results without sleeping.",
        "steps": [
            (
                "Starting threads",
                "A `Thread` runs a function; join() waits for it to finish.",
                "import threading\nt = threading.Thread(target=work)\nt.start()\nt.join()",
            ),
            (
                "Sharing data",
                "Two threads updating the same counter need a `Lock`, or updates get lost.",
                "lock = threading.Lock()\nwith lock:\n    counter += 1",
            ),
            (
                "Waiting for events",
                "An `Event` lets a test wait for a server to be ready instead of sleeping for a guessed time; `ThreadPool` handles many small jobs.",
                "ready = threading.Event()\nready.wait(timeout=5)",
            ),
        ],
    },
    {
        "slug": "logging-howto",
        "title": "Logging best practices",
        "summary": "Set up logging once, log with lazy arguments and ship structured logs as JSON.",
        "steps": [
            (
                "One logger per module",
                "Call `logging.get_logger` with the module name at the top of each file.",
                "import logging\nlog = logging.get_logger(__name__)",
            ),
            (
                "Configure once",
                "`logging.basic_config` belongs in the program's entry point, never in a library.",
                "logging.basic_config(level='INFO')",
            ),
            (
                "Structured output",
                "`JsonFormatter` writes each record as a line of JSON that log collectors can index.",
                "handler = logging.StreamHandler()\nhandler.formatter = logging.JsonFormatter()",
            ),
        ],
    },
    {
        "slug": "dates",
        "title": "Parsing dates and times",
        "summary": "Read timestamps from text, convert between time zones and compute durations.",
        "steps": [
            (
                "Parsing",
                "`datetime.parse_iso` reads the timestamps found in JSON documents and log files.",
                "import datetime\nstart = datetime.parse_iso('2024-03-14T09:30:00Z')",
            ),
            (
                "Durations",
                "Subtracting one `DateTime` from another gives a `TimeDelta`.",
                "elapsed = datetime.now(datetime.TimeZone.utc) - start",
            ),
            (
                "Formatting",
                "`datetime.strftime` formats a date for people; keep ISO text for machines.",
                "print(datetime.strftime(start, '%d %B %Y'))",
            ),
        ],
    },
]

#: ``(slug, term, definition, entries that illustrate it)``
GLOSSARY: list[tuple[str, str, str, list[str]]] = [
    (
        "serialization",
        "serialization",
        "Turning an object into text or bytes so it can be stored or sent, and later turned back.",
        ["json.dumps", "json.loads", "JSONEncoder"],
    ),
    (
        "file-object",
        "file object",
        "An object with read() or write() methods, such as the result of open(); many functions accept one in place of a path.",
        ["json.load", "json.dump", "GzipFile"],
    ),
    (
        "iterable",
        "iterable",
        "Anything that can be looped over with for, such as a list, a dict or an open file.",
        ["DictReader", "write_csv"],
    ),
    (
        "context-manager",
        "context manager",
        "An object used with the with statement that sets something up and reliably tears it down.",
        ["Connection", "Lock", "Socket"],
    ),
    (
        "thread-safety",
        "thread safety",
        "The property of code that behaves correctly when several threads run it at the same time.",
        ["Lock", "StreamHandler", "regex.compile"],
    ),
    (
        "encoding",
        "text encoding",
        "The rule that maps characters to bytes; Kestrel uses UTF-8 unless told otherwise.",
        ["json.dump", "Response"],
    ),
    (
        "bytes",
        "byte string",
        "An immutable sequence of small integers, used for binary data and network traffic.",
        ["gzip.compress", "hashlib.sha256"],
    ),
    (
        "timestamp",
        "timestamp",
        "A value naming a point in time, best stored in UTC and written in ISO 8601 form.",
        ["datetime.parse_iso", "DateTime"],
    ),
    (
        "time-zone",
        "time zone",
        "An offset from UTC together with a name; naive timestamps carry none.",
        ["TimeZone", "datetime.now"],
    ),
    (
        "socket",
        "socket",
        "One end of a network connection, provided by the operating system.",
        ["Socket", "socket.create_connection"],
    ),
    (
        "handler",
        "log handler",
        "The part of the logging system that decides where records go.",
        ["StreamHandler", "FileHandler"],
    ),
    (
        "cursor",
        "cursor",
        "A position in the result of a database query, moved forward as rows are fetched.",
        ["Cursor", "Connection"],
    ),
    (
        "transaction",
        "transaction",
        "A group of database changes that succeed or fail together.",
        ["Connection", "IntegrityError"],
    ),
    (
        "pattern",
        "regular expression",
        "A small language for describing sets of strings, used to search and replace text.",
        ["regex.compile", "Pattern"],
    ),
    (
        "digest",
        "message digest",
        "A fixed-size value computed from data by a hash function; equal data gives an equal digest.",
        ["hashlib.sha256", "Hash"],
    ),
    (
        "compression-level",
        "compression level",
        "A number trading speed for size: higher levels take longer and give smaller output.",
        ["gzip.open", "gzip.compress"],
    ),
    (
        "keyword-argument",
        "keyword argument",
        "An argument passed by name, as in indent=2; names after a star in a signature must be passed this way.",
        ["json.dumps", "http.get"],
    ),
    (
        "callback",
        "callback",
        "A function handed to other code to be called later, such as an object_hook.",
        ["JSONDecoder", "regex.sub"],
    ),
    (
        "deadlock",
        "deadlock",
        "Two threads each waiting for a lock the other holds, so neither can continue.",
        ["Lock", "Thread"],
    ),
    (
        "daemon-thread",
        "daemon thread",
        "A thread that does not keep the program running once the main thread ends.",
        ["Thread", "ThreadPool"],
    ),
]

#: Reference text for parameters, keyed by parameter name.
PARAMETERS: dict[str, str] = {
    "obj": "the object to encode",
    "indent": "the number of spaces used to indent nested values, or None for compact output",
    "sort_keys": "whether dict keys are written in sorted order",
    "cls": "the encoder or decoder class to use instead of the default",
    "text": "the string to work on",
    "object_hook": "a function called with every decoded dict",
    "fp": "an open file object",
    "parts": "path components to join",
    "p": "a path as a string or a Path",
    "pattern": "the pattern to use",
    "recursive": "whether the pattern may cross directory boundaries",
    "url": "the address to request",
    "headers": "extra request headers as a dict",
    "timeout": "how many seconds to wait before giving up",
    "data": "the bytes to process, or the form fields to send",
    "json": "an object to send as a JSON body",
    "address": "a (host, port) pair",
    "handler": "the function or class that handles each request",
    "code": "an HTTP status code",
    "path": "the file to read or write",
    "delimiter": "the character between fields",
    "header": "whether the first row holds column names",
    "rows": "an iterable of rows, each a list of values",
    "fieldnames": "the column names in order",
    "sample": "the first few kilobytes of the file",
    "flags": "options such as IGNORECASE combined with |",
    "replacement": "the replacement string or function",
    "count": "the maximum number of replacements, 0 for all",
    "maxsplit": "the maximum number of splits, 0 for no limit",
    "tz": "the time zone of the result",
    "dt": "the DateTime to format",
    "fmt": "the format string",
    "type": "the Kestrel type to adapt",
    "adapter": "a function converting a value to a storable one",
    "name": "the name to use",
    "level": "the threshold or compression level",
    "stream": "where to write",
    "filename": "the log file",
    "mode": "the file mode, as for open()",
    "target": "the function to run",
    "args": "positional arguments for target",
    "daemon": "whether the thread may be abandoned at exit",
    "workers": "the number of worker threads",
    "backlog": "how many pending connections to queue",
    "host": "the host name to resolve",
    "port": "the port number or service name",
    "digest_size": "the length of the digest in bytes",
    "fileobj": "the underlying file object",
    "fields": "which record attributes to include",
    "response": "the failed response",
    "offset": "the difference from UTC",
}
