"""``forewarn hook HOST``: what an agent host runs at its hook points (reads the event on stdin)."""

# ``forewarn.cli.main`` sends ``hook`` here before building the rest of the command line: a hook call runs on
# every tool call of an agent, so it imports only ``forewarn.mcp.hooks.client``. It always exits 0 with nothing
# on stdout unless there is something to tell the agent (Copilot CLI's failure guidance excepted, which the host
# reads from stderr on exit 2); problems go to the workspace's ``hooks.log``.

from __future__ import annotations

import sys
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see forewarn.cli.main)
if TYPE_CHECKING:
    import argparse

HOSTS = ("claude", "copilot", "codex", "gemini")  # forewarn.mcp.hooks.events.Host, spelled here to stay light
USAGE = "usage: forewarn hook {claude,copilot,codex,gemini} [--event NAME] [-w DIR] | --serve | --stop [-w DIR]"
# what `forewarn hook --help` says, on either route (the direct one prints it after USAGE)
DESCRIPTION = """\
Run by an agent host (Claude Code, Codex, Gemini CLI, Copilot CLI) at its hook points: reads the host's event
on standard input and answers with the memories of the files the agent reads or edits, or with what the team
knows about a command that failed. `forewarn init --agent HOST` sets the hooks up; you rarely run this yourself.

    forewarn hook claude|copilot|codex|gemini [--event NAME] [-w DIR]   one hook call (stdin: the event)
    forewarn hook --serve [-w DIR]                                       the workspace's hook server (started for you)
    forewarn hook --stop [-w DIR]                                        stop it (say, after an upgrade)

A hook call never fails the agent's tool call: it prints nothing unless it has something to tell the agent,
and logs any problem to hooks.log in the workspace's data dir."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``hook`` in ``forewarn --help`` (the call itself never goes through argparse: see ``main``)."""
    import argparse

    p = sub.add_parser(
        "hook",
        help="(run by agent hosts) answer a hook event from stdin: a file's memories, a failure explained",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("host", nargs="?", choices=HOSTS, help="the agent host sending the event")
    p.add_argument("--event", metavar="NAME", help="the hook event's name, when the host's payload lacks it")
    p.add_argument("-w", "--workspace", type=Path, metavar="DIR", help="workspace root (default: from the event's cwd)")
    p.add_argument("--serve", action="store_true", help="run the workspace's hook server (hook calls start it)")
    p.add_argument("--stop", action="store_true", help="stop the workspace's hook server")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """``hook`` reached through the parser (``forewarn -v hook …``): the same as the direct route."""
    words = ["--serve"] if args.serve else ["--stop"] if args.stop else [args.host] if args.host else []
    if args.event:
        words += ["--event", args.event]
    if args.workspace is not None:
        words += ["-w", str(args.workspace)]
    return main(words)


def main(argv: list[str]) -> int:
    """Run ``forewarn hook`` with ``argv`` (the words after ``hook``); the exit status."""
    host: str | None = None
    event: str | None = None
    workspace: Path | None = None
    mode = "call"
    words = iter(argv)
    for word in words:
        if word in ("--serve", "--stop"):
            mode = word[2:]
        elif word in ("-w", "--workspace", "--event"):
            value = next(words, None)
            if value is None:
                print(f"forewarn hook: {word} needs a value\n{USAGE}", file=sys.stderr)
                return 2 if mode != "call" else 0
            if word == "--event":
                event = value[:64]
            else:
                workspace = Path(value)
        elif word.startswith("--event="):
            event = word.split("=", 1)[1][:64]
        elif word in HOSTS and host is None:
            host = word
        elif word in ("-h", "--help"):
            print(f"{USAGE}\n\n{DESCRIPTION}")
            return 0
        else:
            print(f"forewarn hook: unexpected {word!r}\n{USAGE}", file=sys.stderr)
            return 0 if mode == "call" else 2
    if mode == "serve":
        from forewarn.locations import find_workspace_root
        from forewarn.mcp.hooks.server import serve

        return serve(workspace if workspace is not None else find_workspace_root(Path.cwd()))
    if mode == "stop":
        from forewarn.locations import find_workspace_root
        from forewarn.mcp.hooks.client import stop_server

        root = workspace if workspace is not None else find_workspace_root(Path.cwd())
        print("stopped" if stop_server(root) else "no hook server was running", file=sys.stderr)
        return 0
    return call(host, event, workspace)


def call(host: str | None, event: str | None, workspace: Path | None) -> int:
    """One hook call: never fails the agent's tool call (exit 0 and nothing printed on any problem)."""
    from forewarn.mcp.hooks import client, wire

    if host is None:
        client.log(None, f"forewarn hook called without a host ({USAGE})")
        return 0
    try:
        raw = sys.stdin.buffer.read(wire.MAX_EVENT_BYTES + 1)
    except (OSError, ValueError):
        raw = b""
    out, err, code = client.run(host, raw, event, workspace)
    try:
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
        if err:
            sys.stderr.write(err)
            sys.stderr.flush()
    except (OSError, ValueError):  # the host stopped reading: nothing more to do
        return 0
    return code
