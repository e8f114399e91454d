"""Go imports, QA pass 9b findings 1d, 5 and 6 (chi).

1d: ``chi.URLParam(r, "id")`` after ``import "github.com/go-chi/chi/v5"`` names the package ``chi`` (a major version
is no part of a package's name), so the call is the package's function, never the method ``Context.URLParam``.
5: chi keeps its examples in ``_examples/``; the map shows them after the library, as it does ``examples/``.
6: a Go import names a package, a folder of files; the importer uses only those files that define a name it
mentions, so a new file nothing calls has no dependents (chi's broken.go had 31, one per importer of the package).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.config import Settings
from forewarn.indexing import lookup
from forewarn.indexing.conventions import is_example_path
from forewarn.indexing.graph import FileGraph
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.languages import language_by_name
from tests.gitrepo import Repo

GO_MOD = "module github.com/acme/router/v5\n\ngo 1.21\n"
CONTEXT = (
    "package router\n\n"
    "func URLParam(r int, key string) string {\n\treturn key\n}\n\n"
    "type Context struct{}\n\n"
    "func (x *Context) URLParam(key string) string {\n\treturn key\n}\n"
)
MUX = "package router\n\ntype Mux struct{}\n\nfunc NewRouter() *Mux {\n\treturn &Mux{}\n}\n"
UNCALLED = 'package router\n\nfunc FastRoute(pattern string) bool {\n\treturn pattern != ""\n}\n'
IMPORTER = (
    'package middleware\n\nimport (\n\t"fmt"\n\n\t"github.com/acme/router/v5"\n)\n\n'
    'func Strip(r int) {\n\tfmt.Println(router.URLParam(r, "id"))\n}\n'
)
IMPORTERS = 4  # files of another package importing the root package


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("github.com/go-chi/chi/v5", "chi"),
        ("gopkg.in/yaml.v3", "yaml"),
        ("net/http", "http"),
        ("github.com/mattn/go-isatty", "isatty"),
        ("github.com/go-chi/chi/v5/middleware", "middleware"),
        ("v5", "v5"),  # a lone element is the name, whatever it looks like
    ],
)
def test_a_go_import_path_binds_its_package_name(path: str, name: str) -> None:
    assert lookup.package_name(path) == name


def test_go_import_bindings_alias_blank_and_dot() -> None:
    spec = language_by_name("go")
    assert spec is not None
    source = (
        b'package x\n\nimport (\n\t"fmt"\n\tr "github.com/go-chi/chi/v5"\n\t"gopkg.in/yaml.v3"\n'
        b'\t_ "embed"\n\t. "strings"\n)\n'
    )
    found = {(b.local, b.original, b.source, b.module) for b in lookup.bindings(spec, source)}
    assert found == {
        ("fmt", "fmt", "fmt", True),
        ("r", "chi", "github.com/go-chi/chi/v5", True),  # an explicit alias wins
        ("yaml", "yaml", "gopkg.in/yaml.v3", True),
    }  # ``_`` binds nothing, and ``.`` puts the package's names in the file's own scope


def test_an_underscored_examples_folder_is_examples() -> None:
    for rel in ("_examples/custom-handler/main.go", "_example/main.go", "sub/_demo/app.py", "_benchmarks/x.go"):
        assert is_example_path(rel), rel
    assert not is_example_path("_internal/main.go") and not is_example_path("_examples.go")


def _package(tmp_path: Path) -> Indexer:
    repo = Repo(tmp_path / "ws")
    repo.write("go.mod", GO_MOD)
    repo.write("context.go", CONTEXT)
    repo.write("mux.go", MUX)
    repo.write("fast.go", UNCALLED)
    for i in range(IMPORTERS):
        repo.write(f"middleware/strip_{i}.go", IMPORTER.replace("Strip", f"Strip{i}"))
    repo.write("_examples/hello/main.go", 'package main\n\nimport "github.com/acme/router/v5"\n\n'
               "func main() {\n\trouter.NewRouter()\n}\n")  # fmt: skip
    repo.commit("a router package, its middleware and an example")
    indexer = Indexer(repo.root, Settings(), db_path=tmp_path / "index.db")
    indexer.index()
    return indexer


def test_a_go_importer_depends_on_the_package_files_whose_names_it_uses(tmp_path: Path) -> None:
    ix = _package(tmp_path)
    try:
        graph = ix.graph
        assert graph.dependents_count("fast.go") == 0  # nothing names FastRoute: importing the package is no use of it
        assert graph.dependents_count("context.go") == IMPORTERS
        assert "context.go" in graph.dependencies("middleware/strip_0.go")
        assert "mux.go" not in graph.dependencies("middleware/strip_0.go")
        assert set(graph.dependencies("_examples/hello/main.go")) == {"mux.go"}
    finally:
        ix.close()


def test_a_new_go_file_nobody_names_gets_no_dependents_until_named(tmp_path: Path) -> None:
    """The narrowing follows edits: the graph is patched per saved file, and the edge comes back once named."""
    ix = _package(tmp_path)
    try:
        assert ix.graph.dependents_count("fast.go") == 0
        (ix.root / "middleware" / "strip_0.go").write_text(IMPORTER.replace("router.URLParam", "router.FastRoute"))
        ix.index()
        assert ix.graph.dependents_count("fast.go") == 1
    finally:
        ix.close()


def test_only_a_go_files_imports_are_narrowed() -> None:
    """A Python import of a module is a use of it even when no name matches (a side-effect import)."""
    graph = FileGraph.build(
        ["app.py", "plugins.py", "main.go", "pkg/a.go", "pkg/b.go"],
        {"plugins.py": ["register"], "pkg/a.go": ["Used"], "pkg/b.go": ["Other"]},
        {"app.py": {"run": 1}, "main.go": {"Used": 1}},
        {"app.py": {"plugins.py"}, "main.go": {"pkg/a.go", "pkg/b.go"}},
    )
    assert graph.dependencies("app.py") == {"plugins.py": pytest.approx(5.0)}
    assert set(graph.dependencies("main.go")) == {"pkg/a.go"}


def test_the_map_shows_an_underscored_examples_folder_after_the_library(tmp_path: Path) -> None:
    ix = _package(tmp_path)
    try:
        shown = [line[:-1] for line in ix.repo_map(5000).text.splitlines() if not line.startswith("│")]
        assert "_examples/hello/main.go" in shown
        assert all(shown.index(rel) < shown.index("_examples/hello/main.go") for rel in ("context.go", "mux.go"))
    finally:
        ix.close()
