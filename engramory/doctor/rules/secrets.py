"""Rules about what notes must not hold: a credential's value, personal data.

``secret-value`` reads every note (frontmatter and body, code included), the
index and the archived notes with the one detector, :mod:`engramory.secrets`;
``personal-data`` looks at note bodies for e-mail addresses and phone
numbers. Neither message ever shows more than the first four characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from engramory import secrets
from engramory.doctor.context import NoteCheck, StoreView
from engramory.doctor.model import ERROR, INFO, NOTE, Detected, Example, Issue, rule, sample_note
from engramory.doctor.rules.patterns import Lazy
from engramory.secrets.allow import AllowList
from engramory.secrets.excerpts import excerpt
from engramory.store.allowcomment import MARKER, line_allows
from engramory.store.discovery import INDEX_NAME
from engramory.store.frontmatter import decode

# Fixtures are assembled from pieces, so this file never holds a real-looking secret.
_AWS_KEY = "AKIA" + "Q" * 4 + "7" * 4 + "Z" * 8
_GITHUB_TOKEN = "ghp" + "_" + "aB3" * 12
_PASSWORD_LINE = "password" + ": " + "Hx9#kQ2!" + "mZ7@pL4$"


def _secret_message(secret: secrets.Secret) -> str:
    return Detected(
        f"{secret.title} ({excerpt(secret.shown)}) is stored here: a credential's value "
        "never belongs in memory",
        secret.detector,
    )


def _scan(rel: str, text: str, allowed: tuple[str, ...] = ()) -> Iterator[Issue]:
    listed = AllowList(allowed) if allowed else None
    for secret in secrets.first_per_line(text, listed):
        yield (rel, secret.line, _secret_message(secret))


def _beyond_live_notes(view: StoreView) -> Iterator[Issue]:
    """The index and every archived note (live notes are checked in the per-note pass).

    The engine knows the allow comments of the index and the live notes; an archived
    note's own are read here, with its text.
    """
    allowed = view.options.allowed_secrets
    if view.index.text is not None:
        yield from _scan(INDEX_NAME, view.index.text, allowed)
    for rel, data in view.archived_notes():
        text = decode(data)
        allows = line_allows(text) if MARKER in text else {}
        for issue in _scan(rel, text, allowed):
            if "secret-value" not in allows.get(issue[1] or 0, ()):
                yield issue


def detector_lines() -> list[str]:
    """The detectors behind ``secret-value``, one line each with a masked example."""
    from engramory.secrets.detectors import DETECTORS, example  # noqa: PLC0415

    lines = ["Detectors (each finding names its own; allow a value in .engramory/allow-secrets):"]
    for detector in DETECTORS:
        shown = secrets.redact(example(detector.fires[0])).replace("\n", " ")
        lines.append(f"  {detector.id:<20} {detector.title[:40]:<40} e.g. {excerpt(shown)}")
    return lines


@rule(
    "secret-value",
    ERROR,
    "a credential's value (API key, token, private key, password) in a note or the index",
    fires=(
        Example(
            "an AWS access key id in a note body",
            {"a.md": sample_note("a", body=f"Deploy key: {_AWS_KEY}\n")},
        ),
        Example(
            "a password assigned in the frontmatter",
            {"a.md": sample_note("a", password="Hx9#kQ2!" + "mZ7@pL4$")},
        ),
        Example(
            "a GitHub token inside a fenced code block",
            {"a.md": sample_note("a", body=f"```sh\nexport GH_TOKEN={_GITHUB_TOKEN}\n```\n")},
        ),
        Example(
            "a key in an archived note",
            {"archive/old.md": sample_note("old", body=f"{_PASSWORD_LINE}\n")},
        ),
        Example(
            "a key on an index line",
            {"MEMORY.md": f"- [a](a.md) — key {_AWS_KEY}\n", "a.md": sample_note("a")},
        ),
    ),
    quiet=(
        Example(
            "a pointer to where the secret lives",
            {"a.md": sample_note("a", body="token: op://infra/deploy/token\n")},
        ),
        Example(
            "placeholders and a low-entropy value",
            {"a.md": sample_note("a", body="password: <your-password>\npassword: aaaaaaaaaaaa\n")},
        ),
        Example(
            "AWS's documented example key and a PEM header named in prose",
            {
                "a.md": sample_note(
                    "a",
                    body="AWS docs use AKIAIOSFODNN7EXAMPLE; keys begin "
                    "-----BEGIN RSA PRIVATE KEY----- in a file we never copy here.\n",
                )
            },
        ),
    ),
    scope=NOTE,
    fix="delete each secret's value, rotate the credential (it has been on disk, possibly in "
    "backups or git), and note where the secret lives instead (a vault path, an environment "
    "variable's name)",
    store_check=_beyond_live_notes,
    details=detector_lines,
)
def secret_value(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``AKIA…`` in a body, ``password: <12+ random characters>`` in the frontmatter,
    a token in a code block, a key in ``archive/`` or in the index.
    Quiet: ``op://…``, ``${VAR}``, placeholders, low-entropy values, AWS's example key."""
    for note in notes:
        if note.read.data is not None:
            yield from _scan(note.rel, decode(note.read.data), note.options.allowed_secrets)


# An e-mail address, found from its ``@``: the look-behind starts the local part at the
# beginning of its run, and every repetition is bounded.
_EMAIL = Lazy(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?P<domain>[A-Za-z0-9-]{1,63}"
    r"(?:\.[A-Za-z0-9-]{1,63}){0,8}\.(?P<tld>[A-Za-z]{2,24}))(?![A-Za-z0-9_-]|\.[A-Za-z0-9])"
)
# ``+`` and 8 to 15 digits, single spaces or dashes between them, the number ending there.
_PHONE = Lazy(r"(?<![\w+])\+\d(?:[ -]?\d){7,14}(?![ -]?\d)")
_EXAMPLE_DOMAINS = ("example.com", "example.org", "example.net", "localhost")
_RESERVED_TLDS = frozenset({"example", "test", "invalid", "localhost", "local"})
# ``logo@2x.png``, ``pkg@latest.js``: a file name, not an address.
_FILE_TLDS = frozenset(
    {"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "pdf", "md", "txt", "json", "yaml"}
    | {"yml", "toml", "js", "ts", "tsx", "jsx", "py", "rb", "go", "rs", "java", "css", "html"}
    | {"lock", "sh"}
)
_NO_REPLY = ("noreply", "no-reply", "donotreply", "do-not-reply", "git")


def _email_is_personal(match: re.Match[str], text: str) -> bool:
    local = match.group(0).split("@", 1)[0].lower()
    domain = match.group("domain").lower()
    if match.group("tld").lower() in _RESERVED_TLDS | _FILE_TLDS:
        return False
    if domain in _EXAMPLE_DOMAINS or domain.endswith(tuple("." + d for d in _EXAMPLE_DOMAINS)):
        return False
    if local in _NO_REPLY:
        return False  # also git@host:org/repo, a remote
    return not text.startswith(":", match.end())


def personal_data_in(text: str, first_line: int = 1) -> Iterator[tuple[int, str, str]]:
    """``(line, what, shown)`` for the first e-mail address or phone number of each line."""
    found: dict[int, tuple[int, str, str]] = {}
    if "@" not in text and "+" not in text:
        return  # each pattern starts on one of them
    for number, line in enumerate(text.split("\n"), first_line):
        if "@" in line:
            for match in _EMAIL.finditer(line):
                if _email_is_personal(match, line):
                    found[number] = (match.start(), "an e-mail address", match.group(0))
                    break
        if "+" in line:
            phone = _PHONE.search(line)
            if phone is not None and (number not in found or phone.start() < found[number][0]):
                found[number] = (phone.start(), "a phone number", phone.group(0))
    for number in sorted(found):
        _start, what, value = found[number]
        yield number, what, secrets.shown_form(value)


@rule(
    "personal-data",
    INFO,
    "an e-mail address or an international phone number in a note body",
    fires=(
        Example(
            "an e-mail address",
            {"a.md": sample_note("a", body="Ask " + "ann.lee" + "@" + "acme.io about billing.\n")},
        ),
        Example(
            "a phone number in international form",
            {"a.md": sample_note("a", body="On call: +44 20 7946 0958\n")},
        ),
    ),
    quiet=(
        Example(
            "an example address, a git remote, an image name, a local number",
            {
                "a.md": sample_note(
                    "a",
                    body="Use user@example.com in tests; remote git@github.com:org/repo.git;"
                    " logo@2x.png; call 020 7946 0958.\n",
                )
            },
        ),
        Example(
            "an address in the frontmatter only",
            {"a.md": sample_note("a", author="ann" + "@" + "acme.io")},
        ),
    ),
    scope=NOTE,
    fix="keep personal data minimal: replace e-mail addresses and phone numbers with a pointer "
    "to where they live (a directory, a contact list)",
)
def personal_data(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``ann.lee@acme.io``, ``+44 20 7946 0958`` in a body.
    Quiet: ``user@example.com``, ``git@github.com:org/repo``, ``logo@2x.png``, a number
    without ``+``, an address in the frontmatter."""
    for note in notes:
        fm = note.fm
        if fm is None or note.read.data is None:
            continue
        body, first = (fm.body, fm.body_line) if fm.closed else (decode(note.read.data), 1)
        for line, what, shown in personal_data_in(body, first):
            yield (
                note.rel,
                line,
                f"{what} ({excerpt(shown)}) in a note: keep personal data minimal; point to "
                "where it lives instead",
            )
