"""Find credentials' values in text, and redact them: one detector for every command.

The store is plain text an agent writes, so a pasted key is the costliest
mistake it can hold. The doctor's ``secret-value`` rule, the guard on every
host, ``new``, ``import``, the MCP write tools and ``trace`` all ask this
package, so they give the same answer.

* :mod:`~engramory.secrets.detectors`: the detectors as data (stable ids,
  gating keywords, patterns, examples that fire and near misses that do not);
* :mod:`~engramory.secrets.scan`: :func:`find`, :func:`first_per_line`,
  :func:`redact` and :func:`replace` over a text;
* :mod:`~engramory.secrets.values`: what is a placeholder, a pointer or a hash;
* :mod:`~engramory.secrets.allow`: a store's allow list of fingerprints;
* :mod:`~engramory.secrets.gate`: the keywords, importable without ``re``.

Importing this package costs nothing; the names below load the scan on first use.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engramory.secrets.scan import (
        Secret,
        find,
        first_per_line,
        redact,
        replace,
        shown_form,
    )

__all__ = ["Secret", "find", "first_per_line", "redact", "replace", "shown_form"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from engramory.secrets import scan  # noqa: PLC0415 - loaded on first use

        value = getattr(scan, name)
        globals()[name] = value  # the next lookup is a plain attribute: the doctor asks per note
        return value
    raise AttributeError(f"module 'engramory.secrets' has no attribute {name!r}")
