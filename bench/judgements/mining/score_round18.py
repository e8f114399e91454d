"""Round 18's blind labels, scored: a default run before (33a10ec) and after this round, per judge and set.

    python bench/judgements/mining/score_round18.py

Each set's sample (``round18-setN-sample.jsonl``) holds every suggestion the head before proposed on its histories
(at most 30 or 12 a repository) and, where the new head words one differently, the new wording as another item;
the key (``round18-setN-key.json``, never shown to the judges) says which item is which: ``both`` (the same text),
``before`` or ``after``. Two judges labelled every item (``round18-setN-labels-{a,b}.tsv``), each wording on its own.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETS = (6, 7)
JUDGES = ("a", "b")


def labels(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) >= 2:
            out[fields[0]] = fields[1].strip().lower()
    return out


def share(found: list[str]) -> str:
    c, n = Counter(found), len(found)
    either = 100 * (c["useful"] + c["partly"]) / n
    return f"{c['useful']}/{n} useful ({100 * c['useful'] / n:.0f}%), useful or partly {either:.0f}%"


def main() -> None:
    for number in SETS:
        key = json.loads((HERE / f"round18-set{number}-key.json").read_text(encoding="utf-8"))
        for judge in JUDGES:
            said = labels(HERE / f"round18-set{number}-labels-{judge}.tsv")
            before = [said[i] for i, k in key.items() if k["v"] in ("both", "before")]
            after = [said[i] for i, k in key.items() if k["v"] in ("both", "after")]
            spots = [said[i] for i, k in key.items() if k["kind"] == "hotspot"]
            print(
                f"set {number}, judge {judge}: before {share(before)}; after {share(after)}; hot spots {share(spots)}"
            )


if __name__ == "__main__":
    main()
