"""A store's deliberate exceptions: ``.engramory/allow-secrets``, values allowed by fingerprint.

One entry a line: the lower-case hex SHA-256 of the bare value, or a prefix of it
of at least 12 characters; ``#`` starts a comment; blank lines are ignored. The
file never holds a value. A line that is not such a fingerprint is reported by
:func:`parse` and otherwise ignored.
"""

from __future__ import annotations

import hashlib
import os

FILE = (".engramory", "allow-secrets")
MIN_PREFIX = 12
READ_LIMIT = 1 << 20
_HEX = frozenset("0123456789abcdef")


def fingerprint(value: str) -> str:
    """The fingerprint an allow list entry gives for ``value``."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def parse(text: str) -> tuple[tuple[str, ...], list[int]]:
    """``(prefixes, bad line numbers)`` of an allow-list file's text."""
    prefixes: list[str] = []
    bad: list[int] = []
    for number, raw in enumerate(text.splitlines(), 1):
        entry = raw.split("#", 1)[0].strip()
        if not entry:
            continue
        if MIN_PREFIX <= len(entry) <= 64 and all(ch in _HEX for ch in entry):
            prefixes.append(entry)
        else:
            bad.append(number)
    return tuple(prefixes), bad


class AllowList:
    """The fingerprints a store allows; callable as the scan's ``allowed`` test."""

    def __init__(self, prefixes: tuple[str, ...] = ()) -> None:
        self.prefixes = prefixes

    def __bool__(self) -> bool:
        return bool(self.prefixes)

    def __call__(self, value: str) -> bool:
        return bool(self.prefixes) and fingerprint(value).startswith(self.prefixes)


def load(root: str) -> AllowList:
    """The allow list of the store at ``root`` (empty when absent, unreadable or a link)."""
    from engramory.util import fsutil  # noqa: PLC0415 - only a store with a list pays for it

    path = os.path.join(root, *FILE)
    try:
        if os.path.islink(path) or os.path.islink(os.path.dirname(path)):
            return AllowList()
        raw = fsutil.read_bounded(path, READ_LIMIT)
    except (OSError, ValueError):
        return AllowList()
    if raw is None:
        return AllowList()
    return AllowList(parse(raw.decode("utf-8", "replace"))[0])
