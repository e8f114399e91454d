"""A ``--symbol`` naming several same-named definitions of one file (Java overloads, Rust ``#[cfg]`` twins) is refused
with each one, its lines and the name that picks it (QA pass 9b, finding 2: ``--symbol 'JsonWriter.value'`` anchored to
the first of gson's seven overloads without a word); Go's own method spelling ``(*Mux).Use`` names ``Mux.Use`` (QA pass
9b, minor: it was refused as "no symbol").

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

WRITER_JAVA = """\
package demo;

public class Writer {
  public Writer value(String value) {
    return this;
  }

  public Writer value(double value) {
    if (Double.isNaN(value)) {
      throw new IllegalArgumentException("NaN");
    }
    return this;
  }

  public Writer value(long value) {
    return this;
  }

  public Writer flush() {
    return this;
  }
}
"""
FILESYSTEM_RS = """\
use std::fs;

#[cfg(unix)]
pub fn is_block_device(ft: fs::FileType) -> bool {
    ft.is_block_device()
}

#[cfg(windows)]
pub fn is_block_device(_: fs::FileType) -> bool {
    false
}
"""
MUX_GO = """\
package chi

type Mux struct {
	handler int
}

func (mx *Mux) Use(middlewares ...int) {
	if mx.handler != 0 {
		panic("chi: all middlewares must be defined before routes on a mux")
	}
}

func (mx Mux) Handler() int {
	return mx.handler
}
"""
STUBS_PY = """\
from typing import overload


@overload
def parse(text: str) -> int: ...


@overload
def parse(text: bytes) -> int: ...


def parse(text):
    return int(text)
"""
FOREWARN = str(Path(sys.executable).with_name("forewarn"))
JAVA = "src/demo/Writer.java"
REFUSED_JAVA = (
    f"'Writer.value' names 3 overloads in {JAVA}: give one of Writer.value#1 (lines 4-6: value(String value)), "
    "Writer.value#2 (lines 8-13: value(double value)), Writer.value#3 (lines 15-17: value(long value)); "
    "or give a line inside the one meant instead of a symbol"
)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """Java, Rust, Go and Python files, committed and indexed (lexical)."""
    repo = Repo(tmp_path / "ws")
    repo.write(JAVA, WRITER_JAVA)
    repo.write("src/filesystem.rs", FILESYSTEM_RS)
    repo.write("mux.go", MUX_GO)
    repo.write("app/parse.py", STUBS_PY)
    repo.write(".forewarn/config.toml", "[embedder]\nenabled = false\n")
    repo.commit("start")
    with Workspace.open(repo.root, embedder=None) as ws:
        ws.reindex()
    yield repo.root


def refusal(root: Path, rel: str, symbol: str) -> str:
    with Workspace.open(root, embedder=None) as ws, pytest.raises(InvalidMemoryError) as e:
        ws.remember("x", file=rel, symbol=symbol)
    return str(e.value)


def anchored(root: Path, rel: str, symbol: str | None = None, line: int | None = None) -> tuple[str, int, int]:
    with Workspace.open(root, embedder=None) as ws:
        anchor = ws.remember(f"on {symbol or line}", file=rel, symbol=symbol, line=line).memory.anchor
    assert anchor is not None and anchor.symbol is not None and anchor.start_line and anchor.end_line
    return anchor.symbol, anchor.start_line, anchor.end_line


def test_a_name_with_overloads_is_refused_with_each_its_lines_parameters_and_the_name_that_picks_it(repo: Path) -> None:
    assert refusal(repo, JAVA, "Writer.value") == REFUSED_JAVA
    assert refusal(repo, JAVA, "value") == REFUSED_JAVA.replace("'Writer.value'", "'value'", 1)  # its short name too


def test_each_name_the_refusal_gives_and_a_line_pick_that_one(repo: Path) -> None:
    assert anchored(repo, JAVA, "Writer.value#1") == ("Writer.value", 4, 6)
    assert anchored(repo, JAVA, "Writer.value#2") == ("Writer.value#2", 8, 13)
    assert anchored(repo, JAVA, "value#3") == ("Writer.value#3", 15, 17)
    assert anchored(repo, JAVA, line=10) == ("Writer.value#2", 8, 13)
    assert anchored(repo, JAVA, "Writer.flush") == ("Writer.flush", 19, 21)  # one definition: taken as before


def test_rust_cfg_twins_are_refused_as_definitions(repo: Path) -> None:
    assert refusal(repo, "src/filesystem.rs", "is_block_device") == (
        "'is_block_device' names 2 definitions in src/filesystem.rs: give one of "
        "is_block_device#1 (lines 4-6: is_block_device(ft: fs::FileType)), "
        "is_block_device#2 (lines 9-11: is_block_device(_: fs::FileType)); "
        "or give a line inside the one meant instead of a symbol"
    )
    assert anchored(repo, "src/filesystem.rs", "is_block_device#2") == ("is_block_device#2", 9, 11)


def test_overload_stubs_before_one_implementation_still_name_it(repo: Path) -> None:
    symbol, start, _ = anchored(repo, "app/parse.py", "parse")
    assert symbol == "parse#3" and start == 12


@pytest.mark.parametrize("said", ["(*Mux).Use", "(Mux).Use", "Mux.Use", "github.com/go-chi/chi/v5.(*Mux).Use"])
def test_go_method_spellings_name_the_method(repo: Path, said: str) -> None:
    assert anchored(repo, "mux.go", said) == ("Mux.Use", 7, 11)


def test_a_go_spelling_not_found_suggests_the_method(repo: Path) -> None:
    assert refusal(repo, "mux.go", "(*Mux).Usee").startswith("no symbol '(*Mux).Usee' in mux.go; did you mean Mux.Use?")


def test_the_cli_refuses_and_takes_the_go_spelling(repo: Path) -> None:
    env = {**os.environ, "NO_COLOR": "1"}

    def remember(file: str, symbol: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [FOREWARN, "remember", "x", "--type", "note", "--file", file, "--symbol", symbol],
            cwd=repo, capture_output=True, text=True, env=env,
        )  # fmt: skip

    refused = remember(JAVA, "Writer.value")
    assert refused.returncode == 1 and REFUSED_JAVA in refused.stderr, refused.stderr
    taken = remember("mux.go", "(*Mux).Use")
    assert taken.returncode == 0 and "mux.go::Mux.Use (lines 7-11)" in taken.stdout, taken.stdout + taken.stderr


async def test_an_agents_remember_is_refused_the_same_way_and_takes_the_go_spelling(repo: Path) -> None:
    async with mcp_session(repo) as agent:
        refused = await agent.call_tool("remember", {"text": "x", "file": JAVA, "symbol": "Writer.value"})
        taken = await agent.call_tool("remember", {"text": "y", "file": "mux.go", "symbol": "(*Mux).Use"})
    assert refused.is_error and REFUSED_JAVA in text_of(refused), text_of(refused)
    assert not taken.is_error and "`Mux.Use`" in text_of(taken), text_of(taken)


def test_the_index_own_path_of_the_first_overload_is_taken_as_is(repo: Path) -> None:
    """A mined lesson's symbol is the index's path: plain ``Writer.value`` there is the first overload."""
    with Workspace.open(repo, embedder=None) as ws:
        anchor = ws.anchors.resolve(JAVA, "Writer.value", as_indexed=True)
    assert anchor is not None and (anchor.symbol, anchor.start_line) == ("Writer.value", 4)
