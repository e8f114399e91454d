"""Can the embedding model tell a claim from its denial? A probe behind issue 23's contradiction target.

    python bench/negation_probe.py            # every labelled set in tests/memory/data
    python bench/negation_probe.py --pairs FILE.tsv

The word rules find about 70% of a new writer's contradictions; what they miss is mostly polarity said in
other words ("invalidated on every write" / "nothing evicts it on update"). If the model read polarity, a
newer text that contradicts an older one would sit closer to the older one's denial than to the older one
itself. For every labelled pair this embeds the older text, the newer text and two denials of the older
text (``not`` after its first auxiliary verb, and "It is not true that …"), and prints the area under the
ROC curve (0.5: no signal; 1.0: every conflict above every compatible pair) of:

- ``cosine``: how close the two texts are (high for conflicts too: they talk about the same thing);
- ``denial shift``: cos(newer, denial of older) − cos(newer, older), for each way of denying;

over all pairs, and over what the word rules leave: the conflicts they miss against the compatible pairs
they rightly pass, which is where a model would have to add something, and how many of those misses a
threshold on each signal would catch while flagging at most 5% of the compatible pairs the rules pass.
Needs the default embedding model.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(0, str(BENCH_DIR.parent))

from _stats import auc  # noqa: E402
from contradiction_bench import DATA, Pair, load_pairs  # noqa: E402

PROBE_FALSE_ALARMS = 0.05  # issue 23's ceiling on false alarms: what a signal may add on top of the rules
AUXILIARY = re.compile(r"\b(is|are|was|were|does|do|did|will|can|must|should|has|have|may)\b", re.IGNORECASE)


def deny_auxiliary(text: str) -> str:
    """``not`` after the first auxiliary verb; a text without one gets ``not`` in front."""
    m = AUXILIARY.search(text)
    return f"{text[: m.end()]} not{text[m.end() :]}" if m else f"not {text}"


def deny_sentence(text: str) -> str:
    return f"It is not true that {text}"


def caught_at(scores: list[float], positive: list[bool], false_alarms: float) -> float:
    """Share of positives above the threshold that lets through at most ``false_alarms`` of the negatives."""
    neg = sorted((s for s, p in zip(scores, positive, strict=True) if not p), reverse=True)
    pos = [s for s, p in zip(scores, positive, strict=True) if p]
    if not pos or not neg:
        return float("nan")
    threshold = neg[int(false_alarms * len(neg))]
    return sum(1 for s in pos if s > threshold) / len(pos)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=Path, action="append", help="a TSV set (default: every set in tests)")
    args = parser.parse_args()
    import numpy as np

    from forewarn.config import EmbedderSettings
    from forewarn.memory.contradictions import anchor_words, judge
    from forewarn.memory.embedder import EmbedderUnavailable, open_embedder

    paths = args.pairs or sorted(DATA.glob("contradictions*.tsv"))
    pairs: list[Pair] = [p for path in paths for p in load_pairs(path)]
    try:
        embedder = open_embedder(EmbedderSettings())
    except EmbedderUnavailable as exc:
        sys.exit(f"negation_probe: no embedding model ({exc.reason})")

    def embed(texts: list[str]) -> np.ndarray:
        return np.asarray(embedder.embed_documents(texts))

    old, new = embed([p.old for p in pairs]), embed([p.new for p in pairs])
    cosine = (old * new).sum(axis=1)
    shifts = {
        name: (embed([deny(p.old) for p in pairs]) * new).sum(axis=1) - cosine
        for name, deny in (("not after the auxiliary", deny_auxiliary), ("it is not true that", deny_sentence))
    }
    conflict = [p.label == "conflict" for p in pairs]
    flagged = [judge(p.new, p.old, anchor=anchor_words(p.symbol)) is not None for p in pairs]
    left = [i for i, f in enumerate(flagged) if not f]  # missed conflicts and rightly passed compatible pairs
    print(f"{len(pairs)} pairs from {len(paths)} sets: {sum(conflict)} conflicts; the word rules pass {len(left)}")
    print(f"{'signal':<36} {'AUC, all pairs':>15} {'AUC, what the words leave':>26} {'misses caught at 5% alarms':>27}")
    rows = [("cosine", cosine)] + [(f"denial shift ({name})", s) for name, s in shifts.items()]
    for name, scores in rows:
        every = auc([float(x) for x in scores], conflict)
        scores_left, conflict_left = [float(scores[i]) for i in left], [conflict[i] for i in left]
        rest = auc(scores_left, conflict_left)
        caught = caught_at(scores_left, conflict_left, PROBE_FALSE_ALARMS)
        print(f"{name:<36} {every:>15.3f} {rest:>26.3f} {caught:>27.1%}")


if __name__ == "__main__":
    main()
