"""``forewarn review`` over the last commits of a real history: time per commit and what each would show.

    python bench/review_bench.py                      # requests, last 200 first-parent commits
    python bench/review_bench.py --corpus click --commits 100
    python bench/review_bench.py --cli 10             # also time the command itself on 10 of them

The corpus bundle (``../shared/corpora/<name>.bundle``, or ``$FOREWARN_CORPORA``) is cloned into a
temporary folder (never written in place), with a fresh FOREWARN_HOME. The commit N first-parent
commits back is checked out, indexed and mined (so the memories are what the team knew then), and
every suggestion is accepted. Then each later commit is checked out in turn (``git checkout`` of a
child over its parent rewrites only the files it changed, the cheapest correct way to move a work
tree one commit on) and reviewed with ``base = its parent``: the diff, both sides' parses, the
incremental re-index that brings the index up to the checkout (as the editor would), the
one-hop graph walk and the memory look-ups are all inside the timed call. Reported: time per commit
(p50/p95/max, target p95 ≤ 500 ms), memories each commit would have shown (mean, share of commits
with at least one, by reason), and with ``--cli`` the end-to-end command (a fresh process each time:
interpreter start, imports, opening the workspace). Figures also go to ``bench/results/review_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from _stats import percentile  # bench/ is not a package

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
sys.path.insert(0, str(REPO_DIR))  # run as a script from anywhere: forewarn from this checkout
RESULTS = BENCH_DIR / "results" / "review_bench.json"
SHARED_CORPORA = Path(os.environ.get("FOREWARN_CORPORA", REPO_DIR.parent / "shared" / "corpora"))
BRANCH = "main"
COMMITS = 200  # issue 15: the last 200 commits
TARGET_P95_MS = 500.0
CLI_SAMPLE = 0  # commits also reviewed through the command (each a fresh process); 0: none


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True, timeout=300)
    return done.stdout.strip()


def clone(corpus: str, into: Path) -> Path:
    bundle = SHARED_CORPORA / f"{corpus}.bundle"
    if not bundle.is_file():
        sys.exit(f"no corpus bundle at {bundle}")
    target = into / corpus
    subprocess.run(["git", "clone", "-q", "-b", BRANCH, str(bundle), str(target)], check=True, timeout=600)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="requests", help="a bundle name in ../shared/corpora (default requests)")
    parser.add_argument("--commits", type=int, default=COMMITS, help=f"commits reviewed (default {COMMITS})")
    parser.add_argument("--cli", type=int, default=CLI_SAMPLE, help="also time the command on this many commits")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="forewarn-review-bench-") as tmp:
        os.environ["FOREWARN_HOME"] = str(Path(tmp) / "home")  # before forewarn reads it
        from forewarn.workspace.engine import Workspace
        from forewarn.workspace.mining import mine
        from forewarn.workspace.review import Reason, review

        root = clone(args.corpus, Path(tmp))
        chain = git(root, "rev-list", "--first-parent", f"--max-count={args.commits + 1}", "HEAD").split()[::-1]
        start, targets = chain[0], chain[1:]
        git(root, "checkout", "-q", "--detach", start)
        t = time.perf_counter()
        with Workspace.open(root, embedder=None) as ws:
            ws.reindex()
            index_s = time.perf_counter() - t
            t = time.perf_counter()
            report = mine(ws)
            mine_s = time.perf_counter() - t
            accepted = 0
            for m in ws.suggestions():
                ws.accept_suggestion(m.id)
                accepted += 1
            print(
                f"{args.corpus}: {len(targets)} commits reviewed after {start[:10]}; index {index_s:.1f} s, "
                f"mined {report.commits_read} commits in {mine_s:.1f} s, {accepted} memories accepted",
                flush=True,
            )
            rows = []
            for n, sha in enumerate(targets):
                parent = chain[n]
                git(root, "checkout", "-q", "--detach", sha)
                t = time.perf_counter()
                rep = review(ws, parent)
                ms = (time.perf_counter() - t) * 1000
                reasons = Counter(str(r) for i in rep.items for r in i.reasons)
                rows.append(
                    {
                        "commit": sha,
                        "ms": round(ms, 2),
                        "files": len(rep.files),
                        "symbols": len(rep.changed),
                        "memories": len(rep.items),
                        "file_wide": sum(1 for i in rep.items if i.memory.anchor and i.memory.anchor.symbol is None),
                        "left_out": len(rep.left_out),
                        "reasons": dict(reasons),
                    }
                )
            cli_ms: list[float] = []
            for sha, parent in list(zip(targets, chain, strict=False))[-args.cli :] if args.cli > 0 else []:
                git(root, "checkout", "-q", "--detach", sha)
                ws.reindex()  # the command's own re-index then finds nothing to do: time the command, not indexing
                t = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "forewarn", "review", "--base", parent, "--format", "json", "-w", str(root)],
                    capture_output=True, check=True, timeout=300, cwd=REPO_DIR,
                )  # fmt: skip
                cli_ms.append((time.perf_counter() - t) * 1000)

    times = [r["ms"] for r in rows]
    shown = [r["memories"] for r in rows]
    code = [r for r in rows if r["symbols"]]  # the rest change docs, CI or packaging only
    by_reason = Counter()
    for r in rows:
        by_reason.update(r["reasons"])
    summary = {
        "corpus": args.corpus,
        "commits": len(rows),
        "memories_accepted": accepted,
        "index_s": round(index_s, 2),
        "mine_s": round(mine_s, 2),
        "ms_p50": round(percentile(times, 50), 1),
        "ms_p95": round(percentile(times, 95), 1),
        "ms_max": round(max(times), 1),
        "target_p95_ms": TARGET_P95_MS,
        "memories_mean": round(statistics.fmean(shown), 2),
        "memories_max": max(shown),
        "share_with_memories": round(sum(1 for s in shown if s) / len(shown), 3),
        "commits_changing_symbols": len(code),
        "share_with_memories_of_those": round(sum(1 for r in code if r["memories"]) / max(1, len(code)), 3),
        "memories_median_when_any": statistics.median([s for s in shown if s] or [0]),
        "by_reason_per_commit": {str(k): round(by_reason[str(k)] / len(rows), 2) for k in Reason},
        "file_wide_per_commit": round(statistics.fmean(r["file_wide"] for r in rows), 2),
        "left_out_per_commit": round(statistics.fmean(r["left_out"] for r in rows), 2),
        "files_changed_mean": round(statistics.fmean(r["files"] for r in rows), 1),
        "cli_ms": [round(x, 1) for x in cli_ms],
        "cli_ms_p50": round(percentile(cli_ms, 50), 1) if cli_ms else None,
    }
    print(
        f"time per commit: p50 {summary['ms_p50']} ms, p95 {summary['ms_p95']} ms (target ≤ {TARGET_P95_MS:.0f}), "
        f"max {summary['ms_max']} ms"
    )
    print(
        f"memories shown per commit: mean {summary['memories_mean']}, max {summary['memories_max']}; "
        f"commits with ≥ 1: {summary['share_with_memories']:.0%} (of the {len(code)} that change a symbol: "
        f"{summary['share_with_memories_of_those']:.0%}); median when any: {summary['memories_median_when_any']}"
    )
    print("by reason, per commit: " + ", ".join(f"{k} {v}" for k, v in summary["by_reason_per_commit"].items()))
    print(
        f"file-wide among them: {summary['file_wide_per_commit']} per commit; past the limits (counted, not "
        f"listed): {summary['left_out_per_commit']} per commit"
    )
    if cli_ms:
        print(f"the command end to end ({len(cli_ms)} commits, fresh process each): p50 {summary['cli_ms_p50']} ms")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"summary": summary, "commits": rows}, indent=2) + "\n", encoding="utf-8")
    print(f"figures: {RESULTS.relative_to(REPO_DIR)}")
    return 0 if summary["ms_p95"] <= TARGET_P95_MS else 1


if __name__ == "__main__":
    sys.exit(main())
