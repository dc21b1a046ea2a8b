"""What the command-line programs print on standard output."""

from __future__ import annotations

import os
import sys

__all__ = ["emit"]


def emit(text: str) -> None:
    """Print ``text``; a reader that left early (``| head``) ends it
    quietly, with no traceback now or when the interpreter exits."""
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
