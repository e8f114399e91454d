"""The language registry: discovered from query headers, tolerant of missing grammars."""

from __future__ import annotations

import logging
import pickle

import pytest

from forewarn.indexing import languages
from forewarn.indexing.languages import all_languages, language_by_name, language_for_path, parse_header
from tests.indexing.test_parse import FIXTURE_NAMES, fixture_files

EXPECTED_LANGUAGES = {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "ruby"}


def test_every_language_with_an_installed_grammar_is_discovered() -> None:
    assert {spec.name for spec in all_languages()} == EXPECTED_LANGUAGES


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a/b.py", "python"),
        ("stubs/x.pyi", "python"),
        ("web/app.JSX", "javascript"),
        ("x.mjs", "javascript"),
        ("x.cjs", "javascript"),
        ("x.ts", "typescript"),
        ("x.d.ts", "typescript"),
        ("x.mts", "typescript"),
        ("x.tsx", "tsx"),
        ("main.go", "go"),
        ("lib.rs", "rust"),
        ("A.java", "java"),
        ("x.c", "c"),
        ("x.h", "c"),
        ("x.cpp", "cpp"),
        ("x.cc", "cpp"),
        ("x.hpp", "cpp"),
        ("x.rb", "ruby"),
    ],
)
def test_language_for_path(path: str, language: str) -> None:
    spec = language_for_path(path)
    assert spec is not None and spec.name == language


@pytest.mark.parametrize("path", ["README.md", "Makefile", "x.unknown", "noext", ".py/dir"])
def test_unknown_extension_has_no_language(path: str) -> None:
    assert language_for_path(path) is None


def test_specs_are_picklable_and_carry_their_query() -> None:
    spec = language_by_name("tsx")
    assert spec is not None
    clone = pickle.loads(pickle.dumps(spec))
    assert clone == spec
    # tsx inherits typescript, which inherits javascript: JSX patterns kept for tsx, dropped for typescript
    typescript = language_by_name("typescript")
    assert typescript is not None
    assert "interface_declaration" in spec.query and "jsx_opening_element" in spec.query
    assert "jsx_opening_element" not in typescript.query


def test_header_parsing_stops_at_the_first_pattern() -> None:
    text = "; language: x\n; extensions: .a .b\n\n(call) @reference.call\n; resolver: late\n"
    assert parse_header(text) == {"language": "x", "extensions": ".a .b"}


def test_missing_grammar_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    files = {
        "klingon": (
            {"language": "klingon", "grammar": "tree_sitter_klingon:language", "extensions": ".kl"},
            "(identifier) @name",
        )
    }
    with caplog.at_level(logging.WARNING, logger=languages.__name__):
        assert languages._build_spec("klingon", files) is None
    assert "tree_sitter_klingon" in caplog.text


def test_broken_query_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    header = {"language": "python", "grammar": "tree_sitter_python:language", "extensions": ".py"}
    with caplog.at_level(logging.WARNING, logger=languages.__name__):
        assert languages._build_spec("python", {"python": (header, "(no_such_node) @name")}) is None
    assert "does not compile" in caplog.text


def test_every_language_has_a_fixture_folder() -> None:
    covered = {
        spec.name
        for name in FIXTURE_NAMES
        for rel in fixture_files(name)
        if (spec := language_for_path(rel)) is not None
    }
    assert covered == EXPECTED_LANGUAGES
