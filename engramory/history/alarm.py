"""A mass deletion: notes the last snapshot holds that are gone from the store now.

A note moved elsewhere in the store (``archive/``) is not gone. The threshold is
``ENGRAMORY_DELETE_ALARM``: a count ``N`` or a share ``N%``; by default 5 notes
or 20% of the snapshot's notes, whichever is fewer; more than it is flagged.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass

from engramory.history import capture, repo
from engramory.history.location import Place
from engramory.history.snapshot import read_cache, unchanged
from engramory.store.caps import INDEX_NAME
from engramory.util.textfmt import plural

ENV_ALARM = "ENGRAMORY_DELETE_ALARM"
DEFAULT_COUNT = 5
DEFAULT_SHARE = 20.0
_SETTING = re.compile(r"\s*([0-9]{1,9}(?:\.[0-9]+)?)\s*(%?)\s*")


@dataclass
class Vanished:
    """Notes gone since a snapshot."""

    snapshot: str
    when: int
    gone: list[str]
    had: int


def threshold(notes: int, setting: str | None = None) -> float:
    """How many notes may go before the alarm (a share is of ``notes``)."""
    raw = os.environ.get(ENV_ALARM, "") if setting is None else setting
    matched = _SETTING.fullmatch(raw) if raw.strip() else None
    if matched is None:
        return min(DEFAULT_COUNT, notes * DEFAULT_SHARE / 100)
    value = float(matched.group(1))
    return notes * value / 100 if matched.group(2) else value


def gone_notes(then: dict[str, object], now: dict[str, object]) -> list[str]:
    """Notes of ``then`` that are nowhere in ``now`` (not even under another folder)."""
    names_now = {rel.rsplit("/", 1)[-1] for rel in now}
    return sorted(
        rel
        for rel in then
        if rel != INDEX_NAME and rel not in now and rel.rsplit("/", 1)[-1] not in names_now
    )


def check(place: Place, setting: str | None = None) -> Vanished | None:
    """The notes gone since the last snapshot, when more than the threshold; else ``None``."""
    head = repo.head(place)
    if head is None:
        return None
    paths = capture.kept_paths(place.store)
    raw = read_cache(place)
    if raw is not None and unchanged(raw, head, paths):
        return None  # every file as the last snapshot left it: no git run at all
    then = repo.tree(place, head)
    now = {rel for rel, _ in paths}
    gone = gone_notes(then, dict.fromkeys(now))
    had = len([rel for rel in then if rel != INDEX_NAME])
    if not gone or len(gone) <= threshold(had, setting):
        return None
    when = repo.log(place, limit=1)[0].time
    return Vanished(head, when, gone, had)


def latest(place: Place, setting: str | None = None) -> Vanished | None:
    """Notes gone in the newest snapshot (taken after they went, e.g. at session start) when
    more than the threshold of the notes before it, and still gone now; else ``None``."""
    newest = repo.log(place, limit=2)
    if len(newest) < 2 or "notes" not in newest[0].fields:
        return None
    snap, parent = newest
    had = snap.count("notes") - snap.count("added") + snap.count("removed")
    if snap.count("removed") <= threshold(had, setting):
        return None
    then = repo.tree(place, parent.id)
    now = {rel for rel, _ in capture.kept_paths(place.store)}
    gone = gone_notes(then, dict.fromkeys(now))
    if len(gone) <= threshold(had, setting):
        return None
    return Vanished(parent.id, parent.time, gone, had)


def reminder(found: Vanished, after: str | None) -> str:
    """The session-start lines: how many went, when, and the commands that bring them back."""
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(found.when))
    lines = [
        f"Engramory history: {plural(len(found.gone), 'note')} of {found.had} went since the "
        f"snapshot of {stamp} ({found.snapshot[:12]}).",
        f"  see them: engramory history diff {found.snapshot[:12]}"
        + (f" {after[:12]}" if after else ""),
        f"  bring them back: engramory restore {found.snapshot[:12]} --apply",
    ]
    return "\n".join(lines)
