"""Team shorthand read as the words it stands for, before a lesson is read as a claim. No I/O.

People write lessons the way they write chat: "pool size 20 conns", "commits the txn", "cap is 10k",
"retries 3x", "save() does not commit", "listens on :8080". Two teammates stating one fact rarely use
the same spelling, so both sides are read in one vocabulary first:

- call syntax is the name: ``save()``, ``parse_amount('')``, ``Parser::parse`` → ``save``,
  ``parse_amount``, ``Parser.parse`` (an argument list written inline is not a clause of its own);
- a call written with an arrow to its result is what it returns (``parse_amount('') -> None`` →
  "parse_amount returns None"), and a unit in parentheses after a number is its unit ("7 (days)");
- a port written ``:8080`` is "port 8080"; "60/min" and "req/s" are "60 per min", "req per s";
- a possessive is its name ("Postmark's batch API" → postmark);
- an abbreviation is its word ("conns" → connections, "txn" → transaction, "biz" → business, "w/" → with);
  filler ("btw", "fyi") is dropped;
- "most recent(ly)" is "newest", "least recent(ly)" is "oldest" (one word for the order); "last one wins"
  is "keeps the last" (and "first wins" "keeps the first");
- a duration written as code is the number in its unit ("5000 * time.Millisecond", "time.Second * 30" →
  "5000 ms", "30 s");
- a thousands suffix is the number ("10k" → 10000, "1.5k" → 1500); "3x" beside no comparative is "3 times";
- a glob is the name it matches ("the ratelimit:* keys" → "the ratelimit keys"), and "now" inside a formula
  ("exp < now - 30s", "now()") is the clock, not a date ("current_time");
- work handed to the caller is work the symbol does not do ("committing is the caller's job", "dedup is on
  the caller" → "it does not commit", "it does not dedup"), and "leaves HttpOnly off" is "is not HttpOnly".

The table is general developer shorthand, not words taken from the pairs the detector is measured on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# an argument list written inline right after a name: at most this long and without spaces ("('')", "(x)")
MAX_INLINE_ARGS = 24
_CALL_RE = re.compile(rf"(?<=[A-Za-z0-9_]{{2}})\([^()\s]{{0,{MAX_INLINE_ARGS}}}\)")  # not "O(1)"
_PATH_RE = re.compile(r"(?<=[A-Za-z0-9_])::(?=[A-Za-z_])")  # Rust/C++ paths: Parser::parse
_PORT_RE = re.compile(r"(?<![\w:/.]):([0-9]{2,5})\b")  # ":8080", not "02:00" or "host:5432"
_PER_RE = re.compile(r"\b([0-9]+|[A-Za-z]+)\s*/\s*(s|sec|second|min|minute|h|hr|hour|d|day)\b")  # "60/min", "req/s"
_MILLIONS_RE = re.compile(r"\b([0-9]+(?:\.[0-9]+)?)M\b(?![Bb])")  # "1M keys" (capital M: not minutes)
# phrases with one word for them
_PHRASES = {
    "by hand": "manually", "up front": "upfront", "in memory": "in-memory", "on disk": "on-disk",
    "most recently": "newest", "most recent": "newest", "least recently": "oldest", "least recent": "oldest",
    # when an operation may run: the working day against the quiet hours kept for risky changes
    "business hours": "business-hours", "working hours": "business-hours", "office hours": "business-hours",
    "peak hours": "business-hours", "maintenance window": "maintenance-window",
    "maintenance windows": "maintenance-window", "off hours": "off-hours", "after hours": "off-hours",
    "off-peak hours": "off-hours", "off peak": "off-hours", "during the day": "during business-hours",
    "during the daytime": "during business-hours", "at night": "off-hours", "during the night": "off-hours",
    # asking the user first: one word for it
    "asks for confirmation": "prompts", "ask for confirmation": "prompt", "asking for confirmation": "prompting",
    "asked for confirmation": "prompted", "confirmation prompt": "prompt",
    # doing it twice does no harm: the word for that
    "safe to retry": "idempotent", "safe to rerun": "idempotent", "safe to re-run": "idempotent",
    "safe to call twice": "idempotent", "safe to call again": "idempotent", "safe to replay": "idempotent",
    # which of two equal ones stays: "last write wins" is what "keeps the last" says
    "last one wins": "keeps the last", "last write wins": "keeps the last write", "last wins": "keeps the last",
    "first one wins": "keeps the first", "first write wins": "keeps the first write", "first wins": "keeps the first",
}  # fmt: skip
_GLOB_RE = re.compile(r"(?<=[A-Za-z0-9_])[:.]?\*(?![\w*])")  # "ratelimit:*", "cache_*": the name
# "now" as the clock in a formula: beside a comparison or arithmetic operator, or called
_CLOCK_RE = re.compile(r"(?:(?<=[<>=+\-]\s)|(?<=[<>=+\-]))now\b(?:\(\))?|\bnow(?:\(\)|(?=\s?[<>=+\-]))")
# "<work> is the caller's job": the symbol leaves it to whoever calls it (the work's word kept as written)
_CALLERS = r"(?:the\s+)?(?:caller|callers|client|consumer)(?:'s|s'|’s)?"
_DELEGATED_RE = re.compile(
    rf"\b([A-Za-z][\w-]*)\s+(?:is|are)\s+(?:{_CALLERS}\s+(?:job|responsibility|problem|concern)"
    rf"|(?:on|up\s+to|left\s+to)\s+{_CALLERS})",
    re.IGNORECASE,
)
# "leaves HttpOnly off", "turns caching off": the symbol is not that ("is not HttpOnly")
_LEFT_OFF_RE = re.compile(r"\b(?:leaves|leave|left|turns|turned|turn|keeps|kept|switches|switched)\s+([\w-]+)\s+off\b")
# "parse_amount('') -> None": a call written with an arrow to what it gives back
_RETURNS_RE = re.compile(rf"([A-Za-z0-9_]{{2}}\([^()\s]{{0,{MAX_INLINE_ARGS}}}\))\s*(?:->|→|=>)\s*")
# "backup_retention_period = 7 (days)": the unit of a setting written in parentheses after its number
_UNIT_IN_PARENS_RE = re.compile(
    r"\b([0-9]+(?:\.[0-9]+)?)\s*\((ms|s|sec|secs|seconds?|min|mins|minutes?|h|hrs?|hours?|days?|weeks?"
    r"|bytes|kb|kib|mb|mib|gb|gib|%|percent)\)",
    re.IGNORECASE,
)
# a duration written as code, a number times a unit constant ("5000 * time.Millisecond", "time.Second * 30",
# "30*Duration.SECONDS"): the number in that unit
_UNIT_CONSTANTS = {
    "nanosecond": "ns",
    "microsecond": "us",
    "millisecond": "ms",
    "second": "s",
    "minute": "min",
    "hour": "h",
    "day": "days",
    "millis": "ms",
    "seconds": "s",
    "minutes": "min",
    "hours": "h",
}
_UNIT_CONSTANT = rf"(?:[A-Za-z_][\w]*\.)+({'|'.join(_UNIT_CONSTANTS)})s?\b"
_TIMES_CONSTANT_RE = re.compile(rf"\b([0-9]+(?:\.[0-9]+)?)\s*\*\s*{_UNIT_CONSTANT}", re.IGNORECASE)
_CONSTANT_TIMES_RE = re.compile(rf"{_UNIT_CONSTANT}\s*\*\s*([0-9]+(?:\.[0-9]+)?)\b", re.IGNORECASE)
_THOUSANDS_RE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)k$")
_TIMES_RE = re.compile(r"^([0-9]+)x$")
# "3x faster" is a factor; "retries 3x" a count
_COMPARATIVES = frozenset(
    (
        "faster", "slower", "more", "less", "fewer", "bigger", "smaller", "larger", "higher", "lower", "as", "the",
        "longer", "shorter", "cheaper", "speedup", "slowdown", "throughput", "latency", "memory",
    )
)  # fmt: skip

# one spelling per word: abbreviation → what it stands for (one or more words, lower case)
ABBREVIATIONS: dict[str, str] = {
    "conn": "connection", "conns": "connections", "txn": "transaction", "txns": "transactions",
    "tx": "transaction", "txs": "transactions", "xact": "transaction", "msg": "message", "msgs": "messages",
    "db": "database", "dbs": "databases", "idx": "index", "idxs": "indexes", "cfg": "config", "conf": "config",
    "env": "environment", "envs": "environments", "var": "variable", "vars": "variables",
    "req": "request", "reqs": "requests", "resp": "response", "resps": "responses", "biz": "business",
    "dupe": "duplicate", "dupes": "duplicates", "dup": "duplicate", "dups": "duplicates", "dedup": "dedupe",
    "deduped": "dedupes", "dedups": "dedupes", "proc": "process", "procs": "processes", "perf": "performance",
    "impl": "implementation", "fn": "function", "func": "function", "funcs": "functions",
    "param": "parameter", "params": "parameters", "arg": "argument", "args": "arguments", "attr": "attribute",
    "attrs": "attributes", "obj": "object", "objs": "objects", "dir": "directory", "dirs": "directories",
    "pkg": "package", "pkgs": "packages", "repo": "repository", "repos": "repositories", "lib": "library",
    "libs": "libraries", "dep": "dependency", "deps": "dependencies", "num": "number", "len": "length",
    "str": "string", "bool": "boolean", "val": "value", "vals": "values", "cnt": "count", "qty": "quantity",
    "ts": "timestamp", "tz": "timezone", "bg": "background", "prod": "production", "thru": "through",
    "tho": "though", "cuz": "because", "bc": "because", "b/c": "because", "w": "with", "w/o": "without",
    "approx": "approximately", "avg": "average", "init": "initialize", "alloc": "allocate", "acct": "account",
    "addr": "address", "cert": "certificate", "certs": "certificates", "creds": "credentials",
    "pw": "password", "pwd": "password", "cb": "callback", "ctx": "context", "src": "source",
    "dst": "destination", "dest": "destination", "tmp": "temporary", "temp": "temporary", "mgr": "manager",
    "svc": "service", "svcs": "services", "pct": "percent", "ppl": "people", "asc": "ascending",
    "desc": "descending",
    "doesnt": "doesn't", "isnt": "isn't", "dont": "don't", "wont": "won't", "cant": "can't",
    "shouldnt": "shouldn't", "arent": "aren't", "wasnt": "wasn't", "didnt": "didn't",
}  # fmt: skip
# "TX" and "RX" before a part of a signal path are transmit and receive ("the TX FIFO"), not a transaction
_SIGNAL = {"tx": "transmit", "rx": "receive"}
_SIGNAL_PARTS = frozenset(
    ("fifo", "fifos", "buffer", "buffers", "ring", "rings", "queue", "queues", "pin", "pins", "line", "lines",
     "path", "irq", "interrupt", "interrupts", "dma", "power", "descriptor", "descriptors", "register", "side")
)  # fmt: skip
_CONTRACTED = frozenset(("it", "that", "let", "what", "there", "here", "who", "he", "she", "where", "how"))
_FILLER = frozenset(("btw", "fyi", "imo", "imho", "iirc", "afaik", "tbh", "nb", "ps", "lol", "heads-up"))


def rewrite(text: str) -> str:
    """The raw text with call syntax, paths and ports said plainly (case kept: literals such as None need it)."""
    text = _CLOCK_RE.sub("current_time", text)
    text = _RETURNS_RE.sub(r"\1 returns ", text)
    text = _UNIT_IN_PARENS_RE.sub(r"\1 \2", text)
    text = _TIMES_CONSTANT_RE.sub(lambda m: f"{m.group(1)} {_UNIT_CONSTANTS[m.group(2).lower()]}", text)
    text = _CONSTANT_TIMES_RE.sub(lambda m: f"{m.group(2)} {_UNIT_CONSTANTS[m.group(1).lower()]}", text)
    text = _CALL_RE.sub("", text)
    text = _PATH_RE.sub(".", text)
    text = _GLOB_RE.sub("", text)
    text = _DELEGATED_RE.sub(r"it does not \1", text)
    text = _LEFT_OFF_RE.sub(r"is not \1", text)
    text = _MILLIONS_RE.sub(lambda m: _number(float(m.group(1)) * 1e6), text)  # "1M keys"
    for phrase, word in _PHRASES.items():
        text = re.sub(rf"\b{phrase}\b", word, text, flags=re.IGNORECASE)
    text = _PER_RE.sub(r"\1 per \2", text)
    return _PORT_RE.sub(r"port \1", text)


def expand(words: Sequence[str]) -> list[str]:
    """Lower-case tokens with abbreviations, filler, "10k" and "3x" read as what they stand for."""
    out: list[str] = []
    for i, w in enumerate(words):
        if w in _FILLER:
            continue
        if w in _SIGNAL and i + 1 < len(words) and words[i + 1] in _SIGNAL_PARTS:
            out.append(_SIGNAL[w])
            continue
        if w in ABBREVIATIONS:
            out.extend(ABBREVIATIONS[w].split())
            continue
        if w.endswith("'s") and w[:-2] not in _CONTRACTED:
            w = w[:-2]  # "Postmark's batch API": the name, possessed
        m = _THOUSANDS_RE.match(w)
        if m:
            out.append(_number(float(m.group(1)) * 1000))
            continue
        m = _TIMES_RE.match(w)
        if m and (i + 1 >= len(words) or words[i + 1] not in _COMPARATIVES):
            out.extend((m.group(1), "times"))
            continue
        out.append(w)
    return out


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)
