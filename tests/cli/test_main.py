"""The command line's manners as a shell sees them: closed pipes, errors, Ctrl-C, colour, one -w everywhere."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pty
import re
import select
import signal
import subprocess
from pathlib import Path

import pytest

from forewarn.cli import util as cliutil
from forewarn.cli.main import build_parser
from forewarn.errors import ForewarnError
from tests.cli.conftest import CLI_TIMEOUT_S, Forewarn, forewarn_argv, git_repo, plain_env

READER_GONE = 141  # what cat, grep and git give a shell when the reader quits early
SGR = re.compile(rb"\x1b\[[0-9;]*m")  # colour and style escapes
MAP_FILES = 60  # enough definitions that the map is well over a pipe's 64 KiB buffer
MAP_FUNCTIONS = 40


def write_many_definitions(root: Path) -> None:
    """Enough definitions under ``root/billing`` that ``map --budget 1000000`` prints well over 64 KiB."""
    for i in range(MAP_FILES):
        body = "".join(
            f"def handle_request_number_{i}_{j}(request, response, session, configuration):\n    return {j}\n\n"
            for j in range(MAP_FUNCTIONS)
        )
        (root / "billing" / f"handlers_{i}.py").write_text(body, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, forewarn: Forewarn) -> Path:
    root = git_repo(tmp_path / "shop")
    made = forewarn("remember", "invoice totals round each line, not the sum", "--type", "gotcha", cwd=root)
    assert made.returncode == 0, made.stderr
    return root


def test_version_through_python_m() -> None:
    done = subprocess.run(forewarn_argv("--version"), capture_output=True, text=True, timeout=CLI_TIMEOUT_S)
    assert done.returncode == 0 and re.fullmatch(r"forewarn \d+\.\d+\.\d+\S*\n", done.stdout), done


def run_into_closed_pipe(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run with stdout a pipe whose reader is already gone: every write fails with EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            forewarn_argv(*args), cwd=cwd, env=plain_env(), stdout=write_end, stderr=subprocess.PIPE,
            timeout=CLI_TIMEOUT_S,
        )  # fmt: skip
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args",
    [("search", "invoice rounding"), ("search", "invoice rounding", "--json"), ("memory", "list"), ("--help",)],
)
def test_closed_stdout_is_a_quiet_exit(repo: Path, args: tuple[str, ...]) -> None:
    done = run_into_closed_pipe(*args, cwd=repo)
    assert done.returncode == READER_GONE, done.stderr.decode()
    assert b"Traceback" not in done.stderr and b"BrokenPipe" not in done.stderr, done.stderr.decode()


def test_head_through_a_shell_pipe(tmp_path: Path, forewarn: Forewarn) -> None:
    root = git_repo(tmp_path / "big")
    write_many_definitions(root)
    whole = forewarn("map", "--budget", "1000000", cwd=root)
    assert whole.returncode == 0 and len(whole.stdout) > 2 * 65536, (len(whole.stdout), whole.stderr)
    script = 'set -o pipefail; "$@" map --budget 1000000 | head -1; echo "forewarn exited ${PIPESTATUS[0]}" >&2'
    done = subprocess.run(
        ["bash", "-c", script, "bash", *forewarn_argv()], cwd=root / "billing", env=plain_env(), capture_output=True,
        text=True, timeout=CLI_TIMEOUT_S,
    )  # fmt: skip
    assert done.stdout == whole.stdout.splitlines(keepends=True)[0]
    assert done.stderr == f"forewarn exited {READER_GONE}\n", done.stderr


def test_rich_output_into_a_closed_pipe_reaches_main() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    stream = open(write_end, "w", encoding="utf-8")  # noqa: SIM115 (closed below, where its flush fails too)
    with contextlib.redirect_stderr(stream):
        console = cliutil.stderr_console()
        with pytest.raises(BrokenPipeError):  # rich's own handler would exit with status 1
            console.print("[dim]the reader is gone[/dim]")  # any write fails: nobody holds the read end
    assert console.quiet
    with contextlib.suppress(BrokenPipeError):
        stream.close()


def test_forewarn_errors_are_one_line(repo: Path, forewarn: Forewarn, tmp_path: Path) -> None:
    assert issubclass(cliutil.CliError, ForewarnError)
    cases = [
        (("memory", "show", "0123456789ABCDEFGHJKMNPQRS"), "no memory with id"),
        (("memory", "import", str(tmp_path / "missing.jsonl")), "does not exist"),
        (("stats", "-w", str(tmp_path / "absent")), "does not exist"),
    ]
    for argv, message in cases:
        done = forewarn(*argv, cwd=repo)
        assert done.returncode == 1, (argv, done.stderr)
        assert done.stdout == "" and "Traceback" not in done.stderr
        assert done.stderr.splitlines()[-1].startswith("forewarn: ") and message in done.stderr, done.stderr


def as_from_a_terminal() -> None:
    """In the child: Ctrl-C at its default, as a shell starts a foreground command. A suite started in the background
    by a non-interactive shell (``make test &``, a CI runner's ``( … & )``) has SIGINT ignored, as POSIX asks of such
    jobs; the command would inherit that, Python would keep ignoring it, and the run would end 0 as if never stopped."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_exits_130_without_a_traceback(repo: Path) -> None:
    write_many_definitions(repo)  # a map far larger than the pipe: the command blocks writing it until we read
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(
        forewarn_argv("map", "--budget", "1000000"), cwd=repo, env=plain_env(), stdout=write_end,
        stderr=subprocess.PIPE, text=True, preexec_fn=as_from_a_terminal,
    )  # fmt: skip
    os.close(write_end)
    try:
        # the first bytes on stdout mean main() is running; with nobody reading, the command then blocks in write()
        ready, _, _ = select.select([read_end], [], [], CLI_TIMEOUT_S)
        assert ready and proc.poll() is None, "the command printed nothing, or finished before it could be stopped"
        proc.send_signal(signal.SIGINT)
        with os.fdopen(read_end, "rb") as out:  # drain, so the interrupted command can flush and exit
            out.read()
        err = proc.stderr.read() if proc.stderr else ""
        proc.wait(timeout=CLI_TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def leaf_parsers(parser: argparse.ArgumentParser, name: str = "forewarn") -> dict[str, argparse.ArgumentParser]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return {name: parser}
    found: dict[str, argparse.ArgumentParser] = {}
    for sub in subs:
        for child_name, child in sub.choices.items():
            found.update(leaf_parsers(child, f"{name} {child_name}"))
    return found


def test_every_command_takes_the_workspace_flag() -> None:
    leaves = leaf_parsers(build_parser())
    assert {"forewarn serve", "forewarn model install", "forewarn model info", "forewarn stats"} <= set(leaves)
    lacking = [
        name
        for name, parser in leaves.items()
        if not any({"-w", "--workspace"} <= set(a.option_strings) for a in parser._actions)
    ]
    assert lacking == []


def test_index_refuses_two_different_workspaces(repo: Path, tmp_path: Path, forewarn: Forewarn) -> None:
    assert forewarn("index", str(repo), "-w", str(repo), "--json", cwd=tmp_path).returncode == 0
    done = forewarn("index", str(repo), "-w", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2 and "two workspaces given" in done.stderr


# ---------------------------------------------------------------- colour


def run_in_pty(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    """Run with stdin, stdout and stderr all a pseudo-terminal; everything it wrote, and its exit status."""
    primary, secondary = pty.openpty()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=secondary, stdout=secondary, stderr=secondary)
    os.close(secondary)
    chunks = []
    try:
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(primary)
        code = proc.wait(timeout=CLI_TIMEOUT_S)
    return code, b"".join(chunks)


def test_colour_on_a_terminal_and_none_with_no_color(repo: Path) -> None:
    term = plain_env(TERM="xterm-256color")
    code, shown = run_in_pty(forewarn_argv("index"), repo, term)
    assert code == 0 and SGR.search(shown), shown  # the progress bar, in colour
    code, shown = run_in_pty(forewarn_argv("index"), repo, {**term, "NO_COLOR": "1"})
    assert code == 0 and b"Indexed" in shown
    assert not SGR.search(shown), shown


def test_piped_output_has_no_escapes(repo: Path, forewarn: Forewarn) -> None:
    for argv in (("index",), ("index", "--json"), ("search", "invoice"), ("stats",), ("memory", "list")):
        done = subprocess.run(
            forewarn_argv(*argv), cwd=repo, env=plain_env(TERM="xterm-256color"), capture_output=True,
            timeout=CLI_TIMEOUT_S,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert b"\x1b" not in done.stdout + done.stderr, argv
    assert json.loads(forewarn("index", "--json", cwd=repo).stdout)["root"] == str(repo)


@pytest.mark.parametrize(
    ("env", "coloured", "terminal"),
    [
        ({}, False, False),  # pytest captures: not a terminal
        ({"FORCE_COLOR": "1"}, True, True),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False),
        ({"NO_COLOR": ""}, False, False),  # empty means unset
    ],
)
def test_console_follows_no_color_and_force_color(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], coloured: bool, terminal: bool
) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    console = cliutil.console()
    assert console.is_terminal is terminal
    assert (console.color_system is not None) is coloured


# what only a developer reading the source needs: reST markup, module paths, internal names
DEVELOPER_NOTE = re.compile(r"``|forewarn\.(cli|mcp|workspace|memory|indexing|lsp)\b|\bimports only\b")


def test_every_commands_help_is_written_for_its_user(forewarn: Forewarn) -> None:
    """QA: `forewarn hook --help` printed the module's developer notes ("``forewarn.cli.main`` sends ``hook``
    here … imports only ``forewarn.mcp.hooks.client``"). Both of its routes, and every other command's help."""

    def helps(parser: argparse.ArgumentParser, path: str) -> list[tuple[str, str]]:
        found = [(path, parser.format_help())]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    found += helps(child, f"{path} {name}")
        return found

    direct = forewarn("hook", "--help")  # the hook call's own route, before the parser is built
    assert direct.returncode == 0 and "Run by an agent host" in direct.stdout, direct.stderr
    for path, text in [("forewarn hook (direct)", direct.stdout), *helps(build_parser(), "forewarn")]:
        assert not DEVELOPER_NOTE.search(text), (path, DEVELOPER_NOTE.search(text))
