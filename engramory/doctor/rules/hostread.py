"""Reading one of a host's own files in the store, for the host-dialect rules (Codex, Hermes).

Bounded and contained (:func:`engramory.cuts.measure.read`); a file that is absent, too
large or unreadable is ``None``, and those rules stay quiet on it.
"""

from __future__ import annotations

import os

from engramory.cuts import measure
from engramory.util.errors import InputMissingError


def file_bytes(root: str, name: str) -> bytes | None:
    """The bytes of ``root/name``, or ``None`` when it cannot be read as a memory file."""
    path = os.path.join(root, name)
    if not os.path.lexists(path):
        return None
    try:
        return measure.read(path, root)
    except InputMissingError:
        return None
