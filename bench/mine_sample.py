"""A random sample of mined suggestions, exactly as a reviewer sees them, for a blind usefulness judgement.

    python bench/mine_sample.py                                   # 50 per corpus: click, requests, express
    python bench/mine_sample.py --corpus click --n 30 --seed 7 --out /tmp/click.jsonl

Each corpus (``bench/.corpora/<name>-git``, cloned from ``$FOREWARN_CORPORA`` as ``mine_bench.py`` does) is
indexed and mined into a fresh data dir; ``--n`` suggestions are drawn at random (seeded) and written one per
line as JSON: the text, the type, the anchor (file, symbol, lines), the anchored code as it is at HEAD (cut at
EXCERPT_LINES), and the evidence (the commits or the comment it was mined from, the origin and track-record
lines a hover shows, its review value and, for a commit lesson, its score). ``--all`` samples what mining
holds back too (``forewarn mine --all``). Nothing says which rule produced it beyond what a reviewer sees.

The judge's rubric: "would a developer want this shown when opening its anchor?" — useful / not useful /
duplicate (the same lesson as another item), one label per line, with a short reason.
Never sample flask or mypy: they are kept for independent checks.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR.parent))  # forewarn from this checkout
sys.path.insert(0, str(BENCH_DIR))

from mine_bench import CORPORA, FORBIDDEN, _clone  # noqa: E402 - bench/ is not a package

from forewarn.lsp.convert import origin  # noqa: E402
from forewarn.memory.records import Memory  # noqa: E402
from forewarn.memory.suggestions import provenance_line, suggestion_score, track_line, worth_a_look  # noqa: E402
from forewarn.workspace.engine import Workspace  # noqa: E402
from forewarn.workspace.mining import mine  # noqa: E402

EXCERPT_LINES = 40  # the anchored code shown: a function's head and body, cut like an editor's peek
DEFAULT_N, DEFAULT_SEED = 50, 23


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", help="click, requests, express, or a path to a git clone")
    parser.add_argument("--n", type=int, default=DEFAULT_N, help="suggestions drawn per corpus")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results" / "mine_sample.jsonl")
    parser.add_argument("--all", action="store_true", help="also what mining holds back (forewarn mine --all)")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with args.out.open("w", encoding="utf-8") as out:
        for name in args.corpus or list(CORPORA):
            if any(f in name.lower() for f in FORBIDDEN):
                raise SystemExit(f"--corpus {name}: flask and mypy are kept for independent checks")
            items = sample(_clone(name), args.n, args.seed, hold_back=not args.all)
            for item in items:
                out.write(json.dumps(item, ensure_ascii=False) + "\n")
            written += len(items)
            print(f"{name}: {len(items)} suggestions sampled", file=sys.stderr)
    print(f"{written} lines written to {args.out}", file=sys.stderr)
    return 0


def sample(clone: Path, n: int, seed: int, *, hold_back: bool = True) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="forewarn-mine-sample-") as home:
        os.environ["FOREWARN_HOME"] = home  # a fresh data dir: nothing accepted or dismissed before
        with Workspace.open(clone, embedder=None) as ws:
            ws.reindex()
            mine(ws, hold_back=hold_back)
            suggested = ws.suggestions()
            now = ws.clock()
            picked = random.Random(seed).sample(suggested, min(n, len(suggested)))
            return [_item(clone, m, now) for m in picked]


def _item(clone: Path, m: Memory, now: float) -> dict:
    prov = m.provenance or {}
    a = m.anchor
    lines = [a.start_line, a.end_line] if a is not None and a.start_line and a.end_line else None
    commits = [{k: c.get(k) for k in ("sha", "author", "date", "subject")} for c in prov.get("commits", [])]
    return {
        "corpus": clone.name.removesuffix("-git"),
        "id": m.id,
        "type": str(m.type),
        "text": m.text,
        "anchor": {"file": m.file, "symbol": a.symbol if a else None, "lines": lines},
        "excerpt": _excerpt(clone, m.file, lines),
        "evidence": {
            "source": str(m.source),
            "commits": commits[:5],
            "comment": {"line": prov.get("line"), "kind": prov.get("kind")} if m.source == "comment" else None,
            "origin": origin(m),
            "provenance": provenance_line(prov),
            "track": track_line(prov),
            "date": m.created_at,
        },
        "value": round(suggestion_score(m, now), 4),
        "worth_a_look": worth_a_look(m),
        "score": prov.get("score"),  # a commit lesson's score (mine_score), which the judges are not shown
    }


def _excerpt(clone: Path, file: str | None, lines: list[int] | None) -> str | None:
    if not file:
        return None
    try:
        text = (clone / file).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    start, end = (lines[0], lines[1]) if lines else (1, EXCERPT_LINES)
    shown = text[start - 1 : min(end, start - 1 + EXCERPT_LINES)]
    more = end - start + 1 - len(shown)
    return "\n".join(shown) + (f"\n… {more} more lines" if more > 0 else "")


if __name__ == "__main__":
    sys.exit(main())
