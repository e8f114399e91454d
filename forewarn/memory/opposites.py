"""Words that exclude each other in what code does: a lexicon plus the ways English forms opposites. No I/O.

Three mechanisms, each general:

- a lexicon of exclusive alternatives: sets of groups, the words of one group meaning the same and
  excluding every other group's ("sync | async", "raises | returns | ignores | converts | logs"). It is
  written from the vocabulary of code lessons at large (modes, orders, outcomes, places, lifetimes),
  not from the pairs it is measured on;
- morphology: a negating prefix or suffix ("unsafe", "non-blocking", "irreversible", "disabled" is in the
  lexicon, "stateless"/"stateful") against the bare word on the other side;
- compounds: the same head with an opposite modifier ("big-endian"/"little-endian",
  "single-threaded"/"multi-threaded", "opt-in"/"opt-out").

Short everyday words (on/off, up/down, open/closed, read/write, first/last…) are also prepositions or
say many things: they count only where the two sentences swap one for the other in place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from forewarn.memory.claims import PUNCT, TOPIC_STOPWORDS, Claim, stem
from forewarn.memory.text import STOPWORDS


def _groups(spec: str) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(stem(w) for w in group.split()) for group in spec.split("|"))


# exclusive alternatives that count wherever the two texts are about the same thing
_ANYWHERE = tuple(
    _groups(spec)
    for spec in (
        "sync synchronous synchronously inline | async asynchronous asynchronously fire-and-forget enqueue enqueues "
        "enqueued",
        "blocking | non-blocking nonblocking",
        "enable enabled enables | disable disabled disables",
        "allow allowed allows permit permitted permits | forbid forbidden forbids disallow disallowed disallows "
        "prohibit prohibited banned deny denied denies",
        "required require requires mandatory compulsory must | optional",
        "public | private",
        "lazy lazily on-demand deferred | eager eagerly upfront up-front",
        "ascending | descending",
        "deterministic reproducible monotonic monotonically | random randomly nondeterministic non-deterministic "
        "randomized randomised",
        "before prior | after",
        "include includes included including | exclude excludes excluded excluding",
        "exact exactly | approximate approximately",
        "deprecated | supported recommended",
        "parallel concurrently concurrent | sequential sequentially serially serialized serialised",
        "true | false",
        "accept accepts accepted pass passes | reject rejects rejected refuse refuses refused",
        "inside within | outside",
        "minimum | maximum",
        "increase increases increased | decrease decreases decreased",
        "encrypted https tls ssl | unencrypted plaintext cleartext",
        "strict strictly | lenient loose loosely permissive",
        "local locally | remote remotely",
        "uppercase uppercased | lowercase lowercased",
        "higher | lower",
        "forever indefinitely unlimited unbounded infinite | limited capped bounded",
        "read-only readonly | read-write writable write writes writing",
        "big-endian | little-endian",
        "primary master leader | replica replicas secondary follower standby",
        "write-through | write-back write-behind",
        "manual manually explicit explicitly | automatic automatically implicit implicitly",
        "mutable | immutable frozen",
        "absolute | relative",
        "static statically | dynamic dynamically",
        "persistent persisted durable permanent permanently disk-backed on-disk | temporary transient ephemeral "
        "volatile in-memory",
        "insert inserts inserted | upsert upserts upserted",
        "append appends appended | overwrite overwrites overwritten truncates",
        "keep keeps kept retain retains retained retention preserve preserves preserved | drop drops dropped "
        "delete deletes deleted remove removes removed discard discards discarded wipe wipes wiped purge purges "
        "reset resets clear clears cleared "
        "strip strips",
        "succeed succeeds succeeded | fail fails failed",
        "valid well-formed | invalid bad garbage malformed unparseable unparsable corrupt corrupted bogus junk broken",
        "safe safely thread-safe threadsafe goroutine-safe concurrency-safe concurrent-safe | unsafe dangerous risky "
        "race races racy thread-unsafe",
        "incremental incrementally | full",
        "fifo | lifo",
        "allowlist whitelist | denylist blacklist blocklist",
        "inclusive | exclusive",
        "inbound incoming ingress | outbound outgoing egress",
        "upstream | downstream",
        "oldest earliest | newest latest",
        "commit commits committed | rollback rollbacks",
        "visible shown | hidden invisible",
        "present | absent missing",
        "fast faster quick quickly cheap | slow slower expensive costly",
        "online | offline",
        "encode encodes encoded | decode decodes decoded",
        "utc gmt | local localtime",
        "at-least-once | at-most-once | exactly-once",
        "stateful | stateless",
        "fixed constant | exponential exponentially linear linearly variable",
        "global globally shared | per-thread per-request per-process thread-local process-local",
        "greedy | non-greedy lazy",
        "ack acks acked acknowledge acknowledges | nack nacks nacked",
        "round rounds rounded | truncate truncates truncated",
        "json | xml | yaml yml | toml | csv | protobuf | msgpack | xlsx xls | parquet",
        "leading | trailing",
        "foreground blocking | background goroutine",
        "hold holds held acquire acquires acquired | release releases released",
        "continuous continuously real-time realtime | periodic periodically batched",
        "optimistic optimistically | pessimistic pessimistically",
        "cache cached caches memoize memoized memoizes | recompute recomputes recomputed recalculate recalculates",
        "check checks checked validate validates validated verify verifies verified",
        "atomic atomically all-or-nothing transactional | partial partially non-atomic piecemeal",
        "dedupe dedupes deduplicate deduplicates idempotent unique | duplicate duplicates",
        "lossless | lossy",
        "prepend prepends prepended unshift unshifts | append appends appended push pushes pushed",
        "dedicated isolated | shared",
        "shallow | deep",
        "internal | external",
        "compressed compress compresses gzip gzipped zstd snappy | uncompressed",
        "business-hours daytime anytime | off-hours off-peak overnight maintenance-window after-hours",
        "escape escapes escaped sanitize sanitizes sanitized | verbatim untouched as-is unescaped unsanitized",
        # one group each: words for one thing, for slots and conditions ("on error" / "if processing fails")
        "error errors failure failures fail fails failed exception exceptions",
        "ttl expire expires expiry lifetime live lives alive valid",
        "delay delays wait waits sleep sleeps pause pauses debounce debounces",
        "limit limits cap caps max maximum ceiling",
        "ignore ignores ignored skip skips skipped omit omits omitted discard discards discarded drop drops dropped",
    )
)  # fmt: skip
# outcomes of one call on one input, and other everyday alternatives: only swapped in place
_IN_PLACE = tuple(
    _groups(spec)
    for spec in (
        "raise raises raised throw throws thrown fail fails reject rejects rejected "
        "| return returns returned resolve resolves resolved "
        "| convert converts converted coerce coerces coerced cast casts | log logs logged warn warns warned "
        "| block blocks blocked wait waits hang hangs | retry retries retried | crash crashes abort aborts "
        "| ignore ignores ignored skip skips skipped swallow swallows swallowed",
        "first | last",
        "on | off",
        "up | down",
        "open opened | closed close closes",
        "read reads load loads loaded | write writes written",
        "soft | hard",
        "client client-side | server server-side",
        "binary | text",
        "push pushes | pull pulls",
        "new | old existing",
        "same | different distinct",
        "copy copies | reference view",
        "single | multi multiple many",
        "in | out",
        "start starts | end ends stop stops",
        "top | bottom",
        "left | right",
        "short shorter | long longer",
        "small smaller | large larger big bigger",
        "early earlier | late later",
        "low | high",
        "min | max",
        "more | less fewer",
        "most | least",
        "fixed constant | random randomized",
        "through | back behind",
        "yes | no",
        "always | sometimes",
        "all | some",
        "positive | negative",
        "increment | decrement",
        "success | failure error",
        "empty | full",
    )
)  # fmt: skip
_ALL = (*_ANYWHERE, *_IN_PLACE)
# stem → (set number, group number) for every lexicon word, so a look-up is one dict access
_INDEX: dict[str, tuple[tuple[int, int], ...]] = {}
for _n, _groups_of_set in enumerate(_ALL):
    for _g, _group in enumerate(_groups_of_set):
        for _s in _group:
            _INDEX[_s] = (*_INDEX.get(_s, ()), (_n, _g))
_ANYWHERE_SETS = frozenset(range(len(_ANYWHERE)))
_OUTCOME_SET = len(_ANYWHERE)  # the first in-place set: what one call does with one input
# outcomes a call has beside another, not instead of it: "logs a warning and returns", "blocks, then returns"
_SIDE_EFFECTS = frozenset(
    stem(w)
    for w in ("log", "logs", "logged", "warn", "warns", "warned", "block", "blocks", "blocked", "wait", "waits",
              "hang", "hangs", "retry", "retries")
)  # fmt: skip
# a negating prefix ("unsafe", "non-blocking") or suffix against the bare word on the other side
_NEGATING_PREFIXES = ("non-", "non", "un", "in", "im", "ir", "il", "dis")
MIN_ROOT = 4  # "un" + "safe": a shorter root ("in" + "to") is no word negated


@dataclass(frozen=True, slots=True)
class Flip:
    """One pair of opposite words between the two texts (stems or compounds), and where the newer one stands."""

    old: str
    new: str
    at: int  # token position of the newer text's word
    in_place: bool  # swapped one for the other in one sentence frame, or in one compound
    key: str  # which opposition it is (a set of alternatives, a root): the same one found twice is one


def flips(a: Claim, b: Claim, swapped: Iterable[tuple[range, range]]) -> list[Flip]:
    """The opposites standing between ``a`` and ``b``; ``swapped``: token ranges one sentence frame replaces."""
    out: list[Flip] = []
    sa, sb = _stems(a.words), _stems(b.words)
    for n in sorted(_sets_of(sa) & _sets_of(sb) & _ANYWHERE_SETS):
        for old, new in _exclusive(_ALL[n], sa, sb):
            out.append(Flip(old, new, _where(b, new), False, f"set {n}"))
    for x, y in swapped:
        sx = _stems(a.tokens[i] for i in x)
        sy = _stems(b.tokens[j] for j in y)
        for n in sorted(_sets_of(sx) & _sets_of(sy)):
            for old, new in _exclusive(_ALL[n], sx, sy):
                # in place, but only if the other text does not say the same word elsewhere
                if old not in sb and new not in sa:
                    out.append(Flip(old, new, _where(b, new, y), True, f"set {n}"))
    out.extend(_morphological(a, b))
    out.extend(_compounds(a, b))
    out = [f for f in out if not _converse(a, b, f)]
    # "acks BEFORE processing" / "acks only after the handler returns": one word before both, swapped in place
    out = [Flip(f.old, f.new, f.at, True, f.key) if not f.in_place and _same_head(a, b, f) else f for f in out]
    # one flip per opposition and per word of the newer text: "is required"/"is optional" is one, found twice
    kept: list[Flip] = []
    for f in out:
        same = [k for k, g in enumerate(kept) if g.key == f.key or g.at == f.at]
        if not same:
            kept.append(f)
        elif f.in_place and not kept[same[0]].in_place:
            g = kept[same[0]]
            kept[same[0]] = Flip(g.old, g.new, g.at, True, g.key)
    return kept


class Reach(StrEnum):
    """Which sets of alternatives a comparison of two predicates reads (see ``excluding``)."""

    ANYWHERE = "anywhere"  # the exclusive alternatives (sync/async, lazy/eager)
    OUTCOMES = "outcomes"  # what one call does with one input: raises / returns / rejects / ignores / converts
    EVERYDAY = "everyday"  # every set, everyday words too (first/last, up/down)


def excluding(
    x: Iterable[str], y: Iterable[str], reach: Reach, *, x_said: Iterable[str] = (), y_said: Iterable[str] = ()
) -> tuple[str, str] | None:
    """A word of ``x`` and a word of ``y`` (as written) that exclude each other, or None: from the lexicon
    (as far as ``reach``), a negating prefix ("unsafe"/"safe") or suffix ("stateless"/"stateful").
    ``x_said``/``y_said``: every word of each text; an opposite the other text also says is none ("returns
    None on invalid JSON" / "swallows JSONDecodeError and returns None")."""
    wx, wy = list(x), list(y)
    sx, sy = _stems(wx), _stems(wy)
    all_x, all_y = sx | _stems(x_said), sy | _stems(y_said)
    sets = _sets_of(sx) & _sets_of(sy)
    if reach == Reach.ANYWHERE:
        sets &= _ANYWHERE_SETS
    elif reach == Reach.OUTCOMES:
        sets &= {_OUTCOME_SET}
    for n in sorted(sets):
        for old, new in _exclusive(_ALL[n], sx, sy):
            if reach != Reach.ANYWHERE and (old in _SIDE_EFFECTS or new in _SIDE_EFFECTS):
                continue  # "logs a warning", "blocks", "retries": beside an outcome, not instead of one
            if _group_of(n, old) & all_y or _group_of(n, new) & all_x:
                continue
            return old, new
    if reach == Reach.OUTCOMES:
        return None
    for u, v, flip in ((wx, wy, False), (wy, wx, True)):
        stems_v = _stems(v)
        for w in u:
            root = unprefixed(w)
            if root is not None and not in_lexicon(w) and stem(root) in stems_v and w not in v:
                return (root, w) if flip else (w, root)
    for w in wx:
        for neg, pos in (("less", "ful"), ("ful", "less")):
            if w.endswith(neg) and len(w) - len(neg) >= MIN_ROOT and w[: -len(neg)] + pos in wy:
                return w, w[: -len(neg)] + pos
    return None


def _group_of(n: int, word: str) -> frozenset[str]:
    return next((g for g in _ALL[n] if word in g), frozenset())


def canonical(word: str) -> str | None:
    """A shared token for every word of one set of alternatives (both sides of a flip read as one topic)."""
    found = _INDEX.get(stem(word))
    if found:
        return f"<opposites {found[0][0]}>"
    root = unprefixed(word)
    return stem(root) if root is not None else None


def same_group(a: str, b: str) -> bool:
    """Do two words (stems) stand in one group of the lexicon ("keeps"/"retains", "error"/"fails")?"""
    return bool(set(_INDEX.get(stem(a), ())) & set(_INDEX.get(stem(b), ())))


def synonym(word: str) -> str | None:
    """A shared token for the words of one group (they mean the same: "keeps"/"retains"), None if none."""
    found = _INDEX.get(stem(word))
    return f"<same {found[0][0]}.{found[0][1]}>" if found else None


def in_lexicon(word: str) -> frozenset[int]:
    """Which sets of alternatives a word belongs to (their numbers; empty when none)."""
    return frozenset(n for n, _ in _INDEX.get(stem(word), ()))


def unprefixed(word: str) -> str | None:
    """ "unsafe" → "safe", "non-blocking" → "blocking"; None where no negating prefix stands."""
    for prefix in _NEGATING_PREFIXES:
        if word.startswith(prefix) and len(word) - len(prefix) >= MIN_ROOT:
            return word[len(prefix) :].lstrip("-")
    return None


def _stems(words: Iterable[str]) -> frozenset[str]:
    return frozenset(_PER_EACH if w.startswith("per-") else stem(w) for w in words)  # "per-logger" is per-anything


_PER_EACH = stem("per-process")


def _sets_of(stems: Iterable[str]) -> set[int]:
    return {n for s in stems for n, _ in _INDEX.get(s, ())}


def _converse(a: Claim, b: Claim, f: Flip) -> bool:
    """ "pre_save runs before validation" / "validation happens after pre_save": the opposite relation with its
    two sides swapped says the same thing."""
    i, j = _where(a, f.old), _where(b, f.new)
    after_a, before_a = _named(a, range(i + 1, len(a.tokens))), _named(a, range(i - 1, -1, -1))
    after_b, before_b = _named(b, range(j + 1, len(b.tokens))), _named(b, range(j - 1, -1, -1))
    return (
        (
            after_a is not None
            and after_b is not None
            and after_a in _all_named(b, range(j))
            and after_b in _all_named(a, range(i))
        )
        and before_a is not None
        and before_b is not None
    )


def _same_head(a: Claim, b: Claim, f: Flip) -> bool:
    """The word each opposite follows (function words aside) is one word: the opposite says how of one thing."""
    i, j = _where(a, f.old), _where(b, f.new)
    head = _named(a, range(i - 1, -1, -1))
    return head is not None and head == _named(b, range(j - 1, -1, -1))


def _named(c: Claim, positions: Iterable[int]) -> str | None:
    """The first word at ``positions`` that names something (not a function word), within the clause."""
    for k in positions:
        t = c.tokens[k]
        if t == PUNCT:
            return None
        if t not in STOPWORDS and t not in TOPIC_STOPWORDS:
            return stem(t)
    return None


def _all_named(c: Claim, positions: Iterable[int]) -> set[str]:
    return {stem(c.tokens[k]) for k in positions if c.tokens[k] not in STOPWORDS and c.tokens[k] != PUNCT}


def _where(c: Claim, word: str, within: Iterable[int] | None = None) -> int:
    """The first position of ``word`` (a stem, a whole token or a hyphenated part) in ``c``'s tokens."""
    positions = list(within) if within is not None else range(len(c.tokens))
    for i in positions:
        t = c.tokens[i]
        if word in (t, stem(t)) or word in t.split("-") or word in (stem(x) for x in t.split("-")):
            return i
    return positions[0] if positions else 0


def _exclusive(groups: Sequence[frozenset[str]], a: frozenset[str], b: frozenset[str]) -> list[tuple[str, str]]:
    """A word of one group on one side and of another group on the other, and neither side says both."""
    ga = [i for i, g in enumerate(groups) if g & a]
    gb = [i for i, g in enumerate(groups) if g & b]
    if not ga or not gb or set(ga) & set(gb):
        return []
    return [(min(groups[ga[0]] & a), min(groups[gb[0]] & b))]


def _morphological(a: Claim, b: Claim) -> list[Flip]:
    out: list[Flip] = []
    wa, wb = _with_parts(a.words), _with_parts(b.words)
    for x, y, y_is_new in ((wa, wb, True), (wb, wa, False)):
        for w in y:
            if w in x or in_lexicon(w):
                continue
            root = unprefixed(w)
            if root is not None and stem(root) in {stem(v) for v in x}:  # "unescaped" / "escapes"
                key = f"root {stem(root)}"
                out.append(
                    Flip(root, w, _where(b, w), False, key) if y_is_new else Flip(w, root, _where(b, root), False, key)
                )
    for w in a.words:  # "stateless" / "stateful"
        for neg, pos in (("less", "ful"), ("ful", "less")):
            other = w[: -len(neg)] + pos
            if w.endswith(neg) and len(w) - len(neg) >= MIN_ROOT and other in b.words:
                out.append(Flip(w, other, _where(b, other), False, f"root {w[: -len(neg)]}"))
    return out


def _with_parts(words: frozenset[str]) -> frozenset[str]:
    """The words and the later parts of hyphenated ones ("case-insensitive" → "insensitive")."""
    return words | {part for w in words for part in w.split("-")[1:] if len(part) >= MIN_ROOT}


def _compounds(a: Claim, b: Claim) -> list[Flip]:
    """One part the same, the other opposite: "big-endian"/"little-endian", "soft delete"/"hard-deletes",
    "rounds up"/"rounds down" (adjacent words read as a compound)."""
    out: list[Flip] = []
    ca, cb = _compound_words(a), _compound_words(b)
    for x, (x_head, x_tail) in ca.items():
        if x in cb:
            continue
        hx, _, tx = x.partition("-")
        for y, (head_at, tail_at) in cb.items():
            if y in ca:
                continue
            hy, _, ty = y.partition("-")
            joined = x_head == x_tail and head_at == tail_at  # both written with a hyphen
            if stem(hx) == stem(hy) and (joined or _topic(hx, a, b)) and (n := _opposite(tx, ty)) is not None:
                out.append(Flip(x, y, tail_at, True, f"set {n}"))
            elif stem(tx) == stem(ty) and (joined or _topic(tx, a, b)) and (n := _opposite(hx, hy)) is not None:
                out.append(Flip(x, y, head_at, True, f"set {n}"))
    return out


def _compound_words(c: Claim) -> dict[str, tuple[int, int]]:
    """Hyphenated words, and each two adjacent plain words of one clause joined by a hyphen (with where
    each part stands)."""
    out: dict[str, tuple[int, int]] = {}
    plain = [(i, t) for i, t in enumerate(c.tokens) if t not in _ARTICLES]
    for k, (i, t) in enumerate(plain):
        if "-" in t and t.count("-") == 1:
            out.setdefault(t, (i, i))
        if k + 1 < len(plain):
            j, u = plain[k + 1]
            if c.clause[i] == c.clause[j] and _plain(t) and _plain(u):
                out.setdefault(f"{t}-{u}", (i, j))
    return out


_ARTICLES = frozenset(("a", "an", "the"))


def _topic(word: str, a: Claim, b: Claim) -> bool:
    """Two adjacent words make a compound only around a topic word both texts say (not the anchor's name)."""
    return stem(word) in a.content and stem(word) in b.content


def _plain(token: str) -> bool:
    return token.isalpha()


def _opposite(x: str, y: str) -> int | None:
    """The number of the set of alternatives in which ``x`` and ``y`` exclude each other, if any."""
    sx, sy = frozenset({stem(x)}), frozenset({stem(y)})
    return next((n for n in sorted(_sets_of(sx) & _sets_of(sy)) if _exclusive(_ALL[n], sx, sy)), None)
