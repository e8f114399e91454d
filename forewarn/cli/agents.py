"""``forewarn init --agent HOST``: turn Forewarn's hooks on (or ``--off``) for an agent host, without editing JSON.

Written into the user's own settings of that host (``forewarn.mcp.hooks.install``), with the absolute path of
this ``forewarn``; into the repository's (``--project``, shared with everyone who clones it) only when asked.
"""

from __future__ import annotations

import argparse

from forewarn.cli import util as cliutil
from forewarn.cli.util import CliError

AGENT_HOSTS = ("claude", "copilot", "codex", "gemini")
NOTES = {
    "claude": "restart Claude Code (or run /hooks) to load them",
    "codex": "Codex asks you to review and trust new hooks once (/hooks); older releases also need "
    "`[features] codex_hooks = true` in ~/.codex/config.toml",
    "gemini": "restart Gemini CLI; `/hooks` lists them",
    "copilot": "Copilot CLI loads hook files when a session starts; only failures get an answer from a command "
    "hook there (the language server in editor-clients/copilot-cli/lsp.json delivers files' memories)",
}


def add_agent_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--agent",
        action="append",
        choices=AGENT_HOSTS,
        metavar="HOST",
        help="turn on Forewarn's hooks for an agent host (claude, copilot, codex, gemini; repeatable) in your own "
        "settings: memories as the agent reads and edits, failures explained",
    )
    p.add_argument("--off", action="store_true", help="with --agent: take Forewarn's hooks out again")
    p.add_argument(
        "--project",
        action="store_true",
        help="with --agent: write the hooks into this repository's settings instead (shared with everyone)",
    )


def run_agent_init(args: argparse.Namespace, program: str) -> int:
    """``program``: how to start this Forewarn from a shell (``team.driver_command``: an absolute path)."""
    from forewarn.mcp.hooks import install
    from forewarn.mcp.hooks.events import Host

    hosts = [Host(h) for h in dict.fromkeys(args.agent)]
    project = cliutil.workspace_root(args) if args.project else None
    reports = []
    for host in hosts:
        try:
            if args.off:
                reports.append(install.disable(host, project=project))
            else:
                reports.append(install.enable(host, program, project=project))
        except install.InstallError as exc:
            raise CliError(str(exc)) from None
        except OSError as exc:
            raise CliError(f"cannot write {exc.filename}: {exc.strerror or exc}") from None
    if args.json:
        cliutil.print_json(
            [{"host": r.host.value, "path": str(r.path), "changed": r.changed, "enabled": r.enabled} for r in reports]
        )
        return 0
    for r in reports:
        state = "on" if r.enabled else "off"
        verb = "turned" if r.changed else "already"
        print(f"{r.host.value}: Forewarn's hooks {verb} {state} in {cliutil.shown(str(r.path))}")
        if r.enabled and r.changed:
            print(f"  {NOTES[r.host.value]}")
    if not args.off:
        for line in install.describe(hosts):
            print(f"  {cliutil.shown(line)}")
    return 0
