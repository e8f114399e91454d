"""The relevance floor on a large store: 5,000 memories from three real histories (issue 23).

Store: click, requests and express (``$FOREWARN_CORPORA``: the bundles), each mined over its whole history with
every suggestion accepted; then, per corpus, held-out pairs from the history — a commit's subject is the query,
the rest of its message (at least 8 words, cut at 400 characters) the memory that must be found — and, to reach
5,000, the subjects of other commits as further memories. Bots, version bumps and typo/lint commits give no pair;
a commit something was mined from gives none either (the mined memory holds its subject). Memories carry their
commit's date; now is the newest commit. Every memory is embedded with the installed model (through an embedding
cache in ``bench/.corpora/floor-scale``: reruns embed nothing).

Judged apart from tuned: the pairs of click and requests and ``offtopic_queries.txt`` (which calibrated the
shipped floor on another corpus) form the *tuning* set; express's pairs and ``offtopic_heldout.txt`` (written
before this store was measured) the *held-out* set. Each query is ranked once without a floor, every candidate
returned with its own cosine and word coverage, and every floor in the sweep is replayed over those candidates
exactly as ``retrieval.rank`` applies it. Printed per set and mode (hybrid, words only): the store's size and
make-up, R@10 without a floor, and for each floor the share of off-topic queries answered with nothing and R@10
with it (target, held-out, shipped floor: ≥ 80% empty, a drop of ≤ 2 points).

    .venv/bin/python bench/floor_scale_bench.py [--size 5000]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

import _history  # noqa: E402  (bench-local modules, found through the path set above)
from code_search_bench import BOT_RE, BUMP_RE, CHORE_RE  # noqa: E402  (the same history filters)

from forewarn import paths  # noqa: E402

WORK = BENCH_DIR / ".corpora" / "floor-scale"
HOME = WORK / "home"
CORPORA = ("click", "requests", "express")
HELD_OUT = ("express",)  # its pairs judge the floor; the other corpora's pairs may tune it
TUNING_OFFTOPIC = BENCH_DIR / "offtopic_queries.txt"
HELD_OUT_OFFTOPIC = BENCH_DIR / "offtopic_heldout.txt"
SIZE = 5_000
K = 10
SEED = 23
MIN_SUBJECT_WORDS = 4  # shorter subjects are titles ("Fix tests"), not questions
MIN_BODY_WORDS = 8  # a shorter body is a fragment, not a lesson
MAX_TEXT = 400
EMBED_BATCH = 64
EVERY = 10_000  # no k: every candidate comes back, so any floor can be replayed exactly
SWEEP_ANSWER_COSINE = (0.35, 0.40, 0.42, 0.45, 0.48, 0.50, 0.52, 0.55, 0.60)
SWEEP_WORDS_WITH_MEANING = (0.40, 0.50, 0.60, 0.70, 1.01)  # 1.01: meaning alone answers
SWEEP_ANSWER_WORDS = (0.25, 0.33, 0.40, 0.45, 0.50, 0.60)  # words only
TARGET_EMPTY, TARGET_DROP = 0.80, 0.02


@dataclass(frozen=True)
class Pair:
    corpus: str
    query: str
    answer: str  # the memory's text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=SIZE)
    args = parser.parse_args()
    os.environ.setdefault(paths.MODELS_ENV, str(paths.models_dir()))  # the installed model, before HOME moves
    os.environ[paths.HOME_ENV] = str(HOME)
    from forewarn.config import EmbedderSettings
    from forewarn.memory.embed_cache import CachedEmbedder, EmbeddingCache
    from forewarn.memory.embedder import EmbedderUnavailable, open_embedder

    try:
        embedder = CachedEmbedder(open_embedder(EmbedderSettings()), EmbeddingCache(WORK / "embeddings.db"))
    except EmbedderUnavailable as exc:
        sys.exit(f"floor_scale_bench needs the embedding model: {exc.reason}")
    mined: list[tuple[str, str, float]] = []  # corpus, text, date
    pairs: list[tuple[Pair, float]] = []
    filler: list[tuple[str, str, float]] = []
    for name in CORPORA:
        m, p, f = read_corpus(name)
        mined += m
        pairs += p
        filler += f
    rng = random.Random(SEED)
    rng.shuffle(filler)
    seen = {" ".join(t.lower().split()) for _, t, _ in mined} | {" ".join(p.answer.lower().split()) for p, _ in pairs}
    extra: list[tuple[str, str, float]] = []
    for corpus, text, at in filler:
        key = " ".join(text.lower().split())
        if len(mined) + len(pairs) + len(extra) >= args.size:
            break
        if key not in seen:
            seen.add(key)
            extra.append((corpus, text, at))
    rows = [(t, at) for _, t, at in mined] + [(p.answer, at) for p, at in pairs] + [(t, at) for _, t, at in extra]
    engine, now = build_store(embedder, rows)
    print(f"store: {engine.store.count():,} memories — {len(mined)} mined and accepted "
          f"({', '.join(f'{c} {sum(1 for x, _, _ in mined if x == c)}' for c in CORPORA)}), {len(pairs)} held-out "
          f"pair answers, {len(extra)} other commits' subjects")  # fmt: skip
    sets = {
        "tuning": ([p for p, _ in pairs if p.corpus not in HELD_OUT], offtopic(TUNING_OFFTOPIC)),
        "held-out": ([p for p, _ in pairs if p.corpus in HELD_OUT], offtopic(HELD_OUT_OFFTOPIC)),
    }
    verdict = ""
    for label, (real, off) in sets.items():
        print(f"\n== {label}: {len(real)} pair queries ({', '.join(sorted({p.corpus for p in real}))}), "
              f"{len(off)} off-topic queries")  # fmt: skip
        for mode in ("hybrid", "words only"):
            rows_out = sweep(engine, embedder, real, off, now, use_vector=mode == "hybrid")
            print(f"  {mode}: R@10 without a floor {rows_out[0][2]:.3f}")
            print(f"    {'floor':<58}{'off-topic empty':>16}{'R@10':>8}{'drop':>8}")
            for f_label, empty, r_without, r_with, shipped in rows_out:
                mark = "  ← shipped" if shipped else ""
                print(f"    {f_label:<58}{empty:>15.0%}{r_with:>8.3f}{(r_without - r_with) * 100:>7.1f}p{mark}")
                if shipped and label == "held-out" and mode == "hybrid":
                    ok = empty >= TARGET_EMPTY and r_without - r_with <= TARGET_DROP
                    verdict = (f"held-out, hybrid, shipped floor: {empty:.0%} off-topic empty (target ≥ "
                               f"{TARGET_EMPTY:.0%}), R@10 drop {(r_without - r_with) * 100:.1f} points (target ≤ "
                               f"{TARGET_DROP * 100:.0f}): {'PASS' if ok else 'FAIL'}")  # fmt: skip
    print(f"\nload average {os.getloadavg()[0]:.1f}\nTarget: {verdict}")
    engine.close()
    return 0


def read_corpus(
    name: str,
) -> tuple[list[tuple[str, str, float]], list[tuple[Pair, float]], list[tuple[str, str, float]]]:
    """Mined-and-accepted memories, held-out pairs and filler subjects of one corpus."""
    from forewarn.memory.records import MemoryFilter
    from forewarn.memory.text import from_iso
    from forewarn.workspace import mining
    from forewarn.workspace.engine import Workspace

    root = _history.clone(name)
    wdir = paths.workspace_dir(root)
    for f in ("memory.db", "memory.db-wal", "memory.db-shm", "vectors.hnsw", "vectors.json"):
        (wdir / f).unlink(missing_ok=True)
    started = time.perf_counter()
    with Workspace.open(root, embedder=None) as ws:
        ws.reindex()
        report = mining.mine(ws, hold_back=False)  # a large store is the point: everything mining finds
        for m in ws.store.list_memories(MemoryFilter(statuses=("suggested",)), limit=-1):
            ws.accept_suggestion(m.id)
        accepted = ws.store.list_memories(MemoryFilter(statuses=("active",)), limit=-1)
    used: set[str] = set()
    mined = []
    for m in accepted:
        for c in (m.provenance or {}).get("commits", []):
            used.add(str(c.get("sha", "")))
        dates = [str(c.get("date", "")) for c in (m.provenance or {}).get("commits", []) if c.get("date")]
        try:
            at = datetime.fromisoformat(max(dates)).timestamp() if dates else from_iso(m.created_at)
        except ValueError:  # a corrupt zone in an old commit ("+518:00"): the mining time stands in
            at = from_iso(m.created_at)
        mined.append((name, m.text, at))
    pairs, filler = [], []
    for c in _history.commits(root):
        if c.sha in used or BOT_RE.search(c.author):
            continue
        chore = BUMP_RE.search(c.subject) or CHORE_RE.search(c.subject)
        if not chore and len(c.subject.split()) >= MIN_SUBJECT_WORDS and len(c.body.split()) >= MIN_BODY_WORDS:
            pairs.append((Pair(name, c.subject, _cut(c.body)), c.at))
        elif len(c.subject.split()) >= 3:
            filler.append((name, c.subject, c.at))
    print(f"{name}: {report.commits_read} commits mined in {time.perf_counter() - started:.0f} s, "
          f"{len(mined)} accepted; {len(pairs)} pairs", file=sys.stderr)  # fmt: skip
    return mined, pairs, filler


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT].rsplit(" ", 1)[0]


def offtopic(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@dataclass
class Store:
    engine: object
    texts: dict[str, str]  # text -> memory id (the first memory with that text)

    @property
    def store(self) -> object:
        return self.engine.store  # type: ignore[attr-defined]

    def close(self) -> None:
        self.engine.close()  # type: ignore[attr-defined]


def build_store(embedder: object, rows: list[tuple[str, float]]) -> tuple[Store, float]:
    from forewarn.config import Settings
    from forewarn.memory.records import Memory
    from forewarn.memory.text import new_id, to_iso
    from forewarn.workspace.engine import Workspace

    ws_dir = WORK / "store-ws"
    ws_dir.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(paths.workspace_dir(ws_dir), ignore_errors=True)  # the store is rebuilt each run
    now = max(at for _, at in rows) + 86_400
    engine = Workspace.open(ws_dir, Settings(), embedder=embedder, clock=lambda: now, backfill_on_open=False)
    texts = [t for t, _ in rows]
    vectors = np.zeros((len(texts), embedder.dim), dtype=np.float32)  # type: ignore[attr-defined]
    started = time.perf_counter()
    for i in range(0, len(texts), EMBED_BATCH):
        vectors[i : i + EMBED_BATCH] = embedder.embed_documents(texts[i : i + EMBED_BATCH])  # type: ignore[attr-defined]
    print(f"  {len(texts)} memories embedded in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    memories = [
        (Memory(id=new_id(at), type="note", text=t, anchor=None, source="commit", confidence=0.8,
                created_at=to_iso(at), updated_at=to_iso(at)), [])
        for t, at in rows
    ]  # fmt: skip
    stored = engine.store.insert_many(memories)
    assert engine.vectors is not None
    engine.vectors.add([m.num for m in stored], vectors)
    first: dict[str, str] = {}
    for m in stored:
        first.setdefault(m.text, m.id)
    return Store(engine, first), now


def sweep(
    engine: Store, embedder: object, real: list[Pair], off: list[str], now: float, *,
    use_vector: bool,
) -> list[tuple[str, float, float, float, bool]]:  # fmt: skip
    """(floor, off-topic empty share, R@10 without a floor, R@10 with it, shipped?) for every floor of the sweep."""
    from forewarn.memory import retrieval
    from forewarn.memory.records import MemoryFilter

    ws = engine.engine
    params = retrieval.SearchParams(k=EVERY, flt=MemoryFilter(), now=now, use_vector=use_vector,
                                    floor=retrieval.NO_FLOOR)  # fmt: skip

    def pool(query: str) -> list[retrieval.ScoredMemory]:
        qvec = embedder.embed_query(query) if use_vector else None  # type: ignore[attr-defined]
        return retrieval.rank(ws.store, ws.vectors, query, qvec, params, time.perf_counter).hits  # type: ignore[attr-defined]

    real_pools = [(p.answer, pool(p.query)) for p in real]
    off_pools = [pool(q) for q in off]
    shipped = retrieval.Floor()
    if use_vector:
        grid = [dataclasses.replace(shipped, answer_cosine=c) for c in SWEEP_ANSWER_COSINE]
        grid += [dataclasses.replace(shipped, answer_words_with_meaning=w) for w in SWEEP_WORDS_WITH_MEANING]
    else:
        grid = [dataclasses.replace(shipped, answer_words=w) for w in SWEEP_ANSWER_WORDS]
    grid = [shipped] + [f for f in grid if f != shipped]
    without = sum(answer in [h.memory.text for h in hits[:K]] for answer, hits in real_pools) / max(1, len(real))
    out = []
    for f in grid:
        with_floor = sum(answer in [h.memory.text for h in f.kept(hits)[:K]] for answer, hits in real_pools)
        empty = sum(not f.kept(hits) for hits in off_pools) / max(1, len(off))
        out.append((label(f, use_vector), empty, without, with_floor / max(1, len(real)), f == shipped))
    return out


def label(f: object, meaning: bool) -> str:
    if meaning:
        return (f"cosine {f.answer_cosine:.2f}/{f.result_cosine:.2f}, words with meaning "  # type: ignore[attr-defined]
                f"{f.answer_words_with_meaning:.2f}")  # type: ignore[attr-defined]  # fmt: skip
    return f"words {f.answer_words:.2f}/{f.result_words:.2f}, {f.answer_terms} words"  # type: ignore[attr-defined]


if __name__ == "__main__":
    sys.exit(main())
