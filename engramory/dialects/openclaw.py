"""OpenClaw: the guard dialect its plugin speaks and its lifecycle replies (its install spec:
:mod:`engramory.hosts.openclaw`).

OpenClaw gates tool calls only in-process: a native plugin's ``before_tool_call``
handler may return ``{block: true, blockReason}``; a handler that throws or takes
longer than 15 s blocks the call (fails CLOSED), so Engramory's plugin
(``adapters/openclaw/engramory-guard/``) catches everything and gives the guard 5 s.
A native plugin is a folder with ``openclaw.plugin.json`` (``id``, ``configSchema``)
and a ``package.json`` whose ``openclaw.extensions`` names the entry; init writes
it to ``<workspace>/.openclaw/extensions/engramory-guard/`` (``~/.openclaw/extensions/``
with ``--global``). Workspace plugins are not loaded until enabled
(``openclaw plugins enable engramory-guard``). Sources: docs.openclaw.ai
/plugins/hooks, /plugins/manifest, /plugins/manifest/package-json (discovery).

The plugin sends the Python guard ``{"tool", "args", "cwd"}`` (``event.toolName``,
``event.params``, the workspace). Tools: ``apply_patch {input}`` (V4A, documented),
``exec``/``bash {command}``; ``write`` and ``edit`` parameter keys are UNVERIFIED, so
every spelling seen in OpenClaw's tools is read: ``path``/``file_path``/``filePath``,
``content``, ``oldText``/``old_string``/``oldString``, ``newText``/``new_string``/
``newString``, and an ``edits`` list of ``{oldText, newText}``. An edit is predicted
only when its old text occurs exactly once (the tool may match loosely otherwise: a
"not verified" nudge).

Answers and lifecycle replies are the OpenCode plugin's (:mod:`engramory.dialects.opencode`):
``{"deny"}``/``{"nudge"}`` lines, ``{"context"}``/``{"reminder"}`` lines. Lifecycle:
``before_prompt_build`` runs SessionStart once per session (its context is prepended
to the prompt) and UserPromptSubmit on every prompt; ``before_compaction`` only
observes, so a dirty compaction's reminder (a held manual one too) is logged, never
enforced. The session id the plugin reads (``ctx.sessionId``/``ctx.sessionKey``) is
unverified.
"""

from engramory.dialects.opencode import (
    EDIT,
    PATCH,
    SHELL,
    WRITE,
    edit_call,
    lifecycle_payload,
    plugin_calls,
    plugin_may_concern,
    plugin_oversized,
    render,
    render_lifecycle,
)
from engramory.guard import toolcall
from engramory.guard.toolcall import ToolCall

# The dialect's interface (the answers and the lifecycle are the OpenCode plugin's).
__all__ = [
    "lifecycle_payload",
    "may_concern_index",
    "oversized_call",
    "render",
    "render_lifecycle",
    "tool_calls",
]

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    import os


# --- the guard dialect (on the hook's hot path) -------------------------------------------

TOOLS = {"write": WRITE, "edit": EDIT, "apply_patch": PATCH, "exec": SHELL, "bash": SHELL}
PATH_KEYS = ("path", "file_path", "filePath")
CONTENT_KEYS = ("content",)
OLD_KEYS = ("oldText", "old_string", "oldString")
NEW_KEYS = ("newText", "new_string", "newString")


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?"""
    return plugin_may_concern(raw, environ, index, TOOLS, PATH_KEYS)


def oversized_call(raw: bytes) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    return plugin_oversized(raw, TOOLS, PATH_KEYS)


def _first(mapping: "dict[str, object]", keys: "tuple[str, ...]") -> object:
    """The value of the first of ``keys`` present (``None``: none is)."""
    return next((mapping[key] for key in keys if key in mapping), None)


def _edit(path: "str | None", arguments: "dict[str, object]", cwd: "str | None") -> "ToolCall":
    """OpenClaw's ``edit``: one old/new pair, or an ``edits`` list (keys unverified: every
    spelling seen is read)."""
    edits = arguments.get("edits")
    if isinstance(edits, list):
        steps = [
            (_first(step, OLD_KEYS), _first(step, NEW_KEYS), False)
            if isinstance(step, dict)
            else (None, None, False)
            for step in edits
        ]
        return ToolCall(toolcall.MULTIEDIT, path, cwd=cwd, edits=steps)
    old, new = _first(arguments, OLD_KEYS), _first(arguments, NEW_KEYS)
    return edit_call(path, cwd, old, new, arguments.get("replace_all"))


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call in one plugin payload (already decoded from JSON)."""
    return plugin_calls(payload, TOOLS, PATH_KEYS, CONTENT_KEYS, _edit)
