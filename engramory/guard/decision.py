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

from engramory.store.caps import BYTES, LINES, Caps, Measurement, over

DENY = "deny"
NUDGE = "nudge"
SILENT = "silent"

SHRINKING_PASSES = "Edits that shrink the index are always allowed."
COMPACT_COMMAND = (
    "`engramory compact` plans it mechanically (duplicates, inline text moved into notes, long "
    "hooks cut), `engramory compact --apply` does it with a backup and an undo command."
)
EDIT_TOOLS = (
    "your file-edit tool (Edit/Write, apply_patch, write_file/replace, create/edit, "
    "StrReplace: whichever this agent has)"
)
SCOPE_HINT = (
    "If this file is not your Engramory memory index, scope the guard to the real "
    "one with ENGRAMORY_INDEX_PATH=/path/to/store/MEMORY.md."
)


class Verdict:
    """What to answer: ``kind`` is ``deny``, ``nudge`` or ``silent``; ``message`` the text."""

    __slots__ = ("kind", "message")

    def __init__(self, kind: str, message: str = "") -> None:
        self.kind = kind
        self.message = message

    def __repr__(self) -> str:
        return f"Verdict({self.kind!r}, {self.message[:60]!r})"


def _breach(
    measured: Measurement, caps: Caps, hard: bool = True, dims: list[str] | None = None
) -> tuple[str, str]:
    """:func:`engramory.store.breach.words`, imported only when the guard has something to say."""
    from engramory.store import breach  # noqa: PLC0415 - only when speaking

    return breach.words(measured, caps, hard, dims)


def _size(measured: Measurement) -> str:
    """:func:`engramory.store.breach.size_text`, imported only when speaking."""
    from engramory.store.breach import size_text  # noqa: PLC0415 - only when speaking

    return size_text(measured)


def _hard_cap(caps: Caps) -> str:
    """``200 lines / 25,000 B``: the hard cap, in the words of :mod:`engramory.store.breach`."""
    from engramory.store.breach import limits_text  # noqa: PLC0415 - only when speaking

    return limits_text(caps.hard_lines, caps.hard_bytes)


def _caps_text(caps: Caps) -> str:
    """Both caps, in the words of :mod:`engramory.store.breach`."""
    from engramory.store.breach import caps_text  # noqa: PLC0415 - only when speaking

    return caps_text(caps)


def decide(current: Measurement | None, predicted: Measurement, caps: Caps) -> Verdict:
    """The verdict for a predicted index; ``current`` is ``None`` when there is no index yet."""
    now = current or Measurement(0, 0)
    hard = predicted.over(caps.hard_lines, caps.hard_bytes)
    growing = [
        dim
        for dim in hard
        if (
            (predicted.lines or 0) > (now.lines or 0)
            if dim == LINES
            else predicted.bytes > now.bytes
        )
    ]
    if growing:
        over_cap, advice = _breach(predicted, caps, dims=growing)
        return Verdict(
            DENY,
            f"Engramory: this would GROW the memory index from {_size(now)} to "
            f"{_size(predicted)}, {over_cap}. "
            "Hosts stop loading the index past the cap, so whatever is appended there is "
            f"never recalled. Do not append. Compact instead: {advice}. {SHRINKING_PASSES} "
            f"{COMPACT_COMMAND} "
            "If it is still over after compacting, ask the user what to archive. "
            f"({_caps_text(caps)}.) {SCOPE_HINT}",
        )
    if hard:
        over_cap, advice = _breach(predicted, caps)
        return Verdict(
            NUDGE,
            f"Engramory: the memory index is still {over_cap} after this edit; the edit is "
            "allowed because it does not grow it. Keep compacting until it is within "
            f"{_hard_cap(caps)}: {advice}. {SHRINKING_PASSES}",
        )
    over_soft, _advice = _breach(predicted, caps, hard=False)
    if over_soft:
        return Verdict(
            NUDGE,
            f"Engramory: the memory index will be {_size(predicted)}, {over_soft}. "
            "It is allowed; offer the user a compaction pass before it reaches the hard cap "
            f"({_hard_cap(caps)}).",
        )
    return Verdict(SILENT)


def silent() -> Verdict:
    """Nothing to say."""
    return Verdict(SILENT)


def unverified(reason: str) -> Verdict:
    """A nudge for a call the guard could not check (never a deny)."""
    return Verdict(
        NUDGE,
        f"Engramory: {reason}, so this change to the memory index was NOT checked against "
        "its cap. It is allowed; run `engramory check` on the index afterwards and compact "
        "if it reports WARN or OVER.",
    )


def patch_does_not_apply(reason: str) -> Verdict:
    """A nudge for a patch that does not apply to the index as it is now (never a deny).

    The host's own apply will fail on it, so there is nothing to check; the agent is told
    why, so that it can rebuild the patch from the index's current text.
    """
    return Verdict(
        NUDGE,
        f"Engramory: this patch does not apply to the memory index as it is now ({reason}), "
        "so it was NOT checked against the index's cap; the host will most likely reject it. "
        "Read the index again and build the patch from its current text (or use the Edit "
        "tool). If it does apply, run `engramory check` on the index afterwards.",
    )


def shell_write(target: str) -> Verdict:
    """The deny for a shell command that would write the index."""
    return Verdict(
        DENY,
        f"Engramory: this shell command would write the memory index ({target}), and a "
        "shell write cannot be checked against the index's size cap before it lands. Use "
        f"{EDIT_TOOLS} on the index instead: those are checked, and shrinking edits "
        "always pass. Reading it (cat, grep, wc) is fine. " + SCOPE_HINT,
    )


def after_the_fact(measured: Measurement, caps: Caps) -> Verdict:
    """After a tool ran: ``deny`` (block feedback) when the index is now over a hard cap.

    ``measured.lines`` is ``None`` when the file was too big to be worth reading.
    """
    over_cap, advice = _breach(measured, caps)
    if not over_cap:
        return Verdict(SILENT)
    return Verdict(
        DENY,
        f"Engramory: the memory index is now {_size(measured)}, {over_cap}. Hosts stop "
        f"loading it past the cap. Compact it now, before anything else: {advice}. "
        "`engramory compact --apply` does it mechanically, with an undo. "
        f"{SHRINKING_PASSES}",
    )


def over_bytes_only(size_on_disk: int, caps: Caps) -> bool:
    """Whether a file is over the hard byte cap by its size alone (no need to read it)."""
    return BYTES in over(None, size_on_disk, caps.hard_lines, caps.hard_bytes)
