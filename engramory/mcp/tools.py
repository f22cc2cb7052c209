"""The MCP tools: their JSON Schemas and handlers, thin layers over the store and its write path.

A handler takes the validated arguments and returns a :class:`ToolResult`;
every refusal (a usage problem, a cap, a clash, a secret, a path) is a result
with ``is_error`` set and the CLI's own message, never a protocol error. The
write tools run exactly what ``engramory new`` and ``archive`` run
(:mod:`engramory.write.newnote`, :mod:`engramory.write.archiving`) and
:mod:`engramory.mcp.update`, which take the store's state lock.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engramory.mcp import update as update_command
from engramory.secrets.excerpts import excerpt
from engramory.store.breach import caps_text, limits_text
from engramory.store.caps import INDEX_NAME, Caps, count_lines, utf8_size
from engramory.store.disk import (
    ARCHIVE,
    NOTE_READ_LIMIT,
    READ_OK,
    TOO_LARGE,
    contained,
    read_file,
    read_index,
)
from engramory.store.frontmatter import NOTE_TYPES, parse_bytes
from engramory.util.errors import EngramoryError
from engramory.util.textfmt import printable
from engramory.write import archiving, newnote
from engramory.write.gate import live_notes
from engramory.write.notewrite import SCOPES

SEARCH_DEFAULT = 10
SEARCH_MAX = 50
QUERY_MAX = 500
EXCERPT_CHARS = 160


@dataclass(frozen=True)
class Context:
    """What every handler works on: one store (resolved), the caps in force, and whether the
    store's profile is claude-native (the host owns the notes' frontmatter)."""

    root: str
    caps: Caps
    read_only: bool = False
    native: bool = False
    writes_refused: str = ""  # why every write tool is refused (a host-managed folder)


@dataclass
class ToolResult:
    """A tool's answer: text for the model, structured content, and whether it is a refusal."""

    text: str
    structured: dict[str, Any]
    is_error: bool = False

    def as_result(self) -> dict[str, Any]:
        return {
            "content": [{"type": "text", "text": self.text}],
            "structuredContent": self.structured,
            "isError": self.is_error,
        }


def refusal(message: str) -> ToolResult:
    return ToolResult(message, {"error": message}, True)


# --- argument schemas ---------------------------------------------------------------------------

_STRING = {"type": "string"}
SLUG_SCHEMA = {
    "type": "string",
    "description": "the note's file name without .md (never a path)",
}


def _object(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


def check_arguments(schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """Why ``arguments`` do not fit ``schema`` (the subset the tools use), or ``None``."""
    properties = schema["properties"]
    for key in schema["required"]:
        if key not in arguments:
            return f"missing argument {key!r}"
    for key, value in arguments.items():
        if key not in properties:
            return f"unknown argument {key!r} (the arguments are: {', '.join(properties)})"
        want = properties[key]
        kind = want["type"]
        if kind == "string" and not isinstance(value, str):
            return f"argument {key!r} must be a string"
        if kind == "boolean" and not isinstance(value, bool):
            return f"argument {key!r} must be true or false"
        if kind == "integer" and (isinstance(value, bool) or not isinstance(value, int)):
            return f"argument {key!r} must be an integer"
        if "enum" in want and value not in want["enum"]:
            return f"argument {key!r} must be one of {', '.join(want['enum'])}"
        if kind == "integer" and not want.get("minimum", value) <= value <= want.get(
            "maximum", value
        ):
            return f"argument {key!r} must be from {want['minimum']} to {want['maximum']}"
    return None


# --- reads ---------------------------------------------------------------------------------------


def host_cut(text: str, caps: Caps) -> tuple[str, int | None]:
    """``(loaded, line)``: the part of the index a host loads (the first hard-cap lines,
    cut back to whole lines within the hard byte cap) and the first line it drops
    (``None``: it loads it all)."""
    lines = text.split("\n")
    kept, size = [], 0
    for number, line in enumerate(lines, 1):
        piece = line + ("\n" if number < len(lines) else "")
        if number > caps.hard_lines or size + utf8_size(piece) > caps.hard_bytes:
            return "".join(kept), number
        kept.append(piece)
        size += utf8_size(piece)
    return text, None


def memory_index(context: Context, _arguments: dict[str, Any]) -> ToolResult:
    """The index as a host would load it, with its size against the caps."""
    index = read_index(context.root, context.caps)
    caps = context.caps
    caps_json = {
        "warn_lines": caps.warn_lines,
        "hard_lines": caps.hard_lines,
        "warn_bytes": caps.warn_bytes,
        "hard_bytes": caps.hard_bytes,
    }
    if index.status == TOO_LARGE:
        return refusal(
            f"{INDEX_NAME} is too large to read here: compact it (engramory compact "
            f"{context.root}, or merge and archive notes)"
        )
    if index.status != READ_OK or index.text is None:
        if index.status == "missing" and not index.error:
            text = f"{INDEX_NAME} does not exist yet: memory_write creates it with the first note."
            return ToolResult(
                text,
                {"path": INDEX_NAME, "text": "", "lines": 0, "bytes": 0, "caps": caps_json,
                 "verdict": "ok", "cut_at_line": None},
            )  # fmt: skip
        return refusal(f"{INDEX_NAME} cannot be read: {index.error or index.status}")
    text = index.text
    lines = count_lines(text)
    size = index.measured.bytes if index.measured else utf8_size(text)
    over = lines > caps.hard_lines or size > caps.hard_bytes
    warn = lines > caps.warn_lines or size > caps.warn_bytes
    verdict = "over" if over else "warn" if warn else "ok"
    loaded, cut = host_cut(text, caps)
    summary = f"[{INDEX_NAME}: {limits_text(lines, size)}; {caps_text(caps)}: {verdict.upper()}"
    if cut is not None:
        summary += f"; a host stops loading it at line {cut}: what follows is not shown"
    if verdict != "ok":
        summary += "; compact it before adding (merge or archive notes)"
    structured = {
        "path": INDEX_NAME,
        "text": loaded,
        "lines": lines,
        "bytes": size,
        "caps": caps_json,
        "verdict": verdict,
        "cut_at_line": cut,
    }
    return ToolResult(loaded.rstrip("\n") + "\n\n" + summary + "]", structured)


def _note_path(root: str, slug: str) -> tuple[str, str] | None:
    """``(rel, real path)`` of the live note, else the archived one, else ``None``;
    refused when the note or a folder on the way (a symlinked ``archive/``) leads out
    of the store."""
    candidates = [slug + ".md"]
    directory = archiving.archive_dir(root)
    candidates.append(f"{directory}/{slug}.md")
    for rel in candidates:
        path = contained(root, rel)  # decided before anything outside is even looked at
        if path is None:
            raise EngramoryError(
                f"{printable(rel)} leads out of the store (a symlink on the way): not read"
            )
        if os.path.lexists(path):
            return rel, path
    return None


def memory_read(context: Context, arguments: dict[str, Any]) -> ToolResult:
    """One note, live or archived, read within the store and bounded."""
    slug = archiving.bare_slug(arguments["slug"])
    found = _note_path(context.root, slug)
    if found is None:
        return refusal(
            f"no note {slug}.md in the store or its {ARCHIVE}/: check the slug "
            "(memory_index lists the live notes, memory_search finds them)"
        )
    rel, path = found
    read = read_file(path, NOTE_READ_LIMIT)
    if read.status == TOO_LARGE:
        return refusal(f"{rel} is over {NOTE_READ_LIMIT} bytes: not read")
    if read.status != READ_OK or read.data is None:
        return refusal(f"{rel} cannot be read: {read.error or read.status}")
    text = read.data.decode("utf-8", "replace")
    archived = "/" in rel
    return ToolResult(text, {"path": rel, "archived": archived, "text": text})


def _excerpt_line(text: str, words: list[str]) -> str:
    """The first line holding a query word (else the first non-blank line), made safe."""
    lines = [line for line in text.split("\n") if line.strip()]
    for line in lines:
        folded = line.casefold()
        if any(word in folded for word in words):
            return excerpt(line.strip(), EXCERPT_CHARS)[1:-1]
    return excerpt(lines[0].strip(), EXCERPT_CHARS)[1:-1] if lines else ""


def search(root: str, query: str, limit: int) -> tuple[list[dict[str, Any]], int]:
    """``(hits, total)``: live notes holding every word of ``query`` (case-folded) in their
    name, description or body; name and description hits first, then by path."""
    words = query.casefold().split()
    ranked: list[tuple[int, str, dict[str, Any]]] = []
    for note in live_notes(root):
        if not all(word in note.data.decode("utf-8", "replace").casefold() for word in words):
            continue
        parsed = parse_bytes(note.data)
        name = parsed.fields.get("name", note.rel[:-3])
        description = parsed.fields.get("description", "")
        head = (name + "\n" + description).casefold()
        text = (head + "\n" + parsed.body.casefold()) if parsed.closed else None
        if text is not None and not all(word in text for word in words):
            continue  # the words were only in other frontmatter fields
        rank = 0 if all(word in head for word in words) else 1
        source = description if rank == 0 and description else parsed.body or description
        ranked.append(
            (
                rank,
                note.rel,
                {
                    "path": note.rel,
                    "slug": note.rel[:-3],
                    "description": excerpt(description, EXCERPT_CHARS)[1:-1],
                    "excerpt": _excerpt_line(source, words),
                },
            )
        )
    ranked.sort(key=lambda item: (item[0], item[1]))
    return [hit for _, _, hit in ranked[:limit]], len(ranked)


def memory_search(context: Context, arguments: dict[str, Any]) -> ToolResult:
    """Notes holding every word of the query."""
    query = arguments["query"]
    if not query.split():
        return refusal("the query is empty: give one or more words")
    if len(query) > QUERY_MAX:
        return refusal(f"the query is over {QUERY_MAX} characters: give a few words")
    limit = arguments.get("limit", SEARCH_DEFAULT)
    hits, total = search(context.root, query, limit)
    if not hits:
        text = "no live note holds every word of the query"
    else:
        text = "\n".join(f"{h['slug']} — {h['description']}\n  {h['excerpt']}" for h in hits)
        if total > len(hits):
            text += f"\n({total} notes match; {len(hits)} shown: narrow the query or raise limit)"
    return ToolResult(text, {"results": hits, "total": total})


# --- writes --------------------------------------------------------------------------------------

TOOL_LABELS = {"--why": "why", "--how": "how", "--description": "description", "--title": "title",
               "TYPE": "type"}  # fmt: skip


def memory_write(context: Context, arguments: dict[str, Any]) -> ToolResult:
    """Exactly ``engramory new``."""
    request = newnote.NoteRequest(
        arguments["type"],
        arguments["slug"],
        arguments["description"],
        arguments.get("scope"),
        arguments.get("title"),
        arguments.get("why"),
        arguments.get("how"),
        context.native,
    )
    newnote.check_request(request, TOOL_LABELS)
    body = arguments.get("body", "").replace("\r\n", "\n")
    if len(body.encode("utf-8")) > NOTE_READ_LIMIT:
        return refusal(f"the body is over {NOTE_READ_LIMIT} bytes")
    plan = newnote.create(request, body, context.root, context.caps)
    structured = {
        "created": plan.note_rel,
        "path": plan.note_path,
        "index": {"lines": plan.lines, "bytes": plan.size},
        "similar": [{"path": rel, "score": round(s, 3)} for rel, s in plan.similar],
        "warnings": plan.warnings,
    }
    return ToolResult("\n".join(newnote.report_text(plan, False)), structured)


def memory_update(context: Context, arguments: dict[str, Any]) -> ToolResult:
    """A live note rewritten in place (see :mod:`engramory.mcp.update`)."""
    change = update_command.NoteChange(
        arguments.get("description"), arguments.get("body"), arguments.get("why"),
        arguments.get("how"),
    )  # fmt: skip
    plan = update_command.update(
        arguments["slug"], change, context.root, context.caps, context.native
    )
    lines = [f"updated {plan.rel}"]
    if plan.pointer_line is not None:
        lines.append(f"{INDEX_NAME}:{plan.pointer_line}: the pointer's description updated")
    lines += [f"warning: {w}" for w in plan.warnings]
    structured = {
        "updated": plan.rel,
        "index_line": plan.pointer_line,
        "warnings": plan.warnings,
    }
    return ToolResult("\n".join(lines), structured)


def memory_archive(context: Context, arguments: dict[str, Any]) -> ToolResult:
    """Exactly ``engramory archive``."""
    plan = archiving.archive(
        arguments["slug"], context.root, context.caps, arguments.get("keep_pointer", False)
    )
    structured = {
        "archived": plan.rel,
        "to": plan.archived_rel,
        "removed_lines": plan.edit.removed,
        "rewritten_lines": sorted(plan.edit.rewritten),
        "still_linking": plan.linking,
    }
    return ToolResult("\n".join(archiving.report_lines(plan, False)), structured)


# --- the table -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """One tool: its name, what it is for, its argument schema and its handler."""

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Callable[[Context, dict[str, Any]], ToolResult]
    writes: bool = False

    def listing(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": {"readOnlyHint": not self.writes, "openWorldHint": False},
        }


ONE_LINE = "one line"
TOOLS = (
    Tool(
        "memory_index",
        "The memory index (MEMORY.md) as a host loads it, up to the hard cap, with its size "
        "against the caps. Call it at the start of a task, then open only relevant notes.",
        _object({}),
        memory_index,
    ),
    Tool(
        "memory_read",
        "One note by its slug (live, or retired in archive/). Never a path.",
        _object({"slug": SLUG_SCHEMA}, ("slug",)),
        memory_read,
    ),
    Tool(
        "memory_search",
        "Live notes whose name, description or body hold every word of the query (case "
        "does not matter); name and description hits first, one excerpt line each.",
        _object(
            {
                "query": {"type": "string", "description": "words, all of which must occur"},
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": SEARCH_MAX,
                    "description": f"at most this many results (default {SEARCH_DEFAULT})",
                },
            },
            ("query",),
        ),
        memory_search,
    ),
    Tool(
        "memory_write",
        "Write a new note and its index pointer, as `engramory new` does: refused when the "
        "slug is taken (live or archived), the index would pass its hard cap, or the text "
        "holds a secret. Lists similar notes to update instead. feedback and project notes "
        "need why and how.",
        _object(
            {
                "type": {"type": "string", "enum": list(NOTE_TYPES)},
                "slug": {
                    "type": "string",
                    "description": "lower-case letters, digits and dashes (at most 80)",
                },
                "description": {
                    "type": "string",
                    "description": f"{ONE_LINE}: when to open the note",
                },
                "body": {"type": "string", "description": "the note's text"},
                "why": {"type": "string", "description": f"{ONE_LINE} (feedback, project)"},
                "how": {
                    "type": "string",
                    "description": f"{ONE_LINE}: how to apply it (feedback, project)",
                },
                "scope": {"type": "string", "enum": list(SCOPES)},
                "title": {"type": "string", "description": "the pointer's title"},
            },
            ("type", "slug", "description"),
        ),
        memory_write,
        writes=True,
    ),
    Tool(
        "memory_update",
        "Rewrite a live note in place, its frontmatter's layout kept (updated: today, unless "
        "the store is in Claude Code's dialect): a new description (its index "
        "pointer follows), body, why or how. Refused when it would add a secret or break "
        "the note's schema.",
        _object(
            {
                "slug": SLUG_SCHEMA,
                "description": {"type": "string", "description": ONE_LINE},
                "body": _STRING,
                "why": {"type": "string", "description": ONE_LINE},
                "how": {"type": "string", "description": ONE_LINE},
            },
            ("slug",),
        ),
        memory_update,
        writes=True,
    ),
    Tool(
        "memory_archive",
        "Retire a note to archive/, as `engramory archive` does: its index pointer is "
        "removed, or with keep_pointer rewritten to the archived note.",
        _object({"slug": SLUG_SCHEMA, "keep_pointer": {"type": "boolean"}}, ("slug",)),
        memory_archive,
        writes=True,
    ),
)


def available(read_only: bool) -> tuple[Tool, ...]:
    """The tools served: all, or the reading ones with ``--read-only``."""
    return tuple(tool for tool in TOOLS if not (read_only and tool.writes))


def call(context: Context, tool: Tool, arguments: dict[str, Any]) -> ToolResult:
    """Run a tool; every refusal becomes an error result carrying the CLI's message."""
    problem = check_arguments(tool.input_schema, arguments)
    if problem:
        return refusal(f"{tool.name}: {problem}")
    if tool.writes and context.writes_refused:
        return refusal(context.writes_refused)
    try:
        return tool.handler(context, arguments)
    except EngramoryError as exc:
        return refusal(str(exc))
