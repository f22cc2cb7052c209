"""The installer's side of each agent host: the Host interface, one module per host, the registry.

``base`` defines :class:`~engramory.hosts.base.Host`; ``registry`` lists every
host; ``table`` holds the hosts that are data only; ``<host>.py`` holds a host with
behaviour of its own as a module-level ``HOST``. What runs inside a host's hook is its
dialect, :mod:`engramory.dialects.<host>`: the hook never imports this package.
"""
