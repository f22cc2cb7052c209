"""Find credentials' values in text, and redact them: one detector for every command.

The store is plain text an agent writes, so a pasted key is the costliest
mistake it can hold. This module finds such values; the doctor's
``secret-value`` rule reports them, every excerpt of file text in a message
goes through :func:`redact`, and the guard refuses a write that adds one.

API (stdlib only; importing it costs ``re``, the JWT check loads ``base64``
and ``json`` on first use):

* :func:`find(text) <find>` -> every :class:`Secret`, in text order, never
  overlapping;
* :func:`first_per_line(text) <first_per_line>` -> the first secret of each
  line that holds one (what the doctor reports);
* :func:`redact(text) <redact>` -> ``text`` with each value replaced by its
  ``shown`` form.

A :class:`Secret` has ``kind`` (the provider name messages show, one of
:data:`KINDS`), ``line`` (1-based, counting ``\\n`` only), ``start``/``end``
(offsets of the value in ``text``) and ``shown`` (its first four characters
and ``…``: never more of the value).

What counts: provider-anchored patterns (AWS, GitHub, GitLab, Slack, OpenAI,
Anthropic, Google, Stripe, npm, PyPI), a PEM private-key block with a key
body, a JWT whose header decodes to a JSON object with ``alg``, and a generic
assignment: a keyword (``password``, ``token``, ``api_key``, ...) right before
``:`` or ``=`` and a value of 12+ characters with at least 3.0 bits of Shannon
entropy per character. A value ends at whitespace or a closing quote.

What does not (DESIGN §4 "Secrets: what is not one"): placeholders
(``<...>``, ``${...}``, ``{{...}}``, ``xxx...``, ``***``, ``changeme``,
``example``, ``redacted``, ``your-...``: anywhere in the value), pointers to
where a secret lives (``op://...`` and other URLs without a password, ``$VAR``,
``arn:...``, vault and file paths, ``get_secret()``, ``os.environ[...]``),
names in code (``c.clientSecret``, ``refreshToken``: letters only or dotted),
git remotes, hashes, commit ids, UUIDs, ``data:`` URIs, a PEM header named in
prose with no key body, AWS's documented example key. Every pattern starts on
a literal and is bounded, so a scan is linear in the text's length.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

AWS = "AWS access key id"
GITHUB = "GitHub token"
GITLAB = "GitLab token"
SLACK = "Slack token"
SLACK_WEBHOOK = "Slack webhook"
OPENAI = "OpenAI key"
ANTHROPIC = "Anthropic key"
GOOGLE = "Google API key"
STRIPE = "Stripe secret key"
NPM = "npm token"
PYPI = "PyPI token"
PEM = "private key (PEM)"
JWT = "JWT"
ASSIGNMENT = "password/secret assignment"
KINDS = (AWS, GITHUB, GITLAB, SLACK, SLACK_WEBHOOK, OPENAI, ANTHROPIC, GOOGLE, STRIPE, NPM)
KINDS += (PYPI, PEM, JWT, ASSIGNMENT)

SHOWN_CHARS = 4
MIN_VALUE = 12
MIN_ENTROPY = 3.0

# Five passes find every provider's key. Each pattern starts on one literal character
# or string (a literal start lets the search skip ahead fast: one pass per anchor is far
# cheaper than one alternation of every prefix), then a look-behind over the prefix keeps
# a match from starting inside a longer run of its own characters (a key inside a base64
# blob, or the same prefix repeated): every position costs a bounded amount of work.
# Each alternative is a named group; ``_GROUPS`` gives its kind and how many characters
# of the value come before the anchor the match starts on.
_PASSES = (
    r"A(?<![A-Za-z0-9/+=_-]A)(?:(?P<aws>(?:KIA|SIA|BIA|CCA)[A-Z2-7]{16}(?![A-Za-z0-9/+=]))"
    r"|(?P<google>Iza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])))",
    r"-(?:(?<=glpat-)(?<![A-Za-z0-9_-]glpat-)(?P<gitlab>[A-Za-z0-9_-]{20,200})"
    r"|(?<=xox[abprs]-)(?<![A-Za-z0-9_-]xox[abprs]-)(?P<slack>[A-Za-z0-9-]{10,250})"
    r"|(?<=sk-)(?<![A-Za-z0-9_-]sk-)"
    r"(?P<openai>(?:(?P<ant>ant-)|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300})"
    r"|(?<=pypi-)(?<![A-Za-z0-9_-]pypi-)(?P<pypi>AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,2000})"
    r"|(?P<pem>----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY-----))",
    r"_(?:(?<=gh[pousr]_)(?<![A-Za-z0-9_]gh[pousr]_)(?P<github>[A-Za-z0-9]{36}(?![A-Za-z0-9_]))"
    r"|(?<=github_)(?<![A-Za-z0-9_]github_)(?P<github_pat>pat_[A-Za-z0-9_]{82}(?![A-Za-z0-9_]))"
    r"|(?<=[rs]k_)(?<![A-Za-z0-9_][rs]k_)(?P<stripe>live_[A-Za-z0-9]{10,250})"
    r"|(?<=npm_)(?<![A-Za-z0-9_]npm_)(?P<npm>[A-Za-z0-9]{36}(?![A-Za-z0-9_])))",
    r"hooks\.slack\.com/services/"
    r"(?P<slack_hook>T[A-Za-z0-9_]{4,40}/B[A-Za-z0-9_]{4,40}/[A-Za-z0-9_]{8,80})",
    r"eyJ(?<![A-Za-z0-9_-]eyJ)"
    r"(?P<jwt>[A-Za-z0-9_-]{4,4000}\.[A-Za-z0-9_-]{2,16000}\.[A-Za-z0-9_-]{1,4000})",
)
_PROVIDER_PATTERNS = tuple(re.compile(pattern) for pattern in _PASSES)
_GROUPS = {
    "aws": (AWS, 0),
    "google": (GOOGLE, 0),
    "gitlab": (GITLAB, 5),
    "slack": (SLACK, 4),
    "openai": (OPENAI, 2),
    "pypi": (PYPI, 4),
    "pem": (PEM, 0),
    "github": (GITHUB, 3),
    "github_pat": (GITHUB, 6),
    "stripe": (STRIPE, 2),
    "npm": (NPM, 3),
    "slack_hook": (SLACK_WEBHOOK, 0),
    "jwt": (JWT, 0),
}

# The generic rule: a keyword right before the separator (``tokenizer:`` and
# ``secret_name:`` are not assignments). Found from the separator back: a ``:`` or ``=``
# right after a keyword's last two letters (every keyword ends in rd, wd, et, en or ey),
# a quote or a blank, then the words before it. Prose's ``Why:`` and YAML's
# ``description:`` are not candidates, so a note pays for a separator only near a keyword.
# One pattern per separator: a literal first char makes the search far faster than a set.
_SEPARATORS = tuple(
    re.compile(f"{sep}(?:(?<=(?i:rd|wd|et|en|ey){sep})|(?<=[\"' \t]{sep}))") for sep in ":="
)
_KEYWORDS = ("password", "passwd", "pwd", "secret", "token")
_KEYWORDS += tuple(f"{word}{joint}key" for word in ("api", "access") for joint in ("", "_", "-"))
_KEYWORDS += ("client_secret", "client-secret", "clientsecret")
_KEYWORD_SPAN = max(len(k) for k in _KEYWORDS) + 9  # the keyword, a quote, 8 blanks
_OPENING_QUOTES = "\"'`"
_WORD_BEFORE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_VALUE = re.compile(r"[^\s\"'`]*")

# After a PEM header: blank space (or JSON's escaped line breaks), up to four header
# lines of an encrypted key, then the key body.
_PEM_SPACE = r"(?:[ \t\r\n>]|\\[rn]){1,12}"
_PEM_BODY = re.compile(
    rf"{_PEM_SPACE}(?:[A-Za-z-]{{1,40}}:[^\n\\]{{0,200}}{_PEM_SPACE}){{0,4}}[A-Za-z0-9+/=]{{40}}"
)
_PEM_LOOKAHEAD = 1 << 16

_AWS_DOCUMENTED_EXAMPLES = frozenset({"AKIAIOSFODNN7EXAMPLE"})
_PLACEHOLDER_WORDS = ("changeme", "example", "redacted", "xxxx", "***", "…")
_HEX = frozenset("0123456789abcdefABCDEF")
_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}\Z")
_ENV_REFERENCE = re.compile(r"\$[A-Z_][A-Z0-9_]*\Z|%[A-Za-z_][A-Za-z0-9_]*%\Z")
_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\Z")
_INTERPOLATION = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*\}")  # f"{password}", a template
_LETTERS_NAME = re.compile(r"[A-Za-z_]+\Z")  # ``{c.clientSecret}``, ``refreshToken``: code
_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*[(\[]")
_SCP_REMOTE = re.compile(r"[A-Za-z0-9_.-]+@[A-Za-z0-9.-]+:[A-Za-z0-9_./~-]+\Z")
_URL_WITH_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/@:\s]+:[^/@\s]+@")
_WORDLIKE_PIECE = re.compile(r"[a-z0-9]*\Z|[A-Z0-9]*\Z|[A-Z][a-z0-9]*\Z")
_PIECE_SEPARATORS = re.compile(r"[._-]")


class Secret:
    """One credential's value in a text (see the module docstring)."""

    __slots__ = ("end", "kind", "line", "shown", "start")

    def __init__(self, kind: str, line: int, start: int, end: int, shown: str) -> None:
        self.kind = kind
        self.line = line
        self.start = start
        self.end = end
        self.shown = shown

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:  # never the value: only what a message may show
        return f"Secret({self.kind!r}, line={self.line}, {self.start}:{self.end}, {self.shown!r})"

    def _key(self) -> tuple[str, int, int, int]:
        return (self.kind, self.line, self.start, self.end)


def shown_form(value: str) -> str:
    """What a message may show of a value: its first four characters, then ``…``."""
    return value[:SHOWN_CHARS] + "…"


def entropy(value: str) -> float:
    """Shannon entropy of ``value``, in bits per character (0.0 for an empty string)."""
    if not value:
        return 0.0
    total = len(value)
    return -sum(
        (count / total) * math.log2(count / total)
        for count in (value.count(ch) for ch in set(value))
    )


def is_placeholder(value: str) -> bool:
    """A stand-in rather than a value: ``<token>``, ``${X}``, ``{{ x }}``, ``xxx…``,
    ``***``, ``your-key``, or one of the words changeme / example / redacted inside."""
    lower = value.lower()
    if lower.startswith(("<", "xxx", "your-", "your_")):
        return True
    if any(word in lower for word in _PLACEHOLDER_WORDS):
        return True
    for opening, closing in (("<", ">"), ("{{", "}}"), ("${", "}")):
        at = value.find(opening)
        if at != -1 and value.find(closing, at + len(opening)) != -1:
            return True
    return False


def _is_pathlike(value: str) -> bool:
    """A file, vault or parameter-store path: rooted, or ``/``-separated readable names."""
    if value.startswith(("/", "~/", "./", "../")) or (
        len(value) > 2 and value[1] == ":" and value[2] in "\\/" and value[0].isalpha()
    ):
        return True
    if "/" not in value:
        return False
    for component in value.split("/"):
        for piece in _PIECE_SEPARATORS.split(component):
            if not _WORDLIKE_PIECE.match(piece):
                return False
    return True


def is_pointer(value: str) -> bool:
    """Where a secret lives, or something that is not one (DESIGN §4 "what is not one")."""
    if "://" in value:
        return _URL_WITH_PASSWORD.match(value) is None
    if value.startswith(("arn:", "data:", "ssm:", "vault:", "secretsmanager:")):
        return True
    if all(ch in _HEX for ch in value) or _UUID.match(value):
        return True  # a hash, a commit id, a UUID
    name = value.strip("{}()[],;")
    return bool(
        _ENV_REFERENCE.match(value)
        or _INTERPOLATION.match(value)
        or _DOTTED_NAME.match(name)
        or _LETTERS_NAME.match(name)
        or _CALL.match(value)
        or _SCP_REMOTE.match(value)
        or _is_pathlike(value)
    )


def _assigned_value(value: str) -> bool:
    """Whether the value of a generic assignment is a credential's value."""
    return (
        len(value) >= MIN_VALUE
        and not is_placeholder(value)
        and not is_pointer(value)
        and entropy(value) >= MIN_ENTROPY
    )


def _openai_shaped(token: str) -> bool:
    """``sk-`` keys are long runs mixing letters and digits (``sk-learn-...`` is not one)."""
    for piece in re.split(r"[-_]", token[3:]):
        if len(piece) >= 16 and any(c.isdigit() for c in piece) and any(c.isalpha() for c in piece):
            return True
    return False


def _is_jwt(token: str) -> bool:
    """The first part decodes (base64url) to a JSON object naming an ``alg``."""
    import base64  # noqa: PLC0415 - only a candidate JWT pays for these
    import binascii  # noqa: PLC0415
    import json  # noqa: PLC0415

    head = token.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
        header = json.loads(decoded.decode("utf-8"))
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and "alg" in header


def _pem_end(text: str, header_end: int) -> int | None:
    """Where a PEM block whose header ends at ``header_end`` ends; ``None`` without a body.

    The block runs to its ``-----END ...-----`` line when that is the next marker;
    otherwise to the end of the first run of key characters.
    """
    body = _PEM_BODY.match(text, header_end)
    if body is None:
        return None
    marker = text.find("-----", body.end(), body.end() + _PEM_LOOKAHEAD)
    if marker != -1 and text.startswith("-----END", marker):
        close = text.find("-----", marker + 8, marker + 200)
        if close != -1:
            return close + 5
    run = _VALUE.match(text, body.end())
    return run.end() if run else body.end()


def _provider_secret(start: int, match: re.Match[str], text: str) -> tuple[str, int] | None:
    """``(kind, end)`` when a provider pattern's match (its value starting at ``start``) is
    a secret's value, else ``None``."""
    kind = _GROUPS[match.lastgroup or ""][0]
    end = match.end()
    if kind == PEM:
        pem_end = _pem_end(text, end)
        return None if pem_end is None else (PEM, pem_end)
    token = text[start:end]
    if is_placeholder(token) or token in _AWS_DOCUMENTED_EXAMPLES:
        return None
    if kind == OPENAI:
        if match.group("ant"):
            return ANTHROPIC, end
        if not _openai_shaped(token):
            return None
    if kind == JWT and not _is_jwt(token):
        return None
    return kind, end


def _assignment_at(text: str, separator: int) -> int | None:
    """Where the value starts when the ``:`` or ``=`` at ``separator`` ends a keyword
    (the keyword itself, not ``tokenizer`` or ``secret_name``); else ``None``."""
    head = max(0, separator - _KEYWORD_SPAN)
    before = text[head:separator].rstrip(" \t")
    if before[-1:] in ("'", '"'):
        before = before[:-1]
    lower = before.lower()
    if not lower.endswith(_KEYWORDS):
        return None
    keyword = next(k for k in _KEYWORDS if lower.endswith(k))
    at = head + len(before) - len(keyword)
    if at > 0 and text[at - 1] in _WORD_BEFORE:
        return None
    start = separator + (2 if text[separator : separator + 2] in (":=", "=>") else 1)
    limit = min(start + 8, len(text))
    while start < limit and text[start] in " \t":
        start += 1
    if start < len(text) and text[start] in _OPENING_QUOTES:
        start += 1
    return start


def _provider_start(match: re.Match[str]) -> int:
    """Where the value of a provider match starts (its prefix may precede the anchor)."""
    return match.start() - _GROUPS[match.lastgroup or ""][1]


def _provider_candidates(text: str) -> list[tuple[int, re.Match[str]]]:
    """``(start, match)`` of every provider pattern's match, by start."""
    found: list[tuple[int, re.Match[str]]] = []
    for pattern in _PROVIDER_PATTERNS:
        for match in pattern.finditer(text):  # most texts have none: no generator per pass
            found.append((_provider_start(match), match))
    if len(found) > 1:
        found.sort(key=lambda c: c[0])
    return found


def _inner_provider(text: str, start: int, end: int) -> tuple[str, int] | None:
    """The first provider secret inside ``text[start:end]`` (an assignment's value)."""
    best: tuple[int, str, int] | None = None
    for pattern in _PROVIDER_PATTERNS:
        match = pattern.search(text, start, end)
        if match is not None:
            at = _provider_start(match)
            if at >= start and (best is None or at < best[0]):
                secret = _provider_secret(at, match, text)
                if secret is not None:
                    best = (at, *secret)
    return None if best is None else best[1:]


def _spans(text: str) -> Iterator[tuple[str, int, int]]:
    """``(kind, start, end)`` of every secret in ``text``, in order, never overlapping.

    Provider matches and keyword assignments are taken in text order; one that starts
    inside a value already read is skipped (the separator search jumps past it), so a
    value is read once, however often the text repeats a keyword.
    """
    providers = _provider_candidates(text)
    taken = 0
    done = 0
    pending = [pattern.search(text) for pattern in _SEPARATORS]  # the next ':' and '='
    if not providers and pending[0] is None and pending[1] is None:
        return  # the common case: nothing to read
    while True:
        while taken < len(providers) and providers[taken][0] < done:
            taken += 1
        for number, match in enumerate(pending):
            if match is not None and match.start() < done:
                pending[number] = _SEPARATORS[number].search(text, done)
        nearest = min(
            (n for n, m in enumerate(pending) if m is not None),
            key=lambda n: pending[n].start(),  # type: ignore[union-attr]
            default=None,
        )
        separator = None if nearest is None else pending[nearest]
        provider = providers[taken] if taken < len(providers) else None
        if provider is not None and (separator is None or provider[0] < separator.start()):
            taken += 1
            start, match = provider
            secret = _provider_secret(start, match, text)
            if secret is not None:
                yield secret[0], start, secret[1]
                done = secret[1]
            continue
        if separator is None or nearest is None:
            return
        at = separator.start()
        pending[nearest] = _SEPARATORS[nearest].search(text, at + 1)
        value_start = _assignment_at(text, at)
        if value_start is None:
            continue
        value_end = _VALUE.match(text, value_start).end()
        done = max(value_end, value_start)
        inner = _inner_provider(text, value_start, value_end)
        if inner is not None:
            yield inner[0], value_start, max(inner[1], value_end)
            done = max(done, inner[1])
        elif _assigned_value(text[value_start:value_end]):
            yield ASSIGNMENT, value_start, value_end


def find(text: str) -> list[Secret]:
    """Every secret in ``text``, in order (see the module docstring)."""
    found: list[Secret] = []
    line, counted = 1, 0
    for kind, start, end in _spans(text):
        line += text.count("\n", counted, start)
        counted = start
        found.append(Secret(kind, line, start, end, shown_form(text[start:end])))
    return found


def first_per_line(text: str) -> list[Secret]:
    """The first secret (by position) of each line that holds one."""
    kept: list[Secret] = []
    for secret in find(text):
        if not kept or kept[-1].line != secret.line:
            kept.append(secret)
    return kept


def redact(text: str) -> str:
    """``text`` with every secret's value replaced by its ``shown`` form."""
    pieces: list[str] = []
    done = 0
    for _kind, start, end in _spans(text):
        pieces.append(text[done:start])
        pieces.append(shown_form(text[start:end]))
        done = end
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)
