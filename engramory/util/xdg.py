"""Engramory's folders in the user's XDG base directories (history, state, caches).

Each is ``$XDG_<KIND>_HOME/engramory``, else the XDG default under the home folder;
an override variable (``ENGRAMORY_HISTORY_DIR``, ``ENGRAMORY_STATE_DIR``...) wins.
An XDG variable that is not an absolute path is ignored, as the specification says.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

_DEFAULTS = {"STATE": (".local", "state"), "CACHE": (".cache",)}


def engramory_folder(kind: str, environ: Mapping[str, str], override: str | None = None) -> str:
    """The folder of ``kind`` (``STATE`` or ``CACHE``) that Engramory's files go in.

    ``override`` names a variable that, when set, is the folder itself.
    """
    chosen = environ.get(override, "").strip() if override else ""
    if chosen:
        return os.path.abspath(os.path.expanduser(chosen))
    base = environ.get(f"XDG_{kind}_HOME", "").strip()
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), *_DEFAULTS[kind])
    return os.path.join(base, "engramory")
