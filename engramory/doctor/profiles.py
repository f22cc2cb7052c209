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
        """Whether this profile treats the rule differently from the catalogue."""
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

PROFILES: dict[str, Profile] = {p.name: p for p in (ENGRAMORY, CLAUDE_NATIVE)}
"""Every profile by name, in the order ``--list-rules`` shows them."""
