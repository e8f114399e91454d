"""Imports resolved to workspace files, for every fixture language, plus incremental index upkeep."""

from __future__ import annotations

import time

import pytest

from forewarn.indexing.languages import language_for_path
from forewarn.indexing.records import Import
from forewarn.indexing.resolve import ImportResolver
from tests.indexing.test_parse import FIXTURE_NAMES, expected, fixture_files, parsed


def resolver_for(name: str) -> ImportResolver:
    files = fixture_files(name)

    def read_text(rel: str) -> str | None:
        data = files.get(rel)
        return data.decode() if data is not None else None

    return ImportResolver(files, read_text)


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_imports_resolve_to_the_right_files(name: str) -> None:
    resolver = resolver_for(name)
    results = parsed(name)
    for rel, specs in expected(name)["imports"].items():
        language = results[rel].language
        by_spec = {i.spec: i for i in results[rel].imports}
        for import_spec, files in specs.items():
            got = resolver.resolve(rel, language, by_spec[import_spec])
            assert sorted(got) == sorted(files), (rel, import_spec)


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_resolved_files_exist_and_exclude_the_importer(name: str) -> None:
    resolver = resolver_for(name)
    files = fixture_files(name)
    for rel, result in parsed(name).items():
        for imp in result.imports:
            for found in resolver.resolve(rel, result.language, imp):
                assert found in files and found != rel


def test_add_and_remove_keep_indexes_current() -> None:
    resolver = ImportResolver(["app/main.py", "app/__init__.py"], lambda rel: None)
    imp = Import(spec="app.util", line=1)
    assert resolver.resolve("app/main.py", "python", imp) == []
    resolver.add("app/util.py")
    assert resolver.resolve("app/main.py", "python", imp) == ["app/util.py"]
    resolver.remove("app/util.py")
    resolver.add("app/util/__init__.py")
    assert resolver.resolve("app/main.py", "python", imp) == ["app/util/__init__.py"]
    resolver.remove("app/util/__init__.py")
    assert resolver.resolve("app/main.py", "python", imp) == []


def test_python_root_inside_a_package_is_not_a_source_root() -> None:
    files = ["pkg/__init__.py", "pkg/serializers/__init__.py", "pkg/serializers/json.py", "pkg/views.py"]
    resolver = ImportResolver(files, lambda rel: None)
    assert resolver.resolve("pkg/views.py", "python", Import(spec="json", line=1)) == []
    assert resolver.resolve("pkg/views.py", "python", Import(spec="pkg.serializers.json", line=1)) == [
        "pkg/serializers/json.py"
    ]


def test_python_prefers_the_root_nearest_the_importer() -> None:
    files = [
        "svc_a/lib/util.py",
        "svc_a/lib/__init__.py",
        "svc_a/main.py",
        "svc_b/lib/util.py",
        "svc_b/lib/__init__.py",
        "svc_b/main.py",
    ]
    resolver = ImportResolver(files, lambda rel: None)
    for service in ("svc_a", "svc_b"):
        found = resolver.resolve(f"{service}/main.py", "python", Import(spec="lib.util", line=1))
        assert found == [f"{service}/lib/util.py"]


def test_unknown_language_and_unresolvable_imports_are_quick_and_empty() -> None:
    files = [f"pkg{i}/mod{j}.py" for i in range(100) for j in range(30)]
    resolver = ImportResolver(files, lambda rel: None)
    start = time.perf_counter()
    for _ in range(1000):
        assert resolver.resolve("pkg1/mod1.py", "python", Import(spec="numpy.linalg", line=1)) == []
    assert time.perf_counter() - start < 0.5
    assert resolver.resolve("x.unknown", "klingon", Import(spec="x", line=1)) == []
    assert language_for_path("pkg1/mod1.py") is not None


def test_rust_module_paths_from_nested_modules() -> None:
    files = ["src/lib.rs", "src/d.rs", "src/a/mod.rs", "src/a/b.rs", "src/a/b/c.rs"]
    resolver = ImportResolver(files, lambda rel: None)

    def resolve(importer: str, spec: str, *names: str) -> list[str]:
        return resolver.resolve(importer, "rust", Import(spec=spec, line=1, names=names))

    assert resolve("src/a/b.rs", "c") == ["src/a/b/c.rs"]  # `mod c;` inside a/b.rs
    assert resolve("src/a/b/c.rs", "super::super::Thing") == ["src/a/mod.rs"]
    assert resolve("src/a/b/c.rs", "super::Thing") == ["src/a/b.rs"]
    assert resolve("src/a/b/c.rs", "crate::d::Thing") == ["src/d.rs"]
    assert resolve("src/a/mod.rs", "self::b::c::X") == ["src/a/b/c.rs"]
    assert resolve("src/a/mod.rs", "crate::a", "b", "Local") == ["src/a/b.rs"]  # `Local` is in a itself
    assert resolve("src/lib.rs", "serde::Deserialize") == []


def test_go_packages_by_module_path_without_test_files() -> None:
    files = [
        "go.mod",
        "pkg/a/a.go",
        "pkg/a/a_test.go",
        "pkg/a/extra.go",
        "cmd/tool/main.go",
        "cmd/tool/main_test.go",
        "sub/go.mod",
        "sub/lib/lib.go",
    ]
    texts = {"go.mod": "module example.com/root\n\ngo 1.22\n", "sub/go.mod": "module example.com/sub\n"}
    resolver = ImportResolver([f for f in files if f.endswith(".go")], texts.get)
    imp = Import(spec="example.com/root/pkg/a", line=1)
    assert resolver.resolve("cmd/tool/main.go", "go", imp) == ["pkg/a/a.go", "pkg/a/extra.go"]
    assert resolver.resolve("cmd/tool/main_test.go", "go", imp) == ["pkg/a/a.go", "pkg/a/extra.go"]
    # the nearest go.mod decides the module: sub/ is its own module
    assert resolver.resolve("sub/lib/lib.go", "go", imp) == []
    assert resolver.resolve("sub/lib/lib.go", "go", Import(spec="example.com/sub/lib", line=1)) == []  # itself
    assert resolver.resolve("cmd/tool/main.go", "go", Import(spec="example.com/sub/lib", line=1)) == []
    resolver.add("pkg/a/new.go")
    assert "pkg/a/new.go" in resolver.resolve("cmd/tool/main.go", "go", imp)


@pytest.mark.parametrize(
    ("importer", "spec", "found"),
    [
        ("src/a.ts", "./types", "src/types.d.ts"),
        ("src/a.ts", "./ui", "src/ui/index.tsx"),
        ("src/a.ts", "./plain.js", "src/plain.js"),  # no plain.ts: the .js file itself
        ("src/a.ts", "./b.js", "src/b.ts"),
        ("src/a.js", "./b.js", None),  # a JavaScript importer never maps .js to .ts
        ("src/ui/index.tsx", "../a", "src/a.ts"),
        ("src/a.ts", "lodash", None),
    ],
)
def test_javascript_extension_and_index_resolution(importer: str, spec: str, found: str | None) -> None:
    files = ["src/a.ts", "src/a.js", "src/b.ts", "src/types.d.ts", "src/ui/index.tsx", "src/plain.js"]
    resolver = ImportResolver(files, lambda rel: None)
    language = "typescript" if importer.endswith(".ts") else "tsx" if importer.endswith(".tsx") else "javascript"
    assert resolver.resolve(importer, language, Import(spec=spec, line=1)) == ([found] if found else [])


def test_c_includes_relative_then_by_suffix_nearest_the_includer() -> None:
    files = ["a/include/util.h", "b/include/util.h", "a/src/x.c", "a/src/local.h", "b/src/y.c"]
    resolver = ImportResolver(files, lambda rel: None)
    assert resolver.resolve("a/src/x.c", "c", Import(spec="local.h", line=1)) == ["a/src/local.h"]
    assert resolver.resolve("a/src/x.c", "c", Import(spec="../include/util.h", line=1)) == ["a/include/util.h"]
    assert resolver.resolve("a/src/x.c", "c", Import(spec="util.h", line=1)) == ["a/include/util.h"]
    assert resolver.resolve("b/src/y.c", "c", Import(spec="include/util.h", line=1)) == ["b/include/util.h"]
    assert resolver.resolve("a/src/x.c", "c", Import(spec="<stdio.h>", line=1)) == []
