"""One module per agent host that has behaviour of its own, the Host interface and the registry.

``base`` defines :class:`~engramory.hosts.base.Host`; ``registry`` lists every
host; ``table`` holds the hosts that are data only. ``claude`` also holds
Claude Code's hook dialect for the index guard: this package's ``__init__``
stays import-free, because the guard hook imports ``claude`` before every file
edit an agent makes. ``entry`` is the guard hook's entry (argv, stdin,
fail-open, dispatch by ``--host``); :func:`lifecycle_payload` reads a
host's lifecycle event as Claude Code's shape, and :func:`render_lifecycle`
writes a continuity reply in a host's format.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path imports this package
if TYPE_CHECKING:
    from types import ModuleType

# The hosts whose module defines ``render_lifecycle(reply) -> (text, exit_code)``: the
# ``--host`` choices of ``engramory sync hook`` (a test keeps this in step with the modules).
LIFECYCLE_HOSTS = (
    "codex",
    "claude",
    "gemini",
    "copilot",
    "cursor",
    "cline",
    "kiro",
    "opencode",
    "openclaw",
    "hermes",
)


LIFECYCLE_EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact")


def _module(host: str) -> ModuleType:
    """The module of a host with lifecycle hooks (``ValueError`` for any other host)."""
    if host not in LIFECYCLE_HOSTS:
        raise ValueError(f"no lifecycle hook format for host {host!r}")
    import importlib  # noqa: PLC0415 - the guard's path imports this package

    return importlib.import_module(f"{__name__}.{host}")


def lifecycle_payload(host: str, payload: object, event: str | None) -> object:
    """``payload`` as :mod:`engramory.continuity.policy` reads it: Claude Code's shape.

    That is ``hook_event_name`` (one of :data:`LIFECYCLE_EVENTS`), ``session_id``,
    ``prompt``, ``trigger`` (``manual``/``auto``) and ``source``. A host whose
    events look different defines ``lifecycle_payload(payload, event)`` in its
    module; ``event`` is the canonical event the installed hook names
    (``sync hook --event``), for hosts whose payload does not say it (a
    file hook named after its event, a plugin). Without a module function, the
    event, when given, replaces the payload's own name. A payload that is not
    a JSON object is passed on for the policy to refuse.
    """
    reader = getattr(_module(host), "lifecycle_payload", None)
    if reader is not None:
        return reader(payload, event)
    if event is None or not isinstance(payload, dict):
        return payload
    return {**payload, "hook_event_name": event}


def oversized_lifecycle_payload(host: str, raw: bytes) -> object:
    """What a lifecycle event too large to read in full still says (``None``: nothing usable):
    the module's ``oversized_lifecycle_payload(raw)``, for a host whose every event may carry
    the whole conversation."""
    if host not in LIFECYCLE_HOSTS:
        return None
    reader = getattr(_module(host), "oversized_lifecycle_payload", None)
    return reader(raw) if reader is not None else None


def store_per_call(host: str) -> bool:
    """Whether ``host``'s lifecycle hook is registered user-wide, naming no store (its module's
    ``LIFECYCLE_STORE_PER_CALL``): each event's store is then found from its ``cwd``, and a
    project without one is answered quietly (DESIGN §4)."""
    if host not in LIFECYCLE_HOSTS:
        return False
    return getattr(_module(host), "LIFECYCLE_STORE_PER_CALL", False) is True


def render_lifecycle(host: str, reply: object) -> tuple[str, int]:
    """``reply`` (a :class:`~engramory.continuity.policy.Reply`) in ``host``'s hook format."""
    return _module(host).render_lifecycle(reply)
