"""The doctor's run cache: a store where nothing changed gets its last report back.

Beside the per-note cache (``cache.py``), in the same folder, one file per
run signature holds the findings, the fix hints and the note count of the
last full run, with a digest of everything they were computed from:

* the run signature (version, rules, options, today's date, caps, allow state)
  and the store rules that run;
* every walked note's path, status, symlink target and ``lstat`` (size,
  mtime_ns, ctime_ns, inode, device; a symlinked note's target's ``stat``);
* every archived note's ``lstat`` (the store rules read archived notes), and
  the walk's folders, unreadable folders, loose handoff files and folders
  linked out of the store;
* the index as read (status, size, text) and where each of its links
  resolves on disk now (a link may name a file the walk does not list);
* the content of every note (archived or not) changed within
  :data:`cache.RACY_NS` (racy git: a change in the same timestamp tick, of the
  same size, would keep its ``lstat``).

When the digest matches, no note is read and no note or store rule runs: the
findings are taken as they were. The rules that read what the digest does not
cover (:data:`LIVE_RULES`: git's view of the store, the history snapshots, the
projects record, a host's own files) are not cached: they run on every run.
Anything else about the file (missing, foreign, corrupt, over :data:`FILE_LIMIT`,
of another signature or digest) means a full run, which writes the file afresh.
The file is JSON lines (a header, then the findings :data:`CHUNK` a line), read
and written a line at a time.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, Any, NamedTuple

from engramory.doctor import cache
from engramory.doctor.model import SEVERITIES, Finding, Rule
from engramory.doctor.rules import RULES
from engramory.store.disk import NOTE_READ_LIMIT, READ_OK, IndexFile, NoteFile, Target, Walk
from engramory.util import fsutil

FORMAT = 1
FILE_PREFIX, FILE_SUFFIX = "report-", ".json"
FILE_LIMIT = 256 * 1024 * 1024  # a larger file is not read
CHUNK = 512  # findings a line
ROWS = 4096  # notes hashed at a time
# Store rules that read what the digest does not cover (git, the history, the projects
# record, a host's own files read by name): they run on every run, and read no more of
# the store than its root. A new store rule that reads anything but the StoreView
# belongs here.
LIVE_RULES = frozenset(
    {
        "not-gitignored",
        "notes-vanished",
        "memory-elsewhere",
        "codex-summary-header",
        "codex-summary-over-cut",
        "codex-task-group",
        "hermes-over-cap",
        "hermes-separator",
        "hermes-duplicate-entry",
    }
)


class Saved(NamedTuple):
    """What a full run found, less the findings and hints of :data:`LIVE_RULES`."""

    notes: int
    findings: list[Finding]
    hints: dict[str, str]


def report_signature(run_signature: str, store_rules: Iterable[Rule]) -> str:
    """The per-note run signature with the store rules that run (the report's own)."""
    return json.dumps([run_signature, [rule.id for rule in store_rules]], separators=(",", ":"))


def inputs_digest(
    run_signature: str,
    root: str,
    walked: Walk,
    index: IndexFile,
    targets: Mapping[str, Target],
) -> str:
    """The digest of everything a full run's report depends on (see the module doc)."""
    digest = hashlib.sha256()
    update = digest.update

    def add(value: Any) -> None:
        update(repr(value).encode("utf-8", "surrogateescape"))
        update(b"\n")

    add((FORMAT, run_signature))
    notes = walked.notes
    for start in range(0, len(notes), ROWS):  # the rows joined by newlines, a chunk at a time
        rows = "\n".join(
            f"{note.rel}\0{note.status}\0{note.target}\0{_note_key(note, root)}"
            for note in notes[start : start + ROWS]
        )
        update((rows if start == 0 else "\n" + rows).encode("utf-8", "surrogateescape"))
    limit = time.time_ns() - cache.RACY_NS  # before the notes are read
    add("racy")
    for note in notes:  # a plain loop: it runs once per note on a replayed run too
        info = note.info
        if info is not None and note.status == READ_OK:
            if info[1] < limit and info[2] < limit:
                continue
        else:  # a symlink's target (stat'ed again: rare)
            key = _note_key(note, root)
            if key is None or (key[2] < limit and key[3] < limit):
                continue
        add((note.rel, _content(note.path(root))))
    add("archived")
    for rel in walked.archived:
        path = os.path.join(root, *rel.split("/"))
        key = _stat_key(path, follow=False)
        racy = key is not None and not (key[2] < limit and key[3] < limit)
        add((rel, key, _content(path) if racy else None))
    add((walked.dirs, walked.bad_dirs, walked.loose, walked.linked_out))
    measured = index.measured
    size = (measured.lines, measured.bytes) if measured is not None else None
    add((index.status, index.symlink, size, index.error, index.text))
    add(sorted(targets.items()))
    return digest.hexdigest()


def state_digest(report_signature: str, digest: str, live: Sequence[Finding]) -> str:
    """The digest of a report: its signature, its inputs' ``digest`` and the findings of
    :data:`LIVE_RULES` (what they read lies outside the inputs), run now."""
    rows = [
        [f.rule, f.severity, f.path, f.line, f.message, f.left_out, f.detector, f.key] for f in live
    ]
    made = json.dumps([FORMAT, report_signature, digest, rows], ensure_ascii=True)
    return hashlib.sha256(made.encode("ascii")).hexdigest()


def _note_key(note: NoteFile, root: str) -> tuple[int, ...] | None:
    """The walk's ``lstat`` of a regular note; else a fresh one (a symlink's target's)."""
    if note.info is not None and note.status == READ_OK:
        return note.info
    return _stat_key(note.path(root), follow=note.target is not None)


def _content(path: str) -> str | None:
    """The SHA-256 of a file as a note is read (``NoteFile.path``: a symlinked note's
    resolved target; no symlink followed, at most ``NOTE_READ_LIMIT`` bytes), or ``None``
    when it cannot be read."""
    try:
        data = fsutil.read_bounded_stat(path, NOTE_READ_LIMIT, follow_symlinks=False)[0]
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest()


def _stat_key(path: str, follow: bool) -> tuple[int, ...] | None:
    try:
        info = os.stat(path) if follow else os.lstat(path)
    except OSError:
        return None
    return (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def file_path(folder: str, run_signature: str) -> str:
    name = cache.file_name(run_signature)[len(cache.FILE_PREFIX) : -len(cache.FILE_SUFFIX)]
    return os.path.join(folder, f"{FILE_PREFIX}{name}{FILE_SUFFIX}")


def load(folder: str, run_signature: str, digest: str) -> Saved | None:
    """The saved report of this signature and digest, or ``None`` (run in full).

    Read a line at a time: the header first (nothing more when it does not match),
    then the findings, :data:`CHUNK` a line; their number must be the header's."""
    handle = cache.open_text(file_path(folder, run_signature), FILE_LIMIT)
    if handle is None:
        return None
    with handle:
        try:
            return _read(handle, run_signature, digest)
        except (ValueError, TypeError, UnicodeError, RecursionError):
            return None


def _read(handle: IO[str], run_signature: str, digest: str) -> Saved | None:
    header = json.loads(_line(handle))
    if type(header) is not dict or header.get("signature") != run_signature:
        return None
    if header.get("format") != FORMAT or header.get("inputs") != digest:
        return None
    notes, count, hints = header.get("notes"), header.get("findings"), header.get("hints")
    if type(notes) is not int or type(count) is not int or type(hints) is not list:
        return None
    kept = {}
    for item in hints:
        if type(item) is not list or len(item) != 2 or not all(type(v) is str for v in item):
            return None
        kept[item[0]] = item[1]
    findings: list[Finding] = []
    while len(findings) < count:
        chunk = json.loads(_line(handle))
        if type(chunk) is not list or not chunk:
            return None
        findings.extend(_finding(item) for item in chunk)
    if len(findings) != count or handle.readline(1):
        return None
    return Saved(notes, findings, kept)


def _line(handle: IO[str]) -> str:
    line = handle.readline(cache.LINE_LIMIT)
    if not line.endswith("\n"):
        raise ValueError("a truncated or overlong line")
    return line


def _finding(item: Any) -> Finding:
    """``[rule, severity, path, line, message, left out, detector, key]``, of a rule that
    exists and a severity that does (the renderers know no other)."""
    if type(item) is not list or len(item) != 8:
        raise ValueError("not a saved finding")
    rule, severity, path, line, message, more, detector, key = item
    if not (
        type(rule) is str
        and type(severity) is str
        and type(path) is str
        and (line is None or type(line) is int)
        and type(message) is str
        and type(more) is int
        and (detector is None or type(detector) is str)
        and (key is None or type(key) is str)
        and severity in SEVERITIES
        and rule in RULES
    ):
        raise ValueError("not a saved finding")
    return Finding(rule, severity, path, line, message, more, detector, key)


def save(
    folder: str,
    run_signature: str,
    digest: str,
    notes: int,
    findings: Sequence[Finding],
    hints: Mapping[str, str],
) -> None:
    """Keep a full run's report (less :data:`LIVE_RULES`); quietly nothing on failure.

    Written a line at a time to a temporary file renamed over the old one."""
    kept = [f for f in findings if f.rule not in LIVE_RULES]
    header = {
        "format": FORMAT,
        "signature": run_signature,
        "inputs": digest,
        "notes": notes,
        "findings": len(kept),
        "hints": [[rule, text] for rule, text in hints.items() if rule not in LIVE_RULES],
    }
    lines = itertools.chain([header], _chunks(kept))
    if cache.write_lines(folder, file_path(folder, run_signature), map(_dumps, lines)):
        cache.prune(folder, FILE_PREFIX, FILE_SUFFIX)


def _chunks(findings: list[Finding]) -> Iterator[list[list[Any]]]:
    for start in range(0, len(findings), CHUNK):
        yield [
            [f.rule, f.severity, f.path, f.line, f.message, f.left_out, f.detector, f.key]
            for f in findings[start : start + CHUNK]
        ]


def _dumps(value: Any) -> str:
    line = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    if len(line) >= cache.LINE_LIMIT:
        raise ValueError("a line too long to read back")
    return line + "\n"
