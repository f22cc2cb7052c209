"""The index guard's decision, independent of any host.

Given what the index is now and what a tool call would leave behind, decide:

* ``deny`` -- on some dimension (lines or bytes) the result would be over its
  hard cap *and* larger than the index is now;
* ``nudge`` -- allowed, with context for the agent: the result is still over a
  hard cap but this call shrinks or keeps it (compaction must be able to go
  step by step), or it lands in the soft zone, or the guard could not verify
  the call (the index exists but cannot be read, or the result cannot be
  predicted);
* ``silent`` -- nothing to say.

A missing index counts as empty, so a first write of 201 lines is denied. An
index that exists but cannot be read is never a reason to deny: the one edit
that would repair it must not be blocked on a guess.

This module is on the hook's hot path: it imports only what ``caps`` does.
"""

from __future__ import annotations

from engramory.caps import BYTES, LINES, Caps, count_lines, over
from engramory.guard.edits import encoded_size

DENY = "deny"
NUDGE = "nudge"
SILENT = "silent"

COMPACTION_HOW = (
    "(1) pointer-ify long lines -- a title and a short hook, the detail in the note; "
    "(2) merge duplicate or overlapping pointers; (3) archive cold notes (move them to "
    "archive/ and drop their lines, or fold them into one archive pointer). Edits that "
    "shrink the index are always allowed."
)
COMPACTION_STEPS = "Compact instead: " + COMPACTION_HOW
SCOPE_HINT = (
    "If this file is not your Engramory memory index, scope the guard to the real "
    "one with ENGRAMORY_INDEX_PATH=/path/to/store/MEMORY.md."
)


class Size:
    """An index measure: ``lines`` and ``bytes`` (``bytes_`` avoids the builtin)."""

    __slots__ = ("bytes_", "lines")

    def __init__(self, lines: int, bytes_: int) -> None:
        self.lines = lines
        self.bytes_ = bytes_

    @classmethod
    def of_raw(cls, raw: bytes) -> Size:
        return cls(count_lines(raw), len(raw))

    @classmethod
    def of_text(cls, text: str) -> Size:
        return cls(count_lines(text), encoded_size(text))

    def describe(self) -> str:
        from engramory.textfmt import human_size, plural  # noqa: PLC0415 - only when speaking

        return f"{plural(self.lines, 'line')} / {human_size(self.bytes_)}"


class Verdict:
    """What to answer: ``kind`` is ``deny``, ``nudge`` or ``silent``; ``message`` the text."""

    __slots__ = ("kind", "message")

    def __init__(self, kind: str, message: str = "") -> None:
        self.kind = kind
        self.message = message

    def __repr__(self) -> str:
        return f"Verdict({self.kind!r}, {self.message[:60]!r})"


def _dims_text(size: Size, dims: list[str], line_cap: int, byte_cap: int) -> str:
    parts = []
    for dim in dims:
        if dim == LINES:
            parts.append(f"{size.lines} lines > {line_cap}")
        else:
            parts.append(f"{size.bytes_} bytes > {byte_cap}")
    return " and ".join(parts)


def _limits(lines: int, bytes_: int) -> str:
    """``200 lines / 25000 bytes``, each count with the right plural."""
    from engramory.textfmt import plural  # noqa: PLC0415 - only when speaking

    return f"{plural(lines, 'line')} / {plural(bytes_, 'byte')}"


def _caps_text(caps: Caps) -> str:
    return (
        f"hard cap {_limits(caps.hard_lines, caps.hard_bytes)}, soft cap "
        f"{_limits(caps.warn_lines, caps.warn_bytes)}"
    )


def decide(current: Size | None, predicted: Size, caps: Caps) -> Verdict:
    """The verdict for a predicted index; ``current`` is ``None`` when there is no index yet."""
    now = current or Size(0, 0)
    hard = over(predicted.lines, predicted.bytes_, caps.hard_lines, caps.hard_bytes)
    growing = [
        dim
        for dim in hard
        if (predicted.lines > now.lines if dim == LINES else predicted.bytes_ > now.bytes_)
    ]
    if growing:
        return Verdict(
            DENY,
            f"Engramory: this would GROW the memory index from {now.describe()} to "
            f"{predicted.describe()}, past its hard cap "
            f"({_dims_text(predicted, growing, caps.hard_lines, caps.hard_bytes)}). "
            "Hosts stop loading the index past the cap, so whatever is appended there is "
            f"never recalled. Do not append. {COMPACTION_STEPS} If it is still over after "
            f"compacting, ask the user what to archive. ({_caps_text(caps)}.) {SCOPE_HINT}",
        )
    if hard:
        return Verdict(
            NUDGE,
            f"Engramory: the memory index is still over its hard cap after this edit "
            f"({_dims_text(predicted, hard, caps.hard_lines, caps.hard_bytes)}); the edit is "
            "allowed because it does not grow it. Keep compacting until it is within "
            f"{_limits(caps.hard_lines, caps.hard_bytes)}. {COMPACTION_STEPS}",
        )
    soft = over(predicted.lines, predicted.bytes_, caps.warn_lines, caps.warn_bytes)
    if soft:
        return Verdict(
            NUDGE,
            f"Engramory: the memory index will be {predicted.describe()}, over its soft cap "
            f"({_dims_text(predicted, soft, caps.warn_lines, caps.warn_bytes)}). It is allowed; "
            "offer the user a compaction pass before it reaches the hard cap "
            f"({_limits(caps.hard_lines, caps.hard_bytes)}).",
        )
    return Verdict(SILENT)


def unverified(reason: str) -> Verdict:
    """A nudge for a call the guard could not check (never a deny)."""
    return Verdict(
        NUDGE,
        f"Engramory: {reason}, so this change to the memory index was NOT checked against "
        "its cap. It is allowed; run `engramory check` on the index afterwards and compact "
        "if it reports WARN or OVER.",
    )


def shell_write(target: str) -> Verdict:
    """The deny for a shell command that would write the index."""
    return Verdict(
        DENY,
        f"Engramory: this shell command would write the memory index ({target}), and a "
        "shell write cannot be checked against the index's size cap before it lands. Use "
        "the Edit or Write tool on the index instead (those are checked; shrinking edits "
        "always pass). Reading it (cat, grep, wc) is fine. " + SCOPE_HINT,
    )


def after_the_fact(lines: int | None, size: int, caps: Caps) -> Verdict:
    """After a tool ran: ``deny`` (block feedback) when the index is now over a hard cap.

    ``lines`` is ``None`` when the file was too big to be worth reading.
    """
    hard = over(lines, size, caps.hard_lines, caps.hard_bytes)
    if not hard:
        return Verdict(SILENT)
    measured = Size(lines if lines is not None else 0, size)
    if lines is not None:
        what = measured.describe()
    else:
        from engramory.textfmt import human_size  # noqa: PLC0415 - only when speaking

        what = human_size(size)
    return Verdict(
        DENY,
        f"Engramory: the memory index is now {what}, over its hard cap "
        f"({_dims_text(measured, hard, caps.hard_lines, caps.hard_bytes)}). Hosts stop loading "
        f"it past the cap. Compact it now, before anything else: {COMPACTION_HOW}",
    )


def over_bytes_only(size_on_disk: int, caps: Caps) -> bool:
    """Whether a file is over the hard byte cap by its size alone (no need to read it)."""
    return BYTES in over(None, size_on_disk, caps.hard_lines, caps.hard_bytes)
