"""Codex: what Engramory knows about this host beyond its data in :mod:`engramory.hosts.specs`."""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: host modules stay light to import
if TYPE_CHECKING:
    from engramory.continuity.policy import Reply


# --- lifecycle hooks (``engramory sync hook --host codex``) --------------------------------------


def render_lifecycle(reply: Reply) -> tuple[str, int]:
    """A lifecycle reply as Codex's hook output and exit code ("" prints nothing).

    Codex reads Claude Code's shapes for context and warnings, but holds a
    compaction back with ``{"continue": false, "stopReason": ...}``.
    """
    from engramory.continuity import policy  # noqa: PLC0415
    from engramory.hosts import claude  # noqa: PLC0415

    if reply.kind == policy.BLOCK:
        return claude.dump_lifecycle({"continue": False, "stopReason": reply.text})
    return claude.render_lifecycle(reply)
