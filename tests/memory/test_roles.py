"""One named thing in place of another, a thing said to be gone, a precedence turned round."""

from __future__ import annotations

from forewarn.memory.contradictions import Cue, anchor_words, judge


def cues(old: str, new: str, symbol: str) -> tuple[str, ...]:
    v = judge(new, old, anchor=anchor_words(symbol))
    return v.cues if v is not None else ()


def test_another_name_in_one_role() -> None:
    old = "publishOrder pushes to the RabbitMQ exchange orders.x"
    assert Cue.REPLACEMENT in cues(old, "publishOrder writes to kafka topic orders-v2", "publishOrder")
    assert Cue.REPLACEMENT in cues("hash_password uses bcrypt cost 12", "hash_password is argon2id", "hash_password")
    old = "backup copies to S3 with aws cli"
    assert Cue.REPLACEMENT in cues(old, "as of the migration backup uses restic to B2", "backup")
    assert Cue.REPLACEMENT in cues("IdGen hands out Snowflake ids", "IdGen returns UUIDv7", "IdGen")


def test_another_role_a_purpose_or_an_addition_is_no_replacement() -> None:
    old = "connect uses port 8443"
    assert not cues(old, "connect sends a client certificate from /etc/service/tls", "connect")
    assert not cues("encrypt uses AES-GCM", "encrypt uses SHA-256 for the key id", "encrypt")
    assert not cues("Mailer sends through Postmark", "Mailer uses Postmark's batch API", "Mailer")
    assert not cues("release bundles with webpack", "release also uses esbuild for the CSS", "release")


def test_a_thing_the_older_names_said_gone() -> None:
    old = "apiClient.get goes through axios"
    assert Cue.REPLACEMENT in cues(old, "get() uses native fetch, axios was ripped out", "apiClient.get")
    old = "embeddings come from all-MiniLM-L6-v2"
    assert Cue.REPLACEMENT in cues(old, "load_embeddings calls OpenAI, minilm removed", "load_embeddings")
    old = "deploy ships via rsync to the box"
    assert Cue.REPLACEMENT in cues(old, "deploy pushes an image to ECR, no more rsync", "deploy")
    assert Cue.REPLACEMENT in cues("Mailer sends through Sendgrid", "Mailer moved off Sendgrid to Postmark", "Mailer")


def test_behaviour_that_removes_is_no_removal() -> None:
    old = "purge_old deletes sessions older than 7 days"
    assert not cues(old, "sessions are kept for one week, then purge_old removes them", "purge_old")
    old = "import_rows upserts, reruns are fine"
    assert not cues(old, "caveat: reruns won't clear removed values", "import_rows")


def test_a_precedence_turned_round() -> None:
    old = "LoadConfig reads ~/.toolrc (yaml), env vars override the file"
    assert Cue.ANTONYM in cues(old, "LoadConfig: file beats env now", "LoadConfig")
    assert not cues("env vars override the file", "env vars take precedence over the file", "LoadConfig")


def test_a_leftover_or_an_uninvolved_thing_is_gone() -> None:
    old = "lint runs under eslint, config in .eslintrc.json"
    assert Cue.REPLACEMENT in cues(old, "ci.lint runs biome; .eslintrc.json is a leftover nobody loads", "lint")
    old = "take_slot uses pg_advisory_xact_lock on the slot id"
    new = "take_slot is an etcd lease now, Postgres advisory locks aren't involved anymore"
    assert Cue.REPLACEMENT in cues(old, new, "take_slot")
    # a state of something else the older never names stays quiet
    assert not cues(old, "take_slot logs the slot id; the old audit table is a leftover", "take_slot")
