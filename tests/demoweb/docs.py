"""The docs site: reference documentation for the invented Kestrel library.

It is the site where code-like names matter (``json.dumps``, ``JSONEncoder``,
``read_csv``) and where one page, the json module, must win the query
``json encoder`` on merit: it is about encoding, many pages link to it, and
other modules only mention JSON in passing. Links are written relative to
each page, the way Sphinx writes them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from . import paths
from .docs_data import GLOSSARY, LIBRARY, MODULES, PARAMETERS, TUTORIALS, VERSION
from .markup import Layout, esc, link, not_found_page
from .site import Site, robots_txt

_DISALLOWED = ("/_sources/",)
_NAV = (
    ("Home", "/"),
    ("Library", "/library/"),
    ("Tutorials", "/tutorial/"),
    ("Glossary", "/glossary/"),
    ("Index", "/genindex.html"),
    ("What's new", f"/whatsnew/{VERSION}.html"),
)
_FOOTER = (
    f"<p>&copy; 2024 The {LIBRARY} Developers. Documentation licensed under CC BY 4.0. "
    '<a href="mailto:docs@kestrel.invalid">Report a problem</a> · <a href="#top">Back to top</a></p>'
)
_NOTES = [
    "{name} is part of the {module} module and has been available since {lib} 2.{since}.",
    "Like the rest of the {module} module, {name} raises TypeError when an argument has the wrong type.",
    "This page was last revised for {lib} {version}.",
    "Examples on this page assume the module was imported with <code>import {module}</code>.",
    "Questions about {name} are welcome on the mailing list; please include a short example.",
]
_KIND_NOTES = {
    "class": "Printing an instance of {name} shows its most important attributes, which helps when debugging.",
    "exception": "{name} derives from Exception, so a broad except Exception clause also catches it, which is rarely what you want.",
    "function": "{name} is a plain function: it keeps no state between calls.",
}
_WHATSNEW = [
    "`json.dumps` and `JSONEncoder` are about twice as fast for large lists of dicts.",
    "`read_csv` accepts a `Path` as well as a string.",
    "`datetime.parse_iso` now accepts a trailing Z for UTC.",
    "`JsonFormatter` is new: it writes log records as JSON lines.",
    "`hashlib.file_digest` hashes large files without reading them into memory.",
    "`ThreadPool` gained a workers argument and a context manager interface.",
    "`socket.create_server` binds to port 0 and reports the chosen port.",
    "`http.post` takes a json argument that encodes the body for you.",
]
_FAQ = [
    (
        "How do I turn a dict into JSON?",
        "Call `json.dumps`; for a file, use `json.dump`. The JSON encoding tutorial shows the details.",
    ),
    (
        "Why does my CSV file come back as strings?",
        "CSV has no types. Convert values after `read_csv` or `DictReader` returns them.",
    ),
    ("How do I wait for a thread without sleeping?", "Have it set an `Event` and call wait() with a timeout."),
    ("How do I store dates in SQLite?", "Register an adapter with `sqlite.register_adapter` that writes ISO text."),
    (
        "Which hash should I use?",
        "`hashlib.sha256` for security, `hashlib.md5` or `hashlib.blake2b` for fast fingerprints.",
    ),
    ("How do I fetch a web page?", "Use `http.get` and read the text attribute of the `Response`."),
]


def _short(module: str, name: str) -> str:
    return name[len(module) + 1 :] if name.startswith(module + ".") else name


class _Docs:
    """Builds every page; holds the name -> path table that inline links use."""

    def __init__(self, bases: dict[str, str]) -> None:
        self.bases = bases
        self.rng = random.Random("kestrel-docs")
        self.layout = Layout(
            site_title=f"{LIBRARY} {VERSION} documentation",
            tagline=f"The {LIBRARY} standard library reference, tutorials and glossary",
            lang="en",
            nav=_NAV,
            footer=_FOOTER,
            relative_links=True,
        )
        self.entry_path: dict[str, str] = {}
        self.entry_module: dict[str, dict] = {}
        for module in MODULES:
            for entry in module["entries"]:
                self.entry_path[entry[0]] = f"/library/{module['name']}/{_short(module['name'], entry[0])}.html"
                self.entry_module[entry[0]] = module
        self.pages: dict[str, bytes] = {}

    def href(self, page: str, target: str) -> str:
        return self.layout.href(page, target)

    def inline(self, page: str, text: str) -> str:
        """Escape ``text`` and turn each ```name``` into a code link."""

        def code(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in self.entry_path:
                return f'<a href="{esc(self.href(page, self.entry_path[name]))}"><code>{esc(name)}</code></a>'
            return f"<code>{esc(name)}</code>"

        return re.sub(r"`([^`]+)`", code, esc(text))

    def add(self, path: str, title: str, description: str, body: list[str]) -> None:
        self.pages[path] = self.layout.render(path, title, description, "\n".join(body))

    def build(self) -> dict[str, bytes]:
        self.home()
        self.library_index()
        for module in MODULES:
            self.module_page(module)
            for entry in module["entries"]:
                self.entry_page(module, entry)
        self.tutorials()
        self.glossary()
        self.genindex()
        self.whatsnew()
        self.simple_pages()
        return self.pages

    def mentions(self, names: set[str]) -> list[dict]:
        """Tutorials whose text refers to any of ``names``."""
        found = []
        for tutorial in TUTORIALS:
            text = " ".join(step[1] for step in tutorial["steps"])
            if any(f"`{name}`" in text for name in names):
                found.append(tutorial)
        return found

    def home(self) -> None:
        p = "/"
        popular = ["json", "http", "csv", "path"]
        body = [
            f"<h1>{LIBRARY} {VERSION} documentation</h1>",
            f"<p>Welcome to the documentation of <strong>{LIBRARY}</strong>, a small, friendly "
            "programming language with a batteries-included standard library. These pages describe "
            f"every public module of {LIBRARY} {VERSION}, with tutorials for the common tasks.</p>",
            "<h2>Where to start</h2>",
            "<ul>",
            f"<li>{link(self.href(p, '/tutorial/getting-started.html'), 'Getting started')}: install and run your first program.</li>",
            f"<li>{link(self.href(p, '/library/'), 'The library reference')}: one page per module and per function.</li>",
            f"<li>{link(self.href(p, '/glossary/'), 'The glossary')}: the words the documentation uses.</li>",
            f"<li>{link(self.href(p, '/faq.html'), 'Frequently asked questions')}.</li>",
            "</ul>",
            "<h2>Popular modules</h2>",
            "<ul>",
        ]
        for name in popular:
            module = next(m for m in MODULES if m["name"] == name)
            body.append(f"<li>{link(self.href(p, f'/library/{name}.html'), name)}: {esc(module['title'])}</li>")
        body += [
            "</ul>",
            "<h2>News and community</h2>",
            f"<p>The release of {LIBRARY} {VERSION} was covered by "
            f"{link(self.bases['news'] + paths.NEWS_KESTREL_RELEASE, 'the Harbor Gazette')}, and the "
            f"{link(self.bases['wiki'] + paths.WIKI_COMPUTER_CLUB, 'Merrow Point computer club')} runs "
            "a beginners' evening every month. Read the "
            f"{link(self.href(p, '/about.html'), 'about page')} for how these pages are made.</p>",
        ]
        self.add(p, f"{LIBRARY} {VERSION} documentation", f"Reference and tutorials for {LIBRARY} {VERSION}.", body)

    def library_index(self) -> None:
        p = "/library/"
        body = [
            "<h1>The standard library</h1>",
            f"<p>{LIBRARY} ships with {len(MODULES)} modules. Each has a page describing what it is "
            "for, and every function, class and exception has a page of its own.</p>",
            "<h2>Module index</h2>",
            "<dl>",
        ]
        for module in MODULES:
            target = self.href(p, f"/library/{module['name']}.html")
            body.append(f"<dt>{link(target, module['name'])}</dt><dd>{esc(module['title'])}</dd>")
        body.append("</dl>")
        self.add(
            p, "The standard library", f"Index of the {len(MODULES)} modules of the {LIBRARY} standard library.", body
        )

    def module_page(self, module: dict) -> None:
        name = module["name"]
        p = f"/library/{name}.html"
        kinds = {"function": [], "class": [], "exception": []}
        for entry in module["entries"]:
            kinds[entry[1]].append(entry)
        counts = _enumerate(f"{len(v)} {_plural(k, len(v))}" for k, v in kinds.items() if v)
        body = [
            f'<p class="breadcrumbs">{link(self.href(p, "/library/"), "Library")} » {esc(name)}</p>',
            f"<h1><code>{esc(name)}</code> — {esc(module['title'])}</h1>",
        ]
        body += [f"<p>{self.inline(p, s)}</p>" for s in module["intro"]]
        body.append(
            f"<p>This page documents the <strong>{esc(name)}</strong> module of {LIBRARY} {VERSION}. It provides {counts}.</p>"
        )
        for kind, items in kinds.items():
            if not items:
                continue
            heading = _plural(kind, 2)
            body += [f'<h2 id="{heading}">{heading.capitalize()}</h2>', "<dl>"]
            for entry in items:
                target = self.href(p, self.entry_path[entry[0]])
                body.append(
                    f'<dt><a href="{esc(target)}"><code>{esc(entry[0])}</code></a></dt><dd>{self.inline(p, entry[3])}</dd>'
                )
            body.append("</dl>")
        body += ["<h2>Related modules</h2>", "<ul>"]
        for other in module["related"]:
            title = next(m["title"] for m in MODULES if m["name"] == other)
            body.append(f"<li>{link(self.href(p, f'/library/{other}.html'), other)}: {esc(title)}</li>")
        body.append("</ul>")
        tutorials = self.mentions({e[0] for e in module["entries"]})
        if tutorials:
            body += ["<h2>Tutorials</h2>", "<ul>"]
            body += [
                f"<li>{link(self.href(p, '/tutorial/' + t['slug'] + '.html'), t['title'])}</li>" for t in tutorials
            ]
            body.append("</ul>")
        if name == "json":
            body.append(
                f"<p>In the news: {link(self.bases['news'] + paths.NEWS_KESTREL_RELEASE, 'a faster JSON encoder in Kestrel 2.6')}.</p>"
            )
        self.add(p, f"{name} — {module['title']}", module["intro"][0].replace("`", ""), body)

    def entry_page(self, module: dict, entry: tuple[str, str, str, str, str]) -> None:
        name, kind, signature, summary, detail = entry
        mod = module["name"]
        p = self.entry_path[name]
        rng = self.rng
        body = [
            f'<p class="breadcrumbs">{link(self.href(p, "/library/"), "Library")} » '
            f"{link(self.href(p, f'/library/{mod}.html'), mod)} » {esc(name)}</p>",
            f"<h1><code>{esc(name)}</code></h1>",
            f'<pre class="signature"><code>{esc(signature)}</code></pre>',
            f"<p><strong>{self.inline(p, summary)}</strong></p>",
            f"<p>{self.inline(p, detail)}</p>",
        ]
        params = _parameters(signature)
        if params:
            body += ["<h2>Parameters</h2>", "<ul>"]
            body += [
                f"<li><code>{esc(param)}</code>: {esc(PARAMETERS.get(param, 'see the description above'))}.</li>"
                for param in params
            ]
            body.append("</ul>")
        body += ["<h2>Example</h2>", f"<pre><code>{esc(_example(mod, name, kind, signature))}</code></pre>"]
        notes = [_KIND_NOTES[kind]] + rng.sample(_NOTES, 2)
        values = {
            "name": f"<code>{esc(name)}</code>",
            "module": esc(mod),
            "lib": LIBRARY,
            "version": VERSION,
            "since": str(rng.randrange(0, 7)),
        }
        body += ["<h2>Notes</h2>"] + [f"<p>{note.format(**values)}</p>" for note in notes]
        siblings = [e[0] for e in module["entries"] if e[0] != name]
        see_also = rng.sample(siblings, min(3, len(siblings)))
        body += ["<h2>See also</h2>", "<ul>"]
        body += [
            f'<li><a href="{esc(self.href(p, self.entry_path[s]))}"><code>{esc(s)}</code></a></li>' for s in see_also
        ]
        body.append(f"<li>{link(self.href(p, f'/library/{mod}.html'), f'The {mod} module')}</li>")
        for tutorial in self.mentions({name}):
            body.append(
                f"<li>Tutorial: {link(self.href(p, '/tutorial/' + tutorial['slug'] + '.html'), tutorial['title'])}</li>"
            )
        for slug, term, _definition, names in GLOSSARY:
            if name in names:
                body.append(f"<li>Glossary: {link(self.href(p, f'/glossary/{slug}.html'), term)}</li>")
        body.append("</ul>")
        self.add(p, name, f"{name}: {summary}", body)

    def tutorials(self) -> None:
        p = "/tutorial/"
        body = [
            "<h1>Tutorials</h1>",
            f"<p>Step-by-step guides to common tasks in {LIBRARY}. Each one takes about fifteen minutes.</p>",
            "<h2>All tutorials</h2>",
            "<ol>",
        ]
        for t in TUTORIALS:
            body.append(
                f"<li>{link(self.href(p, '/tutorial/' + t['slug'] + '.html'), t['title'])}: {esc(t['summary'])}</li>"
            )
        body.append("</ol>")
        self.add(p, "Tutorials", f"Step-by-step {LIBRARY} tutorials.", body)
        for i, t in enumerate(TUTORIALS):
            tp = f"/tutorial/{t['slug']}.html"
            body = [f"<h1>{esc(t['title'])}</h1>", f"<p><em>{esc(t['summary'])}</em></p>"]
            for number, (heading, text, code) in enumerate(t["steps"], 1):
                body += [
                    f"<h2>Step {number}: {esc(heading)}</h2>",
                    f"<p>{self.inline(tp, text)}</p>",
                    f"<pre><code>{esc(code)}</code></pre>",
                ]
            body.append("<h2>Next steps</h2>")
            following = TUTORIALS[(i + 1) % len(TUTORIALS)]
            body.append(
                f"<p>Continue with {link(self.href(tp, '/tutorial/' + following['slug'] + '.html'), following['title'])}, "
                f"or browse {link(self.href(tp, '/library/'), 'the library reference')}.</p>"
            )
            if t["slug"] == "json-config":
                body.append(
                    f"<p>Everything used here is described in {link(self.href(tp, paths.DOCS_JSON), 'the json module reference')}.</p>"
                )
            self.add(tp, t["title"], t["summary"], body)

    def glossary(self) -> None:
        p = "/glossary/"
        body = [
            "<h1>Glossary</h1>",
            "<p>Terms used throughout this documentation, with links to where they matter.</p>",
            "<h2>Terms</h2>",
            "<dl>",
        ]
        for slug, term, definition, _names in GLOSSARY:
            body.append(f"<dt>{link(self.href(p, f'/glossary/{slug}.html'), term)}</dt><dd>{esc(definition)}</dd>")
        body.append("</dl>")
        self.add(p, "Glossary", f"Glossary of {LIBRARY} terms.", body)
        for slug, term, definition, names in GLOSSARY:
            gp = f"/glossary/{slug}.html"
            uses = ", ".join(f"`{n}`" for n in names)
            others = self.rng.sample([g for g in GLOSSARY if g[0] != slug], 2)
            body = [
                f"<h1>{esc(term[0].upper() + term[1:])}</h1>",
                f"<p><strong>{esc(term)}</strong>: {esc(definition)}</p>",
                "<h2>Where you meet it</h2>",
                f"<p>In the standard library, {esc(term)} matters for {self.inline(gp, uses)}.</p>",
                "<h2>Related terms</h2>",
                "<ul>"
                + "".join(f"<li>{link(self.href(gp, f'/glossary/{o[0]}.html'), o[1])}</li>" for o in others)
                + "</ul>",
            ]
            self.add(gp, term, definition, body)

    def genindex(self) -> None:
        p = "/genindex.html"
        names = sorted(self.entry_path, key=str.lower)
        body = ["<h1>General index</h1>", f"<p>All {len(names)} documented names, in alphabetical order.</p>"]
        letter = ""
        for name in names:
            if name[0].upper() != letter:
                if letter:
                    body.append("</ul>")
                letter = name[0].upper()
                body += [f"<h2>{letter}</h2>", "<ul>"]
            module = self.entry_module[name]["name"]
            body.append(
                f'<li><a href="{esc(self.href(p, self.entry_path[name]))}"><code>{esc(name)}</code></a> ({esc(module)})</li>'
            )
        body.append("</ul>")
        self.add(p, "General index", f"Alphabetical index of every name in the {LIBRARY} library.", body)

    def whatsnew(self) -> None:
        p = f"/whatsnew/{VERSION}.html"
        body = [
            f"<h1>What's new in {LIBRARY} {VERSION}</h1>",
            f"<p>{LIBRARY} {VERSION} is a feature release focused on speed and on structured data. "
            f"The {link(self.bases['news'] + paths.NEWS_KESTREL_RELEASE, 'release announcement')} has the story; "
            "the changes to the library are listed below.</p>",
            "<h2>Library changes</h2>",
            "<ul>",
        ]
        body += [f"<li>{self.inline(p, change)}</li>" for change in _WHATSNEW]
        body += [
            "</ul>",
            "<h2>Upgrading</h2>",
            "<p>No code needs to change. Programs that subclass <code>JSONEncoder</code> should be tested, since the encoder now calls default() less often.</p>",
        ]
        self.add(p, f"What's new in {LIBRARY} {VERSION}", f"Changes in {LIBRARY} {VERSION}.", body)

    def simple_pages(self) -> None:
        p = "/faq.html"
        body = ["<h1>Frequently asked questions</h1>"]
        for question, answer in _FAQ:
            body += [f"<h3>{esc(question)}</h3>", f"<p>{self.inline(p, answer)}</p>"]
        body.append(f"<p>See also the {link(self.href(p, paths.DOCS_TUTORIAL_JSON), 'JSON encoding tutorial')}.</p>")
        self.add(p, "Frequently asked questions", f"Answers to common questions about {LIBRARY}.", body)
        p = "/about.html"
        body = [
            "<h1>About this documentation</h1>",
            f"<p>These pages are written by the {LIBRARY} developers and volunteers. Every page is generated "
            "from the source of the library, so the signatures are always current.</p>",
            "<h2>Translations</h2>",
            f"<p>A Chinese-language community runs {link(self.bases['zh'] + '/', '华夏风物志')}, whose editors "
            "helped test the Unicode handling of the json module.</p>",
        ]
        self.add(p, "About this documentation", "Who writes these pages and how.", body)


def _plural(kind: str, count: int) -> str:
    """
    >>> _plural("class", 2), _plural("function", 1)
    ('classes', 'function')
    """
    if count == 1:
        return kind
    return kind + "es" if kind.endswith("s") else kind + "s"


def _enumerate(parts: Iterable[str]) -> str:
    """
    >>> _enumerate(["4 functions", "2 classes", "1 exception"])
    '4 functions, 2 classes and 1 exception'
    """
    parts = list(parts)
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _parameters(signature: str) -> list[str]:
    """Parameter names of a signature, without stars and defaults.

    >>> _parameters("json.dumps(obj, *, indent=None, cls=None)")
    ['obj', 'indent', 'cls']
    >>> _parameters("csv.read_csv(path, *, delimiter=',', header=True)")
    ['path', 'delimiter', 'header']
    """
    if "(" not in signature:
        return []
    inner = signature[signature.index("(") + 1 : signature.rindex(")")]
    inner = re.sub(r"'[^']*'", "''", inner)
    names = [part.split("=")[0].strip().lstrip("*") for part in inner.split(",")]
    return [name for name in names if name]


def _example(module: str, name: str, kind: str, signature: str) -> str:
    required = [part for part in _parameters(signature) if f"{part}=" not in signature.replace(" ", "")]
    qualified = name if name.startswith(module + ".") else f"{module}.{name}"
    call = f"{qualified}({', '.join(required)})"
    if kind == "exception":
        return f"import {module}\n\ntry:\n    ...\nexcept {qualified} as error:\n    print('failed:', error)"
    if kind == "class":
        return f"import {module}\n\nobj = {call}\nprint(obj)"
    return f"import {module}\n\nresult = {call}\nprint(result)"


def build(bases: dict[str, str]) -> Site:
    """The docs site for the given base URLs of every demo site."""
    return Site(
        name="docs",
        base=bases["docs"],
        lang="en",
        pages=_Docs(bases).build(),
        robots=robots_txt(_DISALLOWED),
        not_found=not_found_page("en", "This page does not exist in the Kestrel documentation."),
        disallowed=_DISALLOWED,
    )
