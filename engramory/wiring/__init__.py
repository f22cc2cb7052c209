"""The host-neutral install mechanics both the hosts and the installer use.

Hook-config documents and how Engramory's handlers are recognised in them (``hookconfig``),
the handlers' shapes and command lines (``hookwiring``), owned hook files and config edits
(``hookfiles``), the managed ``.gitignore`` entries (``managed``), the homes a host's paths
name (``homes``) and the refusals (``refusal``). Below both :mod:`engramory.hosts` (each
host's install spec) and :mod:`engramory.install` (the installer's plan), importing neither.
"""
