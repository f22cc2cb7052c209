"""Command-line pieces shared by several commands: cap flags, output format, colour, profile."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from engramory.store.caps import Caps, caps_from, positive_int
from engramory.util.console import COLOR_CHOICES
from engramory.util.errors import EngramoryError
from engramory.util.textfmt import printable

if TYPE_CHECKING:
    from engramory.doctor.profile_choice import Choice
    from engramory.store.disk import Walk

CAP_FLAGS = (
    ("--warn-lines", "warn_lines", "soft cap on index lines (default: $ENGRAMORY_WARN or 150)"),
    ("--hard-lines", "hard_lines", "hard cap on index lines (default: $ENGRAMORY_HARD or 200)"),
    (
        "--warn-bytes",
        "warn_bytes",
        "soft cap on index bytes (default: $ENGRAMORY_WARN_BYTES or 20480)",
    ),
    (
        "--hard-bytes",
        "hard_bytes",
        "hard cap on index bytes (default: $ENGRAMORY_HARD_BYTES or 25000)",
    ),
)


def positive_int_arg(raw: str) -> int:
    """argparse ``type=`` for a cap: a positive integer in ASCII digits."""
    value = positive_int(raw)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {raw!r}")
    return value


def add_cap_flags(parser: argparse.ArgumentParser) -> None:
    """Add ``--warn-lines --hard-lines --warn-bytes --hard-bytes``."""
    group = parser.add_argument_group("caps (flags override the environment)")
    for flag, dest, text in CAP_FLAGS:
        group.add_argument(flag, dest=dest, type=positive_int_arg, metavar="N", help=text)


def caps_from_args(args: argparse.Namespace) -> Caps:
    """The caps in force: flags, else environment, else defaults."""
    return caps_from(**{dest: getattr(args, dest, None) for _, dest, _ in CAP_FLAGS})


def add_format_flag(parser: argparse.ArgumentParser, extra: tuple[str, ...] = ()) -> None:
    """Add ``--format text|json`` (plus the ``extra`` formats, e.g. ``github``, ``sarif``)."""
    parser.add_argument(
        "--format",
        choices=("text", "json", *extra),
        default="text",
        help="output format (default: text)"
        + (
            "; github: one GitHub Actions annotation per finding; sarif: SARIF 2.1.0 for "
            "code scanning"
            if extra
            else ""
        ),
    )


CI_FORMATS = ("github", "sarif")


def add_color_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--color auto|always|never``."""
    parser.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="colour the severity words: auto (default) only on a terminal and when NO_COLOR "
        "is unset, always (even with NO_COLOR), never",
    )


PROFILE_HELP = (
    "the store's dialect: engramory or claude-native (default: claude-native for a Claude "
    "Code auto-memory folder, by its real path, or a store whose notes are mostly in the "
    "host's dialect; else engramory)"
)


def add_profile_flags(parser: argparse.ArgumentParser, native_help: str | None = None) -> None:
    """Add ``--profile engramory|claude-native`` and ``--native`` (``--profile claude-native``)."""
    from engramory.doctor.profiles import PROFILES  # noqa: PLC0415 - only for a store command

    parser.add_argument(
        "--profile", choices=tuple(PROFILES), metavar="|".join(PROFILES), help=PROFILE_HELP
    )
    parser.add_argument(
        "--native",
        action="store_true",
        help=native_help or "the same as --profile claude-native (a --profile given wins)",
    )


def profile_from_args(
    args: argparse.Namespace,
    store: str | os.PathLike[str],
    writes: str = "",
    walked: Walk | None = None,
    memo: str | None = None,
) -> Choice:
    """The profile for ``store``: ``--profile``, ``--native``, else detected (profile_choice).

    ``walked`` and ``memo``: the store's walk and the doctor's cache folder, when the
    caller has them (``profile_choice.dialect_counts``).

    ``writes`` names the command when it is about to write the store: a store whose host
    manages it itself (``codex-memories``) is then refused, before anything is written.
    """
    from engramory.doctor.profile_choice import choose  # noqa: PLC0415 - only for a store command

    choice = choose(
        Path(store),
        getattr(args, "profile", None),
        native_flag=getattr(args, "native", False),
        walked=walked,
        memo=memo,
    )
    if writes:
        from engramory.doctor.profiles import write_refusal  # noqa: PLC0415

        refused = write_refusal(choice.profile, writes)
        if refused is not None:
            raise EngramoryError(refused)
    return choice


def say_profile(choice: Choice, machine: bool = False) -> None:
    """Print the one line naming the profile and why: on stderr when stdout is machine-read."""
    print(printable(choice.line()), file=sys.stderr if machine else sys.stdout)
