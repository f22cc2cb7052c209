"""Bring a store back to a snapshot: a plan first, then an apply that refuses before writing.

Without ``--exact`` notes added since the snapshot are kept, and the index
keeps its current lines: the snapshot's pointer lines to the notes that come
back are put back after the line they followed, one at a time while the index
stays within its hard caps; a note whose pointer does not fit stays out and is
listed. With ``--exact`` (or when the index itself is named, or missing now)
the index comes back whole, and notes added since are removed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from engramory.history import capture, repo
from engramory.history.location import Place
from engramory.store.caps import INDEX_NAME, Caps, count_lines
from engramory.store.disk import NOTE_READ_LIMIT
from engramory.util import fsutil
from engramory.util.errors import EngramoryError
from engramory.util.textfmt import printable


@dataclass
class Plan:
    """What a restore writes and removes; nothing has been written yet."""

    snapshot: str
    back: list[str] = field(default_factory=list)  # missing now, written
    overwritten: list[str] = field(default_factory=list)  # present now, replaced
    modes: dict[str, int] = field(default_factory=dict)  # same bytes, mode put back
    removed: list[str] = field(default_factory=list)  # added since, removed (--exact)
    kept: list[str] = field(default_factory=list)  # added since, kept
    left_out: list[str] = field(default_factory=list)  # their pointers do not fit the cap
    writes: dict[str, tuple[bytes, int]] = field(default_factory=dict)
    index: bytes | None = None  # the index to write, when it changes
    index_mode: int | None = None

    @property
    def empty(self) -> bool:
        return not (self.writes or self.removed or self.modes or self.index is not None)


def safe_rel(rel: str) -> bool:
    parts = rel.split("/")
    return (
        bool(rel)
        and not rel.startswith("/")
        and all(p and p not in (".", "..") and not p.startswith(".") for p in parts)
        and "\\" not in rel
    )


def plan(place: Place, commit: str, paths: list[str], exact: bool, caps: Caps) -> Plan:
    """What restoring ``commit`` (only ``paths`` when given) would do to the store now."""
    then = {rel: v for rel, v in repo.tree(place, commit).items() if safe_rel(rel)}
    now = capture.capture(place.store, {})
    chosen = _chosen(then, now.files, paths)
    _refuse_unkept(place.store, [r for r in sorted(chosen) if r in then and r not in now.files])
    made = Plan(commit)
    wanted = [then[rel][0] for rel in chosen if rel in then]
    data = repo.blobs(place, wanted)
    for rel in sorted(chosen):
        if rel == INDEX_NAME:
            continue
        if rel not in then:
            (made.removed if exact else made.kept).append(rel)
            continue
        sha, mode = then[rel]
        current = now.files.get(rel)
        if current is None:
            made.back.append(rel)
        elif current.sha != sha:
            made.overwritten.append(rel)
        elif current.mode != mode:
            made.modes[rel] = mode
            continue
        else:
            continue
        made.writes[rel] = (data[sha], mode)
    whole = exact or INDEX_NAME in paths
    _plan_index(place, made, then, whole, caps)
    replaced = [*made.overwritten, *made.removed]
    if whole and made.index is not None and INDEX_NAME in now.files:
        replaced.append(INDEX_NAME)
    _refuse_secrets(sorted(rel for rel in replaced if now.files[rel].redacted), now)
    return made


def _refuse_secrets(rels: list[str], now: capture.Capture) -> None:
    """Refuse when the restore would overwrite or remove a file holding a secret's value: the
    snapshot taken before it keeps only the placeholder, so its undo could not give it back."""
    if rels:
        shown = ", ".join(
            f"{printable(rel)} ({', '.join(sorted(set(now.files[rel].redacted)))})"
            for rel in rels[:10]
        )
        more = f" and {len(rels) - 10} more" if len(rels) > 10 else ""
        raise EngramoryError(
            f"{shown}{more}: holds a secret's value, which snapshots never keep, so overwriting "
            "or removing it would lose it for good; nothing was written. Move the secret out "
            "of it first, or restore other paths by name"
        )


def _refuse_unkept(root: str, rels: list[str]) -> None:
    """Refuse when a file the restore would write over is one the snapshot taken before it
    does not hold (over the read limit, unreadable, past the file cap): writing over it
    would lose it for good."""
    present = [rel for rel in rels if _is_file(os.path.join(root, *rel.split("/")))]
    if present:
        shown = ", ".join(printable(rel) for rel in present[:10])
        more = f" and {len(present) - 10} more" if len(present) > 10 else ""
        raise EngramoryError(
            f"{shown}{more}: in the store now but not kept by a snapshot (over "
            f"{NOTE_READ_LIMIT // (1024 * 1024)} MiB, or unreadable), so restoring over it would "
            "lose it for good; nothing was written. Move it out of the store first, or restore "
            "other paths by name"
        )


def _is_file(path: str) -> bool:
    """A regular file is there (a symlink or a folder is :func:`check_targets`' refusal)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _chosen(then: dict, now: dict, paths: list[str]) -> set[str]:
    everything = set(then) | set(now)
    if not paths:
        return everything
    chosen = set()
    for raw in paths:
        rel = raw.replace(os.sep, "/").strip("/")
        inside = {r for r in everything if r == rel or r.startswith(rel + "/")}
        if not inside:
            raise EngramoryError(f"{raw}: not in the snapshot nor in the store")
        chosen |= inside
    return chosen


def _index_now(place: Place) -> bytes | None:
    try:
        return fsutil.read_bounded_stat(
            os.path.join(place.store, INDEX_NAME), 8 * 1024 * 1024, follow_symlinks=False
        )[0]
    except OSError:
        return None


def _plan_index(place: Place, made: Plan, then: dict, whole: bool, caps: Caps) -> None:
    current = _index_now(place)
    if INDEX_NAME not in then:
        return
    old = repo.blobs(place, [then[INDEX_NAME][0]])[then[INDEX_NAME][0]]
    if whole or current is None:
        if current != old:
            made.index = old
            made.index_mode = then[INDEX_NAME][1]
        return
    lines = current.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    old_lines = old.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    have = {line.rstrip("\r\n") for line in lines}
    returning = list(made.back)
    for position, line in enumerate(old_lines):
        text = line.rstrip("\r\n")
        mentioned = [rel for rel in returning if _points_to(text, rel)]
        if not mentioned or text in have:
            continue
        trial = _insert(lines, old_lines[:position], line)
        encoded = "".join(trial).encode("utf-8", "surrogateescape")
        if count_lines(encoded) > caps.hard_lines or len(encoded) > caps.hard_bytes:
            for rel in mentioned:
                made.left_out.append(rel)
                made.back.remove(rel)
                returning.remove(rel)
                made.writes.pop(rel, None)
            continue
        lines = trial
        have.add(text)
    merged = "".join(lines).encode("utf-8", "surrogateescape")
    if merged != current:
        made.index = merged


def _points_to(line: str, rel: str) -> bool:
    stem = rel.rsplit("/", 1)[-1][:-3] if rel.lower().endswith(".md") else rel
    return (
        f"({rel})" in line or f"(./{rel})" in line or f"[[{stem}]]" in line or f"[[{stem}|" in line
    )


def _insert(lines: list[str], before: list[str], line: str) -> list[str]:
    """``lines`` with ``line`` put after the last of ``before`` it still holds (else at the end)."""
    texts = [item.rstrip("\r\n") for item in lines]
    for previous in reversed(before):
        wanted = previous.rstrip("\r\n")
        if wanted and wanted in texts:
            at = len(texts) - 1 - texts[::-1].index(wanted)
            return [*_with_ending(lines[: at + 1]), line, *lines[at + 1 :]]
    return [*_with_ending(lines), line]


def _with_ending(lines: list[str]) -> list[str]:
    if lines and not lines[-1].endswith("\n"):
        return [*lines[:-1], lines[-1] + "\n"]
    return lines


# --- apply ----------------------------------------------------------------------------------


def check_targets(root: str, made: Plan) -> None:
    """Refuse, before the first write, any target that is a symlink, a folder or outside."""
    for rel in [*made.writes, *made.removed, *made.modes, *([INDEX_NAME] if made.index else [])]:
        path = os.path.join(root, *rel.split("/"))
        parent = os.path.dirname(path)
        if fsutil.escapes(parent, root) is not None:
            raise EngramoryError(f"{rel}: its folder leads outside the store; nothing was written")
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise EngramoryError(
                f"{rel}: {fsutil.os_error_text(exc)}; nothing was written"
            ) from None
        if not stat.S_ISREG(info.st_mode):
            raise EngramoryError(f"{rel}: not a regular file (a symlink?); nothing was written")


def apply(root: str, made: Plan) -> None:
    """Write the plan (each file atomically, with its exact mode)."""
    check_targets(root, made)
    for rel, (data, mode) in sorted(made.writes.items()):
        path = os.path.join(root, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fsutil.write_atomic(path, data, mode)
    for rel, mode in sorted(made.modes.items()):
        os.chmod(os.path.join(root, *rel.split("/")), mode)
    if made.index is not None:
        fsutil.write_atomic(os.path.join(root, INDEX_NAME), made.index, made.index_mode)
    for rel in made.removed:
        os.unlink(os.path.join(root, *rel.split("/")))
