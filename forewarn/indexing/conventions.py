"""What a path says about its file by the usual conventions, across languages. No I/O."""

from __future__ import annotations

import re

TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "e2e"})
TEST_FILE_RE = re.compile(
    r"(^test_.*|.*_test\.[a-z]+$|.*_tests\.[a-z]+$|^conftest\.py$|.*\.(test|spec)\.[jt]sx?$|.*Tests?\.java$|.*_spec\.rb$)"
)


def is_test_path(rel: str) -> bool:
    """Whether ``rel`` is test code by the usual conventions (a tests folder, test_*.py, *_test.go, *.spec.ts…)."""
    parts = rel.split("/")
    if any(p.lower() in TEST_DIRS for p in parts[:-1]):
        return True
    return bool(TEST_FILE_RE.match(parts[-1]))
