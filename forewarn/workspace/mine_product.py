"""Which code the product runs: paths and symbols of tests, examples, documentation and tooling beside it.

Mining places no lesson there (``mine_rules``, ``mine_comments``, ``mine_anchors``): what goes wrong in a test, a
demo or a release script is no warning for the code users run.
"""

from __future__ import annotations

import re

from forewarn.indexing.conventions import is_test_path

CHANGELOG_PATH = re.compile(r"(^|/)(CHANGE(S|LOG)|HISTORY|NEWS|RELEASE[-_]?NOTES|AUTHORS|CONTRIBUTORS)(\.\w+)?$", re.I)
DOCS_PATH = re.compile(r"(^|/)(docs?|documentation)/|\.(rst|md|adoc|txt)$|(^|/)\.github/", re.IGNORECASE)
# example, demo and benchmark code beside the product: its lessons are no warning for the product's code
EXAMPLE_PATH = re.compile(r"(^|/)(examples?|samples?|demos?|benchmarks?)/", re.IGNORECASE)
# code that serves the tests from beside them: a test server (urllib3's dummyserver/), fixtures, fakes, test helpers,
# and a package named for what it tests, Go's way (zap's internal/ztest/, net/http/httptest/)
TEST_SUPPORT_PATH = re.compile(
    r"(^|/)(dummy\w*|fakes?|mocks?|fixtures?|testdata|testutils?|test_?helpers?|test_?support|testlib|"
    r"(?!latest/)[a-z]\w*test)/",
    re.IGNORECASE,
)
# the project's own tooling beside the product: task runners, release and maintenance scripts at the top (or one
# folder down, "website/scripts/"); what goes wrong there bites maintainers running them, not the code users run
TOOLING_PATH = re.compile(
    r"^([\w.-]+/)?(tasks|scripts|tools|tooling)/|^(noxfile|tasks|fabfile|gulpfile|gruntfile|jakefile)\.\w+$",
    re.IGNORECASE,
)


TEST_MODULES = frozenset({"tests", "test"})  # Rust's ``#[cfg(test)] mod tests`` inside a product file, and the like
SYMBOL_SEPARATOR = re.compile(r"[.#:]")  # ``Class.method``, ``f#2`` (an overload), ``mod::item``


def symbol_parts(symbol: str) -> list[str]:
    """The names a symbol path is made of (``tests.print_class`` → ``tests``, ``print_class``)."""
    return [p for p in SYMBOL_SEPARATOR.split(symbol) if p]


def in_test_module(symbol: str) -> bool:
    """A symbol inside a module or class named ``tests`` (``tests.print_class``): test code in a product file, as
    Rust keeps its unit tests. A method itself named ``test`` (``RegExp.test``) is product code."""
    return any(p in TEST_MODULES for p in symbol_parts(symbol)[:-1])


def is_product_code(path: str, symbol: str | None) -> bool:
    """Code the product runs, by its file (:func:`is_product_path`) and, for a symbol, its place in that file: a
    product file's own test module is tests."""
    return is_product_path(path) and not (symbol and in_test_module(symbol))


def is_product_path(path: str) -> bool:
    """Code the product runs: not tests, not examples, demos, benchmarks or documentation beside it."""
    return not (
        is_test_path(path)
        or EXAMPLE_PATH.search(path)
        or DOCS_PATH.search(path)
        or TEST_SUPPORT_PATH.search(path)
        or TOOLING_PATH.search(path)
    )
