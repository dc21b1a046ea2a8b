"""Each Scrapy component of the crawl tested alone: built by Scrapy's
``get_crawler()`` from the project's settings, its methods called on made-up
requests and responses (tests/crawler/components/crawlers.py), so that a fault
names its component in a second instead of failing a whole crawl."""
