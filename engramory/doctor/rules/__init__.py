"""The doctor's rules, one unit each, listed in an explicit registry.

Each rule lives in :mod:`.index` (the index and its pointers), :mod:`.notes`
(note files and the note graph) or :mod:`.schema` (frontmatter and body), with
its id, severity, summary, fix and examples (see :func:`..model.rule`).
``REGISTRY`` is the catalogue, in the order ``--list-rules`` prints and the
"fix" lines follow: a new rule is one unit in a module and one line here.
"""

from __future__ import annotations

from engramory.doctor.model import Rule, catalogue
from engramory.doctor.rules import (
    codex,
    content,
    duplicates,
    elsewhere,
    hermes,
    history,
    index,
    notes,
    schema,
    secrets,
)

REGISTRY: tuple[Rule, ...] = (
    index.no_index,
    index.index_escapes_store,
    index.index_symlink,
    index.index_unreadable,
    index.index_too_large,
    index.index_over_hard_cap,
    index.index_over_soft_cap,
    index.index_line_not_pointer,
    index.index_line_too_long,
    index.pointer_bad_scheme,
    index.pointer_escapes_store,
    index.pointer_missing,
    index.pointer_into_archive,
    index.duplicate_pointer,
    index.pointer_section_mismatch,
    notes.note_escapes_store,
    notes.note_unreadable,
    notes.note_too_large,
    notes.directory_unreadable,
    notes.symlink_escape,
    notes.duplicate_slug,
    notes.nested_note,
    notes.orphan,
    notes.linked_not_indexed,
    notes.wikilink_missing,
    notes.wikilink_not_slug,
    schema.no_frontmatter,
    schema.frontmatter_syntax,
    schema.duplicate_key,
    schema.missing_field,
    schema.invalid_type,
    schema.invalid_scope,
    schema.missing_date,
    schema.invalid_date,
    schema.date_order,
    schema.future_date,
    schema.missing_why,
    schema.missing_how_to_apply,
    schema.empty_label,
    schema.name_mismatch,
    schema.missing_scope,
    schema.unknown_key,
    # issue 14: content
    content.relative_date,
    content.current_state,
    content.per_turn_log,
    content.stale_project,
    content.dated_series,
    content.handoff_store,
    content.not_gitignored,
    # issue 14: secrets
    secrets.secret_value,
    secrets.personal_data,
    # issue 14: dupes
    duplicates.near_duplicate,
    # issue 37: history
    history.notes_vanished,
    # issue 39: memory that follows the project
    elsewhere.memory_elsewhere,
    # issue 38: each host's own files (only under the host's profile)
    codex.codex_summary_header,
    codex.codex_summary_over_cut,
    codex.codex_task_group,
    hermes.hermes_over_cap,
    hermes.hermes_separator,
    hermes.hermes_duplicate_entry,
)

RULES: dict[str, Rule] = catalogue(REGISTRY)
