"""One module per agent host that has behaviour of its own, the Host interface and the registry.

``base`` defines :class:`~engramory.hosts.base.Host`; ``registry`` lists every
host; ``table`` holds the hosts that are data only. ``claude`` also holds
Claude Code's hook dialect for the index guard: this package's ``__init__``
stays import-free, because the guard hook imports ``claude`` before every file
edit an agent makes. ``entry`` is the guard hook's entry (argv, stdin,
fail-open, dispatch by ``--host``); :func:`render_lifecycle` writes a
continuity reply in a host's format.
"""

from __future__ import annotations

# The hosts whose module defines ``render_lifecycle(reply) -> (text, exit_code)``: the
# ``--host`` choices of ``engramory sync hook`` (a test keeps this in step with the modules).
LIFECYCLE_HOSTS = ("codex", "claude")


def render_lifecycle(host: str, reply: object) -> tuple[str, int]:
    """``reply`` (a :class:`~engramory.continuity.policy.Reply`) in ``host``'s hook format."""
    if host not in LIFECYCLE_HOSTS:
        raise ValueError(f"no lifecycle hook format for host {host!r}")
    import importlib  # noqa: PLC0415 - the guard's path imports this package

    module = importlib.import_module(f"{__name__}.{host}")
    return module.render_lifecycle(reply)
