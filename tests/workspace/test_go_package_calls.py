"""QA pass 9b finding 1d: ``chi.URLParam(r, "id")`` after ``import "github.com/go-chi/chi/v5"`` is the package's
function ``URLParam``, never the method ``Context.URLParam`` of the same name (the package is named ``chi``: a major
version is no part of its name)."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from tests.gitrepo import write_files
from tests.workspace.lookup_at import resolved_at

CONTEXT = (
    "package chi\n\nfunc URLParam(r int, key string) string {\n\treturn key\n}\n\n"
    "type Context struct{}\n\nfunc (x *Context) URLParam(key string) string {\n\treturn key\n}\n"
)
STRIP = (
    'package middleware\n\nimport (\n\t"github.com/go-chi/chi/v5"\n)\n\n'
    'func Strip(r int) string {\n\treturn chi.URLParam(r, "id")\n}\n'
)


def test_a_package_qualified_call_is_the_packages_function_not_a_namesake_method(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_files(root, {"go.mod": "module github.com/go-chi/chi/v5\n\ngo 1.21\n", "context.go": CONTEXT,
                       "middleware/strip.go": STRIP})  # fmt: skip
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        assert resolved_at(w, "middleware/strip.go", STRIP, "chi.URLParam", "URLParam") == ("context.go", ("URLParam",))
