"""Could a model learned from every writer's pairs find what the word rules miss? A probe behind issue 23.

    python bench/contradiction_learned_probe.py            # every labelled set in tests/memory/data
    python bench/contradiction_learned_probe.py --words    # words only (no embedding model needed)

The word rules reach 90–100% on the sets they were built from and about 70% on a new writer's (the first runs in
``contradiction_bench.py``'s comments: 42–81%, mean 68%). Each set in ``tests/memory/data`` was written by a
different writer, so the sets are a natural test of whether something learned from some writers carries to
another. Leave one writer out: a logistic regression (L2, ``_logistic.fit``) is fitted on every other set
and scored on the one left out, for three kinds of features:

- ``words``: which words only the newer text says, and which only the older one says (each a feature; the
  vocabulary is the words in at least VOCABULARY_MIN_PAIRS training pairs, so the held-out writer's own words
  are not in it unless others used them too);
- ``vectors``: the two texts' embeddings (default model, MiniLM) combined as u·v, |u−v|, v−u and the cosine;
- ``both``.

For each held-out set the threshold is the one that flags FALSE_ALARMS of the training sets' compatible pairs, each
scored by a model fitted without its writer (INNER_FOLDS groups of the training writers), and
it prints detection and false alarms on the held-out set and its ROC AUC, then their means over every set and over
the blind ones (written by other sessions; the other two were written with the rules). If a learned model
cannot beat the rules' first runs here, another writer's paraphrase needs a model that reads entailment, not more
pairs of this kind.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from functools import partial
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(0, str(BENCH_DIR.parent))

import numpy as np  # noqa: E402
from _logistic import fit, predict  # noqa: E402
from _stats import auc  # noqa: E402
from contradiction_bench import DATA, Pair, load_pairs  # noqa: E402

FALSE_ALARMS = 0.05  # issue 23's ceiling: the threshold flags this share of the training writers' compatible pairs
VOCABULARY_MIN_PAIRS = 4  # a word in fewer training pairs is one writer's, not a cue that carries
INNER_FOLDS = 3  # the training writers' groups whose held-out scores set the threshold
C = 0.5  # inverse regularisation strength: the summed-loss twin of a mean-loss L2 of 1e-3 on ~2,000 pairs
WORD = re.compile(r"[a-z]+|\d+")


def words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def word_features(pair: Pair) -> set[str]:
    """ "+w" for a word only the newer text says, "-w" for one only the older says."""
    old, new = words(pair.old), words(pair.new)
    return {f"+{w}" for w in new - old} | {f"-{w}" for w in old - new}


def word_matrix(feats: list[set[str]], rows: np.ndarray, vocabulary: dict[str, int]) -> np.ndarray:
    m = np.zeros((len(rows), len(vocabulary)))
    for i, r in enumerate(rows):
        for f in feats[r]:
            j = vocabulary.get(f)
            if j is not None:
                m[i, j] = 1.0
    return m


def features(
    kind: str, rows: np.ndarray, *, feats: list[set[str]], vocabulary: dict[str, int], vectors: np.ndarray | None
) -> np.ndarray:
    """The rows' features of one kind: words, vectors or both."""
    parts = [word_matrix(feats, rows, vocabulary)] if kind in ("words", "both") else []
    if kind in ("vectors", "both") and vectors is not None:
        parts.append(vectors[rows])
    return np.hstack(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", action="store_true", help="words only: skip the embedding model")
    args = parser.parse_args()
    paths = sorted(DATA.glob("contradictions*.tsv"))
    pairs: list[Pair] = []
    writer: list[str] = []
    for path in paths:
        for p in load_pairs(path):
            pairs.append(p)
            writer.append(path.stem.removeprefix("contradictions").lstrip("_") or "tuning")
    y = np.array([p.label == "conflict" for p in pairs], dtype=float)
    groups = np.array(writer)
    feats = [word_features(p) for p in pairs]
    vectors: np.ndarray | None = None
    if not args.words:
        from forewarn.config import EmbedderSettings
        from forewarn.memory.embedder import EmbedderUnavailable, open_embedder

        try:
            embedder = open_embedder(EmbedderSettings())
        except EmbedderUnavailable as exc:
            sys.exit(f"contradiction_learned_probe: no embedding model ({exc.reason}); --words runs without it")
        u = np.asarray(embedder.embed_documents([p.old for p in pairs]))
        v = np.asarray(embedder.embed_documents([p.new for p in pairs]))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        vectors = np.hstack([u * v, np.abs(u - v), v - u, (u * v).sum(axis=1, keepdims=True)])
    kinds = ["words"] + ([] if vectors is None else ["vectors", "both"])
    print(f"{len(pairs)} pairs by {len(set(writer))} writers; each writer left out in turn")
    print(f"{'left out':<10}" + "".join(f"{k + ': det / fa / AUC':>28}" for k in kinds))
    totals: dict[str, list[tuple[float, float, float]]] = {k: [] for k in kinds}
    held_out = sorted(set(writer), key=lambda w: (len(w), w))
    for held in held_out:
        train, test = np.flatnonzero(groups != held), np.flatnonzero(groups == held)
        seen = Counter(f for r in train for f in feats[r])
        vocabulary = {f: j for j, f in enumerate(sorted(f for f, c in seen.items() if c >= VOCABULARY_MIN_PAIRS))}
        line = f"{held:<10}"
        others = sorted(set(groups[train]))
        for kind in kinds:
            design = partial(features, kind, feats=feats, vocabulary=vocabulary, vectors=vectors)
            # the threshold from scores the model did not fit (training writers in INNER_FOLDS groups, each scored by
            # a model fitted on the rest): a model's scores on its own training pairs flag too few of them
            unseen = []
            for k in range(INNER_FOLDS):
                inner = np.isin(groups[train], others[k::INNER_FOLDS])
                w = fit(design(train[~inner]), y[train[~inner]], C)
                unseen.append(predict(w, design(train[inner & (y[train] == 0)])))
            threshold = float(np.quantile(np.concatenate(unseen), 1.0 - FALSE_ALARMS))
            s_test = predict(fit(design(train), y[train], C), design(test))
            flagged = s_test > threshold
            det = float(flagged[y[test] == 1].mean())
            fa = float(flagged[y[test] == 0].mean())
            area = auc([float(s) for s in s_test], [bool(t) for t in y[test]])
            totals[kind].append((det, fa, area))
            line += f"{f'{det:.1%} / {fa:.1%} / {area:.2f}':>28}"
        print(line)
    blind = [i for i, w in enumerate(held_out) if w.startswith("blind")]  # written by others, blind to the rules
    for label, picked in (("mean", range(len(held_out))), ("blind sets", blind)):
        line = f"{label:<10}"
        for kind in kinds:
            det, fa, area = (float(np.mean([totals[kind][i][n] for i in picked])) for n in range(3))
            line += f"{f'{det:.1%} / {fa:.1%} / {area:.2f}':>28}"
        print(line)


if __name__ == "__main__":
    main()
