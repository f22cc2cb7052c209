"""The doctor's rule on a store's history (issue 37): notes that vanished since a snapshot.

Quiet when the store has no history, when git is missing, or when the history
cannot be read (``engramory history`` says why); the doctor never writes it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from engramory.doctor.context import StoreView
from engramory.doctor.model import STORE, WARNING, Example, Issue, rule, sample_note
from engramory.store.discovery import INDEX_NAME
from engramory.util.textfmt import plural

_MANY = {f"n{i}.md": sample_note(f"n{i}") for i in range(8)}


def vanished(root: str) -> object:
    """The notes gone since the last snapshot (or in it), or ``None``; never raises."""
    try:
        from engramory.history import alarm, gitrun, location  # noqa: PLC0415

        gitrun.git_path()
        place = location.place_of(root)
        if not location.exists(place):
            return None
        return alarm.check(place) or alarm.latest(place)
    except Exception:
        return None


@rule(
    "notes-vanished",
    WARNING,
    "more notes went since the last history snapshot than ENGRAMORY_DELETE_ALARM allows",
    fires=(
        Example(
            "a snapshot held 8 notes; 2 are left (a host's consolidation deleted 6)",
            {"n0.md": sample_note("n0"), "n1.md": sample_note("n1")},
            history=_MANY,
        ),
    ),
    quiet=(
        Example("a store with no history", {"n0.md": sample_note("n0")}),
        Example(
            "a snapshot held 8 notes; 7 are left",
            {k: v for k, v in _MANY.items() if k != "n7.md"},
            history=_MANY,
        ),
    ),
    scope=STORE,
    fix="see what went with `engramory history diff ID`, bring it back with "
    "`engramory restore ID --apply` (ID: the snapshot the finding names)",
)
def notes_vanished(view: StoreView) -> Iterator[Issue]:
    """Fires: the last snapshot (or the one before a snapshot that recorded the loss) held
    more notes, now gone, than the alarm allows. Quiet: no history, git missing, a history
    it cannot read, a note moved to archive/."""
    found = vanished(view.root)
    if found is None:
        return
    short = found.snapshot[:12]
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(found.when))
    yield (
        INDEX_NAME,
        None,
        f"{plural(len(found.gone), 'note')} of {found.had} went since the history snapshot "
        f"{short} of {stamp}: `engramory history diff {short}` shows them, "
        f"`engramory restore {short} --apply` brings them back",
    )
