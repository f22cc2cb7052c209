"""The inline allow comment: ``<!-- engramory: allow RULE[,RULE...] -->`` silences findings.

Like a linter's inline ignore. The comment silences the rules it names on its
own line; alone on its line, on the next line too. A finding without a line
(a store-level one, such as ``not-gitignored`` on a store committed on
purpose) is silenced by the comment anywhere in ``MEMORY.md``. Unknown rule
ids are ignored. The parsing is :mod:`engramory.store.allowcomment`'s.
"""

from __future__ import annotations

from engramory.store.allowcomment import MARKER, LineAllows, line_allows
from engramory.store.discovery import INDEX_NAME


class Allowances:
    """Every allow comment of a doctor run: per file and line, and ``MEMORY.md``-wide."""

    def __init__(self, index_text: str | None = None) -> None:
        self.by_path: dict[str, LineAllows] = {}
        self.anywhere: frozenset[str] = frozenset()
        if index_text is not None and MARKER in index_text:
            found = line_allows(index_text)
            if found:
                self.by_path[INDEX_NAME] = found
                self.anywhere = frozenset().union(*found.values())

    def add(self, path: str, allows: LineAllows) -> None:
        if allows:
            self.by_path[path] = allows

    def silences(self, rule_id: str, path: str, line: int | None) -> bool:
        """Whether an allow comment silences ``rule_id``'s finding at ``path:line``."""
        if line is None:
            return rule_id in self.anywhere
        held = self.by_path.get(path)
        return held is not None and rule_id in held.get(line, ())
