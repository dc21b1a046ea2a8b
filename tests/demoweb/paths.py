"""Paths that one demo site links to on another.

Sites are generated independently, so the pages they point at across site
boundaries are named here once; the test suite's link walk fails if a site
stops serving one of them.
"""

from __future__ import annotations

DOCS_JSON = "/library/json.html"
DOCS_HTTP = "/library/http.html"
DOCS_THREADING = "/library/threading.html"
DOCS_TUTORIAL_JSON = "/tutorial/json-config.html"

NEWS_KESTREL_RELEASE = "/technology/2024/05/21/kestrel-2-6-speeds-up-json-encoding.html"
NEWS_TEA_FAIR = "/culture/2024/04/18/tea-fair-brings-spring-harvest-to-the-market-hall.html"
NEWS_LIGHT_APPEAL = "/city/2024/02/06/appeal-launched-to-restore-the-merrow-point-light.html"

ZH_LONGJING = "/mingcha/xihu-longjing.html"
ZH_HANGZHOU = "/chengshi/hangzhou.html"

WIKI_COMPUTER_CLUB = "/articles/computer-club.html"
WIKI_LIGHT = "/articles/merrow-point-light.html"
WIKI_TEA_ROOM = "/articles/harbour-tea-room.html"
