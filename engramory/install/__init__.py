"""Wiring the discipline into a host: ``engramory init`` and ``engramory uninstall``.

Planning reads the file system and decides everything: what each step will
write, and every reason to refuse (bad flag combinations, missing source
documents, a store that is the project root or overlaps the skill, a target
that is or passes through a symlink leading out of the project, a hook
configuration that is not valid JSON of the expected shape, damaged block
markers...). A refusal happens before the first write; one caused by the
command line alone is a usage error (exit 64), one caused by the state of the
files exits 1. Acting then runs the planned steps in order; every write is
atomic and keeps the file's mode.

The modules, in the order they build on each other: ``steps`` (the plan as values),
``files`` (file helpers, containment checks), ``hooks``, ``flags``, ``verify`` (the guard
checked once, the closing lines), ``init``, ``uninstall``, ``apply`` (acting on a plan);
``layout`` resolves where a host's files go, ``blocks`` writes the rules text and
``selfcommand`` the command the rules name.
"""
