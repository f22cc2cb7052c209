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
    from engramory.guard.service import ToolCall
    from engramory.guard.v4a import FileOp

RULE_ID = "secret-value"
# Every secret engramory.secrets finds holds one of these: a provider's literal prefix, a
# JWT's encoded header, or (compared in lower case) a generic keyword. A text holding none
# is answered without importing the detector (``re`` and its patterns cost more than the
# whole hook); tests/test_guard_secrets.py checks the list against the detector.
ANCHORS = (
    "AKIA", "ASIA", "ABIA", "ACCA", "AIza", "glpat-", "xoxa-", "xoxb-", "xoxp-", "xoxr-",
    "xoxs-", "sk-", "pypi-", "PRIVATE KEY-----", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
    "github_pat_", "k_live_", "npm_", "hooks.slack.com", "eyJ",
)  # fmt: skip
KEYWORDS = (
    "password", "passwd", "pwd", "secret", "token",
    "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key",
)  # fmt: skip
MARKER = "engramory:"  # allowcomment.MARKER: a text without it has no allow comment
NOTE_LIMIT = 4 * 1024 * 1024  # store.NOTE_READ_LIMIT: the doctor reads no more of a note


_BETWEEN = "\"'` \t"  # what may stand between a keyword and its ``:`` or ``=``
_BETWEEN_MAX = 9


def may_hold_secret(text: str) -> bool:
    """``False`` only when ``text`` surely holds no secret the detector would find.

    A provider's anchor anywhere, or a generic keyword followed (after quotes and
    blanks) by ``:`` or ``=``, as the detector's assignment rule needs.
    """
    if any(anchor in text for anchor in ANCHORS):
        return True
    low = text.lower()
    return any(_assigned(low, word) for word in KEYWORDS)


def _assigned(low: str, word: str) -> bool:
    """Whether ``word`` occurs in ``low`` right before a ``:`` or ``=``."""
    at = low.find(word)
    while at >= 0:
        j = at + len(word)
        limit = j + _BETWEEN_MAX
        while j < len(low) and j < limit and low[j] in _BETWEEN:
            j += 1
        if j < len(low) and low[j] in ":=":
            return True
        at = low.find(word, at + 1)
    return False


def _current(path: str) -> str | None:
    """The file's text now ("" when it does not exist; ``None`` when it cannot be read)."""
    from engramory import fsutil  # noqa: PLC0415

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
    from engramory.allowcomment import line_allows  # noqa: PLC0415

    return RULE_ID in line_allows(text).get(line, frozenset())


def refusal(kind: str, shown: str, where: str) -> Verdict:
    """The deny: names the kind of credential and at most its first characters, never the value."""
    from engramory.guard.decision import DENY, Verdict  # noqa: PLC0415

    return Verdict(
        DENY,
        f"Engramory: this write would put a secret, {kind} '{shown}', into the memory store "
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
    from engramory.guard.service import silent  # noqa: PLC0415

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

            for secret in secrets.find(text):
                value = text[secret.start : secret.end]
                if value in old or allowed(text, secret.line):
                    continue
                if current is None:
                    current = _current(os.path.join(cwd, op.path)) or ""
                if value in current:
                    continue
                return refusal(secret.kind, secret.shown, f"{op.destination}, added by the patch")
    return silent()


def check_secrets(call: ToolCall, path: str) -> Verdict:
    """Deny a call that would write a new secret into the store file at ``path``."""
    from engramory.guard.service import predict, silent  # noqa: PLC0415

    current = _current(path)
    if current is None:
        return silent()
    predicted = predict(call, current)
    if not isinstance(predicted, str) or not may_hold_secret(predicted):
        return silent()
    from engramory import secrets  # noqa: PLC0415 - only for a text that may hold one

    found = secrets.find(predicted)
    if not found:
        return silent()
    held = {current[s.start : s.end] for s in secrets.find(current)} if current else set()
    for secret in found:
        if predicted[secret.start : secret.end] in held or allowed(predicted, secret.line):
            continue
        return refusal(secret.kind, secret.shown, f"{call.path}, line {secret.line}")
    return silent()
