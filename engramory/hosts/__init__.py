"""One module per agent host that has behaviour of its own, the Host interface and the registry.

``base`` defines :class:`~engramory.hosts.base.Host`; ``registry`` lists every
host; ``table`` holds the hosts that are data only. ``claude`` also holds
Claude Code's hook dialect for the index guard: this package's ``__init__``
stays import-free, because the guard hook imports ``claude`` before every file
edit an agent makes.
"""
