"""Predict what an edit tool will leave in a file, without touching the file.

The guard asks "what would the index look like after this tool call?". The
answer follows the tools' own rules, so that an edit the real tool would
refuse is predicted as no change at all (never as growth):

* a write replaces the whole text;
* an edit replaces ``old_string`` with ``new_string`` -- every occurrence when
  ``replace_all`` is JSON ``true``, otherwise only when ``old_string`` occurs
  exactly once. An empty or missing ``old_string``, zero matches, several
  matches without ``replace_all``, or a non-string argument change nothing
  (the real tool fails);
* a multi-edit applies its edits in order, each to the result of the previous
  one (a later edit may match text an earlier one created).

This module is on the hook's hot path: it imports nothing.
"""

from __future__ import annotations


def apply_edit(text: str, old: object, new: object, replace_all: object = False) -> str:
    """One string replacement, as the Edit tool would do it (or ``text`` unchanged)."""
    if not isinstance(old, str) or not isinstance(new, str) or not old:
        return text
    if replace_all is True:
        return text.replace(old, new)
    if text.count(old) != 1:  # non-overlapping, as the tools count ("aaa" holds "aa" once)
        return text
    return text.replace(old, new, 1)


def apply_edits(text: str, steps: list[tuple[object, object, object]]) -> str:
    """Sequential ``(old, new, replace_all)`` edits (a multi-edit), each on the previous result."""
    for old, new, replace_all in steps:
        text = apply_edit(text, old, new, replace_all)
    return text


def decode_index(raw: bytes) -> str:
    """The index as text for simulation; invalid bytes survive as escapes (``caps.utf8_size``)."""
    return raw.decode("utf-8", "surrogateescape")
