"""Small text helpers for messages: sizes, plurals, and terminal-safe lines.

Messages quote files that an attacker may have written, so every fragment of
user content goes through :func:`engramory.secrets.excerpts.excerpt` (it needs the
secret detector, which sits above these helpers).

Every line of text output that can carry file-derived text (a path, a title, a
message quoting either) goes through :func:`printable` where it is printed, so
a file name cannot forge an output line or send an escape sequence to the
terminal. JSON output needs no such step: ``json.dumps`` escapes already.
"""

from __future__ import annotations


def human_size(n: int) -> str:
    """Render a byte count in the one unit every output uses: ``816 B``, ``25,000 B``.

    Exact bytes with thousands separators, so a size reads the same as the caps
    it is compared with (the rules say "25,000 bytes"; a KiB figure beside a
    decimal cap would read as two units).
    """
    return f"{n:,} B"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``plural(1, "line")`` -> ``"1 line"``; ``plural(2, "line")`` -> ``"2 lines"``."""
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count} {word}"


_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPE_TABLE: dict[int, str] = {}


# The code points printable() escapes, as half-open ranges.
_TERMINAL_UNSAFE = (
    (0x00, 0x20),  # C0 controls, line breaks and tab included
    (0x7F, 0xA0),  # DEL and the C1 controls (0x9b is a one-byte CSI on some terminals)
    (0x061C, 0x061D),  # Arabic letter mark (bidi)
    (0x200E, 0x2010),  # left-to-right and right-to-left marks (bidi)
    (0x2028, 0x202F),  # line and paragraph separators, bidi embeddings and overrides
    (0x2066, 0x206A),  # bidi isolates
    (0xD800, 0xE000),  # lone surrogates (undecodable bytes in a file name)
)


def _escape_table() -> dict[int, str]:
    if not _ESCAPE_TABLE:
        for start, stop in _TERMINAL_UNSAFE:
            for code in range(start, stop):
                short = _SHORT_ESCAPES.get(chr(code))
                if short is not None:
                    _ESCAPE_TABLE[code] = short
                elif code < 0x100:
                    _ESCAPE_TABLE[code] = f"\\x{code:02x}"
                else:
                    _ESCAPE_TABLE[code] = f"\\u{code:04x}"
    return _ESCAPE_TABLE


def printable(text: str) -> str:
    """``text`` made safe to print as (part of) one terminal line.

    Escaped, so they show as visible text and do nothing: every C0 control
    (``\\n``, ``\\r``, ``\\t`` in their short forms, the rest as ``\\xNN``, so
    ``\\x1b`` for ESC and ``\\x07`` for BEL), DEL and the C1 controls
    (``\\x7f``-``\\x9f``), the Unicode line and paragraph separators and the bidi
    controls (``\\u2028``, ``\\u202e``, ...), and lone surrogates (bytes of a file
    name that are not UTF-8). Everything else is kept, so names in any script
    stay readable.

    A backslash is kept as it is, so Windows paths read naturally. The price is
    that a name holding the four characters ``\\x1b`` prints the same as one
    holding an ESC; either way nothing reaches the terminal but visible text,
    and ``--format json`` is the unambiguous form for a program.
    """
    if text.isprintable():  # the common case, decided in C; every escaped code is unprintable
        return text
    return text.translate(_escape_table())
