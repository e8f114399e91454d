"""Symbol paths as each language writes a qualified name, wherever a person or an agent reads one: the index keeps
``spdlog.details.os.thread_id`` and ``Body.new`` (its identity, in commands' arguments and the store), and the
text says ``spdlog::details::os::thread_id`` and ``Body::new``; other languages keep their dots."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.symbols import spoken_symbol, symbol_label
from tests.forewarn_run import forewarn_in
from tests.gitrepo import Repo


def test_cpp_c_and_rust_paths_are_spoken_with_double_colons_others_with_dots() -> None:
    assert spoken_symbol("spdlog.details.os.thread_id", "include/spdlog/details/os-inl.h") == (
        "spdlog::details::os::thread_id"
    )
    assert spoken_symbol("spdlog.logger.flush#2", "src/logger.cpp") == "spdlog::logger::flush"
    assert spoken_symbol("Body.new", "axum/src/body.rs") == "Body::new"
    assert spoken_symbol("Node.before#2", "src/Node.java") == "Node.before"
    assert spoken_symbol("Session.request", "requests/sessions.py") == "Session.request"
    assert spoken_symbol("Server.Serve", "server.go") == "Server.Serve"
    assert spoken_symbol("get_cached_power#2.vformat", None) == "get_cached_power.vformat"  # no file: dots


def test_a_label_speaks_the_path_and_names_an_overload_by_its_lines() -> None:
    assert symbol_label("registry.get#2", 90, 99, file="include/spdlog/details/registry-inl.h") == (
        "registry::get (lines 90-99)"
    )
    assert symbol_label("Node.before", 4, 6, namesakes=True, file="src/Node.java") == "Node.before (lines 4-6)"
    assert symbol_label("Body.new", 1, 3, quote=lambda s: f"`{s}`", file="src/body.rs") == "`Body::new`"


BODY_RS = """\
pub struct Body {
    len: usize,
}

impl Body {
    pub fn new() -> Body {
        Body { len: 0 }
    }
}
"""


def test_the_cli_lists_and_searches_name_a_rust_method_as_rust_writes_it(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "crate")
    repo.write("src/body.rs", BODY_RS)
    repo.commit("A body")
    forewarn_in(repo.root, "index", "--no-embed")
    text = "Body::new must not allocate: callers build one per request"
    forewarn_in(repo.root, "remember", text, "--type", "gotcha", "--file", "src/body.rs", "--symbol", "Body.new")
    listed = forewarn_in(repo.root, "memory", "list").stdout
    assert "src/body.rs::Body::new (lines 6-8)" in listed and "Body.new" not in listed
    found = forewarn_in(repo.root, "search", "--lexical", "allocate per request").stdout
    assert "src/body.rs::Body::new" in found, found
