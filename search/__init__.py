"""Search: query parsing, ranking and snippets (engine), the CLI and the web page."""
