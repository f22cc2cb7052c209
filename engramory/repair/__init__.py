"""``engramory fix``: the mechanical repairs of a store, planned without touching the disk.

One module per fix, named after the doctor rule it repairs (its stable id):
:mod:`.orphan`, :mod:`.duplicate_pointer`, :mod:`.pointer_section_mismatch`,
:mod:`.missing_date`, :mod:`.invalid_date`, :mod:`.name_mismatch` (which also
fills in a missing ``name``). :mod:`.fmedit` edits single frontmatter lines,
:mod:`.plan` turns the doctor's findings into new file contents. The command
(``engramory/commands/fix.py``) does the reading, the backup and the writing.
"""

from __future__ import annotations

ORPHAN = "orphan"
DUPLICATE_POINTER = "duplicate-pointer"
POINTER_SECTION_MISMATCH = "pointer-section-mismatch"
MISSING_DATE = "missing-date"
INVALID_DATE = "invalid-date"
NAME_MISMATCH = "name-mismatch"

# The fix ids, in the order the summary lists them (``--select`` takes these).
FIX_IDS = (
    ORPHAN,
    DUPLICATE_POINTER,
    POINTER_SECTION_MISMATCH,
    MISSING_DATE,
    INVALID_DATE,
    NAME_MISMATCH,
)

# The fixes that touch only the index: all the claude-native profile allows (the host owns
# its notes' frontmatter).
INDEX_FIX_IDS = (ORPHAN, DUPLICATE_POINTER, POINTER_SECTION_MISMATCH)
