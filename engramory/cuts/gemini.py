"""Gemini CLI's private project memory ``MEMORY.md`` (field-2026-12.md §1.1 and §1.2 "Gemini
CLI" @5411f113: ``memoryDiscovery.ts``, ``memoryContextManager.ts``): loaded whole, no cap."""

from __future__ import annotations

from engramory.cuts.model import UTF16_UNITS, Cut, decoded, utf16_units

HOST = "gemini"


def cut(text: str) -> Cut:
    """Gemini CLI loads everything: ``used`` is the size in UTF-16 units, nothing falls off."""
    return Cut(
        HOST,
        UTF16_UNITS,
        None,
        utf16_units(text),
        "no size cap: Gemini CLI loads the whole file",
    )


def measure(data: bytes, name: str, version: tuple[int, ...] | None = None) -> Cut:
    """The registry's entry point: the file's bytes and name."""
    return cut(decoded(data))
