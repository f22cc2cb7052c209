"""Console output: streams that survive any terminal encoding, and colour only where wanted.

Messages use a few non-ASCII characters (an em dash, an ellipsis) and quote
note content in any language. On an ASCII or legacy code-page console
(``PYTHONIOENCODING=ascii``, cp437, the POSIX C locale) printing them must
degrade to escapes, never raise ``UnicodeEncodeError``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Callable


def make_streams_safe() -> None:
    """Switch stdout and stderr to ``backslashreplace`` for unencodable characters."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or exotic stream: leave it alone
                pass


COLOR_CHOICES = ("auto", "always", "never")
# Select Graphic Rendition codes for the words the reports colour.
_SGR = {
    "error": "1;31",
    "warning": "33",
    "info": "36",
    "OVER": "1;31",
    "WARN": "33",
    "OK": "32",
}


def colour_wanted(choice: str, is_tty: bool, environ: Mapping[str, str]) -> bool:
    """``--color``: ``always`` colours (even with ``NO_COLOR``), ``never`` does not, ``auto``
    only a terminal when ``NO_COLOR`` is unset or empty (https://no-color.org)."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    return is_tty and not environ.get("NO_COLOR")


def stdout_colour(choice: str) -> bool:
    """:func:`colour_wanted` for standard output and this process's environment."""
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        is_tty = bool(isatty and isatty())
    except (ValueError, OSError):  # a closed or exotic stream
        is_tty = False
    return colour_wanted(choice, is_tty, os.environ)


def _plain(word: str) -> str:
    return word


def _coloured(word: str) -> str:
    code = _SGR.get(word)
    return word if code is None else f"\x1b[{code}m{word}\x1b[0m"


def painter(enabled: bool) -> Callable[[str], str]:
    """A function that colours a severity or verdict word (``error``, ``OVER`` ...) when
    ``enabled``, else returns it unchanged."""
    return _coloured if enabled else _plain
