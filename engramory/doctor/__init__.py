"""``engramory doctor``: validate a memory store (never writes).

``model`` defines findings and what a rule is; ``rules`` holds one unit per
rule (in ``rules/index.py``, ``rules/notes.py``, ``rules/schema.py``) and the
registry that lists them; ``engine`` gathers the store and runs them;
``context`` and ``workers`` are what it reads and how it spreads the notes over
processes. The CLI is ``engramory.commands.doctor``.
"""
