"""The few entries that would fall off, named in one sentence for the session-start reminder
and the guard's deny (at most :data:`engramory.cuts.report.NAMED` of them)."""

from __future__ import annotations

from pathlib import Path

from engramory.cuts import registry
from engramory.cuts.falloff import unread
from engramory.cuts.report import NAMED, first_named
from engramory.store.caps import INDEX_NAME
from engramory.util.textfmt import printable

# The hosts whose own cut applies to an Engramory store's MEMORY.md when they serve a session.
INDEX_HOSTS = ("claude", "qwen")
HOST_LABELS = {"claude": "Claude Code", "qwen": "Qwen Code"}  # as a deny names them


def _version() -> tuple[int, ...] | None:
    raw = registry.claude_version(None)
    return registry.parse_version(raw) if raw else None


def deny_hint(predicted: str, host: str = "claude") -> str:
    """For a denied write: the entries of the predicted index ``host``'s cut would drop
    (Claude Code's counted strictly, with comments, unless ``$ENGRAMORY_CLAUDE_VERSION``
    says otherwise; Qwen Code's shortest lines first)."""
    data = predicted.lstrip("\ufeff").encode("utf-8", "replace")
    cut = registry.cut(host, data, INDEX_NAME, _version())
    if cut.loads_all:
        return ""
    named = first_named(unread(predicted, cut, NAMED))
    more = len(cut.dropped) - NAMED
    tail = f" and {more} more" if more > 0 else ""
    label = HOST_LABELS.get(host, host)
    return printable(f" After this write {label} would not load: {named}{tail}.")


def session_hint(store: Path, host: str) -> str:
    """For the session-start reminder: the first entries ``host`` would not load ("" when all
    load, when the host's cut does not apply to the index, or on any error)."""
    if host not in INDEX_HOSTS:
        return ""
    from engramory.cuts import measure  # noqa: PLC0415

    try:
        root = str(store.resolve())
        cut, items = measure.measure(host, str(Path(root) / INDEX_NAME), root, _version())
    except Exception:
        return ""
    if cut.loads_all:
        return ""
    return printable(
        f"{host} does not load {len(items)} index line(s): {first_named(items)} — "
        f"`engramory check --host {host}` lists them all."
    )
