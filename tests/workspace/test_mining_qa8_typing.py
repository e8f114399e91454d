"""Second QA pass 8, finding 4: zod fa4a374 "fix(v4): apply util.Writeable in … partial/required" changed only the
types of ``export interface ZodObject``'s method signatures (``[k in keyof Shape]`` → ``-readonly [k in keyof
Shape]``), and became a gotcha on ``ZodObject.partial``. An interface's members, like a ``Protocol`` class's methods,
only declare types: no lesson goes there, and no fix counts there."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise, classify
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined, record

SCHEMAS = "src/schemas.ts"
INTERFACE = """\
export interface ZodObject<Shape> {
  strip(): ZodObject<Shape>;
  partial(): ZodObject<
    {
      [k in keyof Shape]: ZodOptional<Shape[k]>;
    },
    Config
  >;
}

export function object(shape: Shape): ZodObject<Shape> {
  const def = { type: "object", shape };
  return new ZodObject(def);
}
"""
PROTOCOL = """\
from typing import Protocol


class Sender(Protocol):
    def send(self, data: bytes) -> int:
        ...


def deliver(sender: Sender, data: bytes) -> int:
    return sender.send(data)
"""
WHY = (
    "Without this, a fresh user shape would introduce readonly modifiers into the displayed shape of the resulting "
    "object, because the mapped type preserved readonly from the input."
)


def test_a_change_to_an_interfaces_method_signature_is_no_lesson(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write(SCHEMAS, INTERFACE)
    repo.commit("Add object schemas")
    repo.edit(SCHEMAS, "      [k in keyof Shape]", "      -readonly [k in keyof Shape]")
    repo.commit(f"fix(v4): make partial() keys writeable\n\n{WHY}")
    ws, report = mined(repo, open_ws)
    assert not [m for m in ws.suggestions() if m.anchor and m.anchor.symbol == "ZodObject.partial"]
    assert report.noise[Noise.TYPING_CODE] == 1


def test_a_change_to_a_protocol_method_is_no_lesson(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("send.py", PROTOCOL)
    repo.commit("Add the sender protocol")
    repo.edit("send.py", "    def send(self, data: bytes) -> int:\n        ...\n",
              "    def send(self, data: bytes, *, flush: bool = False) -> int:\n        ...\n")  # fmt: skip
    repo.commit(
        "Fix send() missing the flush flag\n\nSenders were never flushed, because the protocol had no way to ask."
    )
    ws, _ = mined(repo, open_ws)
    assert not [m for m in ws.suggestions() if m.anchor and m.anchor.symbol == "Sender.send"]


FLAGS = "crates/core/flags/defs.rs"
RUST = """\
pub fn parse_regexp(arg: &str) -> Result<String, String> {
    Ok(arg.to_string())
}

#[cfg(test)]
#[test]
fn test_regexp() {
    let got = parse_regexp("foo").unwrap();
    assert_eq!("foo", got);
}
"""


def test_a_fix_inside_a_rust_test_function_beside_the_product_is_no_lesson(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """QA pass 8b, finding 10 (the commit side): ripgrep keeps each flag's ``#[test] fn`` beside the flag, outside
    any ``mod tests``. A lesson there warns no product code, and a fix there counts toward no hot spot."""
    repo = Repo(tmp_path / "repo")
    repo.write(FLAGS, RUST)
    repo.commit("Add the regexp flag")
    pad = "    let _ = 0;\n"
    for n in range(3):
        done = '    assert_eq!("foo", got);\n'
        repo.edit(FLAGS, done + pad * n, done + pad * (n + 1))
        repo.commit(
            f"Fix regexp flag parsing on Windows, take {n}\n\nPaths were compared with backslashes, because the "
            "expected value was built from a Unix path."
        )
    ws, report = mined(repo, open_ws)
    assert not [m for m in ws.suggestions() if m.anchor and m.anchor.symbol == "test_regexp"]
    assert report.noise[Noise.TEST_ANCHOR] >= 1


TEMPLATES = """\
from typing import overload


class Templates:
    @overload
    def __init__(self, directory: str) -> None: ...

    @overload
    def __init__(self, *, env: object) -> None: ...

    def __init__(self, directory=None, *, env=None):
        assert directory or env, "either directory or env must be passed"
        self.env = env or load(directory)
"""


def test_a_method_of_a_class_with_overload_stubs_still_holds_its_lesson(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """starlette 9cf26ee fixed ``Jinja2Templates.__init__`` (the implementation after two ``@overload`` stubs): the
    class is no type declaration for holding stubs, and its method's lesson stands."""
    repo = Repo(tmp_path / "repo")
    repo.write("templating.py", TEMPLATES)
    repo.commit("Add templates")
    repo.edit("templating.py", "assert directory or env,", "assert bool(directory) ^ bool(env),")
    repo.commit(
        "Fail fast when both directory and env are given\n\nWhen both were passed, the env was silently ignored in "
        "favor of one created from the directory, because the check only required one of them."
    )
    ws, _ = mined(repo, open_ws)
    assert [m for m in ws.suggestions() if m.anchor and m.anchor.symbol.startswith("Templates.__init__")]


def test_a_message_saying_no_runtime_behaviour_changed_is_no_lesson() -> None:
    """zod fa4a374 ends "No runtime behavior change.": its author says the program behaves as before."""
    verdict = classify(
        record("fix(v4): apply util.Writeable in mini object constructors", f"{WHY}\n\nNo runtime behavior change.")
    )
    assert verdict.reason == Noise.SAME_BEHAVIOUR


HELP = """\
def init_help(cmd):
    cmd.help = make_help(cmd)
    return cmd.help


def reset_commands(cmd):
    cmd.commands = []
"""


def test_what_a_fix_touched_in_passing_is_no_anchor_when_the_fixed_code_is_gone(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """cobra 9b6c926 fixed ``initHelp`` (gone since) and cleared one field in the test helper ``ResetCommands``: the
    lesson went to ``ResetCommands``, the only one still standing. It counts on the file instead."""
    repo = Repo(tmp_path / "repo")
    repo.write("help.py", HELP)
    repo.commit("Add help")
    repo.edit("help.py", "    cmd.help = make_help(cmd)\n",
              "    if not cmd.commands:\n        return None\n    if cmd.help is None:\n"
              "        cmd.help = make_help(cmd)\n        cmd.help.hidden = False\n")  # fmt: skip
    repo.edit("help.py", "    cmd.commands = []\n", "    cmd.commands = []\n    cmd.help = None\n")
    repo.commit(
        "When no subcommands are registered, omit the help command\n\nThe help output still listed 'help' as a "
        "subcommand of a single root command, because the help command was always added."
    )
    repo.edit("help.py", "def init_help(cmd):", "def init_default_help(cmd):")
    repo.commit("Rename init_help")
    ws, report = mined(repo, open_ws)
    assert not [m for m in ws.suggestions() if m.anchor and m.anchor.symbol == "reset_commands"]
    assert report.noise[Noise.FILE_ANCHOR] == 1
