"""Where each host keeps its own memory for a project, found the way the host finds it.

One module per host (``qwen``, ``gemini``, ``codex``, ``hermes``; Claude Code's
resolution stays in :mod:`engramory.store.automemory` and is wrapped by
``claude``), each with ``find(project, environ) -> Found``; :mod:`.registry`
lists them in the order discovery and ``where --all`` use, and :mod:`.sizes`
measures what a found folder holds.
"""
