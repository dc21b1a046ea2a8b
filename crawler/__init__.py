"""The crawler: a Scrapy project whose frontier lives in Redis.

Public pure functions: :func:`crawler.urls.canonicalize`,
:func:`crawler.urls.fingerprint`, :func:`crawler.urls.trap_reason` and
:func:`crawler.robots.allowed`.
"""
