"""Reading a history repository: the head, a snapshot's files and modes, blobs, the log.

Every read goes through :mod:`gitrun`; a repository git cannot read becomes a
:class:`~engramory.history.location.HistoryBrokenError` naming the way to
start afresh, never a traceback.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from engramory.history import gitrun
from engramory.history.location import REF, Place, broken

MODES_NAME = ".engramory-modes"  # in each snapshot's tree: {path: "0o644"}, the exact modes
MODES_LIMIT = 64 * 1024 * 1024
_SHA = re.compile(r"[0-9a-f]{40}")
_GIT_MODES = {"100644": 0o644, "100755": 0o755}


@dataclass
class Snapshot:
    """One commit of a store's history, as its message records it."""

    id: str
    time: int
    reason: str
    fields: dict[str, str] = field(default_factory=dict)

    def count(self, key: str) -> int:
        try:
            return int(self.fields.get(key, "0"))
        except ValueError:
            return 0


def _git(place: Place, args: list[str], data: bytes | None = None) -> bytes:
    try:
        return gitrun.run(place.git_dir, args, data=data).stdout
    except gitrun.GitMissingError:
        raise
    except gitrun.GitError as exc:
        raise broken(place, str(exc)) from None


def head(place: Place) -> str | None:
    """The newest snapshot's id, or ``None`` when there is none yet."""
    loose = os.path.join(place.git_dir, *REF.split("/"))
    try:
        with open(loose, encoding="ascii") as handle:
            text = handle.read(64).strip()
        if _SHA.fullmatch(text):
            return text
    except (OSError, UnicodeDecodeError):
        pass
    if not os.path.isfile(os.path.join(place.git_dir, "HEAD")):
        raise broken(place, "it is not a git repository")
    done = gitrun.run(place.git_dir, ["rev-parse", "--verify", "--quiet", REF], check=False)
    text = done.stdout.decode("ascii", "replace").strip()
    return text if _SHA.fullmatch(text) else None


def resolve(place: Place, ref: str) -> str:
    """The full id of the snapshot ``ref`` names (an id or a prefix of one, ``HEAD~1``...).

    An id that ``history prune`` rewrote still names its snapshot (:func:`renamed_ids`)."""
    if ref.startswith("-") or not re.fullmatch(r"[0-9A-Za-z~^/._-]{1,100}", ref):
        raise gitrun.GitError(f"{ref!r} is not a snapshot id (see `engramory history`)")
    target = REF + ref[4:] if ref.upper().startswith("HEAD") else ref
    done = gitrun.run(
        place.git_dir, ["rev-parse", "--verify", "--quiet", f"{target}^{{commit}}"], check=False
    )
    text = done.stdout.decode("ascii", "replace").strip()
    if done.returncode == 0 and _SHA.fullmatch(text):
        return text
    renamed = _renamed(place, ref)
    if renamed is not None:
        return renamed
    raise gitrun.GitError(f"no snapshot {ref!r} in {place.git_dir} (see `engramory history`)")


RENAMED_NAME = "engramory-renamed-ids"  # beside the repository's objects: old id -> id now
RENAMED_LIMIT = 16 * 1024 * 1024
_RENAMED_LINE = re.compile(r"([0-9a-f]{40}) ([0-9a-f]{40})")


def renamed_ids(place: Place) -> dict[str, str]:
    """The ids ``history prune`` rewrote, each to the id its snapshot has now (an unreadable
    or malformed file is no map: an old id is then simply not found)."""
    try:
        with open(os.path.join(place.git_dir, RENAMED_NAME), "rb") as handle:
            data = handle.read(RENAMED_LIMIT + 1)
    except OSError:
        return {}
    if len(data) > RENAMED_LIMIT:
        return {}
    found = {}
    for line in data.decode("ascii", "replace").splitlines():
        matched = _RENAMED_LINE.fullmatch(line)
        if matched is not None:
            found[matched.group(1)] = matched.group(2)
    return found


def _renamed(place: Place, ref: str) -> str | None:
    """The id now of the rewritten snapshot ``ref`` (a full id or a prefix of 4 or more)."""
    if not re.fullmatch(r"[0-9a-f]{4,40}", ref):
        return None
    now = {new for old, new in renamed_ids(place).items() if old.startswith(ref)}
    if len(now) > 1:
        raise gitrun.GitError(f"{ref!r} names more than one snapshot: give more of its id")
    return now.pop() if now else None


def tree(place: Place, commit: str) -> dict[str, tuple[str, int]]:
    """A snapshot's files: path -> (blob id, exact mode)."""
    out = _git(place, ["ls-tree", "-r", "-z", "--full-tree", commit])
    files: dict[str, tuple[str, int]] = {}
    modes_blob = None
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, raw = record.partition(b"\t")
        parts = meta.decode("ascii").split(" ")
        rel = os.fsdecode(raw)
        if rel == MODES_NAME:
            modes_blob = parts[2]
        elif parts[1] == "blob":
            files[rel] = (parts[2], _GIT_MODES.get(parts[0], 0o644))
    if modes_blob is not None:
        exact = _parse_modes(blobs(place, [modes_blob]).get(modes_blob, b""))
        files = {rel: (sha, exact.get(rel, mode)) for rel, (sha, mode) in files.items()}
    return files


def _parse_modes(data: bytes) -> dict[str, int]:
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    modes = {}
    for rel, text in raw.items():
        if isinstance(rel, str) and isinstance(text, str) and re.fullmatch(r"0o[0-7]{3,4}", text):
            modes[rel] = int(text, 8) & 0o7777
    return modes


def blobs(place: Place, shas: Iterable[str]) -> dict[str, bytes]:
    """The bytes of each blob id (read with one ``cat-file --batch``)."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    out = _git(place, ["cat-file", "--batch"], data="".join(f"{s}\n" for s in wanted).encode())
    found: dict[str, bytes] = {}
    at = 0
    for sha in wanted:
        end = out.index(b"\n", at)
        header = out[at:end].decode("ascii", "replace").split(" ")
        at = end + 1
        if len(header) < 3 or header[1] != "blob":
            raise broken(place, f"object {sha} is missing")
        size = int(header[2])
        found[sha] = out[at : at + size]
        at += size + 1
    return found


FIELD_LINE = re.compile(r"([a-z-]+): (.*)")


def parse_message(commit: str, when: int, message: str) -> Snapshot:
    reason, _, rest = message.partition("\n")
    fields = {}
    for line in rest.splitlines():
        matched = FIELD_LINE.fullmatch(line.strip())
        if matched:
            fields[matched.group(1)] = matched.group(2)
    return Snapshot(commit, when, reason.strip(), fields)


def log(place: Place, since: int | None = None, limit: int | None = None) -> list[Snapshot]:
    """The snapshots, newest first."""
    if head(place) is None:
        return []
    args = ["log", "--format=%H %ct%n%B%x00", REF]
    if since is not None:
        args.insert(1, f"--since={since}")
    if limit is not None:
        args.insert(1, f"--max-count={limit}")
    out = _git(place, args).decode("utf-8", "replace")
    found = []
    for raw in out.split("\0"):
        chunk = raw.lstrip("\n")
        if not chunk:
            continue
        first, _, message = chunk.partition("\n")
        commit, _, when = first.partition(" ")
        found.append(parse_message(commit, int(when), message))
    return found
