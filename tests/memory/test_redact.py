"""Secret redaction on test vectors: every kind is replaced with a visible marker, ordinary text is kept."""

from __future__ import annotations

import pytest

from forewarn.memory.redact import find_secrets, redact

# Published example credentials (AWS docs, GitHub/Stripe formats) or random strings of the right shape.
SECRETS = [
    ("aws-access-key", "deploy used AKIAIOSFODNN7EXAMPLE for the bucket"),
    ("aws-access-key", "temporary ASIAY34FZKBOKMUTVV7A creds expired"),
    ("aws-secret-key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("gcp-api-key", "maps key AIzaSyA-1234567890abcdefghijklmnopqrstu in the env"),
    ("gcp-oauth-token", "Authorization ya29.a0AfH6SMBx3kP9VXz_somethingLong-123 leaked"),
    ("gcp-service-account-key", '{"type": "service_account", "private_key_id": "' + "a1" * 20 + '"}'),
    (
        "azure-storage-key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + "A" * 43 + "b" * 43 + "==;EndpointSuffix=x",
    ),
    (
        "azure-sas-signature",
        "https://acct.blob.core.windows.net/c?sv=2020-08-04&sig=Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cQ%3D",
    ),
    ("github-token", "git clone https://ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8@github.com/x/y"),
    ("github-token", "gho_16C7e42F292c6912E7710c838347Ae178B4a in CI"),
    ("github-token", "token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"),
    ("slack-token", "bot xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx posts"),
    ("slack-webhook", "hook https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("stripe-key", "STRIPE=sk_live_4eC39HqLyjWDarjtT1zdp7dc is prod"),
    (
        "jwt",
        "cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
        ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("bearer-token", "curl -H 'Authorization: Bearer 8f9a7b6c5d4e3f2a1b0c9d8e7f6a5b4c'"),
    ("url-credentials", "DATABASE_URL=postgres://admin:hunter2hunter2@db.internal:5432/app"),
    ("secret-assignment", "password = 'Tr0ub4dor&3xK9!'"),
    ("secret-assignment", 'API_TOKEN="q8Zr2LmX7vN4pK1sT9wY3bC6"'),
    ("secret-assignment", "client_secret: 7fG2kL9pQ4rT8vX1zB6nM3"),
]

PRIVATE_KEY = """before
-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB
aFDrBz9vFqU4yKXc+JLE8NCwGTbbrpUMSjyRvlE0O9aqdlZQD+DtK9Cj2gv1Y/rg
-----END RSA PRIVATE KEY-----
after"""

# Text that looks a little like secrets but is not: must survive untouched.
ORDINARY = [
    "password = os.environ['DB_PASSWORD']",
    "token = None  # set later by the login flow",
    "the secret is to call flush() before close()",
    "password=changeme in the dev fixture only",
    "api_key: ${API_KEY}",
    "commit 3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a fixed the race in useTerminalStore",
    "See https://example.com/docs/getting-started?tab=python for the sdk",
    "sk_test is the prefix of Stripe test keys; never hard-code one",
    "BEGIN PRIVATE KEY is how PEM blocks start",
    "user_id = request.user.id",
    "secret_name = 'prod/db'",
]


@pytest.mark.parametrize(("kind", "text"), SECRETS)
def test_each_secret_kind_is_replaced_with_a_visible_marker(kind: str, text: str) -> None:
    out, kinds = redact(text)
    assert kind in kinds, (text, kinds)
    assert f"[REDACTED:{kind}]" in out
    for span in find_secrets(text):
        assert text[span.start : span.end] not in out


def test_private_key_block_is_removed_whole() -> None:
    out, kinds = redact(PRIVATE_KEY)
    assert kinds == ["private-key"]
    assert out == "before\n[REDACTED:private-key]\nafter"


def test_truncated_private_key_is_still_removed() -> None:
    out, _ = redact("pasted: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU")
    assert "b3BlbnNz" not in out


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == (text, [])


def test_several_secrets_in_one_text_and_surroundings_kept() -> None:
    text = "rotate AKIAIOSFODNN7EXAMPLE and ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 after the incident"
    out, kinds = redact(text)
    assert out == "rotate [REDACTED:aws-access-key] and [REDACTED:github-token] after the incident"
    assert kinds == ["aws-access-key", "github-token"]


def test_redaction_is_idempotent() -> None:
    for _, text in SECRETS:
        once, _ = redact(text)
        assert redact(once) == (once, [])


def test_a_bare_aws_secret_access_key_is_redacted_and_shas_and_names_are_not() -> None:
    """D20: the key pasted alone, as people paste it next to its key id, without ``aws_secret_access_key =``."""
    text, kinds = redact("aws key AKIAIOSFODNN7EXAMPLE and secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.")
    assert text == "aws key [REDACTED:aws-access-key] and secret [REDACTED:aws-secret-key]."
    assert kinds == ["aws-access-key", "aws-secret-key"]
    for kept in (
        "fixed in 3f2a9c1d0b8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a, see the PR",  # a commit sha: hex, one case
        "HTTPAdapter2ConnectionPoolManagerFactory is built once",  # a 40-character name
        "see forewarn/workspace/Reconcile/Anchors2xyz for the walk",  # a 40-character path
        "the key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.py is a file name",  # part of a longer word
    ):
        assert redact(kept) == (kept, []), kept
