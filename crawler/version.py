"""Lantern's version: one home, shown by every command's ``--version`` and in the crawler's User-Agent."""

VERSION = "0.1"
