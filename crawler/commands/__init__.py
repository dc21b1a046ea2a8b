"""Scrapy commands of this project (``COMMANDS_MODULE``)."""
