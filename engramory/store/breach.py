"""The one wording of an index over its cap, and of the advice for it.

``engramory check``, the doctor, the guard and ``sync status`` all say a
breach with :func:`words`, so they cannot drift apart: "over the hard cap on
lines (201 > 200) and bytes (25001 > 25000)", then what to do first. The guard
imports this module only when it has something to say.
"""

from __future__ import annotations

from engramory.store.caps import BYTES, LINES, Caps, Measurement
from engramory.util.textfmt import human_size, plural

_ADVICE = {
    BYTES: "shorten the longest index lines first (a title and a short hook; the detail "
    "belongs in the note)",
    LINES: "merge duplicate pointers and archive cold notes (move them to archive/ and drop "
    "their lines)",
}


def words(
    measured: Measurement, caps: Caps, hard: bool = True, dims: list[str] | None = None
) -> tuple[str, str]:
    """How ``measured`` breaks the hard (or the soft) cap, and what to do first.

    Returns ``("over the hard cap on lines (201 > 200) and bytes (25001 >
    25000)", advice)``, or ``("", "")`` within the cap. ``dims`` narrows the
    breach to some of the dimensions over the cap (the guard names only those an
    edit grows). The advice starts with the bytes (shorter lines), then the
    lines (merge and archive); it never says "compact", so callers can.
    """
    line_cap, byte_cap = (
        (caps.hard_lines, caps.hard_bytes) if hard else (caps.warn_lines, caps.warn_bytes)
    )
    over_dims = measured.over(line_cap, byte_cap)
    if dims is not None:
        over_dims = [d for d in over_dims if d in dims]
    if not over_dims:
        return "", ""
    detail = " and ".join(
        f"lines ({measured.lines} > {line_cap})"
        if d == LINES
        else f"bytes ({measured.bytes:,} > {byte_cap:,})"
        for d in over_dims
    )
    advice = "; then ".join(_ADVICE[d] for d in (BYTES, LINES) if d in over_dims)
    return f"over the {'hard' if hard else 'soft'} cap on {detail}", advice


def limits_text(lines: int, size: int) -> str:
    """``200 lines / 25,000 B``: a pair of caps, each count with the right plural."""
    return f"{plural(lines, 'line')} / {human_size(size)}"


def caps_text(caps: Caps) -> str:
    """``soft cap 150 lines / 20,480 B, hard cap 200 lines / 25,000 B``."""
    return (
        f"soft cap {limits_text(caps.warn_lines, caps.warn_bytes)}, "
        f"hard cap {limits_text(caps.hard_lines, caps.hard_bytes)}"
    )


def size_text(measured: Measurement) -> str:
    """``12 lines / 1,234 B``, or only the size when the lines were not counted."""
    if measured.lines is None:
        return human_size(measured.bytes)
    return f"{plural(measured.lines, 'line')} / {human_size(measured.bytes)}"
