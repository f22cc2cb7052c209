"""Hermes' ``memory`` tool, judged before it runs: an ``add`` or ``replace`` that would take
``MEMORY.md`` or ``USER.md`` past the host's character cap is denied.

The tool (NousResearch/hermes-agent ``tools/memory_tool.py``, ``MEMORY_SCHEMA`` and
``MemoryStore``): arguments ``{action: add|replace|remove, target: memory|user, content,
old_text}`` or a batch ``{target, operations: [{action, content, old_text}, ...]}`` applied
all or nothing. The files are ``$HERMES_HOME/memories/MEMORY.md`` (``target: memory``) and
``USER.md`` (``target: user``), ``$HERMES_HOME`` defaulting to ``~/.hermes``. Their entries
are read and counted as :mod:`engramory.cuts.hermes` counts them (split at ``\\n§\\n``,
stripped, empty and duplicate entries dropped; the characters of the entries joined again),
against 2,200 and 1,375 characters, or the ``memory_char_limit`` / ``user_char_limit`` the
user set in ``$HERMES_HOME/config.yaml``. Each operation is simulated as the host applies
it: ``add`` appends the stripped content unless an identical entry exists; ``replace``
swaps the one entry holding ``old_text`` for the content; ``remove`` drops it.

A call the host will refuse on its own for another reason (no content, no entry or
several distinct entries matching ``old_text``, an unknown action or target), and a file
that cannot be read, are not judged: silence. Hermes refuses an over-cap write itself too;
the deny says so before the call runs, in the guard's words and Hermes' reply format, and
the agent's approval prompt (``memory.write_approval``) never shows a write that cannot land.
"""

from __future__ import annotations

import os
import re

from engramory.cuts.hermes import DELIMITER, MEMORY_CAP, USER_CAP, entries
from engramory.guard.decision import DENY, Verdict, silent
from engramory.guard.toolcall import JUDGED, ToolCall
from engramory.util import fsutil

# ``target`` -> (the file, its cap's setting in config.yaml, the host's default cap)
FILES = {
    "memory": ("MEMORY.md", "memory_char_limit", MEMORY_CAP),
    "user": ("USER.md", "user_char_limit", USER_CAP),
}
READ_LIMIT = 4 * 1024 * 1024  # far over any cap: a larger file is not judged
CONFIG_LIMIT = 1024 * 1024
# ``  memory_char_limit: 4000`` on a line of its own (config.yaml's ``memory:`` section).
_LIMIT_LINE = re.compile(
    r"^[ \t]*(memory_char_limit|user_char_limit)[ \t]*:[ \t]*['\"]?(\d{1,9})\b", re.M
)
WRITING_ACTIONS = ("add", "replace")


def memory_call(tool_input: dict[str, object], cwd: str | None) -> ToolCall:
    """The guard's call for one ``memory`` tool call: judged here, when the guard asks."""
    return ToolCall(JUDGED, cwd=cwd, judge=lambda environ, _index: judge(tool_input, environ))


def operations(tool_input: dict[str, object]) -> list[dict[str, object]] | None:
    """The call's operations in order (a lone action is a batch of one); ``None`` when the
    arguments are not a shape the host accepts."""
    batch = tool_input.get("operations")
    if batch:
        if not isinstance(batch, list):
            return None
        return [op if isinstance(op, dict) else {} for op in batch]
    return [tool_input]


def writes(tool_input: dict[str, object]) -> bool:
    """Whether any operation of the call adds or replaces an entry (only those can grow)."""
    found = operations(tool_input)
    return bool(found) and any(op.get("action") in WRITING_ACTIONS for op in found or ())


def simulate(current: list[str], ops: list[dict[str, object]]) -> list[str] | None:
    """The entries after ``ops``, applied as the host applies them; ``None`` when the host
    would refuse the call for a reason other than its size."""
    working = list(current)
    for op in ops:
        action = op.get("action")
        content = _stripped(op.get("content"))
        old = _stripped(op.get("old_text"))
        if action == "add":
            if not content:
                return None
            if content not in working:
                working.append(content)
        elif action in ("replace", "remove"):
            if not old or (action == "replace" and not content):
                return None
            matches = [i for i, entry in enumerate(working) if old in entry]
            if not matches or len({working[i] for i in matches}) > 1:
                return None
            if action == "replace":
                working[matches[0]] = content
            else:
                working.pop(matches[0])
        else:
            return None
    return working


def _stripped(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def size(entries_text: list[str]) -> int:
    """The host's count: the characters of the entries joined by its delimiter."""
    return len(DELIMITER.join(entries_text))


def judge(tool_input: dict[str, object], environ: dict[str, str] | os._Environ[str]) -> Verdict:
    """Deny a ``memory`` call whose result would be over its file's cap; else silence."""
    target = tool_input.get("target", "memory")
    ops = operations(tool_input)
    if not isinstance(target, str) or target not in FILES or not ops or not writes(tool_input):
        return silent()
    home = hermes_home(environ)
    if home is None:
        return silent()
    name, setting, default_cap = FILES[target]
    path = os.path.join(home, "memories", name)
    current = _read_entries(path)
    if current is None:
        return silent()
    after = simulate(current, ops)
    if after is None:
        return silent()
    cap = configured_caps(home).get(setting, default_cap)
    total = size(after)
    if total <= cap:
        return silent()
    return Verdict(DENY, deny_message(path, size(current), total, cap))


def deny_message(path: str, before: int, after: int, cap: int) -> str:
    """The deny's reason: the file, its count before and after, the cap, what to do."""
    from engramory.util.textfmt import printable  # noqa: PLC0415 - only when denying

    return printable(
        f"Engramory: this memory call would put {path} at {after:,}/{cap:,} characters "
        f"(now {before:,}; counted as Hermes counts: the §-separated entries, duplicates "
        f"dropped), {after - cap:,} over Hermes' cap, and Hermes would refuse it. Make room "
        "in the same call: one `operations` batch that removes or shortens stale entries and "
        "adds the new one (the cap is checked on the batch's result)."
    )


def hermes_home(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """``$HERMES_HOME`` (absolute) or ``~/.hermes``; ``None`` for a relative one."""
    configured = environ.get("HERMES_HOME", "").strip()
    if not configured:
        return os.path.join(os.path.expanduser("~"), ".hermes")
    configured = os.path.expanduser(configured)
    return configured if os.path.isabs(configured) else None


def _read_entries(path: str) -> list[str] | None:
    """The file's entries as the host loads them ([] when absent; ``None``: not readable)."""
    try:
        data = fsutil.read_bounded_stat(path, READ_LIMIT, follow_symlinks=False)[0]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError:  # not a regular file, over the bound, unreadable
        return None
    return [entry.text for entry in entries(data.decode("utf-8", "replace"))[0]]


def configured_caps(home: str) -> dict[str, int]:
    """``memory_char_limit`` / ``user_char_limit`` as set in ``config.yaml`` (absent: {})."""
    try:
        data = fsutil.read_bounded_stat(
            os.path.join(home, "config.yaml"), CONFIG_LIMIT, follow_symlinks=False
        )[0]
    except OSError:  # absent, not a regular file, over the bound, unreadable
        return {}
    text = data.decode("utf-8", "replace")
    return {match.group(1): int(match.group(2)) for match in _LIMIT_LINE.finditer(text)}
