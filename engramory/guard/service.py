"""The index guard as a service: one :class:`ToolCall` in, one :class:`Verdict` out.

Knows no host. A host's dialect (``engramory.dialects.<host>``) turns its hook
payload into ``ToolCall`` values (:mod:`engramory.guard.toolcall`) and a
``Verdict`` back into its answer; this module decides.

Which file is the index: with ``ENGRAMORY_INDEX_PATH`` set, that file and no
other (by resolved path, or the same device and inode: a hard link). Else any
file named ``ENGRAMORY_INDEX_NAME`` (default ``MEMORY.md``, compared
case-insensitively; an empty value means the default, never "off") and, when
the handler was registered with ``--index PATH`` (``engramory init`` does
that), also that file under any name (a symlink or hard link to it).

Before a call: an edit of the index is predicted and judged by
:func:`engramory.guard.decision.decide`; a call that does not carry the new
content cannot be predicted and is never denied; a shell command that would
write the index is denied whatever the index's size; an ``apply_patch`` call (a V4A
patch, also when a shell command runs one) is simulated operation by operation and
each index it leaves is judged like an edit (:func:`check_patch`); a payload over
:data:`PAYLOAD_LIMIT` is not read, and an edit of the index that large is denied
as too large to check. After a call: an index over its hard cap is a deny
(the dialect words it as feedback).

Speed: this runs before every edit the agent makes that may concern the index. What a
dialect needs to dismiss a call that cannot (:func:`~engramory.guard.is_index`,
:func:`~engramory.guard.shell_may_write`...) lives in :mod:`engramory.guard` itself, so
a dismissed call never imports this module; the functions here import the decision, the
caps and the edit simulation when they need them.
"""

from __future__ import annotations

import os

from engramory.guard import (  # the raw pre-check's names; re-exported for the rest
    ARCHIVE_DIR,  # noqa: F401
    PAYLOAD_LIMIT,
    SHELL_WRITERS,  # noqa: F401
    index_name,
    index_path,
    is_index,
    is_store_note,
    same_file,  # noqa: F401
    shell_may_write,  # noqa: F401
)
from engramory.guard.toolcall import (  # the call model; re-exported for the dialects
    COUNTED_EDIT,
    EDIT_KINDS,
    FUZZY_EDIT,
    JUDGED,
    PATCH,
    POWERSHELL,
    SHELL,
    TRANSFORM,
    ToolCall,
    exact_match,
    predict,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: a call that cannot concern the index imports nothing
    from collections.abc import Callable

    from engramory.guard.decision import Verdict
    from engramory.guard.v4a import FileOp
    from engramory.store.caps import Caps

MAX_NOTES_CHECKED = 64  # .md files a shell command writes, looked up as store notes

FUZZY_WORST_CASE = (
    " (The edit's old text is not in the index exactly, and the host matches it loosely, so "
    "the guard judged the worst case: the index growing by the whole new text.)"
)


# --- before a call ---------------------------------------------------------------------
# The functions below run only once a call may concern the index: they import what they use
# (see "Speed" above).


def silent() -> Verdict:
    """Nothing to say (:func:`engramory.guard.decision.silent`, imported only when needed)."""
    from engramory.guard.decision import silent as nothing  # noqa: PLC0415

    return nothing()


def check(
    call: ToolCall, environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> Verdict:
    """The verdict for one tool call before it runs.

    ``index``: the store's index, when the handler was registered with ``--index``.
    """
    cwd = call.cwd or os.getcwd()
    if call.kind == SHELL:
        return check_shell(call.command, cwd, environ, index)
    if call.kind == PATCH:
        return check_patch(call.command, cwd, environ, index)
    if call.kind == POWERSHELL:
        return check_powershell(call.command, environ, index)
    if call.kind == JUDGED:
        return call.judge(environ, index) if call.judge is not None else silent()
    if call.kind not in EDIT_KINDS or not call.path:
        return silent()
    from engramory.store.caps import caps_from  # noqa: PLC0415

    target = os.path.join(cwd, call.path)
    verdicts = []
    if is_index(call.path, cwd, environ, index):
        verdicts.append(check_edit(call, target, caps_from(dict(environ))))
    if is_store_note(call.path, cwd, environ, index):
        from engramory.guard.secretcheck import check_secrets  # noqa: PLC0415

        verdicts.append(check_secrets(call, target))
    return strongest(verdicts)


def read_index(path: str, caps: Caps) -> tuple[str, bytes | None]:
    """``("absent", None)``, ``("ok", raw)`` or ``("unreadable", None)``."""
    from engramory.util import fsutil  # noqa: PLC0415

    try:
        return "ok", fsutil.read_bounded(path, caps.read_limit())
    except (FileNotFoundError, NotADirectoryError):
        return "absent", None
    except (OSError, MemoryError, OverflowError):
        return "unreadable", None


def check_edit(call: ToolCall, path: str, caps: Caps) -> Verdict:
    """The verdict for a write, edit or multi-edit of the index at ``path``."""
    from engramory.guard.decision import decide, unverified  # noqa: PLC0415
    from engramory.guard.edits import decode_index  # noqa: PLC0415
    from engramory.store.caps import Measurement  # noqa: PLC0415

    status, raw = read_index(path, caps)
    if status == "unreadable":
        return unverified("the memory index exists but could not be read in full")
    current = decode_index(raw) if raw is not None else ""
    if call.kind == COUNTED_EDIT and not _count_matches(current, call.edits):
        return unverified(
            "the edit's old text does not occur in the index as often as the tool expects "
            "(the host may correct it itself)"
        )
    predicted = predict(call, current)
    if predicted is None and call.kind == TRANSFORM:
        return unverified("the tool call's arguments do not say where or what it writes")
    if predicted is None:
        return unverified("the tool call does not carry the new content")
    before = Measurement.of_raw(raw) if raw is not None else None
    verdict = decide(before, Measurement.of_text(predicted), caps)
    if verdict.kind == "deny":
        from engramory.cuts.hint import deny_hint  # noqa: PLC0415 (the deny path only)

        verdict.message += deny_hint(predicted, call.cut_host)
    if call.kind == FUZZY_EDIT and verdict.message and not exact_match(current, call.edits):
        verdict.message += FUZZY_WORST_CASE
    return verdict


def _count_matches(current: str, steps: list[tuple[object, object, object]] | None) -> bool:
    """Whether a counted edit's old text occurs as often as it says (then it is predictable)."""
    if not steps:
        return False
    old, _new, count = steps[0]
    if not isinstance(old, str) or not old:
        return False
    found = current.count(old)
    return found >= 1 if count is None else found == count


def check_powershell(
    command: str | None, environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> Verdict:
    """Deny a PowerShell command that names the index and may write a file (a textual check)."""
    if not isinstance(command, str):
        return silent()
    from engramory.guard import pwsh  # noqa: PLC0415
    from engramory.guard.decision import shell_write  # noqa: PLC0415

    pinned = index_path(environ)
    names = [pinned] if pinned is not None else [index_name(environ), *([index] if index else [])]
    target = pwsh.index_write(command, names)
    return shell_write(target) if target is not None else silent()


def check_shell(
    command: str | None,
    cwd: str,
    environ: dict[str, str] | os._Environ[str],
    index: str | None = None,
) -> Verdict:
    """Deny a shell command that would write the index (or that the guard cannot follow), or
    that writes a new secret, spelled out in the command, into a store's markdown file."""
    if not isinstance(command, str):
        return silent()
    from engramory.guard.shellgate import may_concern_store  # noqa: PLC0415

    if not may_concern_store(command, cwd, environ, index):
        return silent()  # names no store file: not worth the parser (see shellgate)
    from engramory.guard import shellwrite  # noqa: PLC0415
    from engramory.guard.decision import DENY, Verdict, shell_write  # noqa: PLC0415

    pinned = index_path(environ)
    matcher = (
        shellwrite.IndexMatcher(None, pinned)
        if pinned is not None
        else shellwrite.IndexMatcher(index_name(environ), index)
    )
    literal: list[tuple[str, str]] = []
    target = shellwrite.index_write(command, matcher, cwd, literal)
    if literal:
        from engramory.guard.secretcheck import check_shell_secrets  # noqa: PLC0415

        in_store: dict[str, bool] = {}
        for path, _ in literal:
            if path not in in_store and len(in_store) < MAX_NOTES_CHECKED:
                in_store[path] = is_store_note(path, cwd, environ, index)
        notes = [(p, t) for p, t in literal if in_store.get(p, True)]
        secret = check_shell_secrets(notes) if notes else silent()
        if secret.kind == DENY:
            return secret
    if target in (shellwrite.TOO_DEEP, shellwrite.TOO_LONG):
        from engramory.guard.decision import EDIT_TOOLS  # noqa: PLC0415

        return Verdict(
            DENY,
            f"Engramory: this shell command is {target.strip('()')}"
            ": the guard cannot tell whether it writes the memory index, so it is denied. "
            f"Split it into simpler commands (and use {EDIT_TOOLS} for the index).",
        )
    verdict = shell_write(target) if target is not None else silent()
    if "apply_patch" not in command and "applypatch" not in command:
        return verdict
    from engramory.guard.v4a import patches_in_command  # noqa: PLC0415

    verdicts = [verdict]
    for patch, directory in patches_in_command(command):
        where = os.path.join(cwd, directory) if directory else cwd
        verdicts.append(check_patch(patch, where, environ, index))
    return strongest(verdicts)


def check_patch(
    patch: str | None,
    cwd: str,
    environ: dict[str, str] | os._Environ[str],
    index: str | None = None,
) -> Verdict:
    """The verdict for a V4A patch (``apply_patch``) whose paths are relative to ``cwd``.

    A patch that writes a store's markdown file is also checked for a new secret
    (:mod:`engramory.guard.secretcheck`). Silent when the patch does not parse or
    names no index and no store file. Otherwise its operations
    are simulated in order, each seeing the earlier ones' results, on the files that
    can end up in an index (an index, or a file moved onto one); nothing is written.
    Every index the patch leaves behind is judged against the index as it is now,
    as an edit is (:func:`engramory.guard.decision.decide`); an index deleted or
    moved away shrinks to nothing and passes. A patch that does not apply is a
    nudge (the host will reject it), and a file that cannot be read in full is
    "not verified": neither is ever a deny. The answer is the strongest verdict.
    """
    if not isinstance(patch, str):
        return silent()
    from engramory.guard import v4a  # noqa: PLC0415

    parsed = v4a.parse(patch)
    known: dict[str, bool] = {}

    def guarded(path: str) -> bool:
        if path not in known:
            known[path] = is_index(path, cwd, environ, index)
        return known[path]

    if parsed.error is not None:
        return silent()
    verdicts = []
    if any(guarded(op.path) or guarded(op.destination) for op in parsed.ops):
        from engramory.store.caps import caps_from  # noqa: PLC0415

        verdicts.append(_PatchRun(cwd, caps_from(dict(environ)), guarded).judge(parsed.ops))
    notes = [op for op in parsed.ops if is_store_note(op.destination, cwd, environ, index)]
    if notes:
        from engramory.guard.secretcheck import check_patch_secrets  # noqa: PLC0415

        verdicts.append(check_patch_secrets(notes, cwd))
    return strongest(verdicts)


class _PatchRun:
    """One patch simulated on copies of the files it reads, for :func:`check_patch`."""

    def __init__(self, cwd: str, caps: Caps, guarded: Callable[[str], bool]) -> None:
        self.cwd = cwd
        self.caps = caps
        self.guarded = guarded
        self.texts: dict[str, str | None] = {}  # file -> its text now (None: absent)
        self.unreadable: set[str] = set()  # files read and found unreadable, not written since
        self.disk: dict[str, tuple[str, bytes | None]] = {}  # file -> read_index() of it
        self.indexes: dict[str, str] = {}  # index file -> its path as the patch names it
        self.relevant: set[str] = set()

    def key(self, path: str) -> str:
        """The file a patch path names (paths are relative to the call's directory)."""
        return os.path.normpath(os.path.join(self.cwd, path))

    def judge(self, ops: list[FileOp]) -> Verdict:
        """Simulate ``ops`` until one fails; the strongest verdict on what they leave."""
        self.relevant = self.feeding_an_index(ops)
        verdicts = []
        for op in ops:
            source, target = self.key(op.path), self.key(op.destination)
            if source not in self.relevant and target not in self.relevant:
                continue
            for path in (op.path, op.destination):
                if self.guarded(path):
                    self.indexes.setdefault(self.key(path), path)
                    self.load(self.key(path))  # the index as it is now: before the patch
            problem = self.step(op, source, target)
            if problem is not None:
                verdicts.append(problem)
                break
        verdicts.extend(self.results())
        return strongest(verdicts)

    def feeding_an_index(self, ops: list[FileOp]) -> set[str]:
        """The indexes the patch names, and the files whose text moves onto one of them."""
        from engramory.guard.v4a import UPDATE  # noqa: PLC0415

        relevant = {
            self.key(path) for op in ops for path in (op.path, op.destination) if self.guarded(path)
        }
        for op in reversed(ops):  # a move onto a relevant file makes its source relevant
            if op.kind == UPDATE and self.key(op.destination) in relevant:
                relevant.add(self.key(op.path))
        return relevant

    def load(self, key: str) -> None:
        """Read a file once, with the index's read bound, before the patch changes it."""
        from engramory.guard.edits import decode_index  # noqa: PLC0415

        if key in self.texts or key in self.unreadable:
            return
        status, raw = read_index(key, self.caps)
        self.disk[key] = (status, raw)
        if status == "unreadable":
            self.unreadable.add(key)
        else:
            self.texts[key] = decode_index(raw) if raw is not None else None

    def store(self, key: str, text: str | None) -> None:
        self.texts[key] = text
        self.unreadable.discard(key)

    def step(self, op: FileOp, source: str, target: str) -> Verdict | None:
        """Apply one operation to the copies; a verdict when it cannot be followed."""
        from engramory.guard import v4a  # noqa: PLC0415
        from engramory.guard.decision import patch_does_not_apply, unverified  # noqa: PLC0415
        from engramory.secrets.excerpts import excerpt  # noqa: PLC0415

        if op.kind == v4a.ADD:
            self.store(target, op.content)
            return None
        self.load(source)
        if source in self.unreadable:
            if op.kind == v4a.UPDATE and target in self.relevant:
                name = "the memory index exists but" if self.guarded(op.path) else excerpt(op.path)
                return unverified(f"{name} could not be read in full")
            self.store(source, None)  # deleted, or moved where no index is
            return None
        current = self.texts[source]
        if current is None:
            return patch_does_not_apply(f"{excerpt(op.path)} does not exist")
        if op.kind == v4a.DELETE:
            self.store(source, None)
            return None
        applied = v4a.apply(current, op.hunks)
        if applied.status == v4a.TOO_COMPLEX:
            return unverified("the patch is too complex for the guard to follow")
        if applied.status != v4a.APPLIED:
            where = f"hunk {applied.hunk} of the update of {excerpt(op.path)}"
            return patch_does_not_apply(f"{where}: {applied.reason}")
        self.store(target, applied.text)
        if op.move_to is not None:
            self.store(source, None)  # written to the new path, then removed (even onto itself)
        return None

    def results(self) -> list[Verdict]:
        """Each index the patch touched, judged as an edit from its text before the patch."""
        from engramory.guard.decision import decide, unverified  # noqa: PLC0415
        from engramory.store.caps import Measurement  # noqa: PLC0415

        verdicts = []
        for key in self.indexes:
            if key in self.unreadable or self.texts.get(key) is None:
                continue  # left as it was (unreadable), deleted, or moved away
            status, raw = self.disk[key]
            if status == "unreadable":
                verdicts.append(unverified("the memory index exists but could not be read in full"))
                continue
            before = Measurement.of_raw(raw) if raw is not None else None
            after = self.texts[key]
            assert after is not None
            verdicts.append(decide(before, Measurement.of_text(after), self.caps))
        return verdicts


def too_large(path: str) -> Verdict:
    """The deny for an edit of the index whose payload is too large to read."""
    from engramory.guard.decision import DENY, Verdict  # noqa: PLC0415

    return Verdict(
        DENY,
        f"Engramory: this edit of the memory index ({path}) is over "
        f"{PAYLOAD_LIMIT // (1024 * 1024)} MiB, too large to check against the index's cap. "
        "The index must stay small: write a short pointer line instead.",
    )


def check_oversized(
    call: ToolCall, environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> Verdict:
    """A payload over :data:`PAYLOAD_LIMIT` (only its kind, path and cwd were read).

    Deny when it edits the index, else stay silent.
    """
    if call.kind not in EDIT_KINDS or not call.path:
        return silent()
    if is_index(call.path, call.cwd or os.getcwd(), environ, index):
        return too_large(call.path)
    return silent()


def strongest(verdicts: list[Verdict]) -> Verdict:
    """The one verdict to answer for several calls: the first deny, else the first nudge."""
    from engramory.guard.decision import DENY, NUDGE  # noqa: PLC0415

    for kind in (DENY, NUDGE):
        for verdict in verdicts:
            if verdict.kind == kind:
                return verdict
    return silent()


# --- after a call ----------------------------------------------------------------------


def index_after(
    cwd: str | None, environ: dict[str, str] | os._Environ[str]
) -> tuple[str, str] | None:
    """The index to measure after a call whose handler names none: ``(path, how it was found)``.

    ``ENGRAMORY_INDEX_PATH`` when set; else the store :mod:`engramory.store.discovery` finds
    from the call's working directory ``cwd`` (its ``.engramory-memory/`` or ``MEMORY.md``
    up to the git top, then the host's own memory folder for the project). A hook in a
    user-wide config serves every project, so the index is found per call (DESIGN §4).
    No process is started; ``None`` when there is no index to measure or anything fails.
    """
    pinned = index_path(environ)
    if pinned is not None:
        return pinned, "pinned by $ENGRAMORY_INDEX_PATH"
    if not cwd or "\0" in cwd or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        return None
    from pathlib import Path  # noqa: PLC0415 - only after a call, without --index

    from engramory.store import discovery  # noqa: PLC0415

    try:
        location = discovery.locate(environ=environ, cwd=Path(cwd))  # type: ignore[arg-type]
    except Exception:  # the check after a call never fails
        return None
    return str(location.index), f"{location.source}, looking from {cwd}"


def check_after_call(cwd: str | None, environ: dict[str, str] | os._Environ[str]) -> Verdict:
    """After a tool ran, for a handler without ``--index``: the index found from ``cwd``.

    The verdict's message names the index measured and how it was found.
    """
    found = index_after(cwd, environ)
    if found is None:
        return silent()
    path, how = found
    verdict = check_after(path, environ)
    if verdict.message:
        verdict.message += f" (Index measured: {path}, {how}.)"
    return verdict


def check_after(path: str | None, environ: dict[str, str] | os._Environ[str]) -> Verdict:
    """After a tool ran: is the index at ``path`` over a hard cap now? (a deny if so)"""
    from engramory.guard.decision import after_the_fact, over_bytes_only  # noqa: PLC0415
    from engramory.store.caps import Measurement, caps_from  # noqa: PLC0415

    if not path:
        return silent()
    caps = caps_from(dict(environ))
    try:
        size = os.stat(path).st_size
    except OSError:
        return silent()
    if over_bytes_only(size, caps):
        return after_the_fact(Measurement(None, size), caps)
    status, raw = read_index(path, caps)
    if status != "ok" or raw is None:
        return silent()
    return after_the_fact(Measurement.of_raw(raw), caps)
