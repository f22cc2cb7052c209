"""One module per agent host: how its hook payloads read and how a verdict or a lifecycle reply
is written back.

Kept import-free: the index guard hook imports a host module before every
file edit an agent makes.
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
