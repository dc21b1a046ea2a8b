"""The Chinese site: 华夏风物志, an encyclopedia of places, food and customs.

It gives the indexer text without spaces between words, and the crawler
non-ASCII URLs: festival pages are named in Chinese, linked raw
(``春节.html``) from some pages and percent-encoded from others, so both
spellings must canonicalize to one page. Links are relative to each page.
"""

from __future__ import annotations

import random
from urllib.parse import quote

from . import paths
from .markup import Layout, esc, link, not_found_page
from .site import Site, robots_txt
from .zh_data import CATEGORIES, GENERIC, POPULAR, SITE

_DISALLOWED = ("/admin/",)
_FOOTER = (
    f"<p>&copy; 2024 {SITE} · 内容采用 CC BY-SA 4.0 许可 · "
    '<a href="/guanyu.html">关于本站</a> · <a href="mailto:bianji@huaxia.invalid">联系编辑</a></p>'
)


class _Zh:
    def __init__(self, bases: dict[str, str]) -> None:
        self.bases = bases
        self.rng = random.Random("huaxia-fengwuzhi")
        nav = (("首页", "/"),) + tuple((name, f"/{d}/") for d, name, _desc, _items in CATEGORIES)
        self.layout = Layout(
            site_title=SITE,
            tagline="山川、城市、名茶、节日、美食与发明的百科",
            lang="zh",
            nav=nav + (("全部条目", "/suoyin.html"), ("关于本站", "/guanyu.html")),
            footer=_FOOTER,
            relative_links=True,
            title_sep=" - ",
        )
        self.path_of: dict[str, str] = {}
        for directory, _name, _desc, items in CATEGORIES:
            for slug, title, *_rest in items:
                self.path_of[title] = f"/{directory}/{slug}.html"
        self.pages: dict[str, bytes] = {}

    def add(self, path: str, title: str, description: str, body: list[str]) -> None:
        self.pages[path] = self.layout.render(path, title, description, "\n".join(body))

    def to(self, page: str, title: str, *, encoded: bool = False) -> str:
        """A link to the item ``title``; ``encoded`` percent-encodes the href."""
        href = self.layout.href(page, self.path_of[title])
        return link(quote(href) if encoded else href, title)

    def build(self) -> dict[str, bytes]:
        self.home()
        for category in CATEGORIES:
            self.category(category)
            for item in category[3]:
                self.item(category, item)
        self.index()
        self.about()
        return self.pages

    def home(self) -> None:
        p = "/"
        body = [
            f"<h1>{SITE}</h1>",
            f"<p><strong>{SITE}</strong>是一部介绍中国山川、城市、名茶、节日、美食和古代发明的小百科，"
            f"目前共收录 {len(self.path_of)} 个条目。</p>",
            "<h2>分类浏览</h2>",
            "<ul>",
        ]
        for directory, name, description, items in CATEGORIES:
            body.append(
                f"<li>{link(self.layout.href(p, f'/{directory}/'), name)}（{len(items)} 条）：{esc(description)}</li>"
            )
        body += ["</ul>", "<h2>热门条目</h2>", "<ul>"]
        body += [f"<li>{self.to(p, title)}</li>" for title in POPULAR]
        body += ["</ul>", "<h2>今日推荐</h2>", "<ul>"]
        body += [f"<li>{self.to(p, title)}</li>" for title in self.rng.sample(sorted(self.path_of), 6)]
        body += [
            "</ul>",
            "<h2>友情链接</h2>",
            f"<p>英文地方报纸 {link(self.bases['news'] + '/', 'The Harbor Gazette')}，"
            f"程序设计文档 {link(self.bases['docs'] + '/', 'Kestrel documentation')}，"
            f"海滨小镇百科 {link(self.bases['wiki'] + '/', 'Merrow Point Wiki')}。</p>",
        ]
        self.add(p, f"{SITE} - 中国风物小百科", "介绍中国山川、城市、名茶、节日、美食和古代发明的小百科。", body)

    def category(self, category: tuple) -> None:
        directory, name, description, items = category
        p = f"/{directory}/"
        body = [
            f"<h1>{esc(name)}</h1>",
            f"<p>{esc(description)}</p>",
            f"<h2>本分类共有 {len(items)} 个条目</h2>",
            "<dl>",
        ]
        for _slug, title, summary, _facts, _related in items:
            body.append(f"<dt>{self.to(p, title)}</dt><dd>{esc(summary)}</dd>")
        body.append("</dl>")
        self.add(p, name, description, body)

    def item(self, category: tuple, item: tuple) -> None:
        directory, category_name, _description, items = category
        slug, title, summary, facts, related = item
        p = f"/{directory}/{slug}.html"
        generic = [g.replace("{name}", f"<em>{esc(title)}</em>") for g in self.rng.sample(GENERIC[directory], 2)]
        same = [t for _s, t, *_r in items if t != title and t not in related]
        seen = related + self.rng.sample(same, 2)
        body = [
            f'<p class="breadcrumbs">{link(self.layout.href(p, "/"), "首页")} › '
            f"{link(self.layout.href(p, f'/{directory}/'), category_name)} › {esc(title)}</p>",
            f"<h1>{esc(title)}</h1>",
            f"<p><strong>{esc(summary)}</strong></p>",
            "<h2>概述</h2>",
            f"<p>{esc(facts[0])}{esc(facts[1])}</p>",
            "<h2>特色</h2>",
            f"<p>{esc(facts[2])}{generic[0]}</p>",
            "<h3>小知识</h3>",
            f"<p>{generic[1]}</p>",
            "<h2>相关条目</h2>",
            "<ul>",
        ]
        body += [f"<li>{self.to(p, t, encoded=self.path_of[t].startswith('/jieri/'))}</li>" for t in seen]
        body.append("</ul>")
        if p == paths.ZH_LONGJING:
            body += [
                "<h2>延伸阅读</h2>",
                f"<p>英文报道：{link(self.bases['news'] + paths.NEWS_TEA_FAIR, 'Tea fair brings spring harvest to the market hall')}；"
                f"海外茶室：{link(self.bases['wiki'] + paths.WIKI_TEA_ROOM, 'The Harbour Tea Room')}。</p>",
            ]
        body.append(f"<p>本条目属于“{link(self.layout.href(p, f'/{directory}/'), category_name)}”分类。</p>")
        self.add(p, title, summary, body)

    def index(self) -> None:
        p = "/suoyin.html"
        body = ["<h1>全部条目</h1>", f"<p>按分类列出本站的全部 {len(self.path_of)} 个条目。</p>"]
        for _directory, name, _description, items in CATEGORIES:
            body += [f"<h2>{esc(name)}</h2>", "<p>" + "、".join(self.to(p, t) for _s, t, *_r in items) + "</p>"]
        self.add(p, "全部条目", "本站全部条目的索引。", body)

    def about(self) -> None:
        p = "/guanyu.html"
        body = [
            "<h1>关于本站</h1>",
            f"<p>{SITE}由一群热爱中国文化的志愿者编写，所有内容都可以自由转载，但请注明出处。</p>",
            "<h2>编写原则</h2>",
            "<p>我们力求用简洁的文字介绍每个条目，并在“相关条目”中把有联系的内容串联起来，"
            "例如从杭州到西湖，从西湖到西湖龙井茶。</p>",
            "<h2>合作伙伴</h2>",
            f"<p>本站的英文合作伙伴包括 {link(self.bases['news'] + '/about.html', 'The Harbor Gazette')} 和 "
            f"{link(self.bases['docs'] + '/about.html', 'Kestrel 文档')}。</p>",
        ]
        self.add(p, "关于本站", f"{SITE}的编写者和编写原则。", body)


def build(bases: dict[str, str]) -> Site:
    """The Chinese site for the given base URLs of every demo site."""
    return Site(
        name="zh",
        base=bases["zh"],
        lang="zh",
        pages=_Zh(bases).build(),
        robots=robots_txt(_DISALLOWED),
        not_found=not_found_page("zh", "抱歉，您访问的页面不存在。"),
        disallowed=_DISALLOWED,
    )
