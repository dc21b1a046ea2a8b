"""The wiki site: Merrow Point Wiki, with a private section and duplicates.

Three things here exist for the crawler and indexer to get right:

* robots.txt disallows ``/private/`` and ``/drafts/``, yet public pages link
  into them with distinctive anchor text, so those URLs can be found by
  anchor text alone and must never be fetched;
* the main page answers at ``/`` and ``/index.html``, and a few articles at
  ``/articles/x.html`` and ``/print/x.html``, with byte-identical bodies
  (links are written from the root, so they resolve the same from both);
* one help page uses ``<base href>`` with links that only resolve against it,
  and one article has a "red link" to a page that does not exist (404).
"""

from __future__ import annotations

import calendar
import datetime
import random
import re
from urllib.parse import urljoin

from . import paths
from .markup import Layout, esc, link, not_found_page
from .site import Site, robots_txt
from .wiki_data import ARTICLES, CATEGORIES, CHANGES, GENERIC, WIKI

_DISALLOWED = ("/private/", "/drafts/")
LEDGER = "/private/ledger.html"
LEDGER_ANCHOR = "quarterly lighthouse inspection ledger"
BASE_PAGE = "/help/reading-tide-tables.html"
BASE_LINKS = ("tides.html", "merrow-point-light.html", "breakwater.html", "ferry.html", "grey-seal.html")
RED_LINK = "/articles/old-pier-photographs.html"
PRINTABLE = ("merrow-point-light", "great-storm-1953", "harbour", "thursday-market")
_MONTHS = list(calendar.month_name)[1:]
_NAV = (
    ("Main page", "/"),
    ("All pages", "/special/all-pages.html"),
    ("Recent changes", "/special/recent-changes.html"),
    ("Help", "/help/editing.html"),
    ("About", "/about.html"),
)
_FOOTER = (
    f"<p>Text is available under the CC BY-SA 4.0 licence. {WIKI} is run by volunteers of the "
    '<a href="/articles/computer-club.html">Merrow Point Computer Club</a>. '
    '<a href="mailto:wiki@merrowpoint.invalid">Contact</a></p>'
)
#: Private and draft pages: ``path: (title, paragraphs)``. Served, but robots.txt forbids them.
_HIDDEN = {
    LEDGER: (
        "Quarterly lighthouse inspection ledger",
        [
            "Members only. Findings of the quarterly visits to the tower, lantern room and Keepers' Cottages.",
            "Q1: gallery railings need repainting; lantern glazing sound. Q2: damp in the oil store; fog bell rope replaced.",
        ],
    ),
    "/private/trust-minutes.html": (
        "Minutes of the trust committee",
        [
            "Members only. Minutes of the meetings of the Merrow Point Lighthouse Trust committee.",
            "The committee agreed the budget for the lantern room repairs and thanked the volunteers.",
        ],
    ),
    "/private/members.html": ("Members' directory", ["Members only. Names and telephone numbers of trust volunteers."]),
    "/drafts/harbour-festival-2025.html": (
        "Harbour Festival 2025 (draft)",
        [
            "Draft programme: bands on the quay on Saturday, gig races on Sunday morning, laver cake stall all weekend.",
        ],
    ),
    "/drafts/ferry-history-notes.html": (
        "Ferry history notes (draft)",
        [
            "Unfinished notes on the rowing ferries before 1871, from the parish registers.",
        ],
    ),
}


class _Wiki:
    def __init__(self, bases: dict[str, str]) -> None:
        self.bases = bases
        self.rng = random.Random("merrow-point-wiki")
        self.layout = Layout(
            site_title=WIKI,
            tagline="The community encyclopedia of a small harbour village",
            lang="en",
            nav=_NAV,
            footer=_FOOTER,
            relative_links=False,
        )
        self.articles = {a[0]: a for a in ARTICLES}
        names = {re.sub(r"^The ", "", a[1]): a[0] for a in ARTICLES}
        self.slug_of = {esc(name): slug for name, slug in names.items()}
        alternatives = "|".join(re.escape(n) for n in sorted(self.slug_of, key=len, reverse=True))
        self.names = re.compile(rf"(?<!\w)({alternatives})(?!\w)")
        self.extra = self.extras()
        self.pages: dict[str, bytes] = {}

    def add(self, path: str, title: str, description: str, body: list[str], **kwargs: str) -> None:
        self.pages[path] = self.layout.render(path, title, description, "\n".join(body), **kwargs)

    def wikify(self, slug: str, text: str, linked: set[str]) -> str:
        """Escape ``text``, bold the article's own name and link the first mention of others, as wiki editors do."""

        def replace(match: re.Match[str]) -> str:
            target = self.slug_of[match.group(1)]
            if target in linked:
                return match.group(1)
            if target == slug:
                linked.add(target)
                return f"<strong>{match.group(1)}</strong>"
            linked.add(target)
            return f'<a href="/articles/{target}.html">{match.group(1)}</a>'

        return self.names.sub(replace, esc(text))

    def build(self) -> dict[str, bytes]:
        self.main_page()
        for article in ARTICLES:
            self.article(article)
        for slug in CATEGORIES:
            self.category(slug)
        self.all_pages()
        self.recent_changes()
        self.help_pages()
        self.about()
        for path, (title, paragraphs) in _HIDDEN.items():
            body = [f"<h1>{esc(title)}</h1>"] + [f"<p>{esc(p)}</p>" for p in paragraphs]
            self.add(path, title, paragraphs[0], body)
        return self.pages

    def main_page(self) -> None:
        featured = self.articles["merrow-point-light"]
        from_archive = self.rng.sample([a for a in ARTICLES if a is not featured], 3)
        body = [
            f"<h1>Welcome to {WIKI}</h1>",
            f"<p>{WIKI} is the encyclopedia of Merrow Point, a harbour village across the estuary from Port Alder, "
            f"written by the people who live there. It has {len(ARTICLES)} articles.</p>",
            "<h2>Featured article</h2>",
            f"<p><strong>{link('/articles/merrow-point-light.html', featured[1])}</strong>: {esc(' '.join(featured[3][:2]))}</p>",
            "<h2>From the archive</h2>",
            "<ul>",
        ]
        body += [f"<li>{link(f'/articles/{a[0]}.html', a[1])}: {esc(a[3][1])}</li>" for a in from_archive]
        body += ["</ul>", "<h2>Browse by category</h2>", "<ul>"]
        body += [
            f"<li>{link(f'/category/{slug}.html', title)}: {esc(description)}</li>"
            for slug, (title, description) in CATEGORIES.items()
        ]
        body += [
            "</ul>",
            "<h2>In the news</h2>",
            f"<p>{link(self.bases['news'] + paths.NEWS_LIGHT_APPEAL, 'Appeal launched to restore the Merrow Point Light')} "
            "(The Harbor Gazette).</p>",
        ]
        page = self.layout.render(
            "/", f"{WIKI} — Main page", "The community encyclopedia of Merrow Point.", "\n".join(body)
        )
        self.pages["/"] = page
        self.pages["/index.html"] = page

    def extras(self) -> dict[str, str]:
        """Paragraphs only some articles have: links into hidden pages, off-site, or nowhere."""
        ledger = link(LEDGER, LEDGER_ANCHOR)
        news, docs, zh = self.bases["news"], self.bases["docs"], self.bases["zh"]
        appeal = link(news + paths.NEWS_LIGHT_APPEAL, "its restoration appeal")
        minutes = link("/private/trust-minutes.html", "minutes of the trust committee")
        members = link("/private/members.html", "members’ directory")
        festival = link("/drafts/harbour-festival-2025.html", "draft programme for the 2025 harbour festival")
        notes = link("/drafts/ferry-history-notes.html", "unfinished notes on the ferry’s history")
        photos = link(RED_LINK, "old pier photographs", **{"class": "new"})
        tutorial = link(docs + "/tutorial/getting-started.html", "Getting started with Kestrel")
        longjing = link(zh + paths.ZH_LONGJING, "西湖龙井茶")
        fair = link(news + paths.NEWS_TEA_FAIR, "the spring tea fair in Port Alder")
        return {
            "merrow-point-light": f"<p>The trust keeps a {ledger} for its members, and {appeal} was reported by the Gazette.</p>",
            "lighthouse-trust": f"<p>Members can read the {ledger} and the {minutes}; the {members} is private.</p>",
            "harbour-festival": f"<p>The {festival} is being prepared.</p>",
            "ferry-history": f"<p>See also the {notes}.</p>",
            "harbour": f"<p>A collection of {photos} has been promised but not yet written.</p>",
            "computer-club": f"<p>Beginners start with {tutorial} and keep "
            f"{link(docs + '/', 'the Kestrel documentation')} open while they work.</p>",
            "harbour-tea-room": f"<p>Its best-known green tea is {longjing} (West Lake Longjing); "
            f"the tea room also ran tastings at {fair}.</p>",
            "port-alder": f"<p>News from the city: {link(news + '/', 'The Harbor Gazette')}.</p>",
        }

    def article(self, article: tuple[str, str, str, list[str], list[str]]) -> None:
        slug, title, category, sentences, related = article
        path = f"/articles/{slug}.html"
        linked: set[str] = set()
        edited = datetime.date(2024, 1, 1) + datetime.timedelta(days=self.rng.randrange(180))
        generic = self.rng.choice(GENERIC).format(title=title)
        body = [
            f"<h1>{esc(title)}</h1>",
            f'<p class="site-sub"><em>From {WIKI}, the encyclopedia of Merrow Point</em></p>',
            f"<p>{self.wikify(slug, sentences[0], linked)}</p>",
            "<h2>Details</h2>",
            f"<p>{self.wikify(slug, sentences[1], linked)} {self.wikify(slug, sentences[2], linked)}</p>",
        ]
        if slug in self.extra:
            body.append(self.extra[slug])
        body += [f"<p>{esc(generic)}</p>", "<h2>See also</h2>", "<ul>"]
        body += [f"<li>{link(f'/articles/{r}.html', self.articles[r][1])}</li>" for r in related]
        body.append("</ul>")
        if slug in PRINTABLE:
            body.append(f"<p>{link(f'/print/{slug}.html', 'Printable version')}</p>")
        body += [
            f"<p>Category: {link(f'/category/{category}.html', CATEGORIES[category][0])}</p>",
            f"<p><small>This page was last edited on {edited.day} {_MONTHS[edited.month - 1]} {edited.year}.</small></p>",
        ]
        self.add(path, title, sentences[0], body)
        if slug in PRINTABLE:
            self.pages[f"/print/{slug}.html"] = self.pages[path]

    def category(self, slug: str) -> None:
        title, description = CATEGORIES[slug]
        members = [a for a in ARTICLES if a[2] == slug]
        body = [
            f"<h1>Category: {esc(title)}</h1>",
            f"<p>{esc(description)}</p>",
            f"<h2>Articles in this category ({len(members)})</h2>",
            "<ul>",
        ]
        body += [f"<li>{link(f'/articles/{a[0]}.html', a[1])}: {esc(a[3][0])}</li>" for a in members]
        body.append("</ul>")
        self.add(f"/category/{slug}.html", f"Category: {title}", description, body)

    def all_pages(self) -> None:
        body = ["<h1>All pages</h1>", f"<p>Every article on {WIKI}, in alphabetical order.</p>"]
        letter = ""
        for a in sorted(ARTICLES, key=lambda a: re.sub(r"^The ", "", a[1])):
            first = re.sub(r"^The ", "", a[1])[0]
            if first != letter:
                body += (["</ul>"] if letter else []) + [f"<h2>{first}</h2>", "<ul>"]
                letter = first
            body.append(f"<li>{link(f'/articles/{a[0]}.html', a[1])}</li>")
        body.append("</ul>")
        self.add("/special/all-pages.html", "All pages", f"Alphabetical list of all articles on {WIKI}.", body)

    def recent_changes(self) -> None:
        body = ["<h1>Recent changes</h1>", "<p>The latest edits to the wiki, newest first.</p>", "<ul>"]
        for date, user, slug, summary in CHANGES:
            body.append(
                f"<li>{date} · {link(f'/articles/{slug}.html', self.articles[slug][1])} · {esc(user)} · <em>{esc(summary)}</em></li>"
            )
        body += [
            "</ul>",
            "<h2>Members' area</h2>",
            f"<p>Updated this week: the {link(LEDGER, LEDGER_ANCHOR)}.</p>",
        ]
        self.add("/special/recent-changes.html", "Recent changes", "The latest edits to the wiki.", body)

    def help_pages(self) -> None:
        body = [
            "<h1>Help: Editing</h1>",
            "<p>Anyone who lives in or loves Merrow Point may edit this wiki. Write plainly, say where your facts come from, "
            "and be kind on the talk pages.</p>",
            "<h2>Useful pages</h2>",
            "<ul>",
            f"<li>{link('/special/recent-changes.html', 'Recent changes')} shows what others are working on.</li>",
            f"<li>{link(BASE_PAGE, 'Reading tide tables')} is an example of a help page.</li>",
            f"<li>{link('/about.html', 'About the wiki')} explains who runs it.</li>",
            "</ul>",
        ]
        self.add("/help/editing.html", "Help: Editing", "How to edit the wiki.", body)
        tides, light, breakwater, ferry, seal = BASE_LINKS
        body = [
            "<h1>Help: Reading tide tables</h1>",
            "<p>Tide tables give the times and heights of high and low water. At Merrow Point the range is large and "
            f'the harbour dries out, as explained in <a href="{tides}">Tides at Merrow Point</a>.</p>',
            "<h2>Staying safe</h2>",
            f'<p>Check the tide before walking to the rocks below <a href="{light}">the lighthouse</a> or out along '
            f'<a href="{breakwater}">the breakwater</a> in rough weather. <strong>The tide comes in faster than you can walk '
            f'on wet rock.</strong> The <a href="{ferry}">ferry</a> runs at all states of the tide.</p>',
            f'<p>Low water is also the best time to see <a href="{seal}">grey seals</a> on the rocks; more pages about '
            f"the sea and the shore are in {link('/category/nature.html', 'the nature category')}.</p>",
        ]
        self.add(
            BASE_PAGE,
            "Help: Reading tide tables",
            "How to read the tide tables for Merrow Point.",
            body,
            base_href=self.bases["wiki"] + "/articles/",
        )

    def about(self) -> None:
        body = [
            f"<h1>About {WIKI}</h1>",
            f"<p>{WIKI} was started in 2011 by members of the {link(paths.WIKI_COMPUTER_CLUB, 'Merrow Point Computer Club')} "
            "to collect the village's history before it was forgotten.</p>",
            "<h2>Policies</h2>",
            "<p>Articles should be about Merrow Point and its people. Members-only pages of village societies are kept "
            "out of search engines.</p>",
            f"<p>Start reading from {link('/index.html', 'the main page')}.</p>",
        ]
        self.add("/about.html", f"About {WIKI}", f"Who runs {WIKI} and why.", body)


def build(bases: dict[str, str]) -> tuple[Site, dict]:
    """The wiki site and the facts about its traps (hidden pages, duplicates, base href)."""
    base = bases["wiki"]
    wiki = _Wiki(bases)
    site = Site(
        name="wiki",
        base=base,
        lang="en",
        pages=wiki.build(),
        robots=robots_txt(_DISALLOWED),
        not_found=not_found_page("en", f"There is no page with this name on {WIKI}."),
        disallowed=_DISALLOWED,
    )
    facts = {
        "anchor_only": {"url": base + LEDGER, "anchor": LEDGER_ANCHOR},
        "duplicates": [[base + "/", base + "/index.html"]]
        + [[f"{base}/articles/{slug}.html", f"{base}/print/{slug}.html"] for slug in PRINTABLE],
        "base_href": {
            "url": base + BASE_PAGE,
            "base": base + "/articles/",
            "links": [urljoin(base + "/articles/", href) for href in BASE_LINKS],
        },
        "broken_links": [base + RED_LINK],
        "disallowed": list(_DISALLOWED),
    }
    return site, facts
