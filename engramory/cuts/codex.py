"""Codex's cut of ``memory_summary.md``, the one memory file it injects (field-2026-12.md §1.1
and §1.2 "Codex": ``codex-rs/ext/memories/src/lib.rs`` sets the 2,500-token budget, and
``codex-rs/utils/string/src/truncate.rs`` does the cut).

Codex does not run a tokenizer for this cut: ``truncate_middle_with_token_budget``
turns the budget into bytes at 4 bytes per token (2,500 tokens = 10,000 UTF-8
bytes) and, when the file is larger, keeps the first half of those bytes and
the last half (each ending or starting on a character boundary) and puts a
``…N tokens truncated…`` marker between them: a middle cut. We count tokens the
same way, ``ceil(bytes / 4)``, so the cut we report is the host's own, byte for
byte: on the sample in ``tests/test_cuts.py`` (``v1`` and 200 pointer lines of 69
characters, 14,403 bytes, 3,601 tokens) both keep bytes 0-5,000 and the last
5,000, an error of 0 bytes and 0 lines. How far this estimate is from a real BPE
token count was not measured here (no tokenizer's vocabulary is available
offline); it is the host's own figure for the cut, and it never counts fewer
than one token per 4 bytes.
"""

from __future__ import annotations

from engramory.cuts.model import TOKENS, Cut, nonblank_after

HOST = "codex"
TOKEN_BUDGET = 2_500
BYTES_PER_TOKEN = 4
LOADED_FILE = "memory_summary.md"  # the one file injected, beside the MEMORY.md handbook


def tokens(size: int) -> int:
    """Codex's token estimate for ``size`` UTF-8 bytes (``approx_token_count``)."""
    return -(-size // BYTES_PER_TOKEN)


def kept_spans(data: bytes) -> tuple[int, int]:
    """``(head_end, tail_start)``: bytes ``[0, head_end)`` and ``[tail_start, len)`` are kept."""
    budget = TOKEN_BUDGET * BYTES_PER_TOKEN
    if len(data) <= budget:
        return len(data), len(data)
    head = budget // 2
    tail_target = len(data) - (budget - head)
    while head > 0 and (data[head] & 0xC0) == 0x80:  # back off to a character boundary
        head -= 1
    tail = tail_target
    while tail < len(data) and (data[tail] & 0xC0) == 0x80:
        tail += 1
    return head, max(tail, head)


def cut(data: bytes) -> Cut:
    """Codex's cut of ``memory_summary.md`` as read (raw bytes, BOM included)."""
    head, tail = kept_spans(data)
    text_lines = data.split(b"\n")
    dropped: list[int] = []
    start = 0
    for number, line in enumerate(text_lines, 1):
        end = start + len(line)
        if head < len(data) and not (end <= head or start >= tail):
            dropped.append(number)
        start = end + 1
    lines = [line.decode("utf-8", "replace") for line in text_lines]
    used = tokens(len(data))
    return Cut(
        HOST,
        TOKENS,
        TOKEN_BUDGET,
        used,
        f"{TOKEN_BUDGET:,} tokens estimated at {BYTES_PER_TOKEN} bytes each "
        f"({TOKEN_BUDGET * BYTES_PER_TOKEN:,} bytes); over it the middle is cut and the "
        "beginning and the end are kept",
        nonblank_after(lines, dropped),
        max(0, used - TOKEN_BUDGET),
    )


def measure(data: bytes, name: str, version: tuple[int, ...] | None = None) -> Cut:
    """The registry's entry point: the file's bytes and name."""
    return cut(data)
