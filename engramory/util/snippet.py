"""The rules snippet Engramory ships, as a host's rules and the MCP server's instructions carry it.

``rules-snippet.md`` (write hosts) or ``adapters/reader/reader-snippet.md``
(read-only hosts), without its human install header; the caller puts the
store's path in place of :data:`PLACEHOLDER`.
"""

from __future__ import annotations

from engramory.util.resources import shipped_path

PLACEHOLDER = "<MEMORY_ROOT>"
WRITER_SNIPPET = "rules-snippet.md"
READER_SNIPPET = "adapters/reader/reader-snippet.md"


def strip_install_header(text: str) -> str:
    """Drop the human install header: everything through the first ``---`` line after line 1."""
    lines = text.split("\n")
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return "\n".join(lines[i + 1 :]).strip()
    return text.strip()


def snippet(reader: bool) -> str:
    """The block text of the writer or reader snippet, header removed."""
    path = shipped_path(READER_SNIPPET if reader else WRITER_SNIPPET)
    return strip_install_header(path.read_text(encoding="utf-8"))
