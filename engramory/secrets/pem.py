"""Private-key blocks (PEM, OpenSSH, PGP): a header, then at least one line of key body.

Read by hand rather than by one regular expression, so the cost of a header is
bounded whatever follows it (a pattern over optional header lines once took
seconds on a few hundred bytes of ``A:`` pieces). A block runs to its
``-----END …-----`` line, or, cut off before that, to the end of its body lines.
"""

from __future__ import annotations

import re

HEADER = re.compile(r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----")
BODY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
MIN_BODY = 16  # base64 characters on the first body line: a header named in prose has none
MAX_LINE = 4096  # a body line longer than this is read no further
MAX_HEADER_LINES = 4  # ``Proc-Type:``, ``DEK-Info:``, ``Version:``, ``Comment:``
LOOKAHEAD = 1 << 16  # how far the END line or the body's end is looked for
_LINE_BREAKS = ("\n", "\\n")  # a real one, or JSON's escaped one
_SPACE = " \t\r>"


def _skip_space(text: str, at: int, limit: int) -> int:
    """Past blanks, quote markers and line breaks (real or escaped) from ``at``."""
    while at < limit:
        if text[at] in _SPACE or text[at] == "\n":
            at += 1
        elif text.startswith("\\n", at) or text.startswith("\\r", at):
            at += 2
        else:
            break
    return at


def _line_end(text: str, at: int, limit: int) -> int:
    """Where the line starting at ``at`` ends (a real or escaped break, or ``limit``)."""
    ends = [text.find(brk, at, limit) for brk in _LINE_BREAKS]
    found = [end for end in ends if end != -1]
    return min(found) if found else limit


def _is_header_line(line: str) -> bool:
    """``Proc-Type: 4,ENCRYPTED`` and the like: a short name of letters and ``-``, a colon."""
    colon = line.find(":", 0, 41)
    return colon > 0 and all(ch.isascii() and (ch.isalpha() or ch == "-") for ch in line[:colon])


def _is_body_line(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= MIN_BODY and all(ch in BODY_CHARS for ch in stripped)


def body_start(text: str, header_end: int) -> int | None:
    """Where the first body line after a header starts; ``None`` when there is none."""
    limit = min(len(text), header_end + LOOKAHEAD)
    at = header_end
    for _ in range(MAX_HEADER_LINES + 1):
        at = _skip_space(text, at, limit)
        end = _line_end(text, at, min(limit, at + MAX_LINE))
        line = text[at:end]
        if _is_body_line(line):
            return at
        if not _is_header_line(line):
            return None
        at = end
    return None


def block_end(text: str, body: int) -> int:
    """The end of the block whose body starts at ``body``: after its END line when that is
    the next marker, else after its last body line."""
    limit = min(len(text), body + LOOKAHEAD)
    marker = text.find("-----", body, limit)
    if marker != -1 and text.startswith("-----END", marker):
        close = text.find("-----", marker + 8, marker + 200)
        if close != -1:
            return close + 5
    stop = marker if marker != -1 else limit
    at, last = body, body
    while at < stop:
        end = _line_end(text, at, min(stop, at + MAX_LINE))
        if not _is_body_line(text[at:end]):
            break
        last = end
        at = _skip_space(text, end, stop)
    return last


def find_blocks(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every private-key block with a body, in order."""
    found: list[tuple[int, int]] = []
    at = 0
    while True:
        header = HEADER.search(text, at)
        if header is None:
            return found
        body = body_start(text, header.end())
        if body is None:
            at = header.end()
            continue
        end = block_end(text, body)
        found.append((header.start(), end))
        at = max(end, header.end())
