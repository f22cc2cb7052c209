"""The guard's refusal of a secret written into the memory store (issue 14).

Before a write, edit or multi-edit of a store's markdown file (its index, a
note beside it, or one in its ``archive/``), the text the call would leave is
scanned with :mod:`engramory.secrets`. A match whose value the file does not
already hold is a deny that names the kind of credential and shows at most its
first four characters: removing a secret, or editing elsewhere in a note that
already holds one, passes; replacing one key with another is denied. An
``<!-- engramory: allow secret-value -->`` comment on the match's line, or alone
on the line above, lets it through (as it silences the doctor's finding).

A file that cannot be read in full is not compared (the edit cannot be
predicted): the call passes, as every unverifiable call does.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engramory.guard.decision import Verdict
    from engramory.guard.toolcall import ToolCall
    from engramory.guard.v4a import FileOp

RULE_ID = "secret-value"
MARKER = "engramory:"  # allowcomment.MARKER: a text without it has no allow comment
NOTE_LIMIT = 4 * 1024 * 1024  # store.NOTE_READ_LIMIT: the doctor reads no more of a note
ARCHIVE_DIR = "archive"


def may_hold_secret(text: str) -> bool:
    """``False`` only when ``text`` surely holds no secret the detector would find: none of
    the detectors' gating keywords (:mod:`engramory.secrets.gate`, which imports nothing)."""
    from engramory.secrets.gate import may_hold_secret as gate  # noqa: PLC0415

    return gate(text)


def _store_root(path: str) -> str:
    """The store a note at ``path`` belongs to: its folder, or the one above ``archive/``."""
    import os  # noqa: PLC0415

    folder = os.path.dirname(os.path.abspath(path))
    return os.path.dirname(folder) if os.path.basename(folder).lower() == ARCHIVE_DIR else folder


def _allowed_values(path: str):
    from engramory.secrets import allow  # noqa: PLC0415

    return allow.load(_store_root(path))


def _current(path: str) -> str | None:
    """The file's text now ("" when it does not exist; ``None`` when it cannot be read)."""
    from engramory.util import fsutil  # noqa: PLC0415

    try:
        raw = fsutil.read_bounded(path, NOTE_LIMIT)
    except (FileNotFoundError, NotADirectoryError):
        return ""
    except (OSError, MemoryError, OverflowError):
        return None
    return raw.decode("utf-8", "surrogateescape")


def allowed(text: str, line: int) -> bool:
    """Whether an allow comment for ``secret-value`` covers 1-based ``line`` of ``text``."""
    if MARKER not in text:
        return False
    from engramory.store.allowcomment import line_allows  # noqa: PLC0415

    return RULE_ID in line_allows(text).get(line, frozenset())


def refusal(title: str, shown: str, where: str) -> Verdict:
    """The deny: names the kind of credential and at most its first characters, never the value."""
    from engramory.guard.decision import DENY, Verdict  # noqa: PLC0415

    return Verdict(
        DENY,
        f"Engramory: this write would put a secret, {title} '{shown}', into the memory store "
        f"({where}). "
        "The store is plain text on disk and must never hold a secret's value: write where "
        "the secret lives instead (for example 'the deploy token is in the password manager "
        "under ci'), and rotate the credential if it was real.",
    )


def check_patch_secrets(ops: list[FileOp], cwd: str) -> Verdict:
    """Deny a V4A patch whose added text brings a new secret into a store file.

    Only what the patch adds is scanned: an added file's text, an update's new side
    (its context and added lines). A value already in the hunk's old side, or in the
    file as it is now, is not new.
    """
    import os  # noqa: PLC0415

    from engramory.guard import v4a  # noqa: PLC0415
    from engramory.guard.decision import silent  # noqa: PLC0415

    for op in ops:
        if op.kind == v4a.DELETE:
            continue
        pieces = (
            [(op.content, "")]
            if op.kind == v4a.ADD
            else [("\n".join(h.new), "\n".join(h.old)) for h in op.hunks]
        )
        current: str | None = None
        for text, old in pieces:
            if not may_hold_secret(text):
                continue
            from engramory import secrets  # noqa: PLC0415 - only for a text that may hold one

            found = secrets.find(text, _allowed_values(os.path.join(cwd, op.path)))
            held = _held(old) if found else set()
            for secret in found:
                value = text[secret.start : secret.end]
                if value in held or allowed(text, secret.line):
                    continue
                if current is None:
                    current = _current(os.path.join(cwd, op.path)) or ""
                if value in _held(current):
                    continue
                return refusal(secret.title, secret.shown, f"{op.destination}, added by the patch")
    return silent()


def check_shell_secrets(writes: list[tuple[str, str]]) -> Verdict:
    """Deny a shell command whose literal text (``echo``/``printf`` arguments, a here-document,
    a here-string, text piped into ``tee``) brings a new secret into a store file.

    ``writes``: ``(absolute path, text)`` per store file written. The detector is imported
    only for a text the gate lets through; a value the file already holds is not new.
    """
    import os  # noqa: PLC0415

    from engramory.guard.decision import silent  # noqa: PLC0415

    for path, text in writes:
        if not may_hold_secret(text):
            continue
        from engramory import secrets  # noqa: PLC0415 - only for a text that may hold one

        found = secrets.find(text, _allowed_values(path))
        current: str | None = None
        for secret in found:
            value = text[secret.start : secret.end]
            if allowed(text, secret.line):
                continue
            if current is None:
                current = _current(path) or ""
            if value in _held(current):
                continue
            where = f"{os.path.basename(path)}, written by the shell command"
            return refusal(secret.title, secret.shown, where)
    return silent()


def check_secrets(call: ToolCall, path: str) -> Verdict:
    """Deny a call that would write a new secret into the store file at ``path``."""
    from engramory.guard.decision import silent  # noqa: PLC0415
    from engramory.guard.toolcall import predict  # noqa: PLC0415

    current = _current(path)
    if current is None:
        return silent()
    predicted = predict(call, current)
    if not isinstance(predicted, str) or not may_hold_secret(predicted):
        return silent()
    from engramory import secrets  # noqa: PLC0415 - only for a text that may hold one

    found = secrets.find(predicted, _allowed_values(path))
    if not found:
        return silent()
    held = _held(current)
    for secret in found:
        if predicted[secret.start : secret.end] in held or allowed(predicted, secret.line):
            continue
        return refusal(secret.title, secret.shown, f"{call.path}, line {secret.line}")
    return silent()


def _held(text: str) -> set[str]:
    """The values the detector finds in ``text``: already there, so not new."""
    if not text or not may_hold_secret(text):
        return set()
    from engramory import secrets  # noqa: PLC0415

    return {text[s.start : s.end] for s in secrets.find(text)}
