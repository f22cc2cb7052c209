"""What a found value is: a placeholder, a pointer to where a secret lives, a hash, or a value.

Pure string predicates shared by every detector (DESIGN §4 "Secrets: what is
not one"). None of them looks at more than the value itself, and each is
linear in its length.
"""

from __future__ import annotations

import math
import re
from collections import Counter

# Words that mark a value as a stand-in wherever they appear in it.
PLACEHOLDER_WORDS = (
    "changeme", "change_me", "change-me", "example", "dummy", "redacted", "placeholder",
    "your_", "your-", "yourkey", "yourtoken", "xxx", "***", "...", "…",
)  # fmt: skip
# A whole value that names the kind of thing instead of being one (``user:password@host``).
GENERIC_VALUES = frozenset(
    {"password", "passwd", "pass", "pwd", "secret", "token", "apikey", "api_key", "key", "none"}
    | {"null", "true", "false", "required", "optional", "hidden", "masked", "empty", "unset"}
)
DOCUMENTED_EXAMPLES = frozenset(
    {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
)  # AWS's documentation keys

_HEX = frozenset("0123456789abcdefABCDEF")
_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}\Z")
_ENV_REFERENCE = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*\Z|%[A-Za-z_][A-Za-z0-9_]*%\Z")
_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\Z")
_LETTERS_NAME = re.compile(r"[A-Za-z_]+\Z")  # ``refreshToken``, ``c.clientSecret``: code
_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*[(\[]")
_SCP_REMOTE = re.compile(r"[A-Za-z0-9_.-]+@[A-Za-z0-9.-]+:[A-Za-z0-9_./~-]+\Z")
_URL_WITH_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/@:\s]*:[^/@\s]+@")
_CRYPT_HASH = re.compile(r"\$(?:2[abxy]?|5|6|argon2i?d?|scrypt|pbkdf2[a-z0-9-]*)\$")
_WORDLIKE_PIECE = re.compile(r"[a-z0-9]*\Z|[A-Z0-9]*\Z|[A-Z][a-z0-9]*\Z")
_PIECE_SEPARATORS = re.compile(r"[._-]")


def entropy(value: str) -> float:
    """Shannon entropy of ``value``, in bits per character (0.0 for an empty string)."""
    if not value:
        return 0.0
    total = len(value)
    return -sum((count / total) * math.log2(count / total) for count in Counter(value).values())


def is_placeholder(value: str) -> bool:
    """A stand-in rather than a value: ``<token>``, ``${X}``, ``{x}``, ``$VAR``, ``%VAR%``,
    ``xxx``, ``...``, ``your-key-here``, ``changeme``, ``example``, ``dummy``, ``redacted``,
    a run of one repeated character, or a provider's documented example key."""
    if value in DOCUMENTED_EXAMPLES:
        return True
    lower = value.lower()
    if any(word in lower for word in PLACEHOLDER_WORDS) or lower.startswith("your"):
        return True
    for opening, closing in (("<", ">"), ("{", "}"), ("${", "}")):
        at = value.find(opening)
        if at != -1 and value.find(closing, at + len(opening)) != -1:
            return True
    if _ENV_REFERENCE.match(value):
        return True
    return _repeated_run(value)


def _repeated_run(value: str) -> bool:
    """The value, or its last alphanumeric piece after a prefix, is one character repeated."""
    last = value[-1:]
    if not last:
        return False
    run = len(value) - len(value.rstrip(last))
    return run == len(value) or (run >= 4 and not value[-run - 1].isalnum())


def is_hex(value: str) -> bool:
    """Only hexadecimal digits (a hash, a commit id, or a hex key)."""
    return bool(value) and all(ch in _HEX for ch in value)


def is_hash_or_id(value: str) -> bool:
    """A hash, a commit id, a UUID or a crypt-style password hash (``$2b$12$…``)."""
    return is_hex(value) or bool(_UUID.match(value)) or bool(_CRYPT_HASH.match(value))


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
    """Where a secret lives, or code that names one, rather than its value."""
    if "://" in value:
        return _URL_WITH_PASSWORD.match(value) is None
    if value.startswith(("arn:", "data:", "ssm:", "vault:", "secretsmanager:", "op:")):
        return True
    name = value.strip("{}()[],;")
    return bool(
        _DOTTED_NAME.match(name)
        or _LETTERS_NAME.match(name)
        or _CALL.match(value)
        or _SCP_REMOTE.match(value)
        or _is_pathlike(value)
    )


def is_generic(value: str) -> bool:
    """A word that names the kind of value (``password``, ``none``) instead of being one."""
    return value.lower() in GENERIC_VALUES


def quiet(value: str) -> bool:
    """Every detector's common test: a placeholder or a generic word is never a secret."""
    return is_generic(value) or is_placeholder(value)
