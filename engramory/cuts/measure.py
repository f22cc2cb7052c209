"""Read one host's memory file (bounded, never through a symlink out of its folder) and cut it.

The I/O edge of the package: given the file a host loads (:func:`registry.loaded_file`),
:func:`measure` reads it and returns the cut and what falls off.
"""

from __future__ import annotations

import os

from engramory.cuts import registry
from engramory.cuts.falloff import FallOff, falls_off
from engramory.cuts.model import Cut
from engramory.util import fsutil
from engramory.util.errors import InputMissingError

READ_LIMIT = 4 * 1024 * 1024  # past this no host loads the file in full anyway


def read(path: str, root: str) -> bytes:
    """The file's bytes: inside ``root``, not a symlink at the last moment, at most READ_LIMIT."""
    if fsutil.escapes(path, root) is not None:
        raise InputMissingError(f"{path} leads outside {root}; not followed")
    try:
        return fsutil.read_bounded_stat(fsutil.resolve(path), READ_LIMIT, follow_symlinks=False)[0]
    except fsutil.FileTooLargeError as exc:
        raise InputMissingError(
            f"{path} is {exc.size:,} bytes, over the {READ_LIMIT:,}-byte read limit: no host "
            "loads it in full; compact it first"
        ) from exc
    except fsutil.NotRegularFileError as exc:
        raise InputMissingError(f"{path} is not a regular file; nothing to measure") from exc
    except FileNotFoundError as exc:
        raise InputMissingError(f"{path} does not exist") from exc
    except OSError as exc:
        raise InputMissingError(f"cannot read {path}: {fsutil.os_error_text(exc)}") from exc


def measure(
    host: str, path: str, root: str, version: tuple[int, ...] | None = None
) -> tuple[Cut, list[FallOff]]:
    """``host``'s cut of the file at ``path`` (in store ``root``) and the lines that fall off."""
    data = read(path, root)
    cut = registry.cut(host, data, os.path.basename(path), version)
    text = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    return cut, falls_off(root, text.decode("utf-8", "replace"), cut)
