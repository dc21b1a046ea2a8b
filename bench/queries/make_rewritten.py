"""``python -m bench.queries.make_rewritten``: known-item queries typed as people type them.

    python -m bench.queries.make_rewritten [--sites django,git]

The ``titles`` and ``headings`` sets ask a page by its exact words; people
do not. From those sets (:mod:`bench.queries.make_auto`, already written)
this writes ``auto/<site>.rewritten.jsonl``: at most ``SAMPLE`` of their
queries, each rewritten by two of these, chosen with a fixed seed among
those that change it:

- ``abbreviation``: a long word as people shorten it (configuration → config,
  documentation → docs, directory → dir, repository → repo...);
- ``section word``: a section's word added (the page's directory, ``topics``,
  ``library``, or a word of the page's title in front of a heading) or a
  generic one dropped (reference, guide, introduction, the...);
- ``word order``: the last word put first, or two neighbours swapped;
- ``word left out``: a small word, or another one of a long query (never
  a number: it tells release notes 2.2.22 from 2.2.23);
- ``number``: one word made plural or singular;
- ``question``: "how to write ..." for "Writing ...", "what is ..." for a name.

The right answer stays the page (and section) of the original query, whose
text is kept in the note with the rewrites made. A rewrite that gives the
original text back (or an empty one) is not kept: no query is a copied
title. Chinese sets (``titles-zh``...; the Chinese-only sites' own) get the
rewrites that make sense without spaces between words: words reordered, one
left out, ``的`` dropped; they are written as ``rewritten-zh`` (or
``rewritten`` on a Chinese-only site). A manual of many languages gets its
English edition's.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.docsites import DocSite
from bench.queries import HERE, Query, QueryFileError, dump, load
from bench.queries.make_auto import installed_sites

__all__ = ["SAMPLE", "abbreviate", "singular_or_plural", "as_question", "rewrite", "rewritten", "main"]

SAMPLE = 150  # queries a set at most
REWRITES = 2  # rewrites a query

ABBREVIATIONS = {
    "administration": "admin",
    "application": "app",
    "applications": "apps",
    "argument": "arg",
    "arguments": "args",
    "asynchronous": "async",
    "attribute": "attr",
    "attributes": "attrs",
    "authentication": "auth",
    "certificate": "cert",
    "certificates": "certs",
    "configuration": "config",
    "configurations": "configs",
    "configuring": "config",
    "database": "db",
    "databases": "dbs",
    "development": "dev",
    "directories": "dirs",
    "directory": "dir",
    "documentation": "docs",
    "environment": "env",
    "environments": "envs",
    "expression": "expr",
    "expressions": "exprs",
    "function": "func",
    "functions": "funcs",
    "implementation": "impl",
    "information": "info",
    "internationalization": "i18n",
    "introduction": "intro",
    "libraries": "libs",
    "library": "lib",
    "localization": "l10n",
    "management": "mgmt",
    "maximum": "max",
    "message": "msg",
    "messages": "msgs",
    "minimum": "min",
    "package": "pkg",
    "packages": "pkgs",
    "parameter": "param",
    "parameters": "params",
    "performance": "perf",
    "reference": "ref",
    "repositories": "repos",
    "repository": "repo",
    "specification": "spec",
    "statistics": "stats",
    "synchronization": "sync",
    "temporary": "temp",
    "utilities": "utils",
    "utility": "util",
    "variable": "var",
    "variables": "vars",
}
# Words that name a kind of page rather than its subject: people leave them out.
GENERIC = frozenset({"the", "a", "an", "reference", "guide", "overview", "introduction", "tutorial", "manual", "howto"})
SMALL = frozenset({"the", "a", "an", "of", "to", "for", "and", "in", "with", "on", "your", "by", "from", "at", "or"})
# Gerunds that open titles ("Writing your first app"), and the verb a question uses.
GERUNDS = {
    "writing": "write",
    "using": "use",
    "installing": "install",
    "creating": "create",
    "logging": "log",
    "booting": "boot",
    "extending": "extend",
    "deploying": "deploy",
    "getting": "get",
    "testing": "test",
    "porting": "port",
    "preparing": "prepare",
    "managing": "manage",
    "contributing": "contribute",
    "working": "work",
    "distributing": "distribute",
    "building": "build",
    "defining": "define",
    "authenticating": "authenticate",
    "providing": "provide",
    "integrating": "integrate",
    "overriding": "override",
    "upgrading": "upgrade",
    "reporting": "report",
    "committing": "commit",
    "localizing": "localize",
    "submitting": "submit",
    "editing": "edit",
    "customizing": "customize",
    "making": "make",
    "performing": "perform",
    "sending": "send",
    "handling": "handle",
    "serializing": "serialize",
    "configuring": "configure",
    "running": "run",
    "setting": "set",
    "adding": "add",
    "changing": "change",
    "removing": "remove",
    "choosing": "choose",
    "reading": "read",
    "checking": "check",
    "migrating": "migrate",
}
_WORD = re.compile(r"\S+")

Rewrite = Callable[[list[str], Query, random.Random], list[str] | None]


# --- English rewrites (each: the words, or None when it cannot apply) -----------------


def abbreviate(words: Sequence[str]) -> list[str] | None:
    """The first long word people shorten, shortened.

    >>> abbreviate(["Database", "configuration"])
    ['db', 'configuration']
    >>> abbreviate(["Models"]) is None
    True
    """
    for i, word in enumerate(words):
        short = ABBREVIATIONS.get(word.casefold().strip(".,:?"))
        if short is not None:
            return [*words[:i], short, *words[i + 1 :]]
    return None


def singular_or_plural(words: Sequence[str], rng: random.Random) -> list[str] | None:
    """One word (letters only, four or more) made singular or plural.

    >>> singular_or_plural(["Writing", "views"], random.Random(1))
    ['Writing', 'view']
    >>> singular_or_plural(["Model", "property"], random.Random(0))
    ['Model', 'properties']
    """
    candidates = [
        i
        for i, word in enumerate(words)
        if word.isalpha() and len(word) >= 4 and not word.isupper() and not word.endswith("ing")
    ]
    if not candidates:
        return None
    i = rng.choice(candidates)
    word = words[i]
    if word.endswith("ies"):
        changed = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss"):
        changed = word[:-1]
    elif word.endswith("y") and word[-2:-1] not in ("a", "e", "o", "u"):
        changed = word[:-1] + "ies"
    else:
        changed = word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")
    return [*words[:i], changed, *words[i + 1 :]]


def as_question(words: Sequence[str]) -> list[str] | None:
    """The query as a question: "how to" and the verb for an opening gerund,
    "what is" for a short name.

    >>> as_question(["Writing", "your", "first", "app"])
    ['how', 'to', 'write', 'your', 'first', 'app']
    >>> as_question(["Signals"]), as_question(["Model", "field", "reference", "for", "you"])
    (['what', 'is', 'Signals'], None)
    """
    verb = GERUNDS.get(words[0].casefold()) if words else None
    if verb is not None:
        return ["how", "to", verb, *words[1:]]
    if 1 <= len(words) <= 3 and words[0].casefold() not in ("how", "what", "why", "when"):
        return ["what", "is", *words]
    return None


def _section_word(words: list[str], query: Query, rng: random.Random) -> list[str] | None:
    """A generic word dropped, else the page's directory (or file name) added."""
    kept = [word for word in words if word.casefold() not in GENERIC]
    if kept and len(kept) < len(words):
        return kept
    path = query.url.removeprefix("{site}/")
    parts = [part for part in re.split(r"[/_.-]+", path.rsplit(".", 1)[0]) if part.isalpha() and len(part) > 2]
    added = [part for part in parts if part.casefold() not in {word.casefold() for word in words}]
    if not added:
        return None
    word = added[0] if "/" in path else added[-1]
    return [word, *words] if rng.random() < 0.5 else [*words, word]


def _signature(query: Query) -> bool:
    """A call's signature (``fs.read(fd[, options])``): its words are not reordered or left out."""
    return any(sign in query.query for sign in "([{=")


def _reorder(words: list[str], query: Query, rng: random.Random) -> list[str] | None:
    if len(words) < 2 or _signature(query):
        return None
    if rng.random() < 0.5:
        return [words[-1], *words[:-1]]
    i = rng.randrange(len(words) - 1)
    return [*words[:i], words[i + 1], words[i], *words[i + 2 :]]


def _leave_out(words: list[str], query: Query, rng: random.Random) -> list[str] | None:
    if _signature(query):
        return None
    small = [i for i, word in enumerate(words) if word.casefold() in SMALL]
    # A number tells one page from its siblings (release notes 2.2.22, 2.2.23): it stays.
    others = [i for i, word in enumerate(words) if i and not any(c.isdigit() for c in word)]
    if small and len(words) > 1:
        i = rng.choice(small)
    elif len(words) >= 4 and others:
        i = rng.choice(others)
    else:
        return None
    return [*words[:i], *words[i + 1 :]]


ENGLISH: dict[str, Rewrite] = {
    "abbreviation": lambda words, _, __: abbreviate(words),
    "section word": _section_word,
    "word order": _reorder,
    "word left out": _leave_out,
    "number": lambda words, _, rng: singular_or_plural(words, rng),
    "question": lambda words, _, __: as_question(words),
}


# --- Chinese rewrites --------------------------------------------------------------------


def _without_de(words: list[str], _: Query, __: random.Random) -> list[str] | None:
    if not any("的" in word for word in words):
        return None
    return [stripped for word in words if (stripped := word.replace("的", ""))]


CHINESE: dict[str, Rewrite] = {
    "word order": _reorder,
    "word left out": lambda words, q, rng: _leave_out(words, q, rng) if len(words) >= 3 else None,
    "的 dropped": _without_de,
}


def rewrite(query: Query, rng: random.Random, rewrites: dict[str, Rewrite], count: int = REWRITES) -> Query | None:
    """``query`` rewritten by up to ``count`` of ``rewrites`` (tried in a
    random order; those that change nothing skipped); None when none applied
    or the text came back the same."""
    words = _WORD.findall(query.query)
    names = sorted(rewrites)
    rng.shuffle(names)
    names.sort(key=lambda name: name == "question")  # a question is made last, of the rewritten words
    done: list[str] = []
    for name in names:
        if len(done) == count:
            break
        changed = rewrites[name](words, query, rng)
        if changed and changed != words:
            words, done = changed, [*done, name]
    text = " ".join(words)
    if not done or len(text) < 2 or text.casefold() == query.query.casefold():
        return None
    return Query(text, query.urls, query.fragment, f"{', '.join(done)} of {query.query!r}")


def rewritten(queries: Sequence[Query], seed: str, chinese: bool, limit: int = SAMPLE) -> list[Query]:
    """At most ``limit`` of ``queries`` (sampled with ``seed``), rewritten."""
    rng = random.Random(seed)
    chosen = sorted(rng.sample(list(queries), min(limit, len(queries))), key=lambda q: (q.urls, q.fragment, q.query))
    made = (rewrite(query, rng, CHINESE if chinese else ENGLISH) for query in chosen)
    return [query for query in made if query is not None]


def _sources(site: DocSite, directory: Path) -> list[tuple[str, list[Path], bool]]:
    """The sets to write (``rewritten``, ``rewritten-zh``), the sets each is
    made from, and whether they are Chinese."""
    found = []
    for edition in site.editions:
        english, chinese = edition.lang == "en", edition.lang.startswith("zh")
        if not (english or (chinese and len(site.editions) <= 2)):
            continue
        files = [directory / "auto" / f"{site.name}.{kind}{edition.suffix}.jsonl" for kind in ("titles", "headings")]
        found.append((f"rewritten{edition.suffix}", [path for path in files if path.is_file()], chinese))
    return found


def write(site: DocSite, directory: Path = HERE) -> dict[str, int]:
    counts = {}
    for kind, files, chinese in _sources(site, directory):
        queries = [query for path in files for query in load(path)]
        made = rewritten(queries, f"{site.name}:{kind}", chinese)
        dump(made, directory / "auto" / f"{site.name}.{kind}.jsonl")
        counts[kind] = len(made)
    return counts


def main(argv: list[str] | None = None) -> int:
    try:
        for site in installed_sites("bench.queries.make_rewritten", __doc__, argv):
            counts = write(site)
            print(f"{site.name}: " + ", ".join(f"{kind} {count}" for kind, count in counts.items()))
    except QueryFileError as exc:
        print(f"make_rewritten: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
