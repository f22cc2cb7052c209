"""Lifecycle (continuity) hooks of the hosts whose events are not Claude Code's: their payloads
read as Claude Code's shape, and the reminder a host that only observes a compaction shows
instead of holding it back.

Used by ``engramory sync hook`` and the installer, never on the index guard's path.
"""

from __future__ import annotations

from collections.abc import Mapping

from engramory.dialects.lifecycle import LIFECYCLE_EVENTS as EVENTS


def _first_string(payload: Mapping[str, object], keys: tuple[str, ...]) -> object:
    """The first of ``keys`` that holds a non-empty string, else the first one present."""
    present = [payload[key] for key in keys if key in payload]
    for value in present:
        if isinstance(value, str) and value.strip():
            return value
    return present[0] if present else None


def claude_shape(
    payload: object,
    event: str | None,
    names: Mapping[str, str],
    session_keys: tuple[str, ...],
) -> object:
    """``payload`` as :mod:`engramory.continuity.policy` reads it (Claude Code's shape).

    ``event`` (the hook's ``--event``) wins; else the payload's own event name,
    translated by ``names`` (the host's name -> Claude Code's). ``session_keys``:
    where the host keeps the session id, most likely first. ``prompt``,
    ``trigger`` and ``source`` keep their names on every host here. A payload
    that is not a JSON object is passed on for the policy to refuse.
    """
    if not isinstance(payload, dict):
        return payload
    own = _first_string(payload, ("hook_event_name", "hookEventName"))
    name = event or (names.get(own) if isinstance(own, str) else None)
    if name is None and own in EVENTS:
        name = own
    shaped: dict[str, object] = {"session_id": _first_string(payload, session_keys)}
    if name is not None:
        shaped["hook_event_name"] = name
    for key in ("prompt", "trigger", "source"):
        if key in payload:
            shaped[key] = payload[key]
    return shaped


def observed_compaction(label: str, text: str) -> str:
    """A held-compaction reply as a reminder, for a host that cannot hold a compaction back."""
    return (
        f"Engramory reminder: {label} only observes a compaction and cannot hold it back, so "
        "this one goes ahead. Where it could, Engramory would have held it, saying:\n" + text
    )
