"""The memory database: schema, FTS5 sync, safe queries, filters, corruption and version handling."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forewarn.errors import ForewarnError
from forewarn.memory import store_anchored
from forewarn.memory.errors import AmbiguousMemoryIdError, MemoryDatabaseCorruptError, MemoryNotFoundError
from forewarn.memory.records import Anchor, Memory, MemoryFilter
from forewarn.memory.retrieval import matches_filter
from forewarn.memory.store import MemoryStore
from forewarn.memory.text import fts_match_expression, new_id, to_iso
from forewarn.memory.vocabulary import MemoryStatus
from forewarn.sqlite import SchemaTooNewError

T0 = 1_700_000_000.0


def make(text: str, *, at: float = T0, anchor: Anchor | None = None, **kw: object) -> Memory:
    iso = to_iso(at)
    fields: dict[str, object] = {"type": "gotcha", "source": "user", "confidence": 1.0}
    fields.update(kw)
    return Memory(id=new_id(at), text=text, anchor=anchor, created_at=iso, updated_at=iso, **fields)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    s = MemoryStore(tmp_path / "memory.db")
    yield s
    s.close()


def search(store: MemoryStore, query: str, flt: MemoryFilter = MemoryFilter()) -> list[str]:
    match = fts_match_expression(query)
    if match is None:
        return []
    found = store.fts_candidates(match, flt, 20)
    by_num = store.by_nums([n for n, _ in found])
    return [by_num[n].text for n, _ in found]


def test_database_file_is_private(store: MemoryStore) -> None:
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600


def test_insert_get_and_prefix_resolution(store: MemoryStore) -> None:
    m = store.insert(
        make("Retry the upload at most twice", anchor=Anchor("a/b.py", "Up.send", 3, 9, "h1"), tags=("io",))
    )
    assert m.num > 0
    got = store.get(m.id)
    assert got == m
    assert store.resolve(m.id[:20].lower()) == m
    with pytest.raises(MemoryNotFoundError):
        store.resolve("ZZZZZZZZ")
    with pytest.raises(MemoryNotFoundError, match="not a memory id"):
        store.resolve("no such thing!")


def test_an_ambiguous_prefix_names_the_matches(store: MemoryStore) -> None:
    a, b = store.insert(make("first lesson")), store.insert(make("second lesson"))  # same time: same id prefix
    prefix = a.id[:8]
    assert b.id.startswith(prefix)
    with pytest.raises(AmbiguousMemoryIdError, match="give more of the id") as caught:
        store.resolve(prefix)
    assert a.id in str(caught.value) and b.id in str(caught.value)
    assert isinstance(caught.value, ForewarnError) and isinstance(caught.value, MemoryNotFoundError)


def test_compound_identifiers_match_their_words(store: MemoryStore) -> None:
    store.insert(make("useTerminalStore drops the last line on resize"))
    store.insert(make("unrelated note about the database pool"))
    store.insert(make("snake_case_handler swallows errors", anchor=Anchor("src/TerminalView.ts", "renderAll")))
    # any word may match (OR), BM25 puts the memory matching both first
    assert search(store, "terminal store")[0] == "useTerminalStore drops the last line on resize"
    assert search(store, "useTerminalStore")[0] == "useTerminalStore drops the last line on resize"
    assert search(store, "case handler") == ["snake_case_handler swallows errors"]
    assert search(store, "render all") == ["snake_case_handler swallows errors"]  # the anchored symbol, split
    assert search(store, "terminal view")[0] == "snake_case_handler swallows errors"  # the anchored path, split
    assert search(store, "database") == ["unrelated note about the database pool"]


def test_fts_follows_anchor_and_text_changes(store: MemoryStore) -> None:
    m = store.insert(make("cache invalidation order matters", anchor=Anchor("old_module.py")))
    assert search(store, "old_module")
    store.update_anchor(m.id, Anchor("fresh/place.py"), at=to_iso(T0 + 1), event=None)
    assert search(store, "old_module") == []
    assert search(store, "fresh place") == ["cache invalidation order matters"]
    store.replace_memory(Memory(**{**_fields(store.get(m.id)), "text": "eviction order matters"}))  # type: ignore[arg-type]
    assert search(store, "invalidation") == []
    assert search(store, "eviction") == ["eviction order matters"]
    assert store.conn.execute("INSERT INTO memory_fts(memory_fts) VALUES ('integrity-check')") is not None


def _fields(m: Memory | None) -> dict[str, object]:
    assert m is not None
    return {f: getattr(m, f) for f in m.__dataclass_fields__}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=300) | st.sampled_from(['"', "NEAR(a b)", "a AND", "*", "col:x", "(", "a OR", "^x", "-"]))
def test_any_text_is_a_valid_search(store: MemoryStore, query: str) -> None:
    if not store.count():
        store.insert(make("a memory with words AND operators NEAR it"))
    search(store, query)  # must not raise


def test_filters_in_sql_and_python_agree(store: MemoryStore) -> None:
    rows = [
        make("one", at=T0, type="gotcha", anchor=Anchor("pkg/a.py"), tags=("x",)),
        make("two", at=T0 + 100, type="decision", anchor=Anchor("pkg/sub/b.py")),
        make("three", at=T0 + 200, type="gotcha", anchor=Anchor("pkga.py")),
        make("four", at=T0 + 300, type="todo", status="superseded", ended_at=to_iso(T0 + 400)),
        make("five", at=T0 + 400, type="gotcha", status="archived", ended_at=to_iso(T0 + 450), tags=("x", "y")),
    ]
    store.insert_many([(m, []) for m in rows])
    filters = [
        MemoryFilter(),
        MemoryFilter(types=("gotcha",)),
        MemoryFilter(file="pkg"),
        MemoryFilter(file="pkg/"),
        MemoryFilter(file="pkg/a.py"),
        MemoryFilter(file="pkg/a.py", file_only=True),
        MemoryFilter(file="pkg", file_only=True),  # a folder named as a file matches nothing
        MemoryFilter(since=to_iso(T0 + 150)),
        MemoryFilter(as_of=to_iso(T0 + 350)),
        MemoryFilter(as_of=to_iso(T0 + 420), statuses=("active",)),
        MemoryFilter(tags=("x",), statuses=()),
        MemoryFilter(statuses=("superseded", "archived")),
    ]
    all_rows = list(store.iter_all())
    for flt in filters:
        in_sql = {m.text for m in store.list_memories(flt, limit=100)}
        in_python = {m.text for m in all_rows if matches_filter(m, flt)}
        assert in_sql == in_python, flt
    assert {m.text for m in store.list_memories(MemoryFilter(file="pkg"), limit=100)} == {"one", "two"}
    assert {m.text for m in store.list_memories(MemoryFilter(file="pkg/a.py", file_only=True), limit=100)} == {"one"}
    assert store.list_memories(MemoryFilter(file="pkg", file_only=True), limit=100) == []
    # as of T0+350 "four" was still current (superseded only at T0+400)
    assert {m.text for m in store.list_memories(MemoryFilter(as_of=to_iso(T0 + 350)), limit=100)} == {
        "one",
        "two",
        "three",
        "four",
    }


def test_vectors_round_trip_and_state(store: MemoryStore) -> None:
    a = store.insert(make("alpha"))
    b = store.insert(make("beta"))
    va = np.arange(4, dtype=np.float32)
    store.put_vectors("m1", [(a.num, va), (b.num, va + 1)])
    assert store.vector_state("m1") == (2, 2)
    store.put_vectors("m1", [(a.num, va * 2)])  # replacing keeps one row per memory, with a new vec_id
    count, last = store.vector_state("m1")
    assert (count, last) == (2, 3)
    assert np.array_equal(store.vectors_for("m1", [a.num])[a.num], va * 2)
    assert store.nums_without_vector("m2") == [(a.num, "alpha"), (b.num, "beta")]
    batches = list(store.iter_vectors("m1", after_vec_id=2))
    assert [nums for nums, _, _ in batches] == [[a.num]]


def test_corrupt_database_is_reported_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    path.write_bytes(b"this is not sqlite, but it is somebody's data" * 100)
    before = path.read_bytes()
    with pytest.raises(MemoryDatabaseCorruptError) as info:
        MemoryStore(path)
    assert str(path) in str(info.value)
    assert info.value.path == path
    assert path.read_bytes() == before


def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    MemoryStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO _migrations VALUES ('m999_from_the_future', 'now')")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(SchemaTooNewError, match="newer Forewarn"):
        MemoryStore(path)
    assert path.read_bytes() == before


def test_reopening_keeps_every_memory(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    s = MemoryStore(path)
    ids = [s.insert(make(f"memory {i}")).id for i in range(30)]
    s.close()
    s = MemoryStore(path)
    assert sorted(m.id for m in s.iter_all()) == sorted(ids)
    s.close()


def test_an_older_database_is_upgraded_keeping_its_memories(tmp_path: Path) -> None:
    from forewarn.memory.store import MIGRATIONS
    from forewarn.sqlite import connect, migrate

    path = tmp_path / "memory.db"
    conn = connect(path)
    migrate(conn, MIGRATIONS[:1], what="memory database")  # as the first release left it
    conn.execute(
        """INSERT INTO memories (id, type, text, file, source, confidence, created_at, updated_at, status)
           VALUES (?, 'gotcha', 'written by an older Forewarn', 'a.py', 'user', 1.0, ?, ?, 'active')""",
        (new_id(T0), to_iso(T0), to_iso(T0)),
    )
    conn.close()
    s = MemoryStore(path)
    try:
        names = [r[0] for r in s.conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
        assert names == [m.name for m in MIGRATIONS]
        assert [m.text for m in s.iter_all()] == ["written by an older Forewarn"]
        assert search(s, "older") == ["written by an older Forewarn"]
        assert [r.file for r in s.anchored_refs(["a.py"])] == ["a.py"]
    finally:
        s.close()


def test_neighbour_rows_are_filtered_by_symbol_and_capped_newest_first(store: MemoryStore) -> None:
    def on(symbol: str | None, k: int) -> Memory:
        return make(f"note {symbol} {k}", at=T0 + k, anchor=Anchor("db.py", symbol))

    store.insert_many([(on("connect", k), []) for k in range(6)] + [(on("unused", k), []) for k in range(3)])
    store.insert(on(None, 99))
    store.insert(make("elsewhere", anchor=Anchor("other.py", "connect")))
    assert sorted(store.symbols_in(["db.py"])["db.py"], key=str) == sorted(["connect", "unused", None], key=str)
    rows = store.neighbour_refs({"db.py": ["connect", None]}, per_file=4)
    assert [(r.symbol, r.created_at) for r in rows] == [
        (None, to_iso(T0 + 99)),
        *[("connect", to_iso(T0 + k)) for k in (5, 4, 3)],
    ]
    assert [r.symbol for r in store.neighbour_refs({"db.py": ["unused"]})] == ["unused"] * 3
    assert store.neighbour_refs({"db.py": []}) == []


def _reads_of(store: MemoryStore, files: list[str]) -> int:
    """How many statements ``recent_refs(files)`` ran against the memories (0: all from its cache)."""
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        store.recent_refs(files)
    finally:
        store.conn.set_trace_callback(None)
    return sum("memories_file_recent" in q for q in statements)


def test_recent_refs_are_the_neighbour_rows_in_the_same_order_ties_included(store: MemoryStore) -> None:
    memories = [
        make(f"note {k}", at=T0 + k // 3, anchor=Anchor("db.py", ["connect", "close", None][k % 3])) for k in range(9)
    ]
    store.insert_many([(m, []) for m in memories])
    store.insert(make("superseded", at=T0 + 50, anchor=Anchor("db.py", "connect"), status="superseded"))
    store.insert(make("elsewhere", anchor=Anchor("other.py", "connect")))
    refs = store.recent_refs(["db.py"])["db.py"]
    assert refs is not None and len(refs) == 9  # the superseded one is not anchored any more
    assert list(refs) == store.neighbour_refs({"db.py": ["connect", "close", None]}, per_file=100)
    assert [r.created_at for r in refs] == sorted((r.created_at for r in refs), reverse=True)


def test_recent_refs_stay_cached_until_the_database_changes(store: MemoryStore, tmp_path: Path) -> None:
    first = make("connect retries twice", anchor=Anchor("db.py", "connect"))
    store.insert(first)
    cached = store.recent_refs(["db.py"])["db.py"]
    assert _reads_of(store, ["db.py"]) == 0 and store.recent_refs(["db.py"])["db.py"] is cached
    store.record_surfaced([first.id])  # no cached row shows the surfaced count: still valid
    assert _reads_of(store, ["db.py"]) == 0
    store.record_access([first.id], to_iso(T0 + 5))  # the access time ranks opens: read again
    assert [r.last_accessed_at for r in store.recent_refs(["db.py"])["db.py"] or ()] == [to_iso(T0 + 5)]
    store.update_status(first.id, MemoryStatus.ARCHIVED, at=to_iso(T0 + 6))
    assert store.recent_refs(["db.py"])["db.py"] == ()
    other = MemoryStore(tmp_path / "memory.db")  # another process's connection: seen through data_version
    try:
        other.insert(make("close must run in finally", at=T0 + 7, anchor=Anchor("db.py", "close")))
    finally:
        other.close()
    assert [r.symbol for r in store.recent_refs(["db.py"])["db.py"] or ()] == ["close"]


def test_recent_refs_leave_crowded_files_to_the_indexes_and_stay_bounded(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_anchored, "FILE_REFS_CACHE_FILE_MAX", 3)
    monkeypatch.setattr(store_anchored, "FILE_REFS_CACHE_ROWS", 5)
    for k, file in enumerate(["a.py", "a.py", "b.py", "b.py", "c.py", "c.py", "c.py", "d.py", "d.py", "d.py", "d.py"]):
        store.insert(make(f"note {k}", at=T0 + k, anchor=Anchor(file, "f")))
    got = store.recent_refs(["a.py", "b.py", "d.py"])
    assert [len(got[f] or ()) for f in ("a.py", "b.py")] == [2, 2] and got["d.py"] is None  # four: too many
    assert _reads_of(store, ["a.py", "b.py", "d.py"]) == 0
    store.recent_refs(["c.py"])  # 2 + 2 + 3 rows > 5: the least recently used file (a.py) goes
    assert _reads_of(store, ["b.py", "c.py"]) == 0
    assert _reads_of(store, ["a.py"]) == 1


def test_recent_refs_refuse_a_damaged_database_like_every_read(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    s = MemoryStore(path)
    try:
        s.insert(make("kept", anchor=Anchor("db.py", "connect")))
        s.recent_refs(["db.py"])
        s._guard.refuse(sqlite3.DatabaseError("database disk image is malformed"))  # as the guard does on damage
    except MemoryDatabaseCorruptError:
        pass
    with pytest.raises(MemoryDatabaseCorruptError):
        s.recent_refs(["db.py"])


def test_capped_neighbour_query_walks_an_index_without_sorting(store: MemoryStore) -> None:
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)  # the statement as run, bound values filled in
    store.neighbour_refs({"db.py": ["connect", None]})
    store.conn.set_trace_callback(None)
    query = next(q for q in statements if "memories_file_recent" in q)
    plan = " ".join(str(r[-1]) for r in store.conn.execute("EXPLAIN QUERY PLAN " + query))
    assert "COVERING INDEX memories_file_recent" in plan and "TEMP B-TREE" not in plan
