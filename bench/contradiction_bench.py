"""Contradiction detection on remember: detection and false-alarm rates on a labelled set of pairs.

    python bench/contradiction_bench.py              # words only, then with the embedding model if installed
    python bench/contradiction_bench.py --lexical    # words only
    python bench/contradiction_bench.py -v           # also list every miss and false alarm

The set, ``tests/memory/data/contradictions.tsv``, holds pairs of memories on one anchor (file::symbol):
an older text and a newer one, labelled ``conflict`` (the newer says the older is no longer true:
negation, replacement, a changed value, an antonym, or several) or ``compatible`` (an elaboration,
another aspect of the same function, a restatement), with the kind of each. Detection rate: conflicts
flagged / conflicts; false-alarm rate: compatible pairs flagged / compatible pairs (target: ≥ 80% and
≤ 10%). With the model, each pair's cosine (MiniLM, the default embedder) joins the words, as on
``Workspace.remember`` in hybrid mode. Figures also go to ``bench/results/contradiction_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
sys.path.insert(0, str(REPO_DIR))  # run as a script from anywhere: forewarn from this checkout
DATA = REPO_DIR / "tests" / "memory" / "data"
PAIRS = DATA / "contradictions.tsv"  # the rules and thresholds were set on this set
HELD_OUT = DATA / "contradictions_heldout.tsv"  # written after they were fixed, never tuned on
RESULTS = BENCH_DIR / "results" / "contradiction_bench.json"
OLD_CANDIDATE_COSINE = 0.85  # remember's supersede candidates before the detector (the old lifecycle rule)


@dataclass(frozen=True)
class Pair:
    label: str  # "conflict" or "compatible"
    kind: str
    file: str
    symbol: str
    old: str
    new: str


def load_pairs(path: Path = PAIRS) -> list[Pair]:
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        label, kind, anchor, old, new = line.split("\t")
        file, _, symbol = anchor.partition("::")
        pairs.append(Pair(label, kind, file, symbol, old, new))
    return pairs


def evaluate(pairs: list[Pair], cosines: list[float] | None = None) -> dict[str, object]:
    from forewarn.memory.contradictions import anchor_words, judge

    flagged: list[bool] = []
    cues: Counter[str] = Counter()
    for i, p in enumerate(pairs):
        v = judge(p.new, p.old, anchor=anchor_words(p.symbol), cosine=cosines[i] if cosines else None)
        flagged.append(v is not None)
        if v is not None and p.label == "conflict":
            cues.update(v.cues)
    by_kind: dict[str, list[int]] = {}
    for p, f in zip(pairs, flagged, strict=True):
        hit = by_kind.setdefault(f"{p.label}/{p.kind}", [0, 0])
        hit[0] += int(f)
        hit[1] += 1
    conflicts = [f for p, f in zip(pairs, flagged, strict=True) if p.label == "conflict"]
    compatible = [f for p, f in zip(pairs, flagged, strict=True) if p.label == "compatible"]
    return {
        "conflicts": len(conflicts),
        "compatible": len(compatible),
        "detection": sum(conflicts) / len(conflicts),
        "false_alarms": sum(compatible) / len(compatible),
        "by_kind": {k: {"flagged": v[0], "of": v[1]} for k, v in sorted(by_kind.items())},
        "cues_on_conflicts": dict(cues.most_common()),
        "misses": [(p.old, p.new) for p, f in zip(pairs, flagged, strict=True) if p.label == "conflict" and not f],
        "false": [(p.old, p.new) for p, f in zip(pairs, flagged, strict=True) if p.label == "compatible" and f],
    }


def cosine_only(pairs: list[Pair], cosines: list[float]) -> dict[str, float]:
    """The rule remember used before contradictions were detected: a supersede candidate above this cosine."""
    conflicts = [c > OLD_CANDIDATE_COSINE for c, p in zip(cosines, pairs, strict=True) if p.label == "conflict"]
    compatible = [c > OLD_CANDIDATE_COSINE for c, p in zip(cosines, pairs, strict=True) if p.label == "compatible"]
    out = {"detection": sum(conflicts) / len(conflicts), "false_alarms": sum(compatible) / len(compatible)}
    print(
        f"  {'cosine>' + str(OLD_CANDIDATE_COSINE):<11} detection {out['detection']:.1%}, false alarms "
        f"{out['false_alarms']:.1%} (the supersede candidates remember listed before, for comparison)"
    )
    return out


def model_cosines(pairs: list[Pair]) -> list[float] | None:
    import numpy as np

    from forewarn.config import EmbedderSettings
    from forewarn.memory.embedder import EmbedderUnavailable, open_embedder

    try:
        embedder = open_embedder(EmbedderSettings())
    except EmbedderUnavailable as exc:
        print(f"(no embedding model: {exc.reason}; words only)")
        return None
    old = np.asarray(embedder.embed_documents([p.old for p in pairs]))
    new = np.asarray(embedder.embed_documents([p.new for p in pairs]))
    return [float(x) for x in (old * new).sum(axis=1)]


def report(name: str, result: dict[str, object], verbose: bool) -> None:
    print(
        f"  {name:<11} detection {result['detection']:.1%} of {result['conflicts']} conflicts, "
        f"false alarms {result['false_alarms']:.1%} of {result['compatible']} compatible pairs"
    )
    by_kind = result["by_kind"]
    assert isinstance(by_kind, dict)
    print("              " + ", ".join(f"{k} {v['flagged']}/{v['of']}" for k, v in by_kind.items()))
    if verbose:
        for what in ("misses", "false"):
            items = result[what]
            assert isinstance(items, list)
            for old, new in items:
                print(f"  {what:<6} {old!r} -> {new!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lexical", action="store_true", help="words only (skip the embedding model)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list misses and false alarms")
    args = parser.parse_args()
    out: dict[str, object] = {}
    for name, path in (("tuning set", PAIRS), ("held out", HELD_OUT)):
        pairs = load_pairs(path)
        print(f"{name} ({path.relative_to(REPO_DIR)})")
        lexical = evaluate(pairs)
        report("words", lexical, args.verbose)
        result: dict[str, object] = {"lexical": lexical}
        if not args.lexical:
            cosines = model_cosines(pairs)
            if cosines is not None:
                hybrid = evaluate(pairs, cosines)
                report("words+model", hybrid, args.verbose)
                result["hybrid"] = hybrid
                result["cosine_only"] = cosine_only(pairs, cosines)
                labels = [p.label for p in pairs]
                for label in ("conflict", "compatible"):
                    cs = sorted(c for c, lab in zip(cosines, labels, strict=True) if lab == label)
                    tail = ("p10", cs[len(cs) // 10]) if label == "conflict" else ("p90", cs[len(cs) * 9 // 10])
                    print(f"              cosine {label}: median {cs[len(cs) // 2]:.2f}, {tail[0]} {tail[1]:.2f}")
        out[str(path.relative_to(REPO_DIR))] = result
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
