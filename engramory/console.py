"""Console output that survives any terminal encoding.

Messages use a few non-ASCII characters (an em dash, an ellipsis) and quote
note content in any language. On an ASCII or legacy code-page console
(``PYTHONIOENCODING=ascii``, cp437, the POSIX C locale) printing them must
degrade to escapes, never raise ``UnicodeEncodeError``.
"""

from __future__ import annotations

import sys


def make_streams_safe() -> None:
    """Switch stdout and stderr to ``backslashreplace`` for unencodable characters."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or exotic stream: leave it alone
                pass
