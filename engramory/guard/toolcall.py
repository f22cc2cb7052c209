"""One tool call as the guard sees it, whatever host sent it: its kinds and what it leaves.

A dialect (:mod:`engramory.dialects`) reads a host's payload into :class:`ToolCall` values;
:mod:`engramory.guard.service` judges them, :mod:`engramory.guard.secretcheck` scans what they
would write. :func:`predict` is the text a call leaves in a file. Imports nothing at load
time: the guard hook imports this module before every tool call.
"""

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    import os
    from collections.abc import Callable

    from engramory.guard.decision import Verdict

WRITE = "write"
EDIT = "edit"
MULTIEDIT = "multiedit"
SHELL = "shell"
PATCH = "patch"
POWERSHELL = "powershell"
COUNTED_EDIT = "counted-edit"
FUZZY_EDIT = "fuzzy-edit"
TRANSFORM = "transform"
JUDGED = "judged"
UNKNOWN = "unknown"
EDIT_KINDS = (WRITE, EDIT, MULTIEDIT, COUNTED_EDIT, FUZZY_EDIT, TRANSFORM)


class ToolCall:
    """One tool call as the guard sees it, whatever host sent it.

    ``kind``: :data:`WRITE`, :data:`EDIT`, :data:`MULTIEDIT`, :data:`SHELL`,
    :data:`PATCH`, :data:`POWERSHELL` (a PowerShell command line in ``command``),
    :data:`COUNTED_EDIT` (Gemini CLI's ``replace``: one ``(old, new, count)`` step that
    replaces all of exactly ``count`` occurrences, or of at least one when ``count`` is
    ``None``; any other count cannot be predicted, as the host may rewrite ``old``
    itself), :data:`FUZZY_EDIT` (Hermes' ``patch`` in replace mode: one ``(old, new,
    replace_all)`` step whose ``old`` the host may match loosely; when it is not in the
    index exactly, the worst case is judged: the index growing by all of ``new``),
    :data:`TRANSFORM` (a host's own edit, simulated by ``transform``: the file's
    text now in, the text the tool leaves out, ``None`` when that cannot be known),
    :data:`JUDGED` (a call on a host's own memory that its dialect judges itself, by the
    host's own rule: ``judge(environ, index)`` is the verdict) or :data:`UNKNOWN`.
    ``path``: the file an edit targets, as written (relative to ``cwd``). ``cwd``: the
    call's working directory (``None``: this process's).
    ``content``: the text a write leaves (``None`` when not carried). ``edits``:
    for an edit or multi-edit, ``(old, new, replace_all)`` steps applied in order
    (values as the host sent them, not yet type-checked; ``None`` when not
    carried). ``command``: a shell call's command line, or a patch call's V4A patch
    text (``*** Begin Patch`` ... ``*** End Patch``; ``None`` when not a string).
    ``cut_host``: the host whose own cut a deny of an index edit names (the entries it
    would not load; default Claude Code's, :mod:`engramory.cuts`).
    """

    __slots__ = (
        "command",
        "content",
        "cut_host",
        "cwd",
        "edits",
        "judge",
        "kind",
        "path",
        "transform",
    )

    def __init__(
        self,
        kind: str,
        path: "str | None" = None,
        *,
        cwd: "str | None" = None,
        content: "str | None" = None,
        edits: "list[tuple[object, object, object]] | None" = None,
        command: "str | None" = None,
        transform: "Callable[[str], str | None] | None" = None,
        judge: "Callable[[dict[str, str] | os._Environ[str], str | None], Verdict] | None" = None,
        cut_host: str = "claude",
    ) -> None:
        self.kind = kind
        self.path = path
        self.cwd = cwd
        self.content = content
        self.edits = edits
        self.command = command
        self.transform = transform
        self.judge = judge
        self.cut_host = cut_host

    def __repr__(self) -> str:
        return f"ToolCall({self.kind!r}, {self.path!r}, cwd={self.cwd!r})"


def predict(call: "ToolCall", current: str) -> "str | None":
    """The text the index would hold after ``call``, or ``None`` when it cannot be known."""
    if call.kind == WRITE:
        return call.content
    if call.kind == TRANSFORM:
        return call.transform(current) if call.transform is not None else None
    if call.edits is None:
        return None
    from engramory.guard.edits import apply_edits  # noqa: PLC0415

    if call.kind == COUNTED_EDIT:  # the count was checked: every occurrence is replaced
        return apply_edits(current, [(old, new, True) for old, new, _count in call.edits])
    if call.kind == FUZZY_EDIT:
        return _fuzzy_prediction(current, call.edits)
    return apply_edits(current, call.edits)


def exact_match(current: str, steps: "list[tuple[object, object, object]] | None") -> bool:
    """Whether a fuzzy edit's old text occurs in the index exactly (then it is simulated)."""
    old = steps[0][0] if steps else None
    return isinstance(old, str) and bool(old) and old in current


def _fuzzy_prediction(current: str, steps: "list[tuple[object, object, object]]") -> "str | None":
    """A loosely matching edit: exact when its old text is in the index, else the worst case."""
    from engramory.guard.edits import apply_edits  # noqa: PLC0415

    new = steps[0][1] if steps else None
    if not isinstance(new, str):
        return None
    if exact_match(current, steps):
        return apply_edits(current, steps)
    return current + new
