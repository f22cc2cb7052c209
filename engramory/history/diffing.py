"""What changed between two states of a store: a summary and a unified diff.

A state is a snapshot or the store as it is now (read as a snapshot would
keep it, secrets already redacted, so a diff never prints one).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from engramory.history import capture, repo
from engramory.history.location import Place
from engramory.history.snapshot import Change, compare
from engramory.util.textfmt import plural, printable

NOW = "now"
DIFF_LINES_LIMIT = 20_000


@dataclass
class State:
    """A store's kept files (path -> (blob id, mode)) and a way to read their bytes."""

    label: str
    files: dict[str, tuple[str, int]]
    data: dict[str, bytes]  # by blob id, for the files read already


def snapshot_state(place: Place, commit: str) -> State:
    return State(commit[:12], repo.tree(place, commit), {})


def current_state(place: Place) -> State:
    taken = capture.capture(place.store, {})
    data = {e.sha: e.data for e in taken.files.values() if e.data is not None}
    return State(NOW, taken.manifest(), data)


def summary(change: Change, index_changed: bool) -> list[str]:
    lines = [
        f"+{len(change.added)} -{len(change.removed)} ~{len(change.changed)} notes"
        + (", index changed" if index_changed else "")
    ]
    lines += [f"  + {printable(rel)}" for rel in change.added]
    lines += [f"  - {printable(rel)}" for rel in change.removed]
    lines += [f"  ~ {printable(rel)}" for rel in change.changed]
    return lines


def unified(place: Place, old: State, new: State) -> list[str]:
    """The unified diff of every file that differs (text shown escaped, bounded)."""
    differing = sorted(
        rel for rel in set(old.files) | set(new.files) if old.files.get(rel) != new.files.get(rel)
    )
    wanted = [
        state.files[rel][0]
        for state in (old, new)
        for rel in differing
        if rel in state.files and state.files[rel][0] not in state.data
    ]
    fetched = repo.blobs(place, wanted)
    out: list[str] = []
    for rel in differing:
        before = _text(old, rel, fetched)
        after = _text(new, rel, fetched)
        if old.files.get(rel, ("",))[0] == new.files.get(rel, ("",))[0]:
            out.append(f"mode {printable(rel)}: {_mode(old, rel)} -> {_mode(new, rel)}")
            continue
        out += [
            printable(line.rstrip("\n"))
            for line in difflib.unified_diff(
                before,
                after,
                f"a/{rel}" if rel in old.files else "/dev/null",
                f"b/{rel}" if rel in new.files else "/dev/null",
            )
        ]
        if len(out) > DIFF_LINES_LIMIT:
            out.append(f"... (diff cut at {plural(DIFF_LINES_LIMIT, 'line')})")
            break
    return out


def _text(state: State, rel: str, fetched: dict[str, bytes]) -> list[str]:
    if rel not in state.files:
        return []
    sha = state.files[rel][0]
    data = state.data.get(sha, fetched.get(sha, b""))
    return data.decode("utf-8", "replace").splitlines(keepends=True)


def _mode(state: State, rel: str) -> str:
    return f"0o{state.files[rel][1]:o}" if rel in state.files else "-"


def changes(old: State, new: State) -> tuple[Change, bool]:
    index = "MEMORY.md"
    return compare(old.files, new.files), old.files.get(index) != new.files.get(index)
