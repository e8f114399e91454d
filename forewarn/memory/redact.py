"""Secret redaction: credentials are replaced by a visible marker before a memory is stored.

People paste error logs and config snippets into memories; those often carry keys. Each detector is
a named pattern, and a match becomes ``[REDACTED:<kind>]`` so the reader sees that something was
there and what it was, without the value. Redaction runs on every text that enters the store
(remember, supersede, import).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Detector:
    kind: str
    pattern: re.Pattern[str]
    group: int = 0  # the group that holds the secret (0: the whole match)


def _d(kind: str, pattern: str, group: int = 0, flags: int = 0) -> Detector:
    return Detector(kind, re.compile(pattern, flags), group)


# Order matters: specific formats first, so a GitHub token inside "token = ghp_…" is named as such.
DETECTORS: tuple[Detector, ...] = (
    _d(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    _d("aws-access-key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b"),
    _d(
        "aws-secret-key",
        r"(?i)\baws_?secret_?(?:access_?)?key\b\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        1,
    ),
    _d("gcp-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    _d("gcp-oauth-token", r"\bya29\.[0-9A-Za-z_\-]{20,}"),
    _d("gcp-service-account-key", r"\"private_key_id\"\s*:\s*\"([0-9a-f]{40})\"", 1),
    _d(
        "azure-storage-key",
        r"(?i)\bAccountKey=([A-Za-z0-9+/]{86}==)",
        1,
    ),
    _d("azure-sas-signature", r"(?i)\bsig=([A-Za-z0-9%+/]{30,}(?:%3D|=){0,2})", 1),
    _d(
        "azure-client-secret",
        r"(?i)\b(?:azure|client)_?secret\b\s*[:=]\s*[\"']?([A-Za-z0-9~._\-]{34,40})(?![A-Za-z0-9~._\-])",
        1,
    ),
    _d("github-token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"),
    _d("github-token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
    _d("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    _d("slack-token", r"\bxox[abposr]-(?:[A-Za-z0-9]+-){1,5}[A-Za-z0-9]+\b"),
    _d("slack-webhook", r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+"),
    _d("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    _d("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}\b"),
    _d("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}\b"),
    _d("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    _d("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),
    _d("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    _d("bearer-token", r"(?i)\bbearer\s+([A-Za-z0-9_\-.=:/+~]{20,})", 1),
    _d("basic-auth", r"(?i)\bbasic\s+([A-Za-z0-9+/]{16,}={0,2})(?![A-Za-z0-9+/=])", 1),
    _d("url-credentials", r"\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:([^\s@/]{3,})@", 1),
)

SECRET_NAME = (
    r"(?:password|passwd|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|auth[_\-]?key|private[_\-]?key"
    r"|client[_\-]?secret|credentials?)"
)
# name = value / name: value / "name": "value", where the name mentions a secret
ASSIGNMENT_RE = re.compile(
    r"(?i)\b[A-Za-z0-9_.\-]*" + SECRET_NAME + r"[A-Za-z0-9_.\-]*[\"']?\s*(?::=|=>|=|:)\s*[\"']?([^\s\"'`,;)}\]]+)"
)
MIN_SECRET_LENGTH = 12  # shorter values are placeholders or flags ("changeme", "true")
MIN_SECRET_ENTROPY = 3.0  # bits per char; English words and "xxxx" placeholders fall below
MIN_PASSWORD_LENGTH = 8  # a password is short but still a secret when it has mixed character classes
# an AWS secret access key pasted alone (no "aws_secret_access_key =" before it): 40 base64 characters as one word
BARE_AWS_SECRET_RE = re.compile(r"(?<![A-Za-z0-9/+=_.\-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_\-]|\.[A-Za-z0-9])")
# 40 random base64 characters carry 4.5-4.9 bits each; CamelCase names and paths of that length about 4.1, and a
# git sha (hex, one case) never has all three classes, so only keys reach this
MIN_AWS_SECRET_ENTROPY = 4.3


MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9\-]+\]")


@dataclass(frozen=True)
class Redaction:
    kind: str
    start: int
    end: int


def shannon_entropy(value: str) -> float:
    if not value:
        return 0.0
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _looks_random(value: str) -> bool:
    if value.startswith("[REDACTED:"):
        return False
    if len(value) < MIN_PASSWORD_LENGTH:
        return False
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"\d", r"[^A-Za-z0-9]"))
    if len(value) >= MIN_SECRET_LENGTH:
        return shannon_entropy(value) >= MIN_SECRET_ENTROPY and classes >= 2
    # short passwords: require three character classes so "password=changeme" stays readable
    return classes >= 3 and shannon_entropy(value) >= 2.5


def _looks_like_aws_secret(value: str) -> bool:
    """Upper case, lower case and digits mixed, at random: a key, not a name, a path or a commit sha."""
    classes = all(re.search(p, value) for p in (r"[a-z]", r"[A-Z]", r"\d"))
    return classes and shannon_entropy(value) >= MIN_AWS_SECRET_ENTROPY


def find_secrets(text: str) -> list[Redaction]:
    """Spans of secrets in ``text`` (non-overlapping, in order)."""
    # markers from an earlier redaction are not secrets, and nothing may be found inside them
    markers = [Redaction("marker", m.start(), m.end()) for m in MARKER_RE.finditer(text)]
    found: list[Redaction] = list(markers)

    def overlaps(start: int, end: int) -> bool:
        return any(start < r.end and r.start < end for r in found)

    for det in DETECTORS:
        for m in det.pattern.finditer(text):
            start, end = m.span(det.group)
            if start < end and not overlaps(start, end):
                found.append(Redaction(det.kind, start, end))
    for m in BARE_AWS_SECRET_RE.finditer(text):
        start, end = m.span()
        if not overlaps(start, end) and _looks_like_aws_secret(m.group()):
            found.append(Redaction("aws-secret-key", start, end))
    for m in ASSIGNMENT_RE.finditer(text):
        start, end = m.span(1)
        value = m.group(1)
        if not overlaps(start, end) and _looks_random(value):
            found.append(Redaction("secret-assignment", start, end))
    return sorted((r for r in found if r.kind != "marker"), key=lambda r: r.start)


def redact(text: str) -> tuple[str, list[str]]:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``, and the kinds replaced."""
    spans = find_secrets(text)
    if not spans:
        return text, []
    out: list[str] = []
    pos = 0
    for r in spans:
        out.append(text[pos : r.start])
        out.append(f"[REDACTED:{r.kind}]")
        pos = r.end
    out.append(text[pos:])
    return "".join(out), [r.kind for r in spans]
