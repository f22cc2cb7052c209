"""Small text helpers for messages: sizes, plurals, and safe excerpts of user content.

Messages quote files that an attacker may have written, so every fragment of
user content goes through :func:`excerpt`, which truncates it and hides long
token-like runs (keys, passwords, hashes) instead of echoing them.
"""

from __future__ import annotations

_KIB = 1024
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.")
_TOKEN_RUN = 20


def human_size(n: int) -> str:
    """Render a byte count: ``1000 B``, ``25.0 KB``, ``2.0 MB``, ``1.5 GB`` (1024-based).

    Below 1 KiB the exact count is shown, so a small custom cap never reads
    ``0 KB``.
    """
    if n < _KIB:
        return f"{n} B"
    for unit, scale in (("KB", _KIB), ("MB", _KIB**2)):
        if n < scale * _KIB:
            return f"{n / scale:.1f} {unit}"
    return f"{n / _KIB**3:.1f} GB"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``plural(1, "line")`` -> ``"1 line"``; ``plural(2, "line")`` -> ``"2 lines"``."""
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count} {word}"


def _looks_like_secret(run: str) -> bool:
    """Heuristic for a credential-like run: a long stretch mixing letters and digits.

    The run is cut at word separators (``-``, ``.``, ``_``); a piece of 16 or
    more characters holding both letters and digits looks like a key, token
    or hash. Slugs, file names, dates and UUIDs stay readable.
    """
    piece: list[str] = []
    for ch in run + "-":
        if ch in "-._":
            if (
                len(piece) >= 16
                and any(c.isdigit() for c in piece)
                and any(c.isalpha() for c in piece)
            ):
                return True
            piece = []
        else:
            piece.append(ch)
    return False


def _mask_secret_runs(text: str) -> str:
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        token = "".join(run)
        if len(token) >= _TOKEN_RUN and _looks_like_secret(token):
            out.append(token[:4] + "…")
        else:
            out.append(token)
        run.clear()

    for ch in text:
        if ch in _TOKEN_CHARS:
            run.append(ch)
        else:
            flush()
            out.append(ch)
    flush()
    return "".join(out)


def _escape_unprintable(ch: str) -> str:
    if ch.isprintable():
        return ch
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def excerpt(text: str, limit: int = 40) -> str:
    """A short, quoted, single-line rendering of untrusted text for a message.

    Control characters are escaped, credential-like runs of 20+ characters
    are cut to their first four, and the result is truncated to ``limit`` characters.
    """
    cleaned = "".join(_escape_unprintable(ch) for ch in text[: limit * 4])
    cleaned = _mask_secret_runs(cleaned)
    if len(cleaned) > limit or len(text) > limit * 4:
        cleaned = cleaned[:limit].rstrip() + "…"
    return "'" + cleaned + "'"
