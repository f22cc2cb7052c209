"""Print one of the README's set-up commands, exactly as the README shows it.

Usage: python3 .ci/readme_command.py README.md NAME

NAME is a marker in the README: the line ``<!-- setup:NAME -->`` followed by a
fenced code block. The block's lines are printed as they stand, so .ci/run runs
what a reader copies and the two cannot drift. A missing marker, or a marker
not followed by a fenced block, is an error (exit 1), never an empty command.
"""

from __future__ import annotations

import sys
from pathlib import Path

FENCE = "```"


def marker(name: str) -> str:
    """The comment line that names a set-up block."""
    return f"<!-- setup:{name} -->"


def setup_block(text: str, name: str) -> str:
    """The fenced block right after the ``setup:NAME`` marker; ``ValueError`` when absent."""
    lines = text.replace("\r\n", "\n").split("\n")
    starts = [i for i, line in enumerate(lines) if line.strip() == marker(name)]
    if len(starts) != 1:
        raise ValueError(f"expected one {marker(name)!r} line, found {len(starts)}")
    rest = lines[starts[0] + 1 :]
    if not rest or not rest[0].startswith(FENCE):
        raise ValueError(f"{marker(name)!r} is not followed by a fenced code block")
    body = []
    for line in rest[1:]:
        if line.startswith(FENCE):
            if not any(part.strip() for part in body):
                raise ValueError(f"the block after {marker(name)!r} is empty")
            return "\n".join(body) + "\n"
        body.append(line)
    raise ValueError(f"the block after {marker(name)!r} is not closed")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 64
    readme, name = argv
    try:
        sys.stdout.write(setup_block(Path(readme).read_text(encoding="utf-8"), name))
    except (OSError, ValueError) as error:
        print(f"readme_command: {readme}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
