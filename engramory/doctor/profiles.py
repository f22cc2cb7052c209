"""The doctor's profiles: which dialect of a store it judges, as data the engine consults.

A profile never changes what a rule looks for; it changes how loud a rule is,
by the rule's stable id: a new severity, a note appended to each message, a
fix line worded for that dialect, or silence (the rule does not run). The
rules themselves know nothing of profiles.

* ``engramory`` (the default): the protocol as written, every rule at its
  catalogued severity.
* ``claude-native``: a Claude Code auto-memory folder, in the dialect the host
  writes (research/claude-native-memory.md §3): ``type`` at the top level or
  under a ``metadata:`` block, an ``originSessionId``, names that are titles,
  no dates. The restricted frontmatter parser already reads the nested keys
  as plain ones (indentation is ignored) and the host's keys are known keys,
  so only what the host cannot supply is relaxed: a missing date is ``info``
  with the advice to add it at the next edit, and ``name-mismatch`` is quiet.
  Every other rule applies unchanged.

* ``qwen-native`` and ``gemini-native``: Qwen Code's managed auto-memory and
  Gemini CLI's private project memory: an index plus topic files, like Claude
  Code's. Qwen's topic files are one per type holding several entries (their
  names are the type, not the note's name; per-entry ``why``/``howToApply``
  are body text); Gemini's are plain Markdown, often without frontmatter. So
  the index rules apply unchanged and the frontmatter rules are relaxed.
* ``codex-memories``: Codex's managed ``~/.codex/memories``: only the Codex
  rules (``memory_summary.md``'s ``v1`` header and its size against the cut,
  ``MEMORY.md``'s task groups) and the secret rules run; the folder is read only
  (every write command refuses it: :data:`READ_ONLY_PROFILES`).
* ``hermes``: ``~/.hermes/memories``: only the Hermes rules (entry separators,
  each file's character cap, duplicate entries) and the secret rules run.

The Codex and Hermes rules (:data:`DIALECT_RULES`) run only under their profile.

Which profile a store gets by default is decided at the command line's edge,
by :mod:`engramory.doctor.profile_choice` (a Claude Code auto-memory folder, or a
store whose notes are mostly in the host's dialect, gets ``claude-native``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engramory.doctor.model import INFO, Rule

ENGRAMORY_PROFILE = "engramory"
CLAUDE_NATIVE_PROFILE = "claude-native"
QWEN_NATIVE_PROFILE = "qwen-native"
GEMINI_NATIVE_PROFILE = "gemini-native"
CODEX_MEMORIES_PROFILE = "codex-memories"
HERMES_PROFILE = "hermes"

CODEX_RULES = frozenset({"codex-summary-header", "codex-summary-over-cut", "codex-task-group"})
HERMES_RULES = frozenset({"hermes-over-cap", "hermes-separator", "hermes-duplicate-entry"})
DIALECT_RULES = CODEX_RULES | HERMES_RULES
"""Rules about one host's own files: they run only under the profile that names them."""
SECRET_RULES = frozenset({"secret-value", "personal-data"})


@dataclass(frozen=True)
class Profile:
    """How loud each rule is for one dialect of store (rules not named keep their defaults).

    ``severities`` maps a rule id to its severity here; ``quiet`` names the rules
    that do not run; ``notes`` is appended to each message of a rule; ``fixes``
    replaces a rule's how-to-fix line; ``why`` says in one line what the profile is for.
    """

    name: str
    why: str
    severities: Mapping[str, str] = field(default_factory=dict)
    quiet: frozenset[str] = frozenset()
    notes: Mapping[str, str] = field(default_factory=dict)
    fixes: Mapping[str, str] = field(default_factory=dict)
    only: frozenset[str] | None = None

    def runs(self, rule_id: str) -> bool:
        """Whether the rule runs under this profile (``only``, when set, lists every rule that
        does; else every rule not quiet and not another host's dialect rule)."""
        if self.only is not None:
            return rule_id in self.only
        return rule_id not in self.quiet and rule_id not in DIALECT_RULES

    def severity(self, rule: Rule) -> str:
        """The rule's severity under this profile."""
        return self.severities.get(rule.id, rule.severity)

    def message(self, rule_id: str, message: str) -> str:
        """A finding's message, with this profile's note for the rule (if any)."""
        note = self.notes.get(rule_id)
        return f"{message} {note}" if note else message

    def fix(self, rule: Rule, default: str) -> str:
        """The how-to-fix line for the rule under this profile (``default``: the rule's own)."""
        return self.fixes.get(rule.id, default)

    def differs(self, rule: Rule) -> bool:
        """Whether this profile treats the rule differently from the catalogue (what
        ``--list-rules`` and ``--explain`` mark). A profile with ``only`` differs on none of
        the rules it leaves out, and the other profiles on none of the host-file rules: those
        run only where they belong, which the profile's ``why`` says."""
        if self.only is not None:  # a host's own files: the rest does not run, as said once
            return rule.id in self.only and self.severity(rule) != rule.severity
        if rule.id in DIALECT_RULES:
            return False
        return rule.id in self.quiet or self.severity(rule) != rule.severity


ENGRAMORY = Profile(ENGRAMORY_PROFILE, "the Engramory protocol: every rule as catalogued")

CLAUDE_NATIVE = Profile(
    CLAUDE_NATIVE_PROFILE,
    "a Claude Code auto-memory folder, in the dialect the host writes (type under metadata:, "
    "originSessionId, names that are titles, no dates)",
    severities={"missing-date": INFO},
    quiet=frozenset({"name-mismatch"}),
    notes={
        "missing-date": "(Claude Code does not write dates: add it when the note is next edited)",
    },
    fixes={
        "missing-date": "Claude Code writes no dates: add created: and updated: (YYYY-MM-DD, the "
        "dates of the fact) when the note is next edited",
    },
)

QWEN_NATIVE = Profile(
    QWEN_NATIVE_PROFILE,
    "Qwen Code's managed auto-memory: MEMORY.md plus one topic file per note type holding "
    "several entries, no dates",
    severities={"missing-date": INFO, "missing-why": INFO, "missing-how-to-apply": INFO},
    quiet=frozenset({"name-mismatch", "unknown-key"}),
    notes={"missing-date": "(Qwen Code does not write dates)"},
)

GEMINI_NATIVE = Profile(
    GEMINI_NATIVE_PROFILE,
    "Gemini CLI's private project memory: MEMORY.md plus plain Markdown topic files",
    severities={
        "no-frontmatter": INFO,
        "missing-field": INFO,
        "missing-date": INFO,
        "missing-why": INFO,
        "missing-how-to-apply": INFO,
    },
    quiet=frozenset({"name-mismatch"}),
    notes={"no-frontmatter": "(Gemini CLI writes topic files as plain Markdown)"},
)

CODEX_MEMORIES = Profile(
    CODEX_MEMORIES_PROFILE,
    "Codex's managed memories folder (read only): memory_summary.md's header and size, "
    "MEMORY.md's task groups, secrets",
    only=CODEX_RULES | SECRET_RULES,
)

HERMES = Profile(
    HERMES_PROFILE,
    "Hermes' memories folder: MEMORY.md and USER.md entries separated by §, each under its "
    "character cap, no duplicates; secrets",
    only=HERMES_RULES | SECRET_RULES,
)

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (ENGRAMORY, CLAUDE_NATIVE, QWEN_NATIVE, GEMINI_NATIVE, CODEX_MEMORIES, HERMES)
}
"""Every profile by name, in the order ``--list-rules`` shows them."""

READ_ONLY_PROFILES = {
    CODEX_MEMORIES_PROFILE: "Codex manages this folder itself (its own consolidation job "
    "rewrites it, and it is a git repository Codex keeps): Engramory only reads it",
}
"""Profiles whose folder the host manages itself, and why: every write command refuses them."""


def write_refusal(profile: Profile, action: str) -> str | None:
    """Why ``action`` may not write a store of ``profile`` (``None``: it may)."""
    why = READ_ONLY_PROFILES.get(profile.name)
    if why is None:
        return None
    return (
        f"refused ({action} would write the store), nothing was written: the store has the "
        f"{profile.name} profile. "
        f"{why}. Use `engramory doctor` and `engramory check --host codex` to read it"
    )
