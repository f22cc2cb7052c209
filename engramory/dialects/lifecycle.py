"""A host's continuity (lifecycle) hook: its event read as Claude Code's shape, a reply back.

``engramory sync hook --host HOST`` reads an event through :func:`lifecycle_payload` and
answers through :func:`render_lifecycle`; both dispatch to the host's dialect
(:data:`engramory.dialects.DIALECTS`). Not on the guard's path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engramory.dialects import dialect

if TYPE_CHECKING:
    from engramory.dialects.base import Dialect

LIFECYCLE_EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact")


def _lifecycle_dialect(host: str) -> Dialect:
    """The dialect of a host with lifecycle hooks (``ValueError`` for any other host)."""
    found = dialect(host)
    if found is None:
        raise ValueError(f"no lifecycle hook format for host {host!r}")
    return found


def lifecycle_payload(host: str, payload: object, event: str | None) -> object:
    """``payload`` as :mod:`engramory.continuity.policy` reads it: Claude Code's shape.

    That is ``hook_event_name`` (one of :data:`LIFECYCLE_EVENTS`), ``session_id``,
    ``prompt``, ``trigger`` (``manual``/``auto``) and ``source``. A host whose
    events look different defines ``lifecycle_payload(payload, event)`` in its
    dialect; ``event`` is the canonical event the installed hook names
    (``sync hook --event``), for hosts whose payload does not say it (a
    file hook named after its event, a plugin). Without a dialect function, the
    event, when given, replaces the payload's own name. A payload that is not
    a JSON object is passed on for the policy to refuse.
    """
    reader = getattr(_lifecycle_dialect(host), "lifecycle_payload", None)
    if reader is not None:
        return reader(payload, event)
    if event is None or not isinstance(payload, dict):
        return payload
    return {**payload, "hook_event_name": event}


def oversized_lifecycle_payload(host: str, raw: bytes) -> object:
    """What a lifecycle event too large to read in full still says (``None``: nothing usable):
    the dialect's ``oversized_lifecycle_payload(raw)``, for a host whose every event may carry
    the whole conversation."""
    found = dialect(host)
    reader = getattr(found, "oversized_lifecycle_payload", None)
    return reader(raw) if reader is not None else None


def store_per_call(host: str) -> bool:
    """Whether ``host``'s lifecycle hook is registered user-wide, naming no store (its dialect's
    ``LIFECYCLE_STORE_PER_CALL``): each event's store is then found from its ``cwd``, and a
    project without one is answered quietly (DESIGN §4)."""
    return getattr(dialect(host), "LIFECYCLE_STORE_PER_CALL", False) is True


def render_lifecycle(host: str, reply: object) -> tuple[str, int]:
    """``reply`` (a :class:`~engramory.continuity.policy.Reply`) in ``host``'s hook format."""
    return _lifecycle_dialect(host).render_lifecycle(reply)
