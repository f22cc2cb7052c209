"""The check after a write (issue 34): a tool call already ran; did it leave the store broken?

A host may let a write through that the pre-write guard denied, or never ask the guard at
all (a shell command it could not follow). After the call, on every host with an
after-tool event, this module looks at what the call may have touched and says what to
undo: the index over its hard cap (measured as :func:`engramory.guard.service.check_after`
does, in the guard's words) and a store note now holding a secret (named by kind and at
most its first characters, never its value). It never writes anything; silence when
nothing is wrong.

Which files a call may have touched: an edit's (or write's) path; every file a V4A patch
adds, updates or moves; for a shell command, the index (measured whatever the command: a
script or a program the pre-write parser cannot follow may have written it) and, when the
command may write a file (:func:`~engramory.guard.shell_may_write`), every word of
it naming a store's ``.md`` file. The shell parser is not run: the check must not depend on
following the command.
"""

from __future__ import annotations

import os

from engramory.guard import service, toolcall

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from engramory.guard.decision import Verdict
    from engramory.guard.toolcall import ToolCall

NOTE_LIMIT = 4 * 1024 * 1024  # the doctor reads no more of a note (store.NOTE_READ_LIMIT)
SHELL_NOTES_LIMIT = 32  # at most this many note names of one command are looked at
# Characters that end a word of a shell command for the note-name scan (quotes included).
_SEPARATORS = str.maketrans(dict.fromkeys("\t\n\r;&|<>()'\"`{}=,", " "))


class Touched:
    """What one call may have changed: ``index`` (measure the index), ``notes`` (paths of
    store ``.md`` files to scan, as absolute paths), ``carried`` (per note, the text the
    calls brought into it; ``None`` when that cannot be known, as for a shell command) and
    ``index_paths`` (an index named by the call itself, measured as named)."""

    __slots__ = ("carried", "index", "index_paths", "notes")

    def __init__(self) -> None:
        self.index = False
        self.index_paths: list[str] = []
        self.notes: list[str] = []
        self.carried: dict[str, str | None] = {}

    def add_note(self, path: str, carried: str | None) -> None:
        if path not in self.carried:
            self.notes.append(path)
            self.carried[path] = carried
        else:
            before = self.carried[path]
            self.carried[path] = None if before is None or carried is None else before + carried


def carried_text(call: ToolCall) -> str | None:
    """The text ``call`` brought into the file it wrote, as far as the payload shows it: a
    write's content, an edit's new strings, a patch; ``None`` when it is not known."""
    if call.kind == toolcall.WRITE:
        return call.content
    if call.kind == toolcall.PATCH:
        return call.command
    if call.kind == toolcall.TRANSFORM or call.edits is None:
        return None
    new = [step[1] for step in call.edits if isinstance(step[1], str)]
    return "\n".join(new) if len(new) == len(call.edits) else None


def touched(
    calls: list[ToolCall], environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> Touched:
    """The files ``calls`` may have written, as far as a check after them cares."""
    found = Touched()
    for call in calls:
        cwd = call.cwd or os.getcwd()
        if call.kind == toolcall.SHELL:
            found.index = True  # whatever the command: a script may write the index
            command = call.command
            if command is not None and service.shell_may_write(command.encode("utf-8", "replace")):
                for note in _shell_notes(command, cwd, environ, index):
                    found.add_note(note, None)  # it may copy text from anywhere
        elif call.kind == toolcall.POWERSHELL:
            found.index = True
        elif call.kind == toolcall.PATCH:
            for path in _patch_paths(call.command):
                _add_path(found, path, cwd, environ, index, call.command)
        elif call.kind in toolcall.EDIT_KINDS and call.path:
            _add_path(found, call.path, cwd, environ, index, carried_text(call))
    return found


def _add_path(
    found: Touched,
    path: str,
    cwd: str,
    environ: dict[str, str] | os._Environ[str],
    index: str | None,
    carried: str | None,
) -> None:
    target = os.path.join(cwd, os.path.expanduser(path))
    if service.is_index(path, cwd, environ, index):
        found.index = True
        found.index_paths.append(target)
    if service.is_store_note(path, cwd, environ, index):
        found.add_note(target, carried)


def _patch_paths(patch: str | None) -> list[str]:
    """Every path a V4A patch writes (nothing when it does not parse)."""
    if not isinstance(patch, str):
        return []
    from engramory.guard import v4a  # noqa: PLC0415

    parsed = v4a.parse(patch)
    return [op.destination for op in parsed.ops if op.kind != v4a.DELETE]


def _shell_notes(
    command: str, cwd: str, environ: dict[str, str] | os._Environ[str], index: str | None
) -> list[str]:
    """The store ``.md`` files a shell command names as words (a linear scan, no parser)."""
    notes: list[str] = []
    seen = 0
    for word in command.translate(_SEPARATORS).split():
        if not word.lower().endswith(".md") or "\0" in word:
            continue
        seen += 1
        if seen > SHELL_NOTES_LIMIT:
            break
        if service.is_store_note(word, cwd, environ, index):
            target = os.path.join(cwd, os.path.expanduser(word))
            if target not in notes:
                notes.append(target)
    return notes


def check(
    calls: list[ToolCall], environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> Verdict:
    """The verdict after ``calls`` ran: a deny (the dialect words it as feedback) naming what
    to undo, or silence. ``index``: the store's index when the handler was registered with
    ``--index``; else the index is the one the call named, or the one found from its cwd."""
    found = touched(calls, environ, index)
    _snapshot_touched(found, calls, environ, index)
    verdicts = []
    if found.index:
        verdicts.append(_index_verdict(found, calls, environ, index))
    for note in found.notes:
        verdicts.append(note_secret(note, found.carried[note]))
    return service.strongest(verdicts)


def _snapshot_touched(
    found: Touched,
    calls: list[ToolCall],
    environ: dict[str, str] | os._Environ[str],
    index: str | None,
) -> None:
    """History (issue 37): snapshot each store the calls may have written into (best effort;
    a write the pre-write guard never saw is kept all the same)."""
    paths = [*found.index_paths, *found.notes]
    pinned = index or service.index_path(environ)
    if pinned is not None:
        paths.append(pinned)
    elif found.index and not found.index_paths:
        located = service.index_after(next((c.cwd for c in calls if c.cwd), None), environ)
        paths += [located[0]] if located else []
    if paths:
        from engramory.history.auto import after_tool  # noqa: PLC0415 - off the hook's path

        after_tool(paths)


def _index_verdict(
    found: Touched,
    calls: list[ToolCall],
    environ: dict[str, str] | os._Environ[str],
    index: str | None,
) -> Verdict:
    pinned = index or service.index_path(environ)
    if pinned is not None:
        return service.check_after(pinned, environ)
    if found.index_paths:
        return service.strongest(
            [service.check_after(path, environ) for path in dict.fromkeys(found.index_paths)]
        )
    cwd = next((call.cwd for call in calls if call.cwd), None)
    return service.check_after_call(cwd, environ)


def note_secret(path: str, carried: str | None = None) -> Verdict:
    """A deny when the store file at ``path`` now holds a secret no allow comment or allow
    list lets through; never echoes more than the detector's shown form.

    ``carried``: the text the call brought in, when known: a secret whose value is not in
    it was there before the call (an edit elsewhere in a note holding one passes before a
    call too, DESIGN's secret convention), and is left to the doctor."""
    text = _note_text(path)
    if text is None:
        return service.silent()
    from engramory.guard.secretcheck import _allowed_values, allowed, may_hold_secret  # noqa: PLC0415

    if not may_hold_secret(text):
        return service.silent()
    from engramory import secrets  # noqa: PLC0415 - only for a text that may hold one

    for secret in secrets.find(text, _allowed_values(path)):
        if allowed(text, secret.line):
            continue
        if carried is not None and text[secret.start : secret.end] not in carried:
            continue
        return found_secret(os.path.basename(path), secret.title, secret.shown, secret.line)
    return service.silent()


def found_secret(name: str, title: str, shown: str, line: int) -> Verdict:
    """The feedback for a secret already written into a store file."""
    from engramory.guard.decision import DENY, Verdict  # noqa: PLC0415
    from engramory.util.textfmt import printable  # noqa: PLC0415

    return Verdict(
        DENY,
        f"Engramory: {printable(name)} now holds a secret, {title} ({printable(shown)}), "
        f"on line {line}: remove it from the note now and rotate the credential. The store is "
        "plain text on disk and must never hold a secret's value: write where the secret "
        "lives instead (for example 'the deploy token is in the password manager under ci').",
    )


def _note_text(path: str) -> str | None:
    """The note's text; ``None`` when it is missing, a symlink, not a regular file or too big."""
    from engramory.util import fsutil  # noqa: PLC0415

    try:
        raw, _ = fsutil.read_bounded_stat(path, NOTE_LIMIT, follow_symlinks=False)
    except (OSError, MemoryError, OverflowError):
        return None
    return raw.decode("utf-8", "surrogateescape")
