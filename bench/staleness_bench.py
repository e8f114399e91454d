"""Staleness on a real history: how many "may be outdated" flags come from formatting, comments or docstrings.

    python bench/staleness_bench.py                       # click and requests, 300 first-parent commits each
    python bench/staleness_bench.py --corpus click --commits 100

The corpus bundle (``../shared/corpora/<name>.bundle``, or ``$FOREWARN_CORPORA``) is cloned into
``bench/.corpora/staleness/`` (never written in place), with a fresh FOREWARN_HOME. The commit N
first-parent commits back is checked out and indexed, and one memory is written on every definition
(function, method, class) of its Python files outside tests, docs and examples. Then each later
commit is checked out in turn and the workspace re-indexed (the product's own reconcile decides).
After each commit, memories it made stale are confirmed, so every commit is judged on its own.

Each memory whose definition's bytes changed in a commit is a case. Its ground truth comes from
Python's own ``ast`` (independent of Forewarn's syntax hash): the definition found by its qualified
name (the n-th of that name for ``#n``) in the parent's and the commit's file, dumped without line
numbers, equal → a formatting/comment-only change; equal once docstrings are dropped → docstring-only;
otherwise a real change. "Before" is the byte hash that used to decide (every case flagged); "after"
is what reconciling did: stale, or kept active as reformatted. Cases where the definition moved to
another symbol or file (re-anchored) or vanished (orphaned) are counted apart: the ground truth by
name does not hold for them; a re-anchored one is checked with ``ast`` too (old definition against the
one it was moved to, names and docstrings aside: the same code, or changed code, and whether it was
flagged stale). Figures go to ``bench/results/staleness_bench.json``.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
sys.path.insert(0, str(REPO_DIR))  # run as a script from anywhere: forewarn from this checkout
RESULTS = BENCH_DIR / "results" / "staleness_bench.json"
SHARED_CORPORA = Path(os.environ.get("FOREWARN_CORPORA", REPO_DIR.parent / "shared" / "corpora"))
WORK = BENCH_DIR / ".corpora" / "staleness"
BRANCH = "main"
COMMITS = 300  # first-parent steps replayed per corpus
DEFINITION_KINDS = ("function", "method", "class")
SKIPPED_DIRS = ("tests", "docs", "examples")  # memories go on the library's own code, as a team's would
FORMATTING, DOCSTRING, REAL, UNKNOWN = "formatting_or_comments", "docstring_only", "real_change", "unknown"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True, timeout=300)
    return done.stdout.strip()


def clone(corpus: str) -> Path:
    target = WORK / corpus
    if not (target / ".git").exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "clone", "-q", "-b", BRANCH, str(SHARED_CORPORA / f"{corpus}.bundle"), str(target)], check=True
        )
    git(target, "checkout", "-q", "-f", BRANCH)
    return target


# ---------------------------------------------------------------- ground truth with Python's ast


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return tree


def definitions(source: str) -> dict[str, ast.AST] | None:
    """Definitions by Forewarn-style symbol path (``Class.method``, ``name#2`` for the second of a path)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    out: dict[str, ast.AST] = {}
    seen: Counter[str] = Counter()

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                path = f"{scope}.{child.name}" if scope else child.name
                seen[path] += 1
                symbol = path if seen[path] == 1 else f"{path}#{seen[path]}"
                out[symbol] = child
                visit(child, symbol)
            else:
                visit(child, scope)

    visit(tree, "")
    return out


def classify(old_source: str | None, new_source: str | None, symbol: str) -> str:
    if old_source is None or new_source is None:
        return UNKNOWN
    old, new = definitions(old_source), definitions(new_source)
    if old is None or new is None or symbol not in old or symbol not in new:
        return UNKNOWN
    a, b = old[symbol], new[symbol]
    if ast.dump(a) == ast.dump(b):  # no attributes: line numbers and columns left out
        return FORMATTING
    if ast.dump(_strip_docstrings(a)) == ast.dump(_strip_docstrings(b)):
        return DOCSTRING
    return REAL


def classify_move(old_source: str | None, old_symbol: str, new_source: str | None, new_symbol: str) -> str:
    """A definition followed to another symbol: the same code under another name, or a changed one."""
    old = definitions(old_source) if old_source is not None else None
    new = definitions(new_source) if new_source is not None else None
    if not old or not new or old_symbol not in old or new_symbol not in new:
        return UNKNOWN
    a, b = old[old_symbol], new[new_symbol]
    if isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and isinstance(
        b, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    ):
        a.name = b.name = "_"  # the name is what a rename changes
    if ast.dump(_strip_docstrings(a)) == ast.dump(_strip_docstrings(b)):
        return "same_code"
    return "changed_code"


def blob(root: Path, commit: str, rel: str) -> str | None:
    done = subprocess.run(["git", "-C", str(root), "show", f"{commit}:{rel}"], capture_output=True, timeout=60)
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


# ---------------------------------------------------------------- the replay


def replay(corpus: str, commits: int) -> dict[str, Any]:
    from forewarn.workspace.engine import Workspace

    root = clone(corpus)
    steps = git(root, "rev-list", "--first-parent", f"-{commits + 1}", BRANCH).split()[::-1]
    git(root, "checkout", "-q", "-f", steps[0])
    started = time.perf_counter()
    ws = Workspace.open(root, embedder=None)
    try:
        ws.reindex()
        written = 0
        for rel in sorted(ws.indexer.files()):
            if not rel.endswith(".py") or rel.split("/", 1)[0] in SKIPPED_DIRS:
                continue
            for c in ws.indexer.chunks_for(rel):
                if c.part == 0 and c.kind in DEFINITION_KINDS:
                    ws.remember(f"memory {written} on {rel}::{c.symbol}", file=rel, symbol=c.symbol)
                    written += 1
        setup_s = time.perf_counter() - started
        before: Counter[str] = Counter()  # cases by ground truth: what the byte hash flagged (all of them)
        after_stale: Counter[str] = Counter()
        after_kept: Counter[str] = Counter()
        moved: Counter[str] = Counter()
        examples: list[dict[str, str]] = []
        replay_started = time.perf_counter()
        for parent, commit in itertools.pairwise(steps):
            changed = set(git(root, "diff", "--name-only", parent, commit, "--", "*.py").split())
            watched = {
                m.id: (m.anchor.file, m.anchor.symbol, m.anchor.content_hash)
                for m in ws.store.anchored_to_files(sorted(changed))
                if m.anchor is not None and m.anchor.symbol is not None and m.status == "active"
            }
            git(root, "checkout", "-q", "-f", commit)
            report = ws.reindex().memories
            stale, kept, orphaned = set(report.stale), set(report.reformatted), set(report.orphaned)
            sources: dict[tuple[str, str], str | None] = {}
            for mid, (rel, symbol, old_hash) in watched.items():
                chunk = ws.indexer.chunk_by_symbol(rel, symbol)
                if chunk is not None and chunk.content_hash == old_hash:
                    continue  # bytes unchanged: not a case (the old rule flagged nothing either)
                for side in (parent, commit):
                    if (side, rel) not in sources:
                        sources[(side, rel)] = blob(root, side, rel)
                truth = classify(sources[(parent, rel)], sources[(commit, rel)], symbol)
                m = ws.get(mid)
                if mid in orphaned:
                    moved["orphaned"] += 1
                    continue
                if m.anchor is not None and (m.anchor.file, m.anchor.symbol) != (rel, symbol):
                    to_rel, to_symbol = m.anchor.file, m.anchor.symbol or ""
                    if (commit, to_rel) not in sources:
                        sources[(commit, to_rel)] = blob(root, commit, to_rel)
                    how = classify_move(sources[(parent, rel)], symbol, sources[(commit, to_rel)], to_symbol)
                    moved[f"reanchored_{how}_{'stale' if mid in stale else 'active'}"] += 1
                    continue
                before[truth] += 1
                if mid in stale:
                    after_stale[truth] += 1
                    if truth in (FORMATTING, DOCSTRING) and len(examples) < 10:
                        examples.append({"commit": commit[:10], "file": rel, "symbol": symbol, "truth": truth})
                elif mid in kept:
                    after_kept[truth] += 1
            for mid in stale:  # judged; confirmed so the next commit is judged on its own
                if ws.get(mid).status == "stale":
                    ws.confirm(mid)
        replay_s = time.perf_counter() - replay_started
    finally:
        ws.close()
        git(root, "checkout", "-q", "-f", BRANCH)
    noise = before[FORMATTING] + before[DOCSTRING]
    return {
        "corpus": corpus,
        "commits": len(steps) - 1,
        "memories": written,
        "cases": sum(before.values()),
        "before": {
            "stale_flags": sum(before.values()),
            "from_formatting_comments_or_docstrings": noise,
            "real_changes_flagged": before[REAL],
        },
        "after": {
            "stale_flags": sum(after_stale.values()),
            "from_formatting_comments_or_docstrings": after_stale[FORMATTING] + after_stale[DOCSTRING],
            "real_changes_flagged": after_stale[REAL],
            "real_changes_kept_active": after_kept[REAL],
            "unknown_ground_truth_flagged": after_stale[UNKNOWN],
        },
        "by_truth": {k: dict(before=before[k], stale=after_stale[k], kept=after_kept[k]) for k in before},
        "moved_or_orphaned_cases": dict(moved),
        "false_flag_examples": examples,
        "seconds": {"setup": round(setup_s, 1), "replay": round(replay_s, 1)},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", action="append", choices=("click", "requests"), help="default: both")
    parser.add_argument("--commits", type=int, default=COMMITS)
    args = parser.parse_args()
    home = WORK / "home"
    os.environ["FOREWARN_HOME"] = str(home)  # fresh memories each run, never the user's
    if home.exists():
        import shutil

        shutil.rmtree(home)
    results = [replay(corpus, args.commits) for corpus in args.corpus or ("click", "requests")]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    for r in results:
        b, a = r["before"], r["after"]
        print(
            f"{r['corpus']}: {r['commits']} commits, {r['memories']} memories, {r['cases']} cases (definition bytes "
            f"changed)\n  before (byte hash): {b['stale_flags']} stale flags, "
            f"{b['from_formatting_comments_or_docstrings']} from formatting/comments/docstrings, "
            f"{b['real_changes_flagged']} real changes flagged\n  after (syntax): {a['stale_flags']} stale flags, "
            f"{a['from_formatting_comments_or_docstrings']} from formatting/comments/docstrings, "
            f"{a['real_changes_flagged']}/{b['real_changes_flagged']} real changes flagged "
            f"({a['real_changes_kept_active']} kept active)\n  moved or orphaned (counted apart): "
            f"{r['moved_or_orphaned_cases']}\n  {r['seconds']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
