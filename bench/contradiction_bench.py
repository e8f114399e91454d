"""Contradiction detection on remember: detection and false-alarm rates on labelled sets of pairs.

    python bench/contradiction_bench.py                    # the tuning set, the old held-out set, blind1-14
    python bench/contradiction_bench.py --pairs FILE.tsv   # any set in the same columns (repeatable)
    python bench/contradiction_bench.py --lexical          # words only (skip the embedding model)
    python bench/contradiction_bench.py -v                 # also list every miss and false alarm

A set is a TSV file of pairs of memories on one anchor, one pair a line (``#`` starts a comment):
``label``, ``kind``, ``file::symbol``, the older text, the newer text. ``label`` is ``conflict`` (the
newer says the older is no longer true) or ``compatible`` (an elaboration, another aspect of the same
code, a restatement, another quantity, an example added); ``kind`` is free text, reported per kind.
``tests/memory/data/contradictions.tsv`` is the set the rules were built on (batches A-K; each batch's
first run, before any rule saw it, is in its comment); ``contradictions_heldout.tsv`` was written after
an earlier version of them; ``contradictions_blind1.tsv`` was written blind by another session and
measured once (41.7% / 2.8%), a development set since.

Detection rate: conflicts flagged / conflicts; false-alarm rate: compatible pairs flagged / compatible
pairs (issue 23's targets on a set written by someone else: ≥ 85% and ≤ 5%, in both modes). "words" is
the detector alone, as in lexical mode; "words+model" gives it each pair's cosine (the default
embedder, MiniLM), as ``Workspace.remember`` does in hybrid mode; it is skipped when no model is
installed. Figures also go to ``bench/results/contradiction_bench.json``.
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
PAIRS = DATA / "contradictions.tsv"  # the rules were built on this set
HELD_OUT = DATA / "contradictions_heldout.tsv"  # written after an earlier version of the rules
BLIND1 = DATA / "contradictions_blind1.tsv"  # written blind by another session, measured once, tuned on since
BLIND2 = DATA / "contradictions_blind2.tsv"  # the same, against round 2's rules (72.2% / 5.6%)
BLIND3 = DATA / "contradictions_blind3.tsv"  # the same, after round 3's rules were frozen (72.2% / 13.9%)
BLIND4 = DATA / "contradictions_blind4.tsv"  # the same, round 4 (58.3% / 16.7%)
BLIND5 = DATA / "contradictions_blind5.tsv"  # the same, after round 5 was frozen (75.0% / 8.3%)
BLIND6 = DATA / "contradictions_blind6.tsv"  # the same, after round 6 was frozen (75.0% / 5.6%)
BLIND7 = DATA / "contradictions_blind7.tsv"  # the same, after round 7 was frozen (80.6% / 22.2%)
BLIND8 = DATA / "contradictions_blind8.tsv"  # the same, after round 8 was frozen (77.8% / 8.3%)
BLIND9 = DATA / "contradictions_blind9.tsv"  # the same, after round 9 was frozen (55.6% / 5.6%: more paraphrase)
BLIND10 = DATA / "contradictions_blind10.tsv"  # the same, after round 10 was frozen (69.4% / 2.8%; round 9: 63.9%)
BLIND11 = DATA / "contradictions_blind11.tsv"  # the same, round 11 frozen (75.0% / 8.3%); round 12 tuned on it
BLIND12 = DATA / "contradictions_blind12.tsv"  # the same, after round 12 was frozen (55.6% / 2.8%; round 11: the same)
BLIND13 = DATA / "contradictions_blind13.tsv"  # the same, after round 13 was frozen (69.4% / 11.1%; round 12: the same)
BLIND14 = DATA / "contradictions_blind14.tsv"  # the same, after round 14 was frozen (69.4% / 11.1%; round 13: the same)
RESULTS = BENCH_DIR / "results" / "contradiction_bench.json"
LABELS = ("conflict", "compatible")


@dataclass(frozen=True)
class Pair:
    label: str  # "conflict" or "compatible"
    kind: str
    file: str
    symbol: str
    old: str
    new: str


class BadPairs(ValueError):
    """A set that is not in the columns this bench reads."""


def load_pairs(path: Path = PAIRS) -> list[Pair]:
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5 or fields[0] not in LABELS:
            raise BadPairs(f"{path}:{number}: expected label ({'|'.join(LABELS)}), kind, anchor, old, new (tabs)")
        label, kind, anchor, old, new = fields
        file, _, symbol = anchor.partition("::")
        pairs.append(Pair(label, kind, file, symbol, old, new))
    for label in LABELS:
        if not any(p.label == label for p in pairs):
            raise BadPairs(f"{path}: no {label} pair; a rate needs both labels")
    return pairs


def evaluate(pairs: list[Pair], cosines: list[float] | None = None) -> dict[str, object]:
    from forewarn.memory.contradictions import anchor_words, judge

    cues: list[tuple[str, ...]] = []
    for i, p in enumerate(pairs):
        v = judge(p.new, p.old, anchor=anchor_words(p.symbol), cosine=cosines[i] if cosines else None)
        cues.append(v.cues if v is not None else ())
    by_kind: dict[str, list[int]] = {}
    for p, c in zip(pairs, cues, strict=True):
        hit = by_kind.setdefault(f"{p.label}/{p.kind}", [0, 0])
        hit[0] += int(bool(c))
        hit[1] += 1
    conflicts = [bool(c) for p, c in zip(pairs, cues, strict=True) if p.label == "conflict"]
    compatible = [bool(c) for p, c in zip(pairs, cues, strict=True) if p.label == "compatible"]
    fired: Counter[str] = Counter(x for p, c in zip(pairs, cues, strict=True) if p.label == "conflict" for x in c)

    def listed(label: str, flagged: bool) -> list[dict[str, object]]:
        return [
            {"kind": p.kind, "anchor": f"{p.file}::{p.symbol}", "old": p.old, "new": p.new, "cues": list(c)}
            for p, c in zip(pairs, cues, strict=True)
            if p.label == label and bool(c) == flagged
        ]

    return {
        "conflicts": len(conflicts),
        "compatible": len(compatible),
        "detection": sum(conflicts) / len(conflicts),
        "false_alarms": sum(compatible) / len(compatible),
        "by_kind": {k: {"flagged": v[0], "of": v[1]} for k, v in sorted(by_kind.items())},
        "cues_on_conflicts": dict(fired.most_common()),
        "misses": listed("conflict", False),
        "false": listed("compatible", True),
    }


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
    for label in LABELS:
        rows = [(k.partition("/")[2], v) for k, v in by_kind.items() if k.startswith(label + "/")]
        print(f"              {label}: " + ", ".join(f"{kind} {v['flagged']}/{v['of']}" for kind, v in rows))
    if verbose:
        for what, title in (("misses", "miss"), ("false", "false alarm")):
            items = result[what]
            assert isinstance(items, list)
            for item in items:
                cues = f" [{', '.join(item['cues'])}]" if item["cues"] else ""
                print(f"    {title} ({item['kind']}){cues}: {item['old']!r} -> {item['new']!r}")


def cosine_spread(pairs: list[Pair], cosines: list[float]) -> None:
    for label in LABELS:
        cs = sorted(c for c, p in zip(cosines, pairs, strict=True) if p.label == label)
        tail = ("p10", cs[len(cs) // 10]) if label == "conflict" else ("p90", cs[len(cs) * 9 // 10])
        print(f"              cosine {label}: median {cs[len(cs) // 2]:.2f}, {tail[0]} {tail[1]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=Path, action="append", help="a TSV set of pairs (default: the two sets here)")
    parser.add_argument("--lexical", action="store_true", help="words only (skip the embedding model)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every miss and false alarm")
    args = parser.parse_args()
    out: dict[str, object] = {}
    blind = [
        BLIND1,
        BLIND2,
        BLIND3,
        BLIND4,
        BLIND5,
        BLIND6,
        BLIND7,
        BLIND8,
        BLIND9,
        BLIND10,
        BLIND11,
        BLIND12,
        BLIND13,
        BLIND14,
    ]
    for path in args.pairs or [PAIRS, HELD_OUT, *blind]:
        try:
            pairs = load_pairs(path)
        except (OSError, UnicodeDecodeError, BadPairs) as exc:
            sys.exit(f"contradiction_bench: {exc}")
        print(f"{path} ({len(pairs)} pairs)")
        lexical = evaluate(pairs)
        report("words", lexical, args.verbose)
        result: dict[str, object] = {"lexical": lexical}
        cosines = None if args.lexical else model_cosines(pairs)
        if cosines is not None:
            hybrid = evaluate(pairs, cosines)
            report("words+model", hybrid, args.verbose)
            cosine_spread(pairs, cosines)
            result["hybrid"] = hybrid
        out[str(path)] = result
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
