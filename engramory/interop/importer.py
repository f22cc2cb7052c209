"""The import core: candidate notes into a store, with pointers, collisions, caps and overflow.

The readers (:mod:`engramory.interop.memoir_import`, :mod:`engramory.interop.claude_import`)
turn a source folder into :class:`Candidate` notes (already in Engramory's schema)
and :class:`Skip` records. :func:`make_plan` decides, without writing: which
candidates collide with a note of the store (live or archived, any letter case)
or with each other, which hold a secret or a value the frontmatter cannot hold,
the index text with every pointer under its type's heading, and whether that
index stays within the hard cap (else a refusal saying how many fit) or, with
``archive_overflow``, which notes stay live (the most recently updated, up to
the soft cap) and which go to ``archive/`` unindexed. :func:`execute` writes the
plan through :func:`engramory.write.backup.apply`: new files exclusively, the index
atomically, and a backup ID that ``engramory import undo`` takes back.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

from engramory import secrets
from engramory.continuity.state import locked
from engramory.doctor.model import ERROR
from engramory.secrets import allow
from engramory.store import discovery
from engramory.store.caps import INDEX_NAME, Caps, count_lines, utf8_size
from engramory.store.disk import ARCHIVE, NAME_NOT_UTF8, NOTE_READ_LIMIT, utf8_name, walk
from engramory.store.frontmatter import NOTE_TYPES, decode, render
from engramory.util import fsutil
from engramory.util.errors import EngramoryError, InputMissingError
from engramory.util.resources import shipped_path
from engramory.util.textfmt import plural
from engramory.wiring import managed
from engramory.write import backup, filedates, notewrite
from engramory.write.filedates import FileDates
from engramory.write.indexedit import line_ending, pointer_line, section_block

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engramory.secrets.scan import Allowed, Secret

COLLISION = "collision"
SECRET = "secret"
UNWRITABLE = "unwritable"
BAD_NAME = "bad-name"
NAME_MAX = 120
# Names Windows gives to devices, whatever the extension: a note named so would be lost.
WINDOWS_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {
        f"{port}{n}"
        for port in ("COM", "LPT")
        for n in (*"123456789", "\u00b9", "\u00b2", "\u00b3")
    }
)
COMMAND = "import"
# Where an imported note's created/updated came from (the report says it per note).
DATES_ENTRY = "entry"
DATES_KEPT = "as-exported"
DATES_FROM = {
    DATES_ENTRY: "dates from the note's own created/updated/modified",
    filedates.GIT: "dates from the source file's first and last git commit",
    filedates.MTIME: "dates from the source file's modification date",
    DATES_KEPT: "no dates, as the Engramory note that was exported had none",
    filedates.NONE: "no dates: none in the note, none from git or the file's date",
}
GITIGNORE = ".gitignore"
GITIGNORE_LIMIT = 1024 * 1024
DateLookup = Callable[[], FileDates]


@dataclass(frozen=True)
class Candidate:
    """A note to import, in Engramory's schema.

    ``name``: the file name without ``.md`` (the source's, so ``[[links]]`` still
    resolve); ``fields``: the frontmatter in writing order; ``body``: written
    verbatim after the closing fence; ``title``/``hook``: the pointer's text;
    ``recency``: an ISO date (``""``: unknown, oldest) choosing the live notes under
    ``--archive-overflow``; ``source``: the file it came from, for the report;
    ``notes``: what the reader did to it that the report should say; ``archived``: it
    goes to ``archive/`` unindexed (an archived note exported with ``--include-archive``);
    ``dates_from``: where ``created``/``updated`` came from (a key of :data:`DATES_FROM`).
    """

    name: str
    note_type: str
    fields: dict[str, str]
    body: str
    title: str
    hook: str
    recency: str = ""
    source: str = ""
    notes: tuple[str, ...] = ()
    archived: bool = False
    dates_from: str = filedates.NONE


@dataclass(frozen=True)
class Skip:
    """A source file not imported: why (a short stable reason) and a detail for the report."""

    source: str
    reason: str
    detail: str = ""


def chosen_dates(
    created: str | None, updated: str | None, lookup: DateLookup
) -> tuple[dict[str, str], str]:
    """``({"created": ..., "updated": ...}, where from)``: the entry's own days (one stands in
    for the other when only one is known), else the source file's (``lookup``, called only
    then), else none. Never today's date unless a record says so."""
    if created or updated:
        first = created or updated or ""
        return {"created": first, "updated": updated or first}, DATES_ENTRY
    found = lookup()
    if found.first is None or found.last is None:
        return {}, filedates.NONE
    return {"created": found.first, "updated": found.last}, found.source


@dataclass(frozen=True)
class StoreIgnore:
    """The ``.gitignore`` an import that creates a store adds the store's entry to:
    ``path`` (at the git work tree's top) and the store's ``relative`` path there."""

    path: str
    relative: str

    @property
    def entry(self) -> str:
        return managed.gitignore_entry(self.relative)


@dataclass(frozen=True)
class Planned:
    """One file the import writes: store-relative path, bytes, and its candidate."""

    rel: str
    data: bytes
    candidate: Candidate


@dataclass(frozen=True)
class Redaction:
    """A secret's value replaced in a written note: the note, the line it is on in the note
    as written (``None``: in its pointer), and the detector that found it."""

    note: str
    line: int | None
    detector: str


REDACTED = re.compile(r"\[redacted: ([a-z0-9-]+)\]")


MIN_KNOWN = 6  # a shorter value is replaced where the detector finds it, not everywhere


def known_values(text: str, found: Iterable[secrets.Secret]) -> dict[str, str]:
    """Value -> detector of what the detector matched in ``text`` (long enough to replace on
    sight): the same value elsewhere in the note, without its label, is a secret too."""
    values = {text[s.start : s.end]: s.detector for s in found}
    return {value: detector for value, detector in values.items() if len(value) >= MIN_KNOWN}


def _replaced(text: str, known: dict[str, str]) -> tuple[str, list[str]]:
    """``text`` with the detector's finds and every other occurrence of a ``known`` value
    replaced by ``[redacted: <detector>]``, and the detectors of what was replaced."""
    text, found = secrets.replace(text)
    text, detectors = _known_replaced(text, known)
    return text, [s.detector for s in found] + detectors


def _known_replaced(text: str, known: dict[str, str]) -> tuple[str, list[str]]:
    """``text`` with every occurrence of a ``known`` value replaced, and their detectors."""
    detectors: list[str] = []
    for value in sorted(known, key=len, reverse=True):
        if value in text:
            detectors += [known[value]] * text.count(value)
            text = text.replace(value, f"[redacted: {known[value]}]")
    return text, detectors


def redacted_candidate(
    candidate: Candidate, known: dict[str, str] | None = None
) -> tuple[Candidate, list[str]]:
    """``candidate`` with every secret's value in its frontmatter, body, title and hook
    replaced by ``[redacted: <detector>]`` (and every occurrence of a ``known`` value, found
    elsewhere in the note), and the detectors of what its pointer held."""
    known = known or {}
    fields = {key: _redacted_value(key, value, known) for key, value in candidate.fields.items()}
    body = _replaced(candidate.body, known)[0]
    title, in_title = _replaced(candidate.title, known)
    hook, in_hook = _replaced(candidate.hook, known)
    made = replace(candidate, fields=fields, body=body, title=title, hook=hook)
    return made, in_title + in_hook


def _redacted_value(key: str, value: str, known: dict[str, str] | None = None) -> str:
    """A frontmatter value with its secrets replaced, read with its key as their label."""
    head = f"{key}: "
    replaced = secrets.replace(head + value)[0]
    replaced = replaced[len(head) :] if replaced.startswith(head) else replaced
    return _known_replaced(replaced, known or {})[0]  # in the value only, never the key


def redactions(file_name: str, data: bytes, in_pointer: list[str]) -> list[Redaction]:
    """Where the written note holds ``[redacted: …]``, by line, and its pointer's."""
    made = []
    for number, line in enumerate(data.decode("utf-8").split("\n"), 1):
        made += [Redaction(file_name, number, m.group(1)) for m in REDACTED.finditer(line)]
    return made + [Redaction(file_name, None, detector) for detector in in_pointer]


@dataclass
class ImportPlan:
    """Everything an import writes and says; nothing has been written yet."""

    root: str
    store_exists: bool
    index_exists: bool
    index_source: bytes
    new_index: str
    live: list[Planned]
    archived: list[Planned]
    skipped: list[Skip]
    warnings: list[str] = field(default_factory=list)
    lines: int = 0
    size: int = 0
    ignore: StoreIgnore | None = None
    ignored: str = ""  # what happened to the ignore entry, once written
    redacted: list[Redaction] = field(default_factory=list)

    def created(self) -> dict[str, bytes]:
        """Every new file, the index included when the store had none."""
        files = {p.rel: p.data for p in self.live + self.archived}
        if not self.index_exists:
            files[INDEX_NAME] = notewrite.encode_index(self.new_index)
        return files


def name_problem(name: str) -> str | None:
    """Why ``name`` (without ``.md``) cannot name a note file in the store, else ``None``."""
    if not name or name.startswith(".") or name != name.strip():
        return "the file name is empty, hidden or has surrounding blanks"
    if any(ch in "/\\:" or ord(ch) < 32 or ord(ch) == 127 for ch in name):
        return "the file name holds a path separator, a colon or a control character"
    if len(name) > NAME_MAX:
        return f"the file name is over {NAME_MAX} characters"
    if name.casefold() in ("memory", ARCHIVE, "templates"):
        return f"{name}.md would be taken for the index or a store folder"
    if name.split(".", 1)[0].rstrip(" ").upper() in WINDOWS_DEVICES:
        return "the file name is a device on Windows (CON, NUL, COM1...): rename it"
    return None


def name_key(name: str) -> str:
    """``name`` as names are compared for a collision: case-folded and Unicode-normalised
    (``Café`` composed or decomposed, any case, is one name: one file on macOS)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", name).casefold())


def note_data(candidate: Candidate) -> bytes:
    """The note's bytes: the frontmatter (Engramory's writer), then the body verbatim.

    Raises :class:`ValueError` when the frontmatter cannot hold a key or value.
    """
    return (render(candidate.fields) + candidate.body).encode("utf-8")


def template_index() -> str:
    """The index a new store starts with, as ``engramory init`` writes it."""
    return shipped_path("templates/MEMORY.md").read_text(encoding="utf-8")


def existing_names(root: str) -> dict[str, str]:
    """:func:`name_key` of the file name -> store-relative path of every note, live or
    archived, and of every entry at the store's top (a new note may not take those names)."""
    if not os.path.isdir(root):
        return {}
    found = walk(root)
    names: dict[str, str] = {}
    for rel in [note.rel for note in found.notes] + list(found.archived):
        names.setdefault(name_key(rel.rsplit("/", 1)[-1]), rel)
    try:
        entries = os.listdir(root)
    except OSError:
        entries = []
    for entry in entries:
        names.setdefault(name_key(entry), entry)
    return names


def _bad_name(candidate: Candidate, allowed: Allowed | None) -> Skip | None:
    """Why the candidate's file name cannot be written, as a skip, else ``None``."""
    problem = name_problem(candidate.name)
    if problem:
        return Skip(candidate.source, BAD_NAME, problem)
    in_name = secrets.find(candidate.name, allowed)
    if in_name:  # a file name cannot be redacted: its pointer links to it
        return Skip(
            secrets.redact(candidate.source, allowed),
            SECRET,
            f"{in_name[0].title} in the file name: not copied (rename the file in the source, "
            "then import again)",
        )
    return None


def _secret_detail(found: list[Secret], in_pointer: list[Secret]) -> str:
    """What ``--skip-secrets`` says of a note it leaves out."""
    if not found and not in_pointer:
        return "a secret value found in another imported note: not copied"
    first = (found or in_pointer)[0]
    where = f"on line {first.line}" if found else "in its pointer's title or hook"
    return f"{first.title} {where}: not copied"


def _scans(
    candidates: Sequence[Candidate], allowed: Allowed | None
) -> list[tuple[bytes, str, str, list[Secret], list[Secret]] | ValueError]:
    """Per candidate: its bytes, text, pointer text and the secrets in each (the error when
    the frontmatter cannot hold it)."""
    out: list[tuple[bytes, str, str, list[Secret], list[Secret]] | ValueError] = []
    for candidate in candidates:
        try:
            data = note_data(candidate)
        except ValueError as exc:
            out.append(exc)
            continue
        text, pointer = data.decode("utf-8"), f"{candidate.title}\n{candidate.hook}"
        out.append(
            (data, text, pointer, secrets.find(text, allowed), secrets.find(pointer, allowed))
        )
    return out


def _screen(
    candidates: Sequence[Candidate],
    taken: dict[str, str],
    skip_secrets: bool = False,
    root: str | None = None,
) -> tuple[list[Planned], list[Skip], list[str], list[Redaction]]:
    """The candidates that can be written (with their bytes), the rest as skips, the
    doctor's errors on the notes kept (carried over from the source: said, not refused),
    and the secrets replaced by ``[redacted: <detector>]`` (with ``skip_secrets``: such a
    note is skipped instead)."""
    hidden: list[Redaction] = []
    allowed = allow.load(root) if root is not None else None
    kept: list[Planned] = []
    skipped: list[Skip] = []
    warnings: list[str] = []
    seen: dict[str, str] = {}
    today = date.today()
    scans = _scans(candidates, allowed)
    everywhere: dict[str, str] = {}  # a value found in one note is a secret in every note
    for scan in scans:
        if not isinstance(scan, ValueError):
            everywhere.update(known_values(scan[2], scan[4]))
            everywhere.update(known_values(scan[1], scan[3]))
    for candidate, scan in zip(candidates, scans):
        file_name = candidate.name + ".md"
        bad = _bad_name(candidate, allowed)
        if bad is not None:
            skipped.append(bad)
            continue
        clash = taken.get(name_key(file_name)) or seen.get(name_key(file_name))
        if clash is not None:
            skipped.append(
                Skip(candidate.source, COLLISION, f"a note named {clash} is already there")
            )
            continue
        if isinstance(scan, ValueError):
            skipped.append(Skip(candidate.source, UNWRITABLE, str(scan)))
            continue
        data, text, pointer, found, in_pointer = scan
        known = {v: d for v, d in everywhere.items() if v in text or v in pointer}
        if (found or in_pointer or known) and skip_secrets:
            skipped.append(Skip(candidate.source, SECRET, _secret_detail(found, in_pointer)))
            continue
        if found or in_pointer or known:
            written, pointer_detectors = redacted_candidate(candidate, known)
            data = note_data(written)
            if secrets.find(data.decode("utf-8"), allowed):  # never write one: read it anew
                skipped.append(Skip(candidate.source, SECRET, "a secret it could not redact"))
                continue
            hidden += redactions(file_name, data, pointer_detectors)
        else:
            written = candidate
        seen[name_key(file_name)] = file_name
        kept.append(Planned(file_name, data, written))
        for issue in notewrite.note_issues(file_name, data, today):
            if issue.severity == ERROR:
                warnings.append(
                    f"{file_name}: {issue.message} [{issue.rule}] "
                    "(as in the source: fix it after the import)"
                )
    return kept, skipped, warnings, hidden


def index_with(index: str, pointers: Iterable[tuple[str, str]], flat: bool = False) -> str:
    """``index`` with each ``(type, pointer line)`` added at the end of its type's section
    (``flat``: at the end of the index, as Claude Code writes its own, without headings)."""
    for section, line in pointers:
        if flat:
            ending = line_ending(index)
            index += ending if index and not index.endswith("\n") else ""
            index += line + ending
        else:
            index = notewrite.index_with_pointer(index, section, line)
    return index


def is_flat(index: str) -> bool:
    """Whether the index has no ``## <type>`` section (Claude Code's own dialect)."""
    return all(section_block(index, note_type) is None for note_type in NOTE_TYPES)


def pointer_of(planned: Planned) -> tuple[str, str]:
    """``(section, pointer line)`` for a live note."""
    candidate = planned.candidate
    return candidate.note_type, pointer_line(candidate.title, planned.rel, candidate.hook)


def _within(text: str, line_cap: int, byte_cap: int) -> bool:
    return count_lines(text) <= line_cap and utf8_size(text) <= byte_cap


def fitting(
    index: str, ordered: Sequence[Planned], line_cap: int, byte_cap: int, flat: bool = False
) -> int:
    """How many of ``ordered`` (taken in that order) fit before the index passes the caps."""
    if not _within(index, line_cap, byte_cap):
        return 0
    text = index
    for count, planned in enumerate(ordered):
        text = index_with(text, [pointer_of(planned)], flat)
        if not _within(text, line_cap, byte_cap):
            return count
    return len(ordered)


def by_recency(planned: Sequence[Planned]) -> list[Planned]:
    """Most recently updated first (unknown dates last); ties in the given order."""
    return sorted(planned, key=lambda p: p.candidate.recency, reverse=True)


def archived_copy(planned: Planned) -> Planned:
    """The same note, under ``archive/``."""
    return Planned(f"{ARCHIVE}/{planned.rel}", planned.data, planned.candidate)


def make_plan(
    root: str,
    candidates: Sequence[Candidate],
    skipped: Sequence[Skip],
    index: str | None,
    index_source: bytes,
    caps: Caps,
    archive_overflow: bool,
    skip_secrets: bool = False,
) -> ImportPlan:
    """Decide the import; raise :class:`EngramoryError` (exit 1) on a refusal.

    ``index``: the store's index text (``None``: no index yet, the template is used).
    """
    kept, skips, warnings, hidden = _screen(candidates, existing_names(root), skip_secrets, root)
    plan = place(root, kept, template_index() if index is None else index, caps, archive_overflow)
    plan.index_exists, plan.index_source = index is not None, index_source
    plan.skipped = [*skipped, *skips]
    plan.warnings, plan.redacted = warnings, hidden
    plan.ignore = store_ignore(root) if index is None else None  # the import creates the store
    return plan


def place(
    root: str,
    kept: list[Planned],
    base: str,
    caps: Caps,
    archive_overflow: bool,
    flat: bool = False,
) -> ImportPlan:
    """The notes ``kept`` placed: live with a pointer in ``base`` (the index before), or, when
    the pointers would pass the hard cap and ``archive_overflow`` is given, the rest in
    ``archive/``; raise :class:`EngramoryError` (exit 1) when they would and it is not."""
    store_exists = os.path.isdir(root)
    archived = [archived_copy(p) for p in kept if p.candidate.archived]
    kept = [p for p in kept if not p.candidate.archived]
    live = kept
    if kept and fitting(base, kept, caps.hard_lines, caps.hard_bytes, flat) < len(kept):
        ordered = by_recency(kept)
        if not archive_overflow:
            fit = fitting(base, ordered, caps.hard_lines, caps.hard_bytes, flat)
            raise EngramoryError(
                f"the pointers of {plural(len(kept), 'note')} would take {INDEX_NAME} over its "
                f"hard cap ({caps.hard_lines} lines / {caps.hard_bytes} bytes): {fit} of "
                f"{len(kept)} fit. Nothing was written. Run again with --archive-overflow (the "
                f"most recently updated notes get pointers up to the soft cap, the rest go to "
                f"{ARCHIVE}/), or compact the index first"
            )
        fit = fitting(base, ordered, caps.warn_lines, caps.warn_bytes, flat)
        chosen = {id(p) for p in ordered[:fit]}
        live = [p for p in kept if id(p) in chosen]
        archived += [archived_copy(p) for p in kept if id(p) not in chosen]
    new_index = index_with(base, [pointer_of(p) for p in live], flat)
    return ImportPlan(
        root,
        store_exists,
        False,
        b"",
        new_index,
        live,
        archived,
        [],
        lines=count_lines(new_index),
        size=utf8_size(new_index),
    )


def store_ignore(root: str) -> StoreIgnore | None:
    """Where a new store at ``root`` (a real path) gets the ignore entry ``engramory init``
    gives a store: the ``.gitignore`` at the top of the git work tree holding it. ``None``
    outside a work tree, or when the store is the work tree's top itself."""
    top = discovery.git_work_tree(Path(root).parent)
    if top is None:
        return None
    top_real = os.path.realpath(top)
    if root == top_real or not fsutil.is_within(root, top_real):
        return None
    relative = Path(os.path.relpath(root, top_real)).as_posix()
    return StoreIgnore(os.path.join(top_real, GITIGNORE), relative)


def add_ignore(ignore: StoreIgnore, write: bool = True) -> str:
    """Add the store's entry to the ``.gitignore`` as ``engramory init`` does (atomically,
    keeping its mode and line endings; ``write=False``: say it, write nothing). What was
    done, or why not: a failure here never undoes the import."""
    entry, path = ignore.entry, ignore.path
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        return f"cannot read {path} ({fsutil.os_error_text(exc)}): add {entry} to it yourself"
    else:
        if stat.S_ISLNK(mode) or not stat.S_ISREG(mode):
            return f"{path} is a symlink or not a regular file: add {entry} to it yourself"
        try:
            raw = fsutil.read_bounded_stat(path, GITIGNORE_LIMIT, follow_symlinks=False)[0]
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = fsutil.os_error_text(exc) if isinstance(exc, OSError) else "not UTF-8"
            return f"cannot read {path} ({why}): add {entry} to it yourself"
    new, detail = managed.ignore_store(text, ignore.relative)
    if new == text:
        return f"{path} {detail}"
    if not write:
        return f"would add {entry} to {path} (as engramory init does)"
    try:
        fsutil.write_atomic(path, new.encode("utf-8"))
    except OSError as exc:
        return f"cannot write {path} ({fsutil.os_error_text(exc)}): add {entry} to it yourself"
    return f"added {entry} to {path} (as engramory init does)"


def read_index(root: str, caps: Caps) -> tuple[str | None, bytes]:
    """The store's index as text and bytes (``None``: no index yet); refuses (exit 1) an index
    that is a symlink, not a regular file, or too large to edit."""
    path = os.path.join(root, INDEX_NAME)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None, b""
    except OSError as exc:
        raise EngramoryError(f"{path}: {fsutil.os_error_text(exc)}") from None
    if stat.S_ISLNK(mode) or not stat.S_ISREG(mode):
        raise EngramoryError(
            f"{path} is a symlink or not a regular file: import writes only a regular index; "
            "make it one first"
        )
    try:
        raw = fsutil.read_bounded(path, caps.read_limit())
    except fsutil.FileTooLargeError:
        raise EngramoryError(
            f"{path} is too large to edit: compact it first (engramory check {root})"
        ) from None
    except OSError as exc:
        raise EngramoryError(f"{path}: {fsutil.os_error_text(exc)}") from None
    return notewrite.decode_index(raw), raw


def execute(
    plan: ImportPlan, announce: backup.Announce | None = None, command: str = COMMAND
) -> str | None:
    """Write the plan (the store folder first when missing); the backup ID, ``None`` when there
    was nothing to write. ``announce`` gets the ID once the journal is on disk; ``command``
    (``import``, ``merge``) is the one whose ``--undo`` takes it back."""
    created = plan.created()
    changes = {}
    if plan.index_exists and (plan.live or plan.archived):
        changes[INDEX_NAME] = notewrite.encode_index(plan.new_index)
    if not created and not changes:
        return None
    if not plan.store_exists:
        try:
            os.makedirs(plan.root)
        except OSError as exc:
            raise EngramoryError(
                f"{plan.root}: cannot create the store ({fsutil.os_error_text(exc)}); "
                "nothing was written"
            ) from None
    sources = {INDEX_NAME: plan.index_source} if changes else {}
    try:
        with locked(Path(plan.root), leave_no_file=True):  # as every writer of the store
            return backup.apply(
                plan.root,
                sources,
                changes,
                created=created,
                command=command,
                made_store=not plan.store_exists,
                announce=announce,
            )
    except OSError as exc:  # before the first note or index write: the backup could not be made
        raise EngramoryError(
            f"{plan.root}: cannot make the backup ({fsutil.os_error_text(exc)}); no note and "
            "no index was written"
        ) from None
    except EngramoryError as exc:
        written = [rel for rel in created if os.path.lexists(os.path.join(plan.root, rel))]
        if not written:
            raise
        shown = ", ".join(written[:10]) + (
            f" and {len(written) - 10} more" if len(written) > 10 else ""
        )
        raise EngramoryError(f"{exc}; written before it failed: {shown}") from None


def counts(values: Iterable[str]) -> dict[str, int]:
    """How often each value occurs, in first-seen order."""
    tally: dict[str, int] = {}
    for value in values:
        tally[value] = tally.get(value, 0) + 1
    return tally


def summary(plan: ImportPlan) -> dict[str, object]:
    """The report as data: imported per type, archived, skipped per reason, with the files."""
    return {
        "store": plan.root,
        "created_store": not plan.store_exists,
        "imported": counts(p.candidate.note_type for p in plan.live),
        "archived": [p.rel for p in plan.archived],
        "skipped": counts(s.reason for s in plan.skipped),
        "skipped_files": [
            {"source": s.source, "reason": s.reason, "detail": s.detail} for s in plan.skipped
        ],
        "notes": [p.rel for p in plan.live],
        "index": {"lines": plan.lines, "bytes": plan.size},
        "warnings": plan.warnings,
        "dates": [
            {"note": p.rel, "from": p.candidate.dates_from} for p in plan.live + plan.archived
        ],
        "redacted": [
            {"note": r.note, "line": r.line, "detector": r.detector} for r in plan.redacted
        ],
        "gitignore": None
        if plan.ignore is None
        else {"path": plan.ignore.path, "entry": plan.ignore.entry, "done": plan.ignored},
    }


def redaction_lines(plan: ImportPlan) -> list[str]:
    """The secrets written as ``[redacted: <detector>]``, each with its note and line."""
    if not plan.redacted:
        return []
    out = [
        f"redacted {plural(len(plan.redacted), 'secret value')} (written as [redacted: "
        "<detector>]; the source still holds the original: rotate it, or re-import with "
        "--skip-secrets to leave such notes out):"
    ]
    for r in plan.redacted:
        where = f"line {r.line}" if r.line is not None else "its pointer"
        out.append(f"  {r.note}, {where}: {r.detector}")
    return out


def dates_lines(plan: ImportPlan) -> list[str]:
    """Where each note's dates came from: a count for the entries' own dates, every other
    note by name (the ones whose dates were looked up, or that have none)."""
    by_source: dict[str, list[str]] = {}
    for planned in plan.live + plan.archived:
        by_source.setdefault(planned.candidate.dates_from, []).append(planned.rel)
    out = []
    for source, what in DATES_FROM.items():
        rels = by_source.get(source, [])
        if source in (DATES_ENTRY, DATES_KEPT) and rels:
            out.append(f"{plural(len(rels), 'note')}: {what}")
        elif rels:
            out.append(f"{plural(len(rels), 'note')}: {what}:")
            out += [f"  {rel}" for rel in rels]
    return out


def type_counts_text(plan: ImportPlan) -> str:
    """``3 feedback, 1 user`` (in the protocol's type order), or ``nothing``."""
    tally = counts(p.candidate.note_type for p in plan.live)
    parts = [f"{tally[t]} {t}" for t in NOTE_TYPES if t in tally]
    return ", ".join(parts) if parts else "nothing"


@dataclass(frozen=True)
class SourceFile:
    """One ``.md`` file read from a source folder: its name, text and modification time."""

    name: str
    text: str
    mtime: float

    @property
    def stem(self) -> str:
        """The file name without ``.md``."""
        return self.name[:-3]


@dataclass
class SourceFolder:
    """What a source folder holds: its ``.md`` files (the index apart), what was not read."""

    files: list[SourceFile] = field(default_factory=list)
    index: SourceFile | None = None
    skipped: list[Skip] = field(default_factory=list)


NOT_READ = "not-read"
INDEX_FILE = "index"


def source_folder(folder: str) -> str:
    """The folder's real path; exit 66 when it is missing or not a folder."""
    try:
        mode = os.stat(folder).st_mode
    except OSError as exc:
        raise InputMissingError(f"{folder}: {fsutil.os_error_text(exc)}") from None
    if not stat.S_ISDIR(mode):
        raise InputMissingError(f"{folder} is not a folder: give the folder that holds the notes")
    return os.path.realpath(folder)


def read_folder(folder: str) -> SourceFolder:
    """The top-level ``.md`` files of ``folder`` (sorted), each read with a bound and without
    following a symlink; sub-folders, symlinks and unreadable files listed as not read.
    Hidden entries are passed over. Nothing in the folder is ever modified."""
    found = SourceFolder()
    try:
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda e: e.name)
    except OSError as exc:
        raise InputMissingError(f"{folder}: {fsutil.os_error_text(exc)}") from None
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        if entry.is_dir(follow_symlinks=False):
            found.skipped.append(Skip(name + "/", NOT_READ, "a sub-folder: only the top is read"))
            continue
        if not name.lower().endswith(".md"):
            continue
        if entry.is_symlink():
            found.skipped.append(Skip(name, NOT_READ, "a symlink: not followed"))
            continue
        if not utf8_name(name):  # no pointer line can name it: the index is UTF-8
            found.skipped.append(Skip(name, NOT_READ, NAME_NOT_UTF8))
            continue
        try:
            raw, info = fsutil.read_bounded_stat(entry.path, NOTE_READ_LIMIT, follow_symlinks=False)
        except fsutil.FileTooLargeError:
            found.skipped.append(Skip(name, NOT_READ, f"over {NOTE_READ_LIMIT} bytes"))
            continue
        except fsutil.NotRegularFileError:
            found.skipped.append(Skip(name, NOT_READ, "not a regular file"))
            continue
        except OSError as exc:
            found.skipped.append(Skip(name, NOT_READ, fsutil.os_error_text(exc)))
            continue
        source = SourceFile(name, decode(raw), info.st_mtime)
        if name == INDEX_NAME:
            found.index = source
        else:
            found.files.append(source)
    return found
