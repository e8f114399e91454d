"""Crash suite: SIGKILL real ``forewarn`` processes at random points, 120 times by default.

Rotates through three workloads (``forewarn remember`` from the CLI, ``forewarn index`` on a
workspace that changes between runs, ``forewarn serve`` answering remember commands from a real
LSP client over stdio), kills each at a uniformly random moment, then checks ``PRAGMA
integrity_check`` on memory.db and index.db, that every acknowledged memory is present, and that
the vector index holds exactly SQLite's vectors. The harness is ``tests/reliability/crash.py``.

    python bench/crash_suite.py                   # 120 iterations
    python bench/crash_suite.py --iterations 300 --seed 3 --json crash.json

Runs in a private FOREWARN_HOME (a temporary directory); the embedding model is shared.
Exit status 0 only when no memory was lost and every check passed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the harness lives with the tests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=120)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--files", type=int, default=120, help="files in the generated workspace")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()

    from forewarn import paths

    models = paths.models_dir()  # the user's installed models, before HOME moves to a temporary dir
    with tempfile.TemporaryDirectory(prefix="forewarn-crash-") as tmp:
        os.environ[paths.HOME_ENV] = str(Path(tmp) / "home")
        os.environ[paths.MODELS_ENV] = str(models)
        from tests.reliability import crash

        root = crash.make_workspace(Path(tmp) / "ws", files=args.files, seed=args.seed)
        started = time.monotonic()

        def show(i: int, outcome: crash.Outcome) -> None:
            state = "killed" if outcome.killed else "finished"
            print(
                f"{i + 1:4d} {outcome.workload:13s} {state:8s} at {outcome.delay_s:5.2f} s  "
                f"acked {len(outcome.acknowledged):3d}  orphans {outcome.orphans}  "
                f"{'OK' if not outcome.problems else 'PROBLEMS: ' + '; '.join(outcome.problems)}",
                flush=True,
            )

        totals = crash.run_suite(root, args.iterations, seed=args.seed, on_outcome=show)
        figures = totals.to_dict()
        figures["memories_in_database"] = crash.count_memories(root)
        figures["seconds"] = round(time.monotonic() - started, 1)
    print()
    print(f"iterations:              {figures['iterations']} ({figures['by_workload']})")
    print(f"killed mid-run:          {figures['killed']}")
    print(f"acknowledged memories:   {figures['acknowledged_memories']}")
    print(f"memories lost:           {figures['memories_lost']}")
    print(f"integrity failures:      {figures['integrity_failures']}")
    print(f"vector index mismatches: {figures['vector_mismatches']}")
    print(f"orphaned processes:      {figures['orphaned_processes']} (parser workers outliving a killed parent)")
    print(f"memories in database:    {figures['memories_in_database']}")
    print(f"wall time:               {figures['seconds']} s")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    ok = not figures["problems"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
