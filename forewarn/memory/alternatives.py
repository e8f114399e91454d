"""Named alternatives: two tools of one kind, one named by each text. Pure text, no I/O.

A lesson often names the tool a symbol relies on and nothing else ("runs on Spark", "hashes w/ bcrypt",
"writes to Elasticsearch 7"); the newer one names another tool of the same kind, often in another frame
("executes on our Dask cluster", "uses argon2id", "targets the OpenSearch cluster"). Where a symbol uses
one search engine, one password hash, one compute engine, two texts naming different ones disagree,
whatever their other words, provided the newer does not still use the older's ("falls back to Redis"), and
the older does not already use the newer's. A name the newer mentions only as what is gone or refused
("old bcrypt hashes get rehashed", "pickle files are rejected", "nobody has touched EMR", "don't edit it in
Route53") is not a use of it.

The kinds are the vocabulary of code at large (stores, engines, formats, clouds), one group per tool
(its spellings), a tool only in the kinds where it excludes the others.
"""

from __future__ import annotations

from forewarn.memory.claims import PUNCT, Claim, stem


def _kind(spec: str) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(stem(w) for w in group.split()) for group in spec.split("|"))


# kinds of tool a symbol uses one of at a time, each a list of tools (a tool: its spellings)
KINDS: tuple[tuple[frozenset[str], ...], ...] = tuple(
    _kind(spec)
    for spec in (
        "elasticsearch | opensearch | solr | meilisearch | typesense | algolia",  # search engines
        "spark pyspark emr | dask | flink | ray | beam | hadoop",  # distributed compute
        "bcrypt | argon2 argon2id | scrypt | pbkdf2",  # password hashes
        "md5 | sha1 sha-1 | sha256 sha-256 | sha512 sha-512 | blake2 blake2b | blake3 | xxhash | crc32",  # digests
        "redis valkey | memcached | in-process | hazelcast",  # shared counters and caches
        "kafka | rabbitmq | sqs | pubsub | nats | kinesis | activemq",  # message brokers
        "postgres postgresql psql | mysql mariadb | sqlite sqlite3 | mongodb mongo | dynamodb | cassandra",  # SQL/NoSQL
        "s3 | gcs | azure-blob | minio",  # object storage
        "pickle unpickle pickled unpickles pickles | safetensors | onnx | joblib | torchscript",  # model files
        "route53 | cloudflare | cloud-dns",  # DNS
        "airflow | dagster | prefect | luigi | argo",  # orchestrators
        "hs256 | rs256 | es256 | eddsa",  # JWT signing algorithms
        "npm | yarn | pnpm | bun",  # JavaScript package managers
        "jest | mocha | vitest | jasmine",  # JavaScript test runners
        "logrus | zap | zerolog",  # Go loggers
        "requests | httpx | aiohttp | urllib3",  # Python HTTP clients
        "docker | podman",  # container runtimes
        "ses | postmark | sendgrid | mailgun | mandrill | sparkpost | mailchimp",  # transactional email senders
        "mlflow | wandb w&b | neptune | comet | clearml",  # experiment trackers
    )
)  # fmt: skip
_INDEX: dict[str, tuple[int, int]] = {
    s: (k, t) for k, tools in enumerate(KINDS) for t, g in enumerate(tools) for s in g
}
# an object-store URL names its store ("s3://ml-artifacts/")
_URL_SCHEMES = {"s3://": "s3", "gs://": "gcs"}
# a name said as the past: "old bcrypt hashes", "the legacy Solr index", "nobody has touched EMR"
_BEFORE_PAST = frozenset(("old", "legacy", "former", "previous", "deprecated", "touched", "from", "off"))
# within this many tokens after the name: said gone or refused ("pickle files are rejected")
AFTER_REACH = 4
_AFTER_PAST = frozenset(
    stem(w)
    for w in ("rejected", "refused", "removed", "dropped", "deprecated", "rehashed", "migrated", "gone", "unsupported",
              "retired", "replaced", "disabled", "shut")
)  # fmt: skip


# "X is only used to …", "X only for the legacy path": what a name right after it says it is still used
# for is a remainder beside the tool the text relies on
_LEFTOVER = "only"


def swapped(a: Claim, b: Claim) -> bool:
    """``b`` uses a tool of a kind where ``a`` uses another, and neither also uses the other's."""
    if b.additive:
        return False
    used_a, used_b = _used(a), _used(b)
    return any(
        k == j and t != u and (k, t) not in used_b and (j, u) not in used_a for k, t in used_a for j, u in used_b
    )


def _used(c: Claim) -> set[tuple[int, int]]:
    """The (kind, tool) each name in ``c`` says is used: not denied, not in an example, not said as the past."""
    denied = {j for reach in c.reaches for j in reach}
    out = set()
    for i, t in enumerate(c.tokens):
        found = _INDEX.get(stem(t)) or next((_INDEX.get(s) for p, s in _URL_SCHEMES.items() if t.startswith(p)), None)
        if found is None or i in denied or c.in_example(i):
            continue
        before = c.tokens[max(0, i - 2) : i]
        ahead = c.tokens[i + 1 : i + 1 + AFTER_REACH]
        after = [stem(x) for x in ahead[: ahead.index(PUNCT) if PUNCT in ahead else None]]
        if any(x in _BEFORE_PAST for x in before) or any(x in _AFTER_PAST for x in after):
            continue
        if _LEFTOVER in after:
            continue  # "bcrypt is only used to verify old hashes": a use kept for the rest, not the one relied on
        out.add(found)
    return out
