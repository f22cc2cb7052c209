"""The detectors' gates, importable without ``re``: the guard's hot path asks
:func:`may_hold_secret` before it pays for the detector.

A provider's keyword anywhere, or a label word (``token``, ``password``, ``key``, …)
followed, after closing quotes, ``*`` and blanks, by something the labelled grammar
takes as a separator (``:``, ``=``, ``|``, ``(``, ``is``, ``was``) and a value of 8 or
more characters: a superset of what
the detectors search, so a text that fails it surely holds no secret
(tests/test_secret_detectors.py checks the lists against the detectors).
"""

from __future__ import annotations

PROVIDER_KEYWORDS = (
    "private key", "akia", "asia", "abia", "acca", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
    "github_pat_", "glpat-", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "xoxe", "xapp-",
    "hooks.slack.com", "k_live_", "whsec_", "aiza", "gocspx-", "sk-ant-", "sk-", "npm_",
    "pypi-", "hf_", "sg.", "accountkey=", "eyj", "://", "bearer", "authorization", "mysql",
)  # fmt: skip
LABEL_WORDS = (
    "password", "passwd", "passphrase", "pass", "pwd", "pw", "secret", "token", "key",
    "credential", "auth",
)  # fmt: skip
_CLOSERS = "\"'`*_ \t"
_CLOSER_SPAN = 8
_SEPARATORS = (":=", "=>", ":", "=", "|")
_WORD_SEPARATORS = ("is ", "was ")
_VALUE_LEADS = " \t*_"
_VALUE_ENDS = " \t\r\n\"'`|;,<>"
_MIN_VALUE = 8  # labelled.MIN_PASSWORD: no labelled value is shorter


def may_hold_secret(text: str) -> bool:
    """``False`` only when ``text`` surely holds no secret any detector would find."""
    low = text.lower()
    if any(keyword in low for keyword in PROVIDER_KEYWORDS):
        return True
    return any(_labelled(low, word) for word in LABEL_WORDS)


def _labelled(low: str, word: str) -> bool:
    """Whether ``word`` occurs in ``low`` followed by a separator of the labelled grammar."""
    at = low.find(word)
    while at >= 0:
        end = at + len(word)
        if low.startswith("s", end):
            end += 1
        if _separated(low, end) or _separated(low, at + len(word)):
            return True
        at = low.find(word, at + 1)
    return False


def _separated(low: str, at: int) -> bool:
    """A separator after the label, then a value long enough to be one (or a parenthesis)."""
    limit = min(len(low), at + _CLOSER_SPAN)
    while at < limit and low[at] in _CLOSERS:
        at += 1
    if low.startswith("(", at):
        return True
    mark = next((m for m in _SEPARATORS + _WORD_SEPARATORS if low.startswith(m, at)), None)
    return mark is not None and _long_value(low, at + len(mark))


def _long_value(low: str, at: int) -> bool:
    limit = min(len(low), at + 12)
    while at < limit and low[at] in _VALUE_LEADS:
        at += 1
    if at < len(low) and low[at] in "\"'`":
        at += 1
    end = at
    while end < len(low) and end - at < _MIN_VALUE and low[end] not in _VALUE_ENDS:
        end += 1
    return end - at >= _MIN_VALUE
