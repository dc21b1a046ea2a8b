"""The search page's own words, in each language it speaks (pure).

What the page says around the results (its buttons, counts, links and
help) is ours to translate; what the results say is the crawled pages'.
The language is the one the page is asked for (``hl=zh``), else the first
of the browser's ``Accept-Language`` the page speaks, else English.

Each phrase is an HTML template of ours: :meth:`Wording.say` fills it with
values the caller has escaped already.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LANGUAGES", "Wording", "interface_language"]

_ENGLISH = {
    "search": "Search",
    "title": "{query} – Search",
    "did_you_mean": "Did you mean: {suggestion}?",
    "showing": "Showing results for {shown}; search instead for {typed}.",
    "results": "Results {first}-{last} of {total} for {query} ({ms} ms)",
    "past_end": "Page {page} is past the end: {total} results for {query}, page {last} is the last.",
    "no_results": "No results for {query}.",
    "facet_site": "Sites",
    "facet_lang": "Languages",
    "facet_type": "Types",
    "facet_access": "Access",
    "members_only": "members only",
    "members_why": "Crawled with the site owner's permission: log in on the site to open it",
    "not_fetched": "[not fetched]",
    "also_in": "also in:",
    "more_from_site": "{count} more from this site",
    "fetched": "fetched {date}",
    "cached": "cached",
    "previous": "‹ Previous",
    "next": "Next ›",
    "result_pages": "Result pages",
    "help": (
        "Pages holding all the words come first, then pages holding most of them; a question "
        '(<code>how do I …?</code>) is searched without its question words. <code>"exact phrase"</code>, '
        "<code>+word</code> to require a word, <code>-word</code> to exclude one, <code>a OR b</code>, "
        "<code>site:docs.example.org</code>, <code>title:word</code>, <code>lang:xx</code> for pages in one "
        "language{held}, <code>type:pdf</code> for one type of document (<code>html</code>, <code>pdf</code>, "
        "<code>text</code>, <code>media</code>)."
    ),
    "held": " (here: {codes})",
    "about_title": "What you can search",
    "about": (
        "{documents} documents: {crawled} crawled pages from {sites} {site_word}, and {anchor_only} known "
        "only by the links to {them}. Languages: {languages}. The index last changed {when}."
    ),
    "site_word": "site",
    "sites_word": "sites",
    "it": "it",
    "them": "them",
    "no_languages": "none yet",
    "never": "never",
    "site": "site",
    "pages": "pages",
    "last_fetched": "last fetched",
    "more_sites": "and {count} more sites.",
}

_CHINESE = {
    "search": "搜索",
    "title": "{query} – 搜索",
    "did_you_mean": "您是不是要找：{suggestion}？",
    "showing": "以下是 {shown} 的结果；仍然搜索 {typed}。",
    "results": "{query} 的结果：第 {first}-{last} 条，共 {total} 条（{ms} 毫秒）",
    "past_end": "第 {page} 页超出了范围：{query} 共 {total} 条结果，最后一页是第 {last} 页。",
    "no_results": "没有找到 {query} 的结果。",
    "facet_site": "网站",
    "facet_lang": "语言",
    "facet_type": "类型",
    "facet_access": "访问",
    "members_only": "仅限会员",
    "members_why": "经网站所有者许可抓取：请在该网站登录后打开",
    "not_fetched": "[未抓取]",
    "also_in": "其他语言：",
    "more_from_site": "此网站还有 {count} 条",
    "fetched": "抓取于 {date}",
    "cached": "网页快照",
    "previous": "‹ 上一页",
    "next": "下一页 ›",
    "result_pages": "结果页",
    "help": (
        "包含全部词语的网页排在前面，其次是包含大部分词语的网页；问句（<code>如何……？</code>）"
        '搜索时会去掉疑问词。<code>"精确短语"</code>，<code>+词语</code> 必须包含，<code>-词语</code> 排除，'
        "<code>a OR b</code>，<code>site:docs.example.org</code>，<code>title:词语</code>，"
        "<code>lang:xx</code> 只看一种语言的网页{held}，<code>type:pdf</code> 只看一种类型的文档"
        "（<code>html</code>、<code>pdf</code>、<code>text</code>、<code>media</code>）。"
    ),
    "held": "（本索引有：{codes}）",
    "about_title": "可以搜索的内容",
    "about": (
        "共 {documents} 个文档：来自 {sites} 个网站的 {crawled} 个已抓取网页，以及 {anchor_only} 个"
        "只从指向它们的链接得知的网页。语言：{languages}。索引最近更新于 {when}。"
    ),
    "site_word": "",
    "sites_word": "",
    "it": "",
    "them": "",
    "no_languages": "暂无",
    "never": "从未",
    "site": "网站",
    "pages": "网页",
    "last_fetched": "最近抓取",
    "more_sites": "还有 {count} 个网站。",
}

_PHRASES = {"en": _ENGLISH, "zh": _CHINESE}
# The languages the page speaks, as ``hl`` takes them.
LANGUAGES = tuple(_PHRASES)


@dataclass(frozen=True)
class Wording:
    """The page's phrases in one of :data:`LANGUAGES`."""

    language: str = "en"

    def say(self, phrase: str, **values: object) -> str:
        """The phrase filled with ``values`` (HTML already).

        >>> Wording("zh").say("more_from_site", count=3)
        '此网站还有 3 条'
        """
        return _PHRASES[self.language][phrase].format(**values)


def interface_language(asked: str, accepted: Sequence[str]) -> str:
    """The language the page speaks: ``asked`` (``hl``) if given, else
    the first of the ``accepted`` ones (primary tags, best first) it
    speaks, else English.

    >>> interface_language("", ("fr", "zh", "en")), interface_language("en", ("zh",)), interface_language("", ())
    ('zh', 'en', 'en')
    """
    return asked or next((language for language in accepted if language in _PHRASES), "en")
