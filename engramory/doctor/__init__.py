"""``engramory doctor``: validate a memory store (never writes).

``model`` defines findings and the rule registry; ``rules_index``,
``rules_notes`` and ``rules_schema`` hold one small function per rule;
``engine`` gathers the store and runs them; ``command`` is the CLI.
"""
