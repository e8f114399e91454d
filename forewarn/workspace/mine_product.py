"""Which code the product runs: paths and symbols of tests, examples, documentation and tooling beside it.

Mining places no lesson there (``mine_rules``, ``mine_comments``, ``mine_anchors``): what goes wrong in a test, a
demo or a release script is no warning for the code users run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from forewarn.indexing.conventions import EXAMPLE_DIR_PREFIX, EXAMPLE_DIRS, is_test_path
from forewarn.indexing.records import Chunk
from forewarn.indexing.store_records import CodeChunk

CHANGELOG_PATH = re.compile(r"(^|/)(CHANGE(S|LOG)|HISTORY|NEWS|RELEASE[-_]?NOTES|AUTHORS|CONTRIBUTORS)(\.\w+)?$", re.I)
# translations: the words a product shows in each language, not its logic ("improve french translation" in zod's
# locales/fr.ts). A locales/ folder; a file or folder named by a language tag (fr, pt-BR, zh_Hant) in a locale/, i18n/,
# l10n/ or translations/ folder (date-fns' locale/fr/, Django's conf/locale/fr/; not the engines beside them:
# Django's utils/translation/trans_real.py, the i18n gem's lib/i18n/backend/); gettext catalogs
LANGUAGE_TAG = r"[a-z]{2}|[a-z]{2,3}([-_][A-Za-z0-9]{2,8})+"
TRANSLATION_PATH = rf"(^|/)locales/|(^|/)(locale|i18n|l10n|translations?)/({LANGUAGE_TAG})(/|\.\w+$)|\.(po|pot)$"
# documentation, and translations with it: words for readers, which teach nothing about the code (``docs-only``)
# a documentation folder; not one inside a source root, where ``doc`` names a module (ripgrep's
# crates/core/flags/doc/ writes the man page and --help: Rust code like the rest of the crate)
SOURCE_ROOT = r"(?:src|lib|crates|pkg|internal)"
DOC_FOLDER = rf"^(?!(?:.*/)?{SOURCE_ROOT}/(?:.*/)?(?:docs?|documentation)/)(?:.*/)?(?:docs?|documentation)/"
DOCS_PATH = re.compile(rf"{DOC_FOLDER}|\.(rst|md|adoc|txt)$|(^|/)\.github/|{TRANSLATION_PATH}", re.IGNORECASE)
# example, demo and benchmark code beside the product (conventions.EXAMPLE_DIRS: zod's packages/bench/, Rust's
# benches/): its lessons are no warning for the product's code
EXAMPLE_PATH = re.compile(  # Go's tooling skips a folder named with a leading "_": chi's _examples/
    rf"(^|/){re.escape(EXAMPLE_DIR_PREFIX)}*({'|'.join(sorted(EXAMPLE_DIRS))})/", re.IGNORECASE
)
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
    r"^([\w.-]+/)?(tasks|scripts|tools|tooling)/|^(noxfile|tasks|fabfile|gulpfile|gruntfile|jakefile)\.\w+$"
    # a JavaScript build or test tool's configuration or plug-in (tsup.config.ts, vite.config.mjs, karma.conf.js,
    # immer's vitest-custom-reporter.ts), wherever a package of a monorepo keeps it
    r"|(^|/)[\w-]+\.(config|conf)\.[cm]?[jt]s$"
    r"|^(packages/[\w.-]+/)?(vitest|jest|karma|mocha|playwright|cypress|eslint|prettier|babel|webpack|rollup|vite|"
    r"tsup|esbuild)[\w.-]*\.[cm]?[jt]s$",  # at a package's top, not in its sources (vite's own src/vite.ts)
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


# an attribute that makes a Rust item test code wherever it stands: ``#[test]``, ``#[cfg(test)]`` (ripgrep keeps each
# flag's test beside the flag, outside any ``mod tests``), a test framework's ``#[tokio::test]``, ``#[bench]``
TEST_ATTRIBUTE = re.compile(r"^#\[\s*(cfg\(\s*(all\(\s*)?test\b|(\w+::)*test\s*[\](]|bench\s*\]|rstest\b|test_case\b)")
# what stands between an item's first line and its attributes: other attributes, each on its own line, and comments
ATTRIBUTE_OR_COMMENT = re.compile(r"^(#\[.*\]|//.*)$")


def test_item(chunk: Chunk | CodeChunk, lines: Sequence[str]) -> bool:
    """A definition carrying a test attribute (TEST_ATTRIBUTE) among the attributes and comments right above it."""
    at = chunk.start_line - 2  # the line above the chunk, 0-based
    while at >= 0 and ATTRIBUTE_OR_COMMENT.match(above := lines[at].strip()):
        if TEST_ATTRIBUTE.match(above):
            return True
        at -= 1
    return False


def in_test_item(chunks: Sequence[Chunk], first: int, last: int, lines: Sequence[str]) -> bool:
    """Lines ``first``..``last`` (1-based) lie in a definition marked as a test (:func:`test_item`), in one nested in
    such a definition (a ``#[cfg(test)] mod`` not named ``tests``), or right above one, past its attributes."""
    below = last  # 0-based: the first line after the comment that is no attribute or comment
    while below < len(lines) and ATTRIBUTE_OR_COMMENT.match(lines[below].strip()):
        below += 1
    return any(
        test_item(c, lines)
        for c in chunks
        if (c.start_line <= first and last <= c.end_line) or c.start_line == below + 1
    )


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
