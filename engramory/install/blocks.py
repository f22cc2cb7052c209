"""Render the text Engramory puts into a host's rules: the managed block or dedicated file.

The body comes from ``rules-snippet.md`` (write hosts) or
``adapters/reader/reader-snippet.md`` (read-only hosts), without its human
install header (everything up to the first ``---`` line), with
``<MEMORY_ROOT>`` replaced by the store's path and every ``engramory ...``
command by the command that runs this installation from the agent's shell,
followed by a short note about this host: where the store is, how the index
cap is enforced here and what that does not cover, and where the full
protocol is. The rendering is a pure function of its inputs (the command and
the protocol's path are passed in), so re-running the installer writes the
same bytes.
"""

from __future__ import annotations

from engramory.continuity.state import ASSISTED, EXPLICIT
from engramory.hosts.base import Host
from engramory.util.snippet import PLACEHOLDER, snippet

MANAGED_HEADER = "<!-- Managed by Engramory:"
COMMAND = "engramory"


def begin_marker(spec: Host, reader: bool) -> str:
    return f"<!-- BEGIN ENGRAMORY {spec.marker}{'-READER' if reader else ''} -->"


def end_marker(spec: Host, reader: bool) -> str:
    return f"<!-- END ENGRAMORY {spec.marker}{'-READER' if reader else ''} -->"


def host_note(
    spec: Host,
    reader: bool,
    memory: str,
    *,
    hooks: bool = False,
    protocol: str | None = None,
    mode: str = EXPLICIT,
    command: str = COMMAND,
    native: bool = False,
) -> str:
    """The short host-specific note that follows the rules.

    ``protocol`` is the path of the ``SKILL.md`` the agent can open;
    ``command`` runs Engramory in the agent's shell (quoted already);
    ``native``: the store is the host's own memory folder (``init --native``).
    """
    setup = (
        f"engramory init {spec.name}{'-reader' if reader else ''}{' --native' if native else ''}"
    )
    if reader:
        return (
            f"_{spec.label}, read-only: set up by `{setup}`. The store at `{memory}/` "
            "belongs to another agent; this one only reads it._"
        )
    lines = [f"### Engramory on {spec.label}", ""]
    if native:
        lines.append(
            f"- The store `{memory}/` is {spec.label}'s own memory folder: {spec.label} loads "
            "its `MEMORY.md` at every session start and drops what is past the cap, so keep the "
            f"index under it; the notes {spec.label} writes there itself are part of the store."
        )
    elif spec.native_memory and not spec.store_may_be_native:
        lines.append(
            f"- The store `{memory}/` is not {spec.label}'s own memory "
            f"({spec.native_memory}): keep the two apart."
        )
    if spec.pre_write_hook and hooks:
        lines.append(
            "- The index cap is enforced by Engramory's guard hook: an edit that would grow "
            "the index past the hard cap is denied, and so is a shell command that writes "
            f"it (use {'/'.join(spec.edit_tools)}). MCP file tools and outside editors are not "
            "covered: run "
            f"`{command} check {memory}` after any other kind of write."
        )
    else:
        lines.append(
            "- No hook enforces the index cap here: run "
            f"`{command} check {memory}` after every edit of the index, and compact when it "
            "says WARN or OVER."
        )
    if spec.lifecycle_hooks and hooks:
        milestone = " and at meaningful milestones" if mode == ASSISTED else ""
        note = spec.hooks_trust_note()
        trust = f" {note}" if note else ""
        lines.append(
            f"- Continuity hooks are installed ({mode} mode): at session start they say where "
            "the index is and whether earlier work is unsynced; run the continuity sync before "
            f"a compact, a clear or a new thread{milestone}, then record it with the "
            f"`mark-synced` command they print. {_compaction_sentence(spec)}; the sync itself "
            f"is yours.{trust}"
        )
    elif spec.lifecycle_hooks:
        lines.append(
            "- No continuity hooks are installed: run the continuity sync yourself before a "
            "compact, a clear or a new thread."
        )
    where = f"`{protocol}`" if protocol else "Engramory's `SKILL.md`"
    lines.append(f"- The full protocol is {where}. Set up by `{setup}`.")
    return "\n".join(lines)


def _compaction_sentence(spec: Host) -> str:
    """What the continuity hooks do at a compaction on this host: hold it, or remind."""
    if spec.holds_compaction:
        return "A manual compaction waits for that record. They remind and gate"
    return (
        f"{spec.label} offers no way to hold a compaction back (at most it reports one): sync "
        "before you compact. They remind"
    )


def body(
    spec: Host,
    reader: bool,
    memory: str,
    *,
    hooks: bool = False,
    protocol: str | None = None,
    mode: str = EXPLICIT,
    command: str = COMMAND,
    native: bool = False,
) -> str:
    """The rules text for a host (no markers, no file header)."""
    text = with_command(snippet(reader).replace(PLACEHOLDER, memory), command)
    if protocol:
        text = with_protocol(text, protocol)
    addendum = spec.rules_addendum(memory)
    if addendum:
        text += "\n\n" + addendum
    note = host_note(
        spec,
        reader,
        memory,
        hooks=hooks,
        protocol=protocol,
        mode=mode,
        command=command,
        native=native,
    )
    return text + "\n\n" + note


def with_protocol(text: str, protocol: str) -> str:
    """``text`` naming the ``SKILL.md`` at ``protocol`` wherever it names the protocol file."""
    span = f"`{protocol}`"
    return text.replace("Engramory's `SKILL.md`", span).replace("`SKILL.md`", span)


def with_command(text: str, command: str) -> str:
    """``text`` with every code span that runs ``engramory SUBCOMMAND`` using ``command``."""
    if command == COMMAND:
        return text
    return text.replace(f"`{COMMAND} ", f"`{command} ")


def block(spec: Host, reader: bool, text: str) -> str:
    """``text`` between the host's whole-line BEGIN/END markers."""
    return f"{begin_marker(spec, reader)}\n{text}\n{end_marker(spec, reader)}"


def dedicated_file(spec: Host, reader: bool, text: str) -> str:
    """A whole rules file: frontmatter (if the host wants one), the managed header, the text."""
    frontmatter = spec.reader_frontmatter if reader else spec.frontmatter
    host = f"{spec.name}{'-reader' if reader else ''}"
    header = (
        f"{MANAGED_HEADER} written by `engramory init {host}`, removed by "
        f"`engramory uninstall {host}`. Re-run init to update it; edits here are overwritten. -->"
    )
    parts = []
    if frontmatter:
        parts.append("---\n" + "\n".join(frontmatter) + "\n---\n")
    parts.append(header + "\n\n" + text + "\n")
    return "\n".join(parts)
