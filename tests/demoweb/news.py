"""The news site: the Harbor Gazette, with an endless archive calendar and almanac.

Articles are dated and live under dated paths, links are written from the
root, and ``/calendar/YYYY/MM/`` answers for every month of every year with
links to the months either side: a crawler trap of the "virtual web space"
kind, endless yet made only of well-formed, on-site links. Its months
without stories read alike (content fingerprints stop it); the almanac's,
``/almanac/YYYY/MM/``, each say something of their own (sky and garden
notes drawn for that month), so only the length of the chain of months
can stop it.
"""

from __future__ import annotations

import calendar
import datetime
import random
import re
from dataclasses import dataclass

from .markup import Layout, esc, link, not_found_page, relative
from .news_data import (
    AUTHORS,
    BACKGROUND,
    CITY,
    FIXED,
    LINKS,
    NEXT,
    PAPER,
    REACTION_INTROS,
    REACTIONS,
    SECTIONS,
    STORIES,
)
from .site import Site, robots_txt

_DISALLOWED = ("/search",)
_MONTHS = list(calendar.month_name)[1:]
_FIRST_DAY = datetime.date(2023, 9, 1)
_DAYS = 304  # up to 30 June 2024
_CALENDAR = re.compile(r"/calendar/(\d{4})/(\d{2})/")
_ALMANAC = re.compile(r"/almanac/(\d{4})/(\d{2})/")
_SKY = (
    "Venus shines low in the west after sunset",
    "Jupiter rises in the east before midnight",
    "Mars glows red above the southern hills",
    "Saturn sits among the faint stars of Aquarius",
    "the Pleiades climb over the eastern woods",
    "Orion's belt points down towards Sirius",
    "the Plough stands on its handle in the north",
    "the Milky Way arches overhead on moonless nights",
    "a thin crescent hangs beside Venus at dawn",
    "Arcturus burns orange high in the south",
    "the Summer Triangle rides overhead at dusk",
    "Capella twinkles yellow in the north-east",
    "meteors streak from Perseus after midnight",
    "the full moon rises huge and copper-coloured",
    "Cassiopeia makes her crooked W near the zenith",
    "Regulus marks the heart of Leo in the evening",
)
_CROPS = (
    "broad beans",
    "parsnips",
    "leeks",
    "shallots",
    "carrots",
    "beetroot",
    "lettuce",
    "spinach",
    "chard",
    "kale",
    "peas",
    "radishes",
    "turnips",
    "celeriac",
    "squash",
    "courgettes",
)
_FLOWERS = ("sweet peas", "dahlias", "asters", "irises", "peonies", "snowdrops", "primroses", "lupins")
_TREES = ("apple", "pear", "plum", "cherry", "quince", "medlar", "damson", "walnut")
_BERRIES = ("gooseberries", "raspberries", "strawberries", "blackcurrants", "redcurrants", "blackberries")
_GARDEN = (
    "sow {crop} in drills",
    "start {crop} in pots on a sunny sill",
    "earth up the {crop}",
    "thin the {crop} seedlings",
    "lift and divide the {flower}",
    "stake the tallest {flower}",
    "deadhead the {flower}",
    "prune the {tree} trees",
    "feed the {tree} trees with bonemeal",
    "net the {berry} against blackbirds",
    "mulch the {berry} with straw",
    "pick the {berry} each morning",
    "turn the compost heap",
    "clean the greenhouse glass",
    "sharpen the shears and oil the hinges",
)
_SAYINGS = (
    "A cold spring brings a warm purse.",
    "Plant in the dust and the bins will bust.",
    "When the wind is in the east, it is good for neither man nor beast.",
    "Ne'er cast a clout till May be out.",
    "Red sky at night, the shepherd's delight.",
    "One year's seeding is seven years' weeding.",
    "Who plants a walnut plants for his grandchildren.",
    "Onion skins very thin, mild winter coming in.",
    "Rain before seven, fine before eleven.",
    "A swarm of bees in June is worth a silver spoon.",
    "If the oak is out before the ash, we shall only have a splash.",
    "Sow beans in the mud and they'll grow like wood.",
)
_FOOTER = (
    f"<p>&copy; 2024 {PAPER}, Quay Road, {CITY}. "
    '<a href="/about.html">About us</a> · <a href="/archive/">Archive</a> · '
    '<a href="mailto:newsdesk@gazette.invalid">Send us a story</a></p>'
)


@dataclass(frozen=True)
class _Article:
    section: str
    headline: str
    lead: str
    quote: str
    speaker: str
    role: str
    date: datetime.date
    time: str
    author: tuple[str, str, list[str], str]

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.headline.lower()).strip("-")

    @property
    def path(self) -> str:
        return f"/{self.section}/{self.date:%Y/%m/%d}/{self.slug}.html"


def _human(date: datetime.date) -> str:
    return f"{date.day} {_MONTHS[date.month - 1]} {date.year}"


def _quoted(sentence: str) -> str:
    """A quoted sentence as it reads before "said ...": the full stop becomes a comma.

    >>> _quoted("It is ours."), _quoted("Why not?")
    ('It is ours,', 'Why not?')
    """
    return sentence[:-1] + "," if sentence.endswith(".") else sentence


_ALMANAC_PATH = "/almanac/{:04d}/{:02d}/"


def _month_path(year: int, month: int) -> str:
    return f"/calendar/{year:04d}/{month:02d}/"


def _articles(rng: random.Random) -> list[_Article]:
    articles = []
    for section, stories in STORIES.items():
        writers = [a for a in AUTHORS if section in a[2]]
        for headline, lead, quote, speaker, role in stories:
            day = _FIRST_DAY + datetime.timedelta(days=rng.randrange(_DAYS))
            if headline in FIXED:
                day = datetime.date.fromisoformat(FIXED[headline])
            time = f"{rng.randrange(6, 22):02d}:{rng.choice(['00', '15', '30', '45'])}"
            articles.append(_Article(section, headline, lead, quote, speaker, role, day, time, rng.choice(writers)))
    return sorted(articles, key=lambda a: (a.date, a.time, a.slug), reverse=True)


class _News:
    def __init__(self, bases: dict[str, str]) -> None:
        self.bases = bases
        self.rng = random.Random("harbor-gazette")
        self.layout = Layout(
            site_title=PAPER,
            tagline=f"News from {CITY} and Merrow Point since 1868",
            lang="en",
            nav=(("Home", "/"),)
            + tuple((title, f"/{slug}/") for slug, (title, _d) in SECTIONS.items())
            + (("Archive", "/archive/"),),
            footer=_FOOTER,
            relative_links=False,
        )
        self.articles = _articles(self.rng)
        self.by_month: dict[tuple[int, int], list[_Article]] = {}
        for article in self.articles:
            self.by_month.setdefault((article.date.year, article.date.month), []).append(article)
        self.pages: dict[str, bytes] = {}
        latest = self.articles[0].date
        self.almanac_start = _ALMANAC_PATH.format(latest.year, latest.month)

    def add(self, path: str, title: str, description: str, body: list[str]) -> None:
        self.pages[path] = self.layout.render(path, title, description, "\n".join(body))

    def teaser(self, article: _Article, with_lead: bool = True) -> str:
        lead = f"<br>{esc(article.lead)}" if with_lead else ""
        return f"<li>{link(article.path, article.headline)} <small>{_human(article.date)}</small>{lead}</li>"

    def build(self) -> dict[str, bytes]:
        self.front()
        for slug in SECTIONS:
            self.section(slug)
        for article in self.articles:
            self.article(article)
        for author in AUTHORS:
            self.author(author)
        self.archive()
        self.about()
        return self.pages

    def front(self) -> None:
        top = self.articles[0]
        fixed = [a for a in self.articles if a.headline in FIXED]
        most_read = fixed + self.rng.sample([a for a in self.articles if a not in fixed], 3)
        body = [
            f"<h1>{PAPER}</h1>",
            f"<p><em>Independent local news for {CITY} and Merrow Point.</em></p>",
            '<form action="/search" method="get"><input name="q" type="search"> <button>Search</button></form>',
            "<h2>Top story</h2>",
            f"<h3>{link(top.path, top.headline)}</h3>",
            f"<p><strong>{esc(top.lead)}</strong></p>",
            "<h2>Latest news</h2>",
            "<ul>",
        ]
        body += [self.teaser(a, with_lead=False) for a in self.articles[1:9]]
        body += ["</ul>", "<h2>Most read</h2>", "<ol>"]
        body += [self.teaser(a, with_lead=False) for a in most_read]
        body.append("</ol>")
        for slug, (title, _description) in SECTIONS.items():
            body += [f"<h2>{link(f'/{slug}/', title)}</h2>", "<ul>"]
            body += [self.teaser(a) for a in self.articles if a.section == slug][:3]
            body.append("</ul>")
        self.add(
            "/",
            f"{PAPER} — news from {CITY}",
            f"Local news for {CITY}: city, business, science, technology, culture and sports.",
            body,
        )

    def section(self, slug: str) -> None:
        title, description = SECTIONS[slug]
        items = [a for a in self.articles if a.section == slug]
        body = [
            f"<h1>{esc(title)}</h1>",
            f"<p>{esc(description)}</p>",
            f"<h2>{len(items)} stories, newest first</h2>",
            "<ul>",
        ]
        body += [self.teaser(a) for a in items]
        body.append("</ul>")
        self.add(f"/{slug}/", title, description, body)

    def article(self, article: _Article) -> None:
        rng = self.rng
        section_title = SECTIONS[article.section][0]
        name, role, quote = rng.choice(REACTIONS[article.section])
        background = rng.sample(BACKGROUND[article.section], 2)
        month = _month_path(article.date.year, article.date.month)
        body = [
            f'<p class="kicker">{link(f"/{article.section}/", section_title)}</p>',
            f"<h1>{esc(article.headline)}</h1>",
            f'<p class="byline">By {link(f"/authors/{article.author[0]}.html", article.author[1])} · '
            f'<time datetime="{article.date.isoformat()}T{article.time}">{_human(article.date)}, {article.time}</time></p>',
            f"<p><strong>{esc(article.lead)}</strong></p>",
            f"<p>“{esc(_quoted(article.quote))}” said <em>{esc(article.speaker)}</em>, {esc(article.role)}.</p>",
            "<h2>Background</h2>",
            f"<p>{esc(' '.join(background))}</p>",
            "<h2>Reaction</h2>",
            f"<p>{esc(rng.choice(REACTION_INTROS))} “{esc(_quoted(quote))}” said {esc(name)}, {esc(role)}.</p>",
            "<h2>What happens next</h2>",
            f"<p>{esc(rng.choice(NEXT[article.section]))}</p>",
        ]
        for before, anchor, site, target in LINKS.get(article.headline, []):
            body.append(f"<p>{esc(before)} {link(self.bases[site] + target, anchor)}.</p>")
        related = rng.sample([a for a in self.articles if a.section == article.section and a != article], 3)
        body += ["<aside>", "<h3>Related stories</h3>", "<ul>"]
        body += [self.teaser(a, with_lead=False) for a in related]
        body += [
            "</ul>",
            "</aside>",
            f"<p>More from {link(month, _MONTHS[article.date.month - 1] + ' ' + str(article.date.year))} in the archive.</p>",
        ]
        self.add(article.path, article.headline, article.lead, body)

    def author(self, author: tuple[str, str, list[str], str]) -> None:
        slug, name, _sections, bio = author
        items = [a for a in self.articles if a.author[0] == slug]
        body = [f"<h1>{esc(name)}</h1>", f"<p>{esc(bio)}</p>", f"<h2>Stories by {esc(name)}</h2>", "<ul>"]
        body += [self.teaser(a, with_lead=False) for a in items]
        body.append("</ul>")
        self.add(f"/authors/{slug}.html", name, bio, body)

    def archive(self) -> None:
        body = ["<h1>Archive</h1>", f"<p>Every story published by {PAPER}, month by month.</p>", "<ul>"]
        for (year, month), items in self.by_month.items():
            body.append(
                f"<li>{link(_month_path(year, month), f'{_MONTHS[month - 1]} {year}')} ({len(items)} stories)</li>"
            )
        body += [
            "</ul>",
            "<h2>Almanac</h2>",
            f"<p>The sky and the garden month by month: {link(self.almanac_start, 'this month in the almanac')}.</p>",
            "<h2>Our reporters</h2>",
            "<ul>",
        ]
        body += [f"<li>{link(f'/authors/{a[0]}.html', a[1])}</li>" for a in AUTHORS]
        body.append("</ul>")
        self.add("/archive/", "Archive", f"Past stories from {PAPER}, by month.", body)

    def about(self) -> None:
        body = [
            f"<h1>About {PAPER}</h1>",
            f"<p>{PAPER} has reported on {CITY} since 1868, when it was a single sheet printed on the quay "
            "and sold to sailors. Today a newsroom of fourteen people publishes every day online.</p>",
            "<h2>Our neighbours online</h2>",
            f"<p>Local history lives on {link(self.bases['wiki'] + '/', 'the Merrow Point community wiki')}; "
            f"programmers in the city use {link(self.bases['docs'] + '/', 'the Kestrel documentation')}; and "
            f"readers of Chinese may enjoy {link(self.bases['zh'] + '/', '华夏风物志')}.</p>",
        ]
        self.add("/about.html", f"About {PAPER}", f"The history and staff of {PAPER}.", body)

    def dynamic(self, path: str) -> bytes | None:
        """A calendar or almanac month, else ``None``."""
        return self.calendar(path) or self.almanac(path)

    def almanac(self, path: str) -> bytes | None:
        """The almanac for any month of years 1 to 9999: sky and garden notes of its
        own, the same on every run, and links to the months either side; else ``None``."""
        match = _ALMANAC.fullmatch(path)
        if not match:
            return None
        year, month = int(match.group(1)), int(match.group(2))
        if not (1 <= year <= 9999 and 1 <= month <= 12):
            return None
        rng = random.Random(f"almanac {year} {month}")
        name = f"{_MONTHS[month - 1]} {year}"
        sky = rng.sample(_SKY, 4)
        chores = [
            chore.format(
                crop=rng.choice(_CROPS),
                flower=rng.choice(_FLOWERS),
                tree=rng.choice(_TREES),
                berry=rng.choice(_BERRIES),
            )
            for chore in rng.sample(_GARDEN, 5)
        ]
        here = _ALMANAC_PATH.format(year, month)
        body = [
            f"<h1>Almanac: {name}</h1>",
            "<h2>In the night sky</h2>",
            "<ul>" + "".join(f"<li>{esc(line[0].upper() + line[1:])}.</li>" for line in sky) + "</ul>",
            "<h2>In the garden</h2>",
            "<ul>" + "".join(f"<li>{esc(line[0].upper() + line[1:])}.</li>" for line in chores) + "</ul>",
            f"<p><em>{esc(rng.choice(_SAYINGS))}</em></p>",
        ]
        nav = []
        if (year, month) > (1, 1):
            py, pm = (year, month - 1) if month > 1 else (year - 1, 12)
            nav.append(link(_ALMANAC_PATH.format(py, pm), f"← {_MONTHS[pm - 1]} {py}", rel="prev"))
        if (year, month) < (9999, 12):
            ny, nm = (year, month + 1) if month < 12 else (year + 1, 1)
            nav.append(link(_ALMANAC_PATH.format(ny, nm), f"{_MONTHS[nm - 1]} {ny} →", rel="next"))
        body.append(f'<p class="pager">{" · ".join(nav)}</p>')
        return self.layout.render(here, f"Almanac: {name}", f"The sky and the garden in {name}.", "\n".join(body))

    def calendar(self, path: str) -> bytes | None:
        """The archive page for any month of years 1 to 9999, else ``None``."""
        match = _CALENDAR.fullmatch(path)
        if not match:
            return None
        year, month = int(match.group(1)), int(match.group(2))
        if not (1 <= year <= 9999 and 1 <= month <= 12):
            return None
        name = f"{_MONTHS[month - 1]} {year}"
        items = self.by_month.get((year, month), [])
        by_day = {}
        for article in items:
            by_day.setdefault(article.date.day, article)
        rows = []
        for week in calendar.Calendar(firstweekday=0).monthdayscalendar(year, month):
            cells = []
            for day in week:
                text = "" if day == 0 else str(day)
                if day in by_day:
                    text = link(by_day[day].path, text)
                cells.append(f"<td>{text}</td>")
            rows.append("<tr>" + "".join(cells) + "</tr>")
        here = _month_path(year, month)
        body = [
            f"<h1>Archive: {name}</h1>",
            '<table class="calendar">',
            "<tr><th>Mon</th><th>Tue</th><th>Wed</th><th>Thu</th><th>Fri</th><th>Sat</th><th>Sun</th></tr>",
        ]
        body += rows + ["</table>"]
        if items:
            body += (
                [f"<h2>Stories from {name}</h2>", "<ul>"] + [self.teaser(a, with_lead=False) for a in items] + ["</ul>"]
            )
        else:
            body.append(f"<p>No stories were published in {name}.</p>")
        nav = []
        if (year, month) > (1, 1):
            py, pm = (year, month - 1) if month > 1 else (year - 1, 12)
            nav.append(link(relative(here, _month_path(py, pm)), f"← {_MONTHS[pm - 1]} {py}", rel="prev"))
        if (year, month) < (9999, 12):
            ny, nm = (year, month + 1) if month < 12 else (year + 1, 1)
            nav.append(link(relative(here, _month_path(ny, nm)), f"{_MONTHS[nm - 1]} {ny} →", rel="next"))
        body.append(f'<p class="pager">{" · ".join(nav)}</p>')
        return self.layout.render(here, f"Archive: {name}", f"Stories published in {name}.", "\n".join(body))


def build(bases: dict[str, str]) -> tuple[Site, dict]:
    """The news site and its facts (the calendar start, article count)."""
    news = _News(bases)
    latest = news.articles[0].date
    site = Site(
        name="news",
        base=bases["news"],
        lang="en",
        pages=news.build(),
        robots=robots_txt(_DISALLOWED),
        not_found=not_found_page("en", f"Sorry, we could not find that page on {PAPER}."),
        disallowed=_DISALLOWED,
        dynamic=news.dynamic,
    )
    facts = {
        "calendar_start": bases["news"] + _month_path(latest.year, latest.month),
        "almanac_start": bases["news"] + news.almanac_start,
        "articles": len(news.articles),
    }
    return site, facts
