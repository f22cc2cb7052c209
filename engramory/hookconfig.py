"""Engramory's handlers in a host's hook configuration (Claude Code / Codex JSON): pure data.

Both hosts keep hooks as ``{"hooks": {"<Event>": [{"matcher": ..., "hooks":
[handler, ...]}, ...]}}``. Engramory's handlers are recognised by a fixed
fingerprint, their ``statusMessage``; everything else -- other handlers,
other groups, other keys, key order -- is kept as it is. After any number of
installs there is exactly one Engramory handler per event; after an uninstall
there is none, and a group or event that only held Engramory's handler is
gone with it (a group that was already empty is left alone).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any


class HookConfigError(ValueError):
    """The configuration is not JSON of the expected shape; the message says where."""


def parse(text: str | None, events: Iterable[str]) -> dict[str, Any]:
    """Parse a hook configuration and check the shape of ``events`` in it.

    ``None`` (no file) is an empty configuration.
    """
    if text is None or not text.strip():
        return {}
    try:
        config = json.loads(text)
    except ValueError as exc:
        raise HookConfigError(f"is not valid JSON ({exc})") from None
    if not isinstance(config, dict):
        raise HookConfigError("is not a JSON object at the top level")
    hooks = config.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HookConfigError('has a "hooks" value that is not an object')
    for event in events:
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise HookConfigError(f'has "hooks.{event}" that is not a list')
        for n, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                raise HookConfigError(f'has "hooks.{event}[{n}]" that is not a matcher group')
            if not all(isinstance(h, dict) for h in group.get("hooks", [])):
                raise HookConfigError(
                    f'has a handler in "hooks.{event}[{n}]" that is not an object'
                )
    return config


def _is_ours(handler: Mapping[str, Any], fingerprints: frozenset[str]) -> bool:
    return handler.get("statusMessage") in fingerprints


def _handlers(config: Mapping[str, Any]) -> Iterator[Any]:
    """Every handler of every well-formed matcher group, whatever its event."""
    hooks = config.get("hooks", {})
    if not isinstance(hooks, dict):
        return
    for groups in hooks.values():
        if isinstance(groups, list):
            for group in groups:
                if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                    yield from group["hooks"]


def count_ours(config: Mapping[str, Any], fingerprints: frozenset[str]) -> int:
    """How many Engramory handlers the configuration holds, in any event."""
    return sum(1 for h in _handlers(config) if isinstance(h, dict) and _is_ours(h, fingerprints))


def count_all(config: Mapping[str, Any]) -> int:
    """How many handlers the configuration holds, Engramory's and others'."""
    return sum(1 for _ in _handlers(config))


def _without_ours(groups: list[Any], fingerprints: frozenset[str]) -> list[Any]:
    kept = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept.append(group)
            continue
        handlers = [h for h in group["hooks"] if not _is_ours(h, fingerprints)]
        if handlers or not group["hooks"]:  # drop only groups emptied by the removal
            kept.append({**group, "hooks": handlers})
    return kept


def merge(
    config: Mapping[str, Any],
    wanted: Mapping[str, Mapping[str, Any]],
    fingerprints: frozenset[str],
) -> dict[str, Any]:
    """A copy of ``config`` with Engramory's groups: ``wanted`` maps an event to its group."""
    result = dict(config)
    hooks = dict(result.get("hooks", {}))
    for event, group in wanted.items():
        hooks[event] = [*_without_ours(list(hooks.get(event, [])), fingerprints), dict(group)]
    result["hooks"] = hooks
    return result


def remove(config: Mapping[str, Any], fingerprints: frozenset[str]) -> dict[str, Any]:
    """A copy of ``config`` without Engramory's handlers (and what only they filled)."""
    result = dict(config)
    hooks = result.get("hooks")
    if not isinstance(hooks, dict):
        return result
    cleaned = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            cleaned[event] = groups
            continue
        kept = _without_ours(groups, fingerprints)
        if kept or not groups:
            cleaned[event] = kept
    if cleaned:
        result["hooks"] = cleaned
    else:
        del result["hooks"]
    return result


def is_empty(config: Mapping[str, Any]) -> bool:
    """Nothing worth keeping: ``{}``, or an empty ``hooks`` and no other key."""
    return not config or (set(config) == {"hooks"} and not config["hooks"])


def indent_of(text: str | None) -> int | str:
    """The indentation an existing JSON file uses (two spaces for a new one)."""
    if text:
        for line in text.split("\n")[1:]:
            stripped = line.lstrip(" \t")
            if stripped and len(stripped) < len(line):
                prefix = line[: len(line) - len(stripped)]
                return "\t" if prefix.startswith("\t") else len(prefix)
    return 2


def dumps(config: Mapping[str, Any], indent: int | str = 2) -> str:
    """The file text: indented JSON, non-ASCII kept, one final newline."""
    return json.dumps(config, indent=indent, ensure_ascii=False) + "\n"
