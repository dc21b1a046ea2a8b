"""Per-site boilerplate: blocks repeated across a site's pages leave the body."""

from __future__ import annotations

import pytest

from crawler.boilerplate import BoilerplateDetector, block_key
from crawler.extract import Page, extract, extract_html
from crawler.extractors.html import lead

SITE = "http://shop.test"

# A layout made of plain divs, so markup alone cannot tell its chrome.
_LAYOUT = """<html><head><title>{title}</title></head><body>
<div class="top"><div>Acme Tea Shop</div><div><a href="/">Home</a> | <a href="/teas/">Teas</a>
| <a href="/about/">About us</a></div></div>
<div class="content"><h1>{title}</h1><p>{story}</p><p>{more}</p></div>
<div class="bottom"><p>Free shipping on orders over 30 euros.</p>
<p>Copyright 2001-{year} Acme Tea Shop. All rights reserved.</p></div>
</body></html>"""
_TEAS = [
    "Longjing",
    "Biluochun",
    "Tieguanyin",
    "Pu-erh",
    "Sencha",
    "Gyokuro",
    "Darjeeling",
    "Assam",
    "Keemun",
    "Oolong",
]
_SHARED = ["Acme Tea Shop", "Home | Teas | About us", "Free shipping on orders over 30 euros."]


def _ten_pages() -> list[Page]:
    pages = []
    for number, tea in enumerate(_TEAS):
        html = _LAYOUT.format(
            title=f"{tea} tea",
            story=f"{tea} is a tea with its own story.",
            more=f"Brew {tea} at {70 + number} degrees.",
            year=2015 + number,
        )
        pages.append(extract(html.encode(), f"{SITE}/teas/{number}.html", "text/html").page)
    return pages


def test_ten_pages_sharing_nav_and_footer() -> None:
    detector = BoilerplateDetector()  # 5 pages and 30% of the site's pages
    pages = _ten_pages()
    dropped = [detector.strip(page) for page in pages]
    # The first four pages are not filtered yet; from the fifth on, the shared
    # blocks (the copyright line differs only by its year) are gone.
    assert dropped == [0, 0, 0, 0, 4, 4, 4, 4, 4, 4]
    for number, (tea, page) in enumerate(zip(_TEAS, pages, strict=False)):
        unique = [f"{tea} tea", f"{tea} is a tea with its own story.", f"Brew {tea} at {70 + number} degrees."]
        if number < 4:
            assert all(block in page.blocks for block in _SHARED + unique)
        else:
            assert page.blocks == unique
            assert page.text == " ".join(unique)
        # Links in the repeated blocks are still there to follow.
        assert [link.url for link in page.links] == [f"{SITE}/", f"{SITE}/teas/", f"{SITE}/about/"]


def test_blocks_on_a_minority_of_pages_stay() -> None:
    detector = BoilerplateDetector(min_pages=2, share=0.3)
    for number in range(20):
        blocks = ["Site menu", f"Story {chr(65 + number)}"]
        if number % 5 == 0:
            blocks.append("A quote seen on every fifth page")  # 20%: content
        detector.observe(SITE, blocks)
    assert detector.filter(SITE, ["Site menu", "A quote seen on every fifth page", "New"]) == [
        "A quote seen on every fifth page",
        "New",
    ]


def test_sites_are_counted_apart() -> None:
    detector = BoilerplateDetector(min_pages=2, share=0.5)
    for _ in range(3):
        detector.observe("http://a.test", ["Shared words"])
    assert detector.is_boilerplate("http://a.test", "Shared words")
    assert not detector.is_boilerplate("http://b.test", "Shared words")
    assert not detector.is_boilerplate("https://a.test", "Shared words")


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("Page 3 of 12", "Page 4 of 13", True),
        ("Copyright 2001-2024", "COPYRIGHT  2001-2025", True),
        ("Home About", "Home  about", True),
        ("Home", "About", False),
        ("西湖龙井", "西湖 龙井", False),
    ],
)
def test_block_keys_normalize_case_space_and_digits(one: str, other: str, same: bool) -> None:
    assert (block_key(one) == block_key(other)) is same


def test_memory_is_bounded_and_boilerplate_survives_forgetting() -> None:
    detector = BoilerplateDetector(min_pages=3, share=0.3, max_blocks=64, max_sites=4)
    for number in range(200):
        detector.observe(SITE, ["Shared menu", f"unique block {chr(0x4E00 + number)}"])
    assert len(detector._sites[SITE].counts) <= 64
    assert detector.is_boilerplate(SITE, "Shared menu")
    for site in range(10):
        detector.observe(f"http://site{site}.test", ["x"])
    assert len(detector._sites) == 4
    assert SITE not in detector._sites  # the least recently seen site was forgotten


def test_only_html_pages_are_stripped() -> None:
    detector = BoilerplateDetector(min_pages=1, share=0.0)
    page = Page(f"{SITE}/a.pdf", text="Same", blocks=["Same"], kind="pdf")
    assert detector.strip(page) == 0 and page.blocks == ["Same"]
    assert detector.strip(Page(f"{SITE}/empty.html")) == 0


def test_strip_works_on_extract_html_pages() -> None:
    detector = BoilerplateDetector(min_pages=2, share=0.5)
    for name in ("a", "b", "c"):
        page = extract_html(f"<div>Menu</div><p>Text {name}</p>", f"{SITE}/{name}.html")
        detector.strip(page)
    assert page.text == "Text c"


@pytest.mark.parametrize(
    "arguments",
    [{"min_pages": 0}, {"share": 1.5}, {"share": -0.1}, {"max_blocks": 1}, {"max_sites": 0}],
)
def test_bad_parameters_are_refused(arguments: dict) -> None:
    with pytest.raises(ValueError):
        BoilerplateDetector(**arguments)


def test_the_opening_sentence_is_read_once_the_sites_notice_is_out() -> None:
    detector = BoilerplateDetector(min_pages=2, share=0.5)
    notice = "This tutorial has been rewritten as the new maintainers' guide, please read that one."
    for name in ("a", "b", "c"):
        page = extract_html(
            f"<h1>Chapter {name}</h1><p>{notice}</p><p>Chapter {name} explains how the "
            f"rules file builds the package.</p>",
            f"{SITE}/{name}.html",
        )
        detector.strip(page)
    assert lead(page.blocks, page.headings) == "Chapter c explains how the rules file builds the package."
