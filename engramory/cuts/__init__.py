"""Each host's own cut of its memory file: what it really loads, and what falls off.

One module per host (:mod:`claude`, :mod:`qwen`, :mod:`codex`, :mod:`hermes`,
:mod:`gemini`), each a pure function from the file's text to a :class:`Cut`;
:mod:`registry` maps a host name to it, :mod:`falloff` names the notes the
dropped lines point to. Nothing here imports ``hosts/`` (the host table is a
different concern: where rules and hooks go, not what a host loads).
"""
