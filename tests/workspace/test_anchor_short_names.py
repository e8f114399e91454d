"""A short ``--symbol`` (the last part of a definition's path) names one definition, or is refused with each one
it could mean, as its language writes it, and its lines (QA pass 8, finding 8: ``--symbol next`` in ripgrep's
``walk.rs``, which defines ``Walk::next`` and ``WalkEventIter::next``, said "no symbol 'next'" and listed twelve
unrelated definitions alphabetically, in the index's dotted form).

Real git repository, real tree-sitter index, the CLI and the MCP server (the SDK's client) as a person and an agent
use them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.memory.errors import InvalidMemoryError
from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo
from tests.mcp.conftest import mcp_session, text_of

WALK_RS = """\
pub struct Walk {
    depth: usize,
}

impl Walk {
    pub fn new(depth: usize) -> Walk {
        Walk { depth }
    }
}

impl Iterator for Walk {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        self.depth += 1;
        Some(self.depth)
    }
}

pub struct WalkEventIter {
    depth: usize,
}

impl Iterator for WalkEventIter {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        None
    }
}
"""
# twelve definitions whose names sort before ``Walk``: an alphabetical list of twelve never reached it
FILLER_RS = "".join(f"pub fn aa_helper_{i:02d}() -> usize {{\n    {i}\n}}\n\n" for i in range(14))
QUEUE_PY = """\
class Inbox:
    def pop(self):
        return 1


class Outbox:
    def pop(self):
        return 2

    def flush(self):
        return 3
"""
FOREWARN = str(Path(sys.executable).with_name("forewarn"))


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """Rust and Python files, committed and indexed (lexical)."""
    repo = Repo(tmp_path / "ws")
    repo.write("src/walk.rs", FILLER_RS + WALK_RS)
    repo.write("app/queue.py", QUEUE_PY)
    repo.write(".forewarn/config.toml", "[embedder]\nenabled = false\n")
    repo.commit("start")
    with Workspace.open(repo.root, embedder=None) as ws:
        ws.reindex()
    yield repo.root


def lines_of(root: Path, rel: str, first_line_text: str, after: int = 0) -> int:
    """The 1-based line of ``first_line_text`` in ``rel`` (its ``after``-th occurrence, counting from 0)."""
    found = [n for n, line in enumerate((root / rel).read_text().splitlines(), 1) if line.strip() == first_line_text]
    return found[after]


def refusal(root: Path, rel: str, symbol: str) -> str:
    with Workspace.open(root, embedder=None) as ws, pytest.raises(InvalidMemoryError) as e:
        ws.remember("x", file=rel, symbol=symbol)
    return str(e.value)


def test_a_short_name_that_ends_several_definitions_is_refused_with_each_as_rust_writes_it(repo: Path) -> None:
    first = lines_of(repo, "src/walk.rs", "fn next(&mut self) -> Option<usize> {")
    second = lines_of(repo, "src/walk.rs", "fn next(&mut self) -> Option<usize> {", after=1)
    assert refusal(repo, "src/walk.rs", "next") == (
        f"'next' names 2 definitions in src/walk.rs: give one of Walk::next (lines {first}-{first + 3}), "
        f"WalkEventIter::next (lines {second}-{second + 2})"
    )
    with Workspace.open(repo, embedder=None) as ws:  # either one, as the refusal wrote it, is taken
        for said, symbol in (("Walk::next", "Walk.next"), ("WalkEventIter::next", "WalkEventIter.next")):
            anchor = ws.remember(f"on {said}", file="src/walk.rs", symbol=said).memory.anchor
            assert anchor is not None and anchor.symbol == symbol


def test_a_short_name_in_python_is_refused_with_dotted_paths(repo: Path) -> None:
    assert refusal(repo, "app/queue.py", "pop") == (
        "'pop' names 2 definitions in app/queue.py: give one of Inbox.pop (lines 2-3), Outbox.pop (lines 7-8)"
    )


def test_the_last_part_of_one_definition_names_it(repo: Path) -> None:
    """README: ``--symbol`` takes "a path's unique tail"; that stays so."""
    with Workspace.open(repo, embedder=None) as ws:
        rust = ws.remember("a", file="src/walk.rs", symbol="new").memory.anchor
        python = ws.remember("b", file="app/queue.py", symbol="flush").memory.anchor
    assert rust is not None and rust.symbol == "Walk.new"
    assert python is not None and python.symbol == "Outbox.flush"


def test_a_name_not_found_lists_the_nearest_first_as_the_language_writes_them(repo: Path) -> None:
    said = refusal(repo, "src/walk.rs", "Walk::nxt")
    assert said.startswith("no symbol 'Walk::nxt' in src/walk.rs; did you mean Walk::next? (definitions there: ")
    listing = said.split("definitions there: ", 1)[1]
    assert listing.startswith("Walk::next, "), said
    assert "Walk.next" not in said and "WalkEventIter.next" not in said, said  # the index's dotted form
    # a name near two definitions alike guesses neither, and lists both first
    tie = refusal(repo, "src/walk.rs", "nxt")
    assert "did you mean" not in tie
    assert tie.split("definitions there: ", 1)[1].startswith("Walk::next, WalkEventIter::next, "), tie


def test_the_cli_refuses_it_the_same_way(repo: Path) -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [FOREWARN, "remember", "x", "--type", "note", "--file", "src/walk.rs", "--symbol", "next"],
        cwd=repo, capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert done.returncode == 1
    assert "'next' names 2 definitions in src/walk.rs: give one of Walk::next (lines " in done.stderr


async def test_an_agents_remember_is_refused_the_same_way(repo: Path) -> None:
    async with mcp_session(repo) as agent:
        answer = await agent.call_tool("remember", {"text": "x", "file": "src/walk.rs", "symbol": "next"})
    text = text_of(answer)
    assert answer.is_error, text
    assert "'next' names 2 definitions in src/walk.rs: give one of Walk::next (lines " in text, text
    assert "WalkEventIter::next (lines " in text, text
