"""Which profile a store gets, and why: one answer for every store command.

First match wins:

1. asked for: ``--profile NAME`` (or ``--native``, meaning ``claude-native``);
2. the location: the store's real path (symlinks resolved) is the real path of
   a Claude Code auto-memory folder -- any ``<config dir>/projects/*/memory``
   (every project, so a ``memory`` that is a symlink to a folder elsewhere is
   recognised from its target), or the folder the host resolves for the
   current project (which a setting may put anywhere);
3. another host's memory folder by where it is (:func:`other_host_by_location`):
   Qwen Code's ``<base>/projects/*/memory`` (``qwen-native``), Gemini CLI's
   ``~/.gemini/tmp/*/memory`` (``gemini-native``), Codex's ``$CODEX_HOME/memories``
   (``codex-memories``), Hermes' ``$HERMES_HOME/memories`` (``hermes``); then by
   its files' shape (:func:`by_shape`): a ``memory_summary.md`` opening with ``v1``
   or a ``MEMORY.md`` opening with ``# Task Group:`` is Codex's, a ``MEMORY.md`` or
   ``USER.md`` with a ``§`` line is Hermes';
4. the notes: a strict majority of the notes with frontmatter are in the
   host's dialect (:func:`in_host_dialect`) -- a copy of a native folder kept
   outside the host's projects directory;
5. else ``engramory``.

The cost is bounded: at most :data:`PROJECTS_SCANNED` project folders are
looked at, and the first :data:`HEAD_BYTES` of at most :data:`NOTES_READ`
notes are read (non-blocking, regular files only, never through a symlink,
the store walk's own rules for what is a note).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from engramory.doctor import dialectcache
from engramory.doctor.profiles import (
    CLAUDE_NATIVE,
    CODEX_MEMORIES,
    ENGRAMORY,
    GEMINI_NATIVE,
    HERMES,
    PROFILES,
    QWEN_NATIVE,
    Profile,
)
from engramory.store import automemory, discovery
from engramory.store.disk import READ_OK, Walk, walk
from engramory.store.frontmatter import parse_bytes
from engramory.util.errors import UsageError

PROJECTS_SCANNED = 10_000  # project folders compared with the store
NOTES_READ = 2_000  # notes whose frontmatter is read for the dialect
HEAD_BYTES = 16 * 1024  # bytes read from each of them
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
DATE_KEYS = ("created", "updated")


@dataclass(frozen=True)
class Choice:
    """The profile a command uses and the one-line reason it tells the user."""

    profile: Profile
    reason: str

    @property
    def native(self) -> bool:
        return self.profile is CLAUDE_NATIVE

    def line(self) -> str:
        """``profile claude-native: REASON`` (what a command prints)."""
        return f"profile {self.profile.name}: {self.reason}"

    def as_json(self) -> dict[str, str]:
        """The JSON fields every command's report carries (the doctor's ``profile`` key kept)."""
        return {"profile": self.profile.name, "profile_reason": self.reason}


# --- the notes' dialect (pure) -------------------------------------------------------------------


def is_title(name: str) -> bool:
    """A name written as a title (``Active Leads``), not a slug (``active-leads``)."""
    return any(char.isspace() or char.isupper() for char in name)


def in_host_dialect(fields: Mapping[str, str]) -> bool:
    """Whether a note's frontmatter reads as Claude Code writes it.

    No ``created``/``updated``, and a ``name`` that is a title, or a ``metadata:``
    block, or an ``originSessionId`` key. (The parser ignores indentation, so the
    keys nested under ``metadata:`` read as plain ones and ``metadata`` as a key.)
    """
    if any(key in fields for key in DATE_KEYS):
        return False
    return is_title(fields.get("name", "")) or "metadata" in fields or "originSessionId" in fields


def dialect_reason(native: int, described: int) -> str:
    """The reason line for a count of native notes among the notes with frontmatter."""
    of = f"{native} of {described} notes with frontmatter"
    if described and native * 2 > described:
        return f"{of} are in Claude Code's dialect"
    if not described:
        return "not a Claude Code memory folder, and no note has frontmatter"
    return f"not a Claude Code memory folder; {of} in Claude Code's dialect, not a majority"


# --- the I/O edge --------------------------------------------------------------------------------


def _head(path: str) -> bytes | None:
    """The first :data:`HEAD_BYTES` of a regular file, never through a symlink or a FIFO."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, HEAD_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)


def dialect_counts(
    root: str, walked: Walk | None = None, memo: str | None = None
) -> tuple[int, int]:
    """``(native, with frontmatter)`` over the store's live notes (the first :data:`NOTES_READ`).

    Symlinked notes are skipped: the dialect is judged on the files the store holds.
    ``walked``: the walk of ``root`` when the caller made it already; ``memo``: the
    doctor's cache folder, where each note's verdict is kept while the note is
    unchanged (``dialectcache.py``; it needs a walk made ``with_stat``).
    """
    notes = (walked if walked is not None else walk(root)).notes[:NOTES_READ]
    kept: dict[dialectcache.Key, int] = dialectcache.load(memo) if memo is not None else {}
    verdicts: dict[dialectcache.Key, int] = {}
    native = described = 0
    now = time.time_ns()  # before the notes are read: one changed since is not kept
    for note in notes:
        if note.status != READ_OK or note.symlink:
            continue
        key = dialectcache.note_key(note)
        verdict = kept.get(key) if key is not None else None
        if verdict is None:
            verdict = _verdict(note.path(root))
        if key is not None and dialectcache.settled(key, now):
            verdicts[key] = verdict
        described += verdict != dialectcache.UNREAD
        native += verdict == dialectcache.NATIVE
    if memo is not None and verdicts != kept:
        dialectcache.save(memo, verdicts)
    return native, described


def _verdict(path: str) -> int:
    """One note's dialect, read now (``dialectcache`` names the verdicts)."""
    head = _head(path)
    parsed = parse_bytes(head) if head is not None else None
    if parsed is None or not parsed.present:
        return dialectcache.UNREAD
    return dialectcache.NATIVE if in_host_dialect(parsed.fields) else dialectcache.OTHER


def _real(path: Path | str) -> str:
    return os.path.realpath(path)


def host_memory_folder(store: Path, environ: Mapping[str, str]) -> Path | None:
    """The ``<config dir>/projects/<key>/memory`` whose real path is the store's, if any."""
    real = _real(store)
    projects = automemory.projects_dir(environ)  # type: ignore[arg-type]
    if automemory.is_auto_memory(Path(real), environ):  # type: ignore[arg-type]
        return Path(real)
    try:
        with os.scandir(projects) as scan:
            for count, entry in enumerate(scan):
                if count >= PROJECTS_SCANNED:
                    break
                folder = Path(entry.path) / "memory"
                if os.path.lexists(folder) and _real(folder) == real:
                    return folder
    except OSError:
        return None
    return None


def current_native_folder(environ: Mapping[str, str], cwd: Path | None = None) -> Path | None:
    """The folder Claude Code uses for the current directory's project (``None``: unknown)."""
    try:
        here = Path.cwd() if cwd is None else cwd
        return automemory.resolve(discovery.project_root(here), environ).path  # type: ignore[arg-type]
    except (OSError, ValueError):
        return None


def by_location(store: Path, environ: Mapping[str, str], native_folder: Path | None) -> str | None:
    """The reason the store is a Claude Code auto-memory folder by where it is (``None``: not)."""
    folder = host_memory_folder(store, environ)
    if folder is not None:
        linked = "" if _real(folder) == os.path.abspath(folder) else f", through {folder}"
        return f"a Claude Code auto-memory folder (<config dir>/projects/*/memory{linked})"
    if native_folder is not None and _real(native_folder) == _real(store):
        return "the folder Claude Code uses for this project's memory"
    return None


def _other_host_folders(
    environ: Mapping[str, str], cwd: Path | None
) -> list[tuple[Profile, Path, str]]:
    """``(profile, folder, words)`` for each other host's memory folder of the current project."""
    from engramory.store.hostmemory import registry  # noqa: PLC0415 - only past the Claude checks

    try:
        project = discovery.project_root(Path.cwd() if cwd is None else cwd)
    except OSError:
        return []
    profiles = {"qwen": QWEN_NATIVE, "gemini": GEMINI_NATIVE, "codex": CODEX_MEMORIES}
    profiles["hermes"] = HERMES
    found = []
    for host, profile in profiles.items():
        one = registry.find(host, Path(os.path.abspath(project)), environ)
        found.append((profile, one.path, f"{one.owner} memory folder ({one.rule_text})"))
    return found


def other_host_by_location(
    store: Path, environ: Mapping[str, str], cwd: Path | None = None
) -> Choice | None:
    """The profile of another host whose memory folder the store is (``None``: none)."""
    from engramory.store.hostmemory import gemini, qwen  # noqa: PLC0415 - only past the Claude checks

    real = Path(_real(store))
    qwen_projects = Path(_real(qwen.base(environ)[0] / "projects"))
    if real.name == "memory" and real.parent.parent == qwen_projects:
        return Choice(QWEN_NATIVE, "a Qwen Code memory folder (<base>/projects/*/memory)")
    gemini_tmp = Path(_real(gemini.gemini_home(environ) / "tmp"))
    if real.name == "memory" and real.parent.parent == gemini_tmp:
        return Choice(GEMINI_NATIVE, "a Gemini CLI memory folder (~/.gemini/tmp/*/memory)")
    for profile, folder, words in _other_host_folders(environ, cwd):
        if _real(folder) == str(real):
            return Choice(profile, words)
    return None


def by_shape(store: Path) -> Choice | None:
    """Codex's or Hermes' folder recognised by its files (``None``: neither)."""
    summary = _head(os.path.join(store, "memory_summary.md"))
    if summary is not None and summary.split(b"\n", 1)[0].rstrip(b"\r") == b"v1":
        return Choice(CODEX_MEMORIES, "memory_summary.md opens with v1: Codex's memories folder")
    index = _head(os.path.join(store, discovery.INDEX_NAME))
    if index is not None and index.removeprefix(b"\xef\xbb\xbf").startswith(b"# Task Group:"):
        return Choice(CODEX_MEMORIES, "MEMORY.md opens with # Task Group:: Codex's handbook")
    for name in (discovery.INDEX_NAME, "USER.md"):
        head = _head(os.path.join(store, name))
        if head is not None and b"\n\xc2\xa7\n" in b"\n" + head:
            return Choice(HERMES, f"{name} holds entries separated by § lines: Hermes' memories")
    return None


def parse_name(asked: str) -> Profile:
    """The profile named ``asked``; an unknown name is a usage error (64)."""
    profile = PROFILES.get(asked)
    if profile is None:
        raise UsageError(
            f"unknown profile {asked!r}: choose one of {', '.join(PROFILES)} "
            "(--native means claude-native)"
        )
    return profile


def choose(
    store: Path,
    asked: str | None = None,
    *,
    native_flag: bool = False,
    environ: Mapping[str, str] | None = None,
    native_folder: Path | None = None,
    cwd: Path | None = None,
    walked: Walk | None = None,
    memo: str | None = None,
) -> Choice:
    """The profile for ``store``: asked for, else by location, else by the notes' dialect.

    ``native_folder`` is the current project's Claude Code folder when the caller
    already knows it; else it is resolved from ``cwd`` (default: the current directory).
    ``walked`` and ``memo``: see :func:`dialect_counts`.
    """
    if asked is not None:
        return Choice(parse_name(asked), "asked for with --profile")
    if native_flag:
        return Choice(CLAUDE_NATIVE, "asked for with --native")
    env = os.environ if environ is None else environ
    if native_folder is None:
        native_folder = current_native_folder(env, cwd)
    where = by_location(store, env, native_folder)
    if where is not None:
        return Choice(CLAUDE_NATIVE, where)
    other = other_host_by_location(store, env, cwd) or (
        by_shape(store) if os.path.isdir(store) else None
    )
    if other is not None:
        return other
    isdir = os.path.isdir(store)
    native, described = dialect_counts(_real(store), walked, memo) if isdir else (0, 0)
    reason = dialect_reason(native, described)
    if described and native * 2 > described:
        return Choice(CLAUDE_NATIVE, reason)
    return Choice(ENGRAMORY, reason)
