"""``engramory doctor``: validate a memory store (never writes).

``model`` defines findings and the rule registry; ``rules/`` (``index``,
``notes``, ``schema``) holds one small function per rule; ``engine`` gathers
the store and runs them; ``context`` and ``workers`` are what it reads and
how it spreads the notes over processes. The CLI is ``engramory.commands.doctor``.
"""
