"""``python -m tests.demoweb [--port BASE]``: serve the demo web until Ctrl-C.

Prints each site's URL, then the line ``Demo web ready`` (flushed) once every
site listens, so a driver process can wait for that line instead of sleeping.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from .content import SITE_NAMES
from .server import serve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.demoweb", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        metavar="BASE",
        help="serve the sites on BASE, BASE+1, ... in the order " + ", ".join(SITE_NAMES) + " (default: free ports)",
    )
    args = parser.parse_args(argv)
    ports = {name: args.port + i for i, name in enumerate(SITE_NAMES)} if args.port else None
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        # Also SIGINT explicitly: a shell starts background jobs with it ignored.
        signal.signal(signum, lambda _signum, _frame: stop.set())
    with serve(ports) as web:
        for name, base in web.sites.items():
            print(f"{name:5} {base}/")
        print("Demo web ready", flush=True)
        stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
