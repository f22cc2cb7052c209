"""Rules about note files and the note graph (structure only: no frontmatter needed)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from engramory.doctor.context import NOTE_TYPES, NoteCheck, StoreView
from engramory.doctor.model import (
    ERROR,
    INFO,
    NOTE,
    STORE,
    WARNING,
    Example,
    Issue,
    rule,
    sample_note,
)
from engramory.secrets.excerpts import excerpt
from engramory.store.discovery import INDEX_NAME
from engramory.store.disk import (
    ESCAPES,
    LOOP,
    MISSING,
    NOT_REGULAR,
    NOT_SLUG,
    NOTE_READ_LIMIT,
    TOO_LARGE,
    UNREADABLE,
)
from engramory.store.markdown import WIKI
from engramory.util import fsutil
from engramory.util.textfmt import human_size, plural

_ARCHIVE_LOOKALIKES = frozenset({"archived", "_archive", "_archived", "old", "retired", "attic"})


@rule(
    "note-escapes-store",
    ERROR,
    "a note file that resolves outside the store (never read)",
    fires=(
        Example(
            "`x.md -> ../diary.md`, outside the store",
            symlinks={"x.md": "../diary.md"},
            outside={"diary.md": sample_note("diary")},
        ),
    ),
    quiet=(
        Example(
            "`x.md -> y.md` inside the store",
            {"y.md": sample_note("y")},
            symlinks={"x.md": "y.md"},
        ),
        Example("a regular `x.md`", {"x.md": sample_note("x")}),
    ),
    scope=NOTE,
    fix="remove or retarget symlinked notes that lead out of the store (they were not read)",
)
def note_escapes_store(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``x.md -> /home/me/diary.md``.
    Quiet: ``x.md -> y.md`` inside the store, or a regular ``x.md``."""
    for note in notes:
        if note.file.status == ESCAPES:
            yield (
                note.rel,
                None,
                "this note is a symlink that resolves outside the store; it was not read",
            )


@rule(
    "note-unreadable",
    ERROR,
    "a note that cannot be read (permissions, dangling symlink, symlink loop, FIFO, socket, "
    "device)",
    fires=(
        Example("a dangling symlink `x.md -> gone.md`", symlinks={"x.md": "gone.md"}),
        Example("a symlink loop", symlinks={"x.md": "y.md", "y.md": "x.md"}),
        Example("a file without read permission", {"x.md": "a fact\n"}, modes={"x.md": 0o000}),
    ),
    quiet=(Example("a readable regular file", {"x.md": sample_note("x")}),),
    scope=NOTE,
    fix="make each unreadable note a readable regular file, or remove it",
)
def note_unreadable(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: a FIFO named ``x.md`` (never opened), a dangling symlink, a symlink loop, a
    file without read permission.
    Quiet: a readable regular file."""
    for note in notes:
        if note.file.status == MISSING:
            yield (note.rel, None, "this note is a dangling symlink: its target does not exist")
        elif note.file.status == LOOP:
            yield (
                note.rel,
                None,
                "this note is a symlink loop: its symlinks lead back to each other, so it "
                "never reaches a file",
            )
        elif NOT_REGULAR in (note.file.status, note.read.status):
            yield (
                note.rel,
                None,
                "this note is not a regular file (a FIFO, socket or device); not opened",
            )
        elif note.read.status in (UNREADABLE, MISSING):
            yield (note.rel, None, f"cannot read this note ({note.read.error})")


@rule(
    "note-too-large",
    ERROR,
    "a note over 4 MiB (not read)",
    fires=(Example("a 5 MB `dump.md`", sizes={"dump.md": 5_000_000}),),
    quiet=(Example("a note of exactly 4 MiB", sizes={"dump.md": 4 * 1024 * 1024}),),
    scope=NOTE,
    fix="a note holds one fact: split an oversized note, or move the bulk out of the store",
)
def note_too_large(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: a 5 MB ``dump.md``.
    Quiet: a 4 MiB note or smaller."""
    for note in notes:
        if note.read.status == TOO_LARGE:
            yield (
                note.rel,
                None,
                f"this note is {human_size(note.read.size or 0)}, over the "
                f"{human_size(NOTE_READ_LIMIT)} the doctor reads: one note holds one fact",
            )


@rule(
    "directory-unreadable",
    ERROR,
    "a directory in the store that cannot be listed",
    fires=(
        Example(
            "`sub/` without list permission",
            {"sub/x.md": sample_note("x")},
            modes={"sub": 0o000},
        ),
    ),
    quiet=(Example("every directory can be listed", {"sub/x.md": sample_note("x")}),),
    scope=STORE,
    fix="fix the directory's permissions; notes inside it were not checked",
    fix_for=lambda view: (
        "shorten the store's directory names: the file system refuses paths this long; notes "
        "inside were not checked"
        if all(error == fsutil.NAME_TOO_LONG for _rel, error in view.walk.bad_dirs)
        else "fix the directory's permissions (or shorten a path the file system calls too "
        "long); notes inside it were not checked"
    ),
)
def directory_unreadable(view: StoreView) -> Iterator[Issue]:
    """Fires: ``sub/`` without list permission.
    Quiet: every directory can be listed."""
    for rel, error in view.walk.bad_dirs:
        yield (
            rel.rstrip("/") + "/",
            None,
            f"cannot list this directory ({error}); its notes were not checked",
        )


@rule(
    "symlink-escape",
    ERROR,
    "a store folder (archive/, any sub-folder) that is a symlink leading out of the store",
    fires=(
        Example(
            "`archive -> ../elsewhere`, a folder outside the store",
            symlinks={"archive": "../elsewhere"},
            outside={"elsewhere/old.md": sample_note("old")},
        ),
        Example(
            "`sub -> ../shared`, a sub-folder leading out",
            {"x.md": sample_note("x")},
            symlinks={"sub": "../shared"},
            outside={"shared/y.md": sample_note("y")},
        ),
    ),
    quiet=(
        Example("a plain `archive/` folder", {"archive/old.md": sample_note("old")}),
        Example(
            "`more -> notes`, a folder inside the store",
            {"notes/x.md": sample_note("x")},
            symlinks={"more": "notes"},
        ),
    ),
    scope=STORE,
    fix="replace each symlinked folder that leads out of the store with a plain folder "
    "(move what belongs to the store in), or remove the link: nothing behind it is read",
)
def symlink_escape(view: StoreView) -> Iterator[Issue]:
    """Fires: ``archive -> ../elsewhere``; ``sub -> ../shared``.
    Quiet: a plain ``archive/``; ``more -> notes`` inside the store."""
    for rel in view.walk.linked_out:
        yield (
            rel + "/",
            None,
            "this folder is a symlink leading out of the store: nothing behind it is read or "
            "written, and the notes there are not part of the store",
        )


@rule(
    "duplicate-slug",
    ERROR,
    "the same file name in two directories, or two names equal up to case",
    fires=(
        Example("`a.md` and `sub/a.md`", {"a.md": sample_note("a"), "sub/a.md": sample_note("a")}),
        Example(
            "`Deploy.md` and `deploy.md`",
            {"Deploy.md": sample_note("Deploy"), "deploy.md": sample_note("deploy")},
        ),
    ),
    quiet=(
        Example(
            "`a.md` and `archive/a.md` (an archived note is not a live one)",
            {"a.md": sample_note("a"), "archive/a.md": sample_note("a")},
        ),
    ),
    scope=STORE,
    fix="rename one of each clashing pair: links and pointers resolve by name",
)
def duplicate_slug(view: StoreView) -> Iterator[Issue]:
    """Fires: ``a.md`` and ``sub/a.md``; ``Deploy.md`` and ``deploy.md``.
    Quiet: ``a.md`` and ``archive/a.md`` (an archived note is not a live one)."""
    for numbers in view.names.clashes():
        rels = [view.notes[n].rel for n in numbers]
        first = rels[0]
        for other in rels[1:]:
            same = other.rsplit("/", 1)[-1] == first.rsplit("/", 1)[-1]
            how = "has the same name as" if same else "differs only in case from"
            yield (
                other,
                None,
                f"this note {how} {first}: [[links]] resolve by name, so one of them is "
                "unreachable; rename one",
            )


# A folder the index never points into is one finding, naming this many of its notes.
FOLDER_PATHS_SHOWN = 3


@rule(
    "nested-note",
    WARNING,
    "a live note in a sub-directory other than archive/ (the active store is flat)",
    fires=(
        Example(
            "`feedback/x.md` (a folder per type is the classic mistake)",
            {"feedback/x.md": sample_note("x", "feedback")},
        ),
        Example("`topics/x.md`", {"topics/x.md": sample_note("x")}),
        Example(
            "`research/` holding notes the index never points into: one finding for the folder",
            {f"research/r{n}.md": f"# Finding {n}\n" for n in range(1, 5)},
        ),
    ),
    quiet=(
        Example("`x.md` at the top level", {"x.md": sample_note("x")}),
        Example("`archive/x.md`", {"archive/x.md": sample_note("x")}),
    ),
    scope=STORE,
    fix="move live notes to the top level of the store (retired ones into archive/) and "
    "update their pointers",
)
def nested_note(view: StoreView) -> Iterator[Issue]:
    """Fires: ``feedback/x.md`` (a folder per type is the classic mistake), ``topics/x.md``.
    Quiet: ``x.md`` at the top level, ``archive/x.md``.

    One cause, one finding: the notes of a top-level folder that no index pointer
    resolves into, and that no reachable note links to, are one finding for the
    folder, with their count and first paths. The engine then drops their
    ``orphan`` and schema findings (see ``engine.folded_paths``); the rules that read
    what a note says (secrets, relative dates, duplicates) still run on them.
    """
    folders = view.unindexed_folders()
    folded = {number for numbers in folders.values() for number in numbers}
    for number, note in enumerate(view.notes):
        if not note.file.nested or note.status == ESCAPES or number in folded:
            continue
        folder = note.rel.split("/", 1)[0]
        yield (note.rel, None, f"live notes belong at the top level of the store; {_hint(folder)}")
    for folder, numbers in folders.items():
        rels = [view.notes[number].rel for number in numbers]
        yield (f"{folder}/", None, _folder_message(folder, rels))


_TYPE_FOLDER, _ARCHIVE_LOOKALIKE, _OTHER_FOLDER = "type", "archive", "other"
# What to do about one note in a folder, and about a folder the index never points into.
_NOTE_HINTS = {
    _TYPE_FOLDER: "a folder per type is a classic mistake: the type belongs in the frontmatter",
    _ARCHIVE_LOOKALIKE: "if {folder}/ holds retired notes, rename it to archive/",
    _OTHER_FOLDER: "move it to the top level and update its pointer",
}
_FOLDER_HINTS = {
    _TYPE_FOLDER: "a folder per type is a classic mistake: move them to the top level (the "
    "type belongs in the frontmatter) and point to them from the index",
    _ARCHIVE_LOOKALIKE: "if {folder}/ holds retired notes, rename it to archive/",
    _OTHER_FOLDER: "point to the ones that matter from the index, move them to the top level, "
    "or move the folder out of the store",
}


def _folder_kind(folder: str) -> str:
    if folder.casefold() in NOTE_TYPES:
        return _TYPE_FOLDER
    if folder.casefold() in _ARCHIVE_LOOKALIKES:
        return _ARCHIVE_LOOKALIKE
    return _OTHER_FOLDER


def _hint(folder: str) -> str:
    """What to do about a note in ``folder``."""
    return _NOTE_HINTS[_folder_kind(folder)].format(folder=folder)


def _folder_message(folder: str, rels: list[str]) -> str:
    """The one finding for a folder the index never points into."""
    shown = ", ".join(rels[:FOLDER_PATHS_SHOWN]) + (", …" if len(rels) > FOLDER_PATHS_SHOWN else "")
    verb = "is" if len(rels) == 1 else "are"
    advice = _FOLDER_HINTS[_folder_kind(folder)].format(folder=folder)
    return (
        f"{plural(len(rels), 'note')} under {folder}/ {verb} not reachable from the index: "
        f"{shown}; {advice} (their other checks wait until the index points into the folder)"
    )


@rule(
    "orphan",
    ERROR,
    "a live note not reachable from the index (directly or through [[links]])",
    fires=(
        Example(
            "`x.md` that no index line points to and no reachable note links to",
            {"MEMORY.md": "# Memory index\n", "x.md": sample_note("x")},
        ),
        Example(
            "two unindexed notes that only link each other",
            {
                "MEMORY.md": "# Memory index\n",
                "a.md": sample_note("a", body="See [[b]].\n"),
                "b.md": sample_note("b", body="See [[a]].\n"),
            },
        ),
    ),
    quiet=(
        Example("`x.md` pointed to by the index", {"x.md": sample_note("x")}),
        Example(
            "`detail.md` linked from a note the index points to",
            {
                "MEMORY.md": "- [a](a.md)\n",
                "a.md": sample_note("a", body="See [[detail]].\n"),
                "detail.md": sample_note("detail"),
            },
        ),
    ),
    scope=STORE,
    fix="add a pointer line for each orphan in MEMORY.md, link it from an indexed note, "
    "or move it to archive/",
    repair="orphan",
)
def orphan(view: StoreView) -> Iterator[Issue]:
    """Fires: ``x.md`` that no index line points to and no reachable note links to; two
    unindexed notes that only link each other are both orphans.
    Quiet: ``x.md`` pointed to by the index, or linked from a note that is."""
    if not view.index_read:
        return
    _indexed, reachable = view.reachability()
    for number, note in enumerate(view.notes):
        if number not in reachable and note.status != ESCAPES:
            yield (
                note.rel,
                None,
                "no index line points to this note and no indexed note links to it, so an "
                "agent will never find it",
            )


@rule(
    "linked-not-indexed",
    INFO,
    "a note reachable only through [[links]], not from the index",
    fires=(
        Example(
            "`detail.md` linked from an indexed note but not in the index",
            {
                "MEMORY.md": "- [a](a.md)\n",
                "a.md": sample_note("a", body="See [[detail]].\n"),
                "detail.md": sample_note("detail"),
            },
        ),
    ),
    quiet=(
        Example(
            "`detail.md` with its own pointer line",
            {
                "a.md": sample_note("a", body="See [[detail]].\n"),
                "detail.md": sample_note("detail"),
            },
        ),
    ),
    scope=STORE,
    fix="give notes found only through links their own pointer line if they matter on their own",
)
def linked_not_indexed(view: StoreView) -> Iterator[Issue]:
    """Fires: ``detail.md`` linked from an indexed note but not in the index.
    Quiet: ``detail.md`` with its own pointer line."""
    if not view.index_read:
        return
    indexed, reachable = view.reachability()
    for number in sorted(reachable - indexed):
        yield (view.notes[number].rel, None, "reachable only through [[links]] from other notes")


@rule(
    "wikilink-missing",
    INFO,
    "a [[slug]] in a note with no note of that name yet (a forward reference is fine)",
    fires=(
        Example(
            "`[[not-written-yet]]` in a note body",
            {"a.md": sample_note("a", body="See [[not-written-yet]].\n")},
        ),
    ),
    quiet=(
        Example(
            "`[[b]]`, `[[b|Alias]]`, `[[b#Heading]]` with `b.md` present",
            {
                "a.md": sample_note("a", body="See [[b]], [[b|Alias]] and [[b#Heading]].\n"),
                "b.md": sample_note("b"),
            },
        ),
    ),
    scope=STORE,
    fix="write the missing notes when they are worth it, or drop the links",
)
def wikilink_missing(view: StoreView) -> Iterator[Issue]:
    """Fires: ``[[not-written-yet]]`` in a note body.
    Quiet: ``[[existing-note]]``, ``[[existing-note|Alias]]``, ``[[existing-note#Heading]]``."""
    for number, target, line in view.missing_links:
        yield (view.notes[number].rel, line, f"[[{excerpt(target)[1:-1]}]] has no note yet")


@rule(
    "wikilink-not-slug",
    INFO,
    "a [[dir/x]] link: links are bare slugs",
    fires=(
        Example(
            "`[[topics/x]]` in a note",
            {
                "a.md": sample_note("a", body="See [[topics/x]].\n"),
                "x.md": sample_note("x"),
            },
        ),
        Example(
            "`[[topics/x]]` in the index",
            {"MEMORY.md": "- [[topics/x]]\n", "x.md": sample_note("x")},
        ),
    ),
    quiet=(
        Example(
            "`[[x]]`",
            {"a.md": sample_note("a", body="See [[x]].\n"), "x.md": sample_note("x")},
        ),
    ),
    scope=STORE,
    fix="write links as bare slugs: [[note-name]], not [[folder/note-name]]",
)
def wikilink_not_slug(view: StoreView) -> Iterator[Issue]:
    """Fires: ``[[feedback/x]]`` in a note, or in the index.
    Quiet: ``[[x]]``."""
    for number, target, line in view.odd_links:
        shown = excerpt(target)[1:-1]
        yield (view.notes[number].rel, line, f"[[{shown}]] is a path: write [[name]]")
    for pointer in view.pointers:
        if pointer.form == WIKI and pointer.target.kind == NOT_SLUG:
            yield (
                INDEX_NAME,
                pointer.line,
                f"[[{excerpt(pointer.raw)[1:-1]}]] is a path: write [[name]] or [title](path.md)",
            )
