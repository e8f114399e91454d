"""``forewarn index`` and ``forewarn map``: build the code index, show the repo map."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forewarn import paths
from forewarn.cli import util as cliutil
from forewarn.cli.util import CliError
from forewarn.config import load_settings
from forewarn.indexing.indexer import Indexer, IndexReport
from forewarn.indexing.languages import language_for_path

if TYPE_CHECKING:
    from forewarn.workspace.engine import Workspace

log = logging.getLogger(__name__)

MEMORY_WORDS = (  # what reconciling did to memories, as the summary says it
    ("stale", "may be outdated (their code changed)"),
    ("reformatted", "still current (formatting or comments only)"),
    ("reanchored", "followed their code"),
    ("renamed", "followed a renamed file"),
    ("orphaned", "orphaned (their code is gone)"),
    ("revived", "back (their code returned)"),
)
SYNTAX_ERROR_EXAMPLES = 3  # files named after the count of those the parser recovered in
# what a language's bundled grammar cannot read in sound code, named after "broken code, or" when its files are
# among those parsed with errors (C/C++: macros it never expands; the others: syntax newer than the grammar)
GRAMMAR_GAPS = {
    "c": "C/C++ macros",
    "cpp": "C/C++ macros",
    "typescript": "newer TypeScript syntax",
    "tsx": "newer TypeScript syntax",
    "javascript": "newer JavaScript syntax",
    "python": "newer Python syntax",
    "go": "newer Go syntax",
    "java": "newer Java syntax",
    "ruby": "newer Ruby syntax",
    "rust": "newer Rust syntax",
}
DEFAULT_MAP_BUDGET = 1024  # tokens: Aider's default map size, enough for the core of a mid-sized repo


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this module's subcommands to the forewarn parser."""
    index = sub.add_parser("index", help="index a workspace (incremental: only changed files are parsed)")
    index.add_argument("path", nargs="?", type=Path, default=None, help="workspace root (the same as -w)")
    cliutil.add_workspace_flag(index)
    cliutil.add_json_flag(index)
    index.add_argument(
        "--no-embed",
        action="store_true",
        help="skip embedding code chunks (search of code is then lexical until they are embedded)",
    )
    index.set_defaults(handler=run_index)

    repo_map = sub.add_parser("map", help="print a token-budgeted map of the workspace's most important code")
    repo_map.add_argument("path", nargs="?", type=Path, default=None, help="workspace root (the same as -w)")
    repo_map.add_argument(
        "--budget",
        type=cliutil.int_in(0),
        default=DEFAULT_MAP_BUDGET,
        metavar="TOKENS",
        help=f"size of the map in tokens (default {DEFAULT_MAP_BUDGET})",
    )
    repo_map.add_argument(
        "--focus", action="append", default=[], metavar="FILE", help="rank around this file (repeatable)"
    )
    repo_map.add_argument(
        "--ident", action="append", default=[], metavar="NAME", help="rank around this identifier (repeatable)"
    )
    cliutil.add_workspace_flag(repo_map)
    cliutil.add_json_flag(repo_map)
    repo_map.set_defaults(handler=run_map)


def _open(args: argparse.Namespace) -> Indexer:
    root = cliutil.workspace_root(args, args.path)
    if not os.access(root, os.R_OK | os.X_OK):
        raise CliError(f"workspace {root} is not readable")
    settings, problems = load_settings(root)
    for problem in problems:
        log.warning("%s", problem)
    return Indexer(root, settings)


def _index(indexer: Indexer, *, show_progress: bool) -> IndexReport:
    with cliutil.progress("Indexing", enabled=show_progress) as advance:
        last = 0

        def on_progress(done: int, total: int) -> None:
            nonlocal last
            advance(done - last, total=total)
            last = done

        try:
            return indexer.index(progress=on_progress)
        except OSError as exc:
            raise CliError(f"cannot index {indexer.root}: {exc}") from exc


def run_index(args: argparse.Namespace) -> int:
    with _open(args) as indexer:
        report = _index(indexer, show_progress=True)
        summary = _summary(indexer, report)
        summary.update(_memories_and_vectors(indexer, embed=not args.no_embed, show_progress=True))
    if args.json:
        cliutil.print_json(summary)
    else:
        _print_summary(summary)
    return 0


def _memories_and_vectors(indexer: Indexer, *, embed: bool, show_progress: bool) -> dict[str, Any]:
    """Open the workspace on the fresh index: that reconciles memories with what changed (``memories``);
    with ``embed``, give the code chunks vectors too (``code_vectors``)."""
    from forewarn.errors import ForewarnError
    from forewarn.workspace.engine import Workspace

    settings, _ = load_settings(indexer.root)  # its problems were logged when the index opened
    try:
        ws = Workspace.open(
            indexer.root, settings, indexer=indexer, backfill_on_open=False, embedder="auto" if embed else None
        )
    except ForewarnError as exc:  # memories unreadable: the code index is still good
        reason = f"the workspace's memories cannot be opened: {exc}"
        return {
            "memories": {"error": reason},
            **({"code_vectors": {"mode": "lexical", "reason": reason}} if embed else {}),
        }
    try:
        out: dict[str, Any] = {"memories": ws.last_reconcile.to_dict()}
        if embed:
            out["code_vectors"] = _embed_chunks(ws, show_progress=show_progress)
        return out
    finally:
        ws.close()  # saves the vectors, also after Ctrl-C: what was embedded is kept


def _embed_chunks(ws: Workspace, *, show_progress: bool) -> dict[str, Any]:
    """Give the code chunks vectors (most important files first), then prune the embedding cache."""
    if ws.code_vectors is None:
        return {"mode": "lexical", "reason": paths.model_hint(ws.reason)}
    with cliutil.progress("Embedding code", enabled=show_progress) as advance:
        last = 0

        def on_progress(done: int, total: int) -> None:
            nonlocal last
            advance(done - last, total=total)
            last = done

        added = ws.embed_chunks(progress=on_progress)
    run = ws.code_vectors.last_run
    covered, total = ws.code_vector_state()
    pruned = ws.prune_embedding_cache()
    return {
        "mode": "hybrid",
        "added": added,
        "embedded": run.embedded,
        "seconds": round(run.seconds, 3),
        "covered": covered,
        "total": total,
        "cache": pruned.to_dict() if pruned is not None else None,
    }


def _summary(indexer: Indexer, report: IndexReport) -> dict[str, Any]:
    counts = indexer.store.counts()
    return {
        "root": str(indexer.root),
        **counts,
        "languages": indexer.store.languages(),
        "syntax_errors": indexer.store.with_syntax_errors(),
        "skipped_by_reason": dict(Counter(report.skipped.values()).most_common()),
        "seconds": round(report.timings.get("total", 0.0), 3),
        "report": report.to_dict(),
    }


def _print_summary(summary: dict[str, Any]) -> None:
    report = summary["report"]
    out = sys.stdout
    out.write(
        f"Indexed {summary['root']}: {summary['files']} files, {summary['chunks']} chunks, "
        f"{summary['definitions']} definitions, {summary['edges']} import edges in {summary['seconds']:.2f} s\n"
    )
    out.write(
        f"  this run: {report['parsed']} parsed, {report['unchanged']} unchanged, {len(report['added'])} added, "
        f"{len(report['changed']) - len(report['reparsed'])} changed, {len(report['deleted'])} deleted, "
        f"{len(report['renamed'])} renamed unchanged"
        + (f", {len(report['reparsed'])} read again for this version" if report["reparsed"] else "")
        + "\n"
    )
    if summary["languages"]:
        out.write("  languages: " + ", ".join(f"{k} {v}" for k, v in summary["languages"].items()) + "\n")
    recovered = summary["syntax_errors"]
    if recovered:
        examples = ", ".join(cliutil.shown(rel) for rel in recovered[:SYNTAX_ERROR_EXAMPLES])
        more = ", …" if len(recovered) > SYNTAX_ERROR_EXAMPLES else ""
        files = "1 file" if len(recovered) == 1 else f"{len(recovered)} files"
        out.write(
            f"  parsed with syntax errors: {files} (broken code, or what the bundled grammar cannot read, such as "
            f"{grammar_gaps(recovered)}; their definitions may be incomplete): {examples}{more}\n"
        )
    if summary["skipped_by_reason"]:
        out.write("  skipped: " + ", ".join(f"{k} {v}" for k, v in summary["skipped_by_reason"].items()) + "\n")
    memories = summary.get("memories") or {}
    if memories.get("error"):
        out.write(f"  memories not reconciled: {memories['error']}\n")
    said = [f"{len(memories[k])} {word}" for k, word in MEMORY_WORDS if memories.get(k)]
    if said:
        out.write("  memories: " + ", ".join(said) + "\n")
    vectors = summary.get("code_vectors")
    if vectors is None:
        return
    if vectors["mode"] != "hybrid":
        out.write(f"  search of code is lexical (words only): {vectors['reason']}\n")
        return
    cache = vectors["cache"]
    out.write(
        f"  code vectors: {vectors['covered']}/{vectors['total']} chunks; this run {vectors['added']} added "
        f"({vectors['embedded']} embedded by the model, the rest from the cache) in {vectors['seconds']:.1f} s"
        + (f"; embedding cache {cache['remaining']} entries, {cache['bytes'] / 2**20:.1f} MiB" if cache else "")
        + "\n"
    )


def grammar_gaps(rels: list[str]) -> str:
    """What the grammars of these files' languages cannot read, once each: "C/C++ macros and newer TypeScript
    syntax" (the languages of the files, first seen first)."""
    gaps = {
        GRAMMAR_GAPS.get(spec.name, f"newer {spec.name} syntax"): None
        for rel in rels
        if (spec := language_for_path(rel))
    }
    said = list(gaps) or ["syntax newer than the grammar"]
    return ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0]


def run_map(args: argparse.Namespace) -> int:
    with _open(args) as indexer:
        _index(indexer, show_progress=not args.json)
        focus = [_workspace_rel(indexer, f) for f in args.focus]
        known = indexer.files()
        for rel in focus:
            if rel not in known:
                log.warning("focus file %s is not indexed; it cannot steer the ranking", rel)
        repo_map = indexer.repo_map(args.budget, focus_files=focus, idents=args.ident)
    if args.json:
        cliutil.print_json(repo_map.to_dict())
    else:
        sys.stdout.write(cliutil.shown(repo_map.text, lines=True))  # names and signatures come from the repository
    if repo_map.needed_tokens:
        raise CliError(
            f"--budget {args.budget} is too small for any definition: the best-ranked one needs "
            f"{repo_map.needed_tokens} tokens"
        )
    return 0


def _workspace_rel(indexer: Indexer, name: str) -> str:
    """A --focus FILE given relative to the cwd, absolute, or relative to the workspace root."""
    path = Path(name).expanduser()
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, indexer.root / path]
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved.exists():
            try:
                return resolved.relative_to(indexer.root).as_posix()
            except ValueError:
                raise CliError(f"focus file {name} is outside the workspace {indexer.root}") from None
    return path.as_posix()
