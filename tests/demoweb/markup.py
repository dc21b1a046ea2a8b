"""HTML for every demo page: one layout per site, escaping, and hrefs.

Every page of a site carries the same header, ``<nav>`` and footer, as real
sites do, so the crawler and indexer meet the boilerplate they will meet on
the web. The layout also decides how a site writes its own links: relative to
the page (``../x.html``) or from the root (``/a/x.html``), so the crawler's
URL resolution is exercised both ways.
"""

from __future__ import annotations

import html
import posixpath
from dataclasses import dataclass

_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<meta name="description" content="{description}">
{base}</head>
<body>
<header class="site-header" id="top">
<a class="brand" href="{home}">{site_title}</a>
<p class="tagline">{tagline}</p>
</header>
<nav>
<ul>
{nav}
</ul>
</nav>
<main>
{body}
</main>
<footer>
{footer}
</footer>
</body>
</html>
"""


def esc(text: str) -> str:
    """Escape text for HTML content and attribute values.

    >>> esc('a < b & "c"')
    'a &lt; b &amp; &quot;c&quot;'
    """
    return html.escape(text, quote=True)


def relative(from_path: str, to_path: str) -> str:
    """The href for ``to_path`` written on the page at ``from_path``.

    Directory targets keep their trailing slash, because ``/tutorial`` and
    ``/tutorial/`` are different URLs to a crawler.

    >>> relative("/library/json.html", "/library/path.html")
    'path.html'
    >>> relative("/library/json/dumps.html", "/tutorial/")
    '../../tutorial/'
    >>> relative("/calendar/2024/03/", "/calendar/2025/01/")
    '../../2025/01/'
    >>> relative("/index.html", "/")
    './'
    """
    from_dir = from_path if from_path.endswith("/") else posixpath.dirname(from_path)
    rel = posixpath.relpath(to_path, from_dir)
    if to_path.endswith("/"):
        rel = "./" if rel == "." else rel + "/"
    return rel


def link(href: str, text: str, **attrs: str) -> str:
    """An ``<a>`` element; ``text`` is escaped, ``href`` and attributes too.

    >>> link("x.html", "A & B", rel="next")
    '<a href="x.html" rel="next">A &amp; B</a>'
    """
    extra = "".join(f' {name}="{esc(value)}"' for name, value in attrs.items())
    return f'<a href="{esc(href)}"{extra}>{esc(text)}</a>'


@dataclass(frozen=True)
class Layout:
    """What every page of one site shares; ``render`` wraps a page body in it.

    ``title_sep`` joins the page title and the site title in ``<title>``;
    ``relative_links`` says whether the nav is written relative to each page
    (so it differs in spelling but not in target) or from the root.
    """

    site_title: str
    tagline: str
    lang: str
    nav: tuple[tuple[str, str], ...]
    footer: str
    relative_links: bool
    title_sep: str = " — "

    def href(self, page: str, target: str) -> str:
        """The site's own way of linking from ``page`` to ``target``."""
        return relative(page, target) if self.relative_links else target

    def render(
        self,
        path: str,
        title: str,
        description: str,
        body: str,
        *,
        base_href: str | None = None,
    ) -> bytes:
        """A whole page as UTF-8 bytes; ``body`` is trusted HTML."""
        nav = "\n".join(f"<li>{link(self.href(path, target), label)}</li>" for label, target in self.nav)
        full_title = title if path == "/" else f"{title}{self.title_sep}{self.site_title}"
        base = f'<base href="{esc(base_href)}">\n' if base_href else ""
        page = _PAGE.format(
            lang=self.lang,
            title=esc(full_title),
            description=esc(description),
            base=base,
            home=esc(self.href(path, "/")),
            site_title=esc(self.site_title),
            tagline=esc(self.tagline),
            nav=nav,
            body=body,
            footer=self.footer,
        )
        return page.encode("utf-8")


def not_found_page(lang: str, message: str) -> bytes:
    """The small page every site answers unknown paths with."""
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>404 Not Found</title>\n</head>\n<body>\n<h1>404 Not Found</h1>\n"
        f"<p>{esc(message)}</p>\n</body>\n</html>\n"
    ).encode()
