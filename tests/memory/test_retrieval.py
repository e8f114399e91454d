"""Ranking: decay to a floor, access reinforcement, trust, as-of reproducibility, dedupe, proactive neighbours."""

from __future__ import annotations

import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from forewarn.memory import retrieval
from forewarn.memory.records import Anchor, AnchoredRef, Memory, MemoryFilter
from forewarn.memory.retrieval import ScoredMemory, SearchParams, dedupe, temporal_factor
from forewarn.memory.store import MemoryStore
from forewarn.memory.text import new_id, to_iso
from forewarn.workspace.engine import Workspace

NOW = 1_800_000_000.0
DAY = 86400.0


def make(text: str, age_days: float, **kw: object) -> Memory:
    at = NOW - age_days * DAY
    fields: dict[str, object] = {"type": "gotcha", "source": "user", "confidence": 1.0, "anchor": None}
    fields.update(kw)
    return Memory(id=new_id(at), text=text, created_at=to_iso(at), updated_at=to_iso(at), **fields)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    s = MemoryStore(tmp_path / "memory.db")
    yield s
    s.close()


def ranked(store: MemoryStore, query: str, now: float = NOW, **flt: object) -> list[str]:
    params = SearchParams(k=10, flt=MemoryFilter(**flt), now=now)  # type: ignore[arg-type]
    return [h.memory.text for h in retrieval.rank(store, None, query, None, params, time.perf_counter).hits]


def test_temporal_factor_decays_to_a_floor_not_to_zero() -> None:
    ages = [0, 1, 30, 90, 365, 730, 3650]
    factors = [temporal_factor(make("x", a), NOW) for a in ages]
    assert factors == sorted(factors, reverse=True)
    assert factors[0] == pytest.approx(1.0)
    assert factors[-1] >= retrieval.RECENCY_FLOOR
    assert factors[-2] == pytest.approx(retrieval.RECENCY_FLOOR, abs=0.01)


def test_access_freshens_and_reinforces_within_a_cap() -> None:
    old = make("x", 400)
    used = replace(old, last_accessed_at=to_iso(NOW - DAY), access_count=5)
    assert temporal_factor(used, NOW) > temporal_factor(old, NOW)
    heavy = replace(used, access_count=10_000)
    assert temporal_factor(heavy, NOW) <= retrieval.MAX_ACCESS_BOOST
    # access that happened after "now" (an as-of search) does not count
    assert temporal_factor(used, NOW - 2 * DAY, use_access=True) == temporal_factor(old, NOW - 2 * DAY)


def test_perfect_old_match_beats_weak_recent_ones(store: MemoryStore) -> None:
    store.insert(make("postgres advisory lock deadlocks when migrations run in parallel", 730))
    for i, text in enumerate(
        [
            "postgres is our main database",
            "the lock file must be committed",
            "parallel tests share a temp dir",
            "migrations are squashed each release",
            "deadlocks in the UI thread come from the event bus",
        ]
    ):
        store.insert(make(text, i + 1))
    results = ranked(store, "postgres advisory lock deadlock parallel migrations")
    assert results[0] == "postgres advisory lock deadlocks when migrations run in parallel"


def test_recency_and_trust_break_ties(store: MemoryStore) -> None:
    store.insert(make("cache keys include the tenant id", 400))
    store.insert(make("cache keys include the tenant id.", 2))
    assert ranked(store, "cache keys tenant") == [
        "cache keys include the tenant id.",
        "cache keys include the tenant id",
    ]
    store.insert(make("retries use exponential backoff", 10, source="agent"))
    store.insert(make("retries use exponential backoff!", 10, source="user"))
    assert ranked(store, "retries backoff")[0] == "retries use exponential backoff!"


def test_as_of_is_reproducible(store: MemoryStore) -> None:
    store.insert(make("feature flags live in flags.yaml", 100))
    store.insert(make("feature flags moved to the admin UI", 50))
    as_of = to_iso(NOW - 75 * DAY)
    first = ranked(store, "feature flags", now=NOW - 75 * DAY, as_of=as_of)
    assert first == ["feature flags live in flags.yaml"]
    # later writes and accesses change nothing as of that time
    store.insert(make("feature flags are evaluated per request", 1))
    mem = store.list_memories(MemoryFilter(), limit=10)[-1]
    store.record_access([mem.id], to_iso(NOW))
    assert ranked(store, "feature flags", now=NOW - 75 * DAY, as_of=as_of) == first


def test_status_filters_exclude_superseded_and_archived(store: MemoryStore) -> None:
    store.insert(make("builds run on arm64 runners", 30, status="superseded", ended_at=to_iso(NOW - 5 * DAY)))
    store.insert(make("builds run on x86 runners", 5))
    store.insert(make("builds are cached for a week", 5, status="archived", ended_at=to_iso(NOW - DAY)))
    assert ranked(store, "builds runners") == ["builds run on x86 runners"]
    assert ranked(store, "builds", statuses=("superseded",)) == ["builds run on arm64 runners"]


def test_dedupe_keeps_the_better_of_near_duplicates() -> None:
    a, b, c = (make(t, 1) for t in ("alpha", "Alpha ", "gamma"))
    a, b, c = replace(a, num=1), replace(b, num=2), replace(c, num=3)
    hits = [ScoredMemory(m, 1.0 - i / 10) for i, m in enumerate((a, b, c))]
    assert [h.memory.num for h in dedupe(hits, 10, None)] == [1, 3]  # same text, case and spaces aside
    v = np.eye(3, dtype=np.float32)
    near = (v[0] + 0.1 * v[1]) / np.linalg.norm(v[0] + 0.1 * v[1])
    d, e = replace(make("delta", 1), num=4), replace(make("epsilon", 1), num=5)
    vectors = {4: v[0], 5: near, 3: v[2]}
    out = dedupe([ScoredMemory(d, 0.9), ScoredMemory(e, 0.8), ScoredMemory(c, 0.7)], 10, vectors)
    assert [h.memory.num for h in out] == [4, 3]
    assert float(v[0] @ near) > retrieval.DUPLICATE_COSINE


def test_proactive_shows_own_then_used_definitions_and_marks_shown(tmp_path: Path) -> None:
    root = api_using_db(tmp_path, "def connect_pool(url):\n    return url\n\n\ndef unused_helper():\n    return 2\n")
    with Workspace.open(root, embedder=None) as engine:
        engine.reindex()
        own = engine.remember("handler must stay idempotent", type="gotcha", file="pkg/api.py", symbol="handler")
        used = engine.remember("connect_pool leaks on timeout", type="gotcha", file="pkg/db.py", symbol="connect_pool")
        engine.remember("unused_helper is slow", type="gotcha", file="pkg/db.py", symbol="unused_helper")
        engine.remember("db module is generated", type="convention", file="pkg/db.py")  # about db.py, no definition
        hits = engine.proactive("pkg/api.py")
        assert [(h.memory.id, h.relation) for h in hits] == [(own.memory.id, "file"), (used.memory.id, "dependency")]
        assert hits[1].via_file == "pkg/db.py" and hits[1].line == 5  # where api.py calls it
        assert not any(h.already_shown for h in hits)
        assert all(h.already_shown for h in engine.proactive("pkg/api.py"))
        info = engine.for_symbol("pkg/db.py", 2)
        assert info is not None and info.symbol == "connect_pool"
        assert [m.id for m in info.memories] == [used.memory.id]
        assert info.file_rank == 1 and info.file_count == 2 and info.dependents == 1
        stats = engine.stats()
        assert stats.by_type == {"gotcha": 3, "convention": 1}
        assert stats.most_surfaced[0].surfaced_count == 1  # shown once: the second open marked it already shown
        assert stats.important_without_memories == []


def test_search_filters_by_type_file_and_rejects_bad_input(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "a").mkdir(parents=True)
    (root / "a/x.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    with Workspace.open(root, embedder=None) as engine:
        g = engine.remember("timeouts are in seconds", type="gotcha", file="a/x.py").memory
        engine.remember("timeouts are configured centrally", type="decision")
        assert [h.memory.id for h in engine.search("timeouts", types=["gotcha"]).memories] == [g.id]
        assert [h.memory.id for h in engine.search("timeouts", file="a").memories] == [g.id]
        result = engine.search("timeouts")
        assert result.mode == "lexical" and result.reason
        assert len(result.memories) == 2
        for bad in ({"as_of": "yesterday"}, {"types": ["nope"]}, {"k": 0}, {"statuses": ["gone"]}):
            with pytest.raises(ValueError):
                engine.search("timeouts", **bad)  # type: ignore[arg-type]
        assert engine.search("").memories == []
        assert engine.search('"NEAR(( AND *').memories == []
        assert g.anchor == Anchor("a/x.py")


def test_accepting_a_memory_reinforces_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with Workspace.open(root, embedder=None) as engine:
        a = engine.remember("worker pool size: read from env").memory
        b = engine.remember("worker pool size: read from ini").memory  # equally good matches
        first = [h.memory.id for h in engine.search("worker pool size").memories]
        assert set(first) == {a.id, b.id}
        engine.search("worker pool size")  # being shown is not being used: order unchanged
        assert [h.memory.id for h in engine.search("worker pool size").memories] == first
        engine.accept(first[1])
        assert [h.memory.id for h in engine.search("worker pool size").memories] == [first[1], first[0]]
        assert engine.get(first[1]).access_count == 1 and engine.get(first[0]).surfaced_count == 4


def test_lookup_paths_normalise_without_escaping(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "a").mkdir(parents=True)
    with Workspace.open(root, embedder=None) as engine:
        assert engine.lookup_path("a/b.py") == "a/b.py"
        assert engine.lookup_path("./a//b.py") == "a/b.py"
        assert engine.lookup_path(root / "a" / "b.py") == "a/b.py"
        assert engine.lookup_path("a/../a/b.py") == "a/b.py"
        for outside in ("../x.py", "a/../../x.py", str(tmp_path / "x.py"), "/etc/passwd", "."):
            with pytest.raises(ValueError, match=r"outside the workspace|the workspace itself"):
                engine.lookup_path(outside)


def test_a_saved_file_that_starts_using_a_definition_shows_its_memory(tmp_path: Path) -> None:
    """Names used come from the index's references, kept per index run; a re-indexed file is read again."""
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/db.py").write_text("def connect_pool(url):\n    return url\n\n\ndef close_pool(p):\n    return p\n")
    api = root / "pkg/api.py"
    api.write_text("from pkg.db import connect_pool\n\n\ndef handler():\n    return connect_pool('x')\n")
    with Workspace.open(root, embedder=None) as engine:
        engine.reindex()
        engine.remember("close_pool must run in finally", type="gotcha", file="pkg/db.py", symbol="close_pool")
        engine.warm()
        assert engine.proactive("pkg/api.py", record=False) == []
        api.write_text(
            "from pkg.db import close_pool, connect_pool\n\n\n"
            "def handler():\n    return close_pool(connect_pool('x'))\n"
        )
        engine.reindex(["pkg/api.py"])
        hits = engine.proactive("pkg/api.py", record=False)
        assert [(h.memory.text, h.relation) for h in hits] == [("close_pool must run in finally", "dependency")]


def test_a_file_open_ranks_the_same_from_cached_rows_as_through_the_indexes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neighbour rows come from ``recent_refs``' cache; a file with too many memories is read through the
    indexes instead. Both give the same hits, scores and count left out, the per-file cap included."""
    from forewarn.memory import store_anchored as store_module

    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/db.py").write_text(
        "class Pool:\n    def connect(self):\n        return 1\n\n\ndef close_pool(p):\n    return p\n\n\n"
        "def unused_helper():\n    return 2\n",
        encoding="utf-8",
    )
    (root / "pkg/api.py").write_text(
        "from pkg.db import Pool, close_pool\n\n\ndef handler():\n    return close_pool(Pool().connect())\n",
        encoding="utf-8",
    )
    rng = random.Random(3)
    with Workspace.open(root, embedder=None) as engine:
        engine.reindex()
        symbols = ["Pool.connect", "close_pool", "unused_helper", None, "Pool"]
        batch = []
        for k in range(120):  # more than the per-file cap, over two years, some on the same day
            symbol = symbols[k % len(symbols)]
            kind = ["gotcha", "decision", "convention", "dead_end"][k % 4]
            anchor = Anchor("pkg/db.py", symbol)
            batch.append((make(f"db note {k}", rng.randrange(0, 730), type=kind, anchor=anchor), []))
        batch += [(make(f"api note {k}", k, anchor=Anchor("pkg/api.py", "handler")), []) for k in range(5)]
        engine.store.insert_many(batch)
        engine.clock = lambda: NOW  # scores decay with time: both reads at the same instant

        def view() -> tuple[list[tuple[str, str, float]], int]:
            got = engine.open_view("pkg/api.py", limit=60, record=False)
            return [(h.memory.id, h.relation, round(h.score, 12)) for h in got.hits], got.more

        cached = view()
        assert sum(relation == "dependency" for _, relation, _ in cached[0]) == 40  # the per-file cap
        monkeypatch.setattr(store_module, "FILE_REFS_CACHE_FILE_MAX", 0)  # every file through the indexes
        engine.store.insert(make("unrelated", 0, anchor=Anchor("other.py")))  # a write: the cache is read again
        assert view() == cached


def api_using_db(tmp_path: Path, db_source: str) -> Path:
    """A workspace whose pkg/api.py calls pkg/db.py's connect_pool; db.py holds ``db_source``."""
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/db.py").write_text(db_source, encoding="utf-8")
    (root / "pkg/api.py").write_text(
        "from pkg.db import connect_pool\n\n\ndef handler():\n    return connect_pool('x')\n", encoding="utf-8"
    )
    return root


def test_a_memory_written_after_an_open_shows_on_the_next(tmp_path: Path) -> None:
    root = api_using_db(tmp_path, "def connect_pool(url):\n    return url\n")
    with Workspace.open(root, embedder=None) as engine:
        engine.reindex()
        assert engine.proactive("pkg/api.py", record=False) == []
        added = engine.remember("connect_pool leaks on timeout", type="gotcha", file="pkg/db.py", symbol="connect_pool")
        assert [h.memory.id for h in engine.proactive("pkg/api.py", record=False)] == [added.memory.id]
        engine.forget(added.memory.id)
        assert engine.proactive("pkg/api.py", record=False) == []


def test_search_asks_the_code_index_once_with_the_querys_words(tmp_path: Path) -> None:
    """The indexer picks the rarest of them itself (``selective_terms``): the engine sends them all, once."""
    root = tmp_path / "ws"
    (root / "a").mkdir(parents=True)
    (root / "a/x.py").write_text("def reconcile_ledger(entries):\n    return entries\n", encoding="utf-8")
    seen: list[str] = []
    with Workspace.open(root, embedder=None) as engine:
        engine.reindex()
        real = engine.indexer.search_chunks

        def spy(text: str, limit: int) -> Any:
            seen.append(text)
            return real(text, limit)

        engine.indexer.search_chunks = spy  # type: ignore[method-assign]
        result = engine.search("why does reconcile ledger drift when entries arrive late at night", k=5)
    assert [h.chunk.symbol for h in result.chunks] == ["reconcile_ledger"]
    assert len(seen) == 1 and {"reconcile", "ledger", "entries"} <= set(seen[0].split())


def test_lazy_proactive_rank_equals_scoring_every_candidate() -> None:
    rng = random.Random(3)
    types = list(retrieval.TYPE_PRIORITY)
    candidates = []
    for num in range(1500):
        created = NOW - rng.uniform(0, 900) * DAY
        accessed = to_iso(NOW - rng.uniform(0, 30) * DAY) if rng.random() < 0.2 else None
        ref = AnchoredRef(
            num, f"id{num:05d}", rng.choice(types), rng.choice(["a.py", "b.py"]), rng.choice(["f", None]),
            rng.choice(["user", "agent", "commit"]), rng.choice([1.0, 0.7]), rng.choice(["active", "stale"]),
            to_iso(created), accessed, rng.randint(0, 9) if accessed else 0,
        )  # fmt: skip
        if num % 3:
            candidates.append(retrieval.ProactiveCandidate(ref, "file"))
        else:
            candidates.append(retrieval.ProactiveCandidate(ref, "dependency", rng.random()))
    for limit in (1, 10, 20, 2000):
        every = sorted(
            ((c, retrieval.proactive_score(c, NOW)) for c in candidates), key=lambda cs: retrieval.proactive_key(*cs)
        )
        assert retrieval.proactive_rank(candidates, NOW, limit) == every[:limit]


def test_file_opens_count_what_they_showed_when_flushed_not_on_the_open_path(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "a").mkdir(parents=True)
    (root / "a/x.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    with Workspace.open(root, embedder=None) as engine:
        mid = engine.remember("f returns one on purpose", type="gotcha", file="a/x.py", symbol="f").memory.id
        assert [h.memory.id for h in engine.proactive("a/x.py")] == [mid]
        assert engine.store.get(mid).surfaced_count == 0  # type: ignore[union-attr]
        engine.flush()
        assert engine.store.get(mid).surfaced_count == 1  # type: ignore[union-attr]


def test_a_query_of_common_words_is_ranked_among_the_newest_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the row budget FTS5 would score every match; the search keeps to a window of the newest."""
    from forewarn.memory import store_search as store_module
    from forewarn.memory.lifecycle import event

    monkeypatch.setattr(store_module, "MATCH_ROW_BUDGET", 50)
    store = MemoryStore(tmp_path / "m.db")
    rows = []
    for i in range(400):
        at = to_iso(1_700_000_000 + i)
        text = f"the handler returns value {i}" + (" zebra" if i == 3 else "")
        m = Memory(new_id(1_700_000_000 + i), "note", text, None, "user", 1.0, at, at)
        rows.append((m, [event(m.id, "created", at)]))
    store.insert_many(rows)
    top = max(m.num for m in store.iter_all())
    floor = store.match_floor(["handler", "returns"])
    assert floor is not None and top - 400 < floor < top  # a window of the newest
    assert store.match_floor(["zebra"]) is None  # a rare word: everything it matches is scored
    hits, _ = retrieval.lexical_candidates(store, "handler returns", MemoryFilter(), 10)
    assert len(hits) == 10 and all(n > floor for n, _ in hits)
    rare, _ = retrieval.lexical_candidates(store, "zebra", MemoryFilter(), 10)
    assert [store.by_nums([n])[n].text for n, _ in rare] == ["the handler returns value 3 zebra"]
    store.close()
