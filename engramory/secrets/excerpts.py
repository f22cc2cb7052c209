"""A safe excerpt of untrusted text for a message: short, one line, no secret in it.

Messages quote files that an attacker may have written, so every fragment of
user content goes through :func:`excerpt`, which truncates it, redacts every
secret :mod:`engramory.secrets` finds and hides other long token-like runs
(keys, hashes) instead of echoing them.
"""

from __future__ import annotations

_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.")
_TOKEN_RUN = 20


def _has_mixed_piece(run: str, separators: str, min_length: int) -> bool:
    """Whether cutting ``run`` at ``separators`` leaves a piece of ``min_length`` or more
    characters that holds both letters and digits."""
    piece: list[str] = []
    for ch in run + separators[0]:
        if ch in separators:
            if (
                len(piece) >= min_length
                and any(c.isdigit() for c in piece)
                and any(c.isalpha() for c in piece)
            ):
                return True
            piece = []
        else:
            piece.append(ch)
    return False


def _looks_like_path(run: str) -> bool:
    """A ``/``-separated run whose every component reads as a word, a number or a name.

    Paths stay readable (``%2e%2e/outside/secret.md`` once its ``%`` cuts the run
    is ``2e/outside/secret.md``); a base64 key that happens to hold a ``/`` still
    has a long piece mixing letters and digits, so it is not taken for a path.
    """
    return "/" in run and not _has_mixed_piece(run, "/-._", 8)


def _looks_like_secret(run: str) -> bool:
    """Heuristic for a credential-like run: a long stretch mixing letters and digits.

    The run is cut at word separators (``-``, ``.``, ``_``); a piece of 16 or
    more characters holding both letters and digits looks like a key, token
    or hash. Slugs, file names, paths, dates and UUIDs stay readable.
    """
    return not _looks_like_path(run) and _has_mixed_piece(run, "-._", 16)


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

    Every value :mod:`engramory.secrets` finds is cut to its first four characters
    (a password in a malformed line is never echoed), control characters are
    escaped, the remaining credential-like runs of 20+ characters are cut to their
    first four too, and the result is truncated to ``limit`` characters.
    """
    # Imported here: the scan loads ``re``; only a message that quotes text pays for it.
    from engramory.secrets import redact  # noqa: PLC0415

    cleaned = "".join(_escape_unprintable(ch) for ch in redact(text[: limit * 4]))
    cleaned = _mask_secret_runs(cleaned)
    if len(cleaned) > limit or len(text) > limit * 4:
        cleaned = cleaned[:limit].rstrip() + "…"
    return "'" + cleaned + "'"
