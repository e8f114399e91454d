"""Mining round 11 (issue 23): a product file's own test module is tests.

Rust keeps unit tests beside the code, in ``#[cfg(test)] mod tests`` of the product file. A commit that fixed a
function and extended a test there was placed on the test (``tests.parses_numbers``), the symbol it changed most;
the fix now goes to the product code beside it. A lesson, a warning comment or a hot spot inside such a module
proposes nothing (``lesson-in-test-code``, ``comment-in-test``), while a method itself named ``test`` stays product
code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace import mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise, in_test_module
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined

PARSER = """\
pub fn parse(input: &str) -> Option<u32> {
    input.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_numbers() {
        assert_eq!(parse("12"), Some(12));
    }
}
"""

TEST_CASES = """\
    #[test]
    fn parses_empty() {
        assert_eq!(parse(""), None);
        assert_eq!(parse(" "), None);
        assert_eq!(parse("\\t"), None);
        assert_eq!(parse("\\n"), None);
        assert_eq!(parse("  \\n "), None);
    }
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write("Cargo.toml", '[package]\nname = "numbers"\nversion = "0.1.0"\n')
    r.write("src/lib.rs", PARSER)
    r.commit("Add the number parser")
    return r


def test_a_symbol_in_a_tests_module_is_test_code() -> None:
    assert in_test_module("tests.parses_empty")
    assert in_test_module("parser.tests.case#2")
    assert not in_test_module("RegExp.test")  # a method named test is product code
    assert not in_test_module("tests")
    assert not in_test_module("Parser.parse")


def test_a_fix_with_its_test_beside_it_is_placed_on_the_product_code(repo: Repo, open_ws: list[Workspace]) -> None:
    source = PARSER.replace("input.trim().parse().ok()", "input.trim().parse::<u32>().ok().filter(|n| *n > 0)")
    more = "".join(f'        assert_eq!(parse("{n}"), Some({n}));\n' for n in range(1, 7))
    asserts = '        assert_eq!(parse("12"), Some(12));\n'
    repo.write("src/lib.rs", source.replace(asserts, asserts + more + '        assert_eq!(parse("0"), None);\n'))
    repo.commit(
        "Fix zero accepted as a count\n\n"
        "Parse accepted zero, which crashed the scheduler: it divides the work by the count."
    )
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in ws.suggestions() if m.source == "commit"]
    assert lesson.anchor is not None and lesson.anchor.symbol == "parse"  # not tests.parses_numbers, the most changed


def test_a_commit_to_the_tests_module_alone_proposes_nothing(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("src/lib.rs", PARSER.replace("    }\n}\n", "    }\n\n" + TEST_CASES + "}\n"))
    repo.commit(
        "Fix the parser tests missing blank input\n\n"
        "Blank input was never tested because the fixture only held digits, which hid a panic in older versions."
    )
    ws, report = mined(repo, open_ws)
    assert [m for m in ws.suggestions() if m.source == "commit"] == []
    assert report.noise.get(Noise.TEST_ANCHOR, 0) == 1


def test_a_warning_comment_in_a_tests_module_is_no_lesson() -> None:
    source = PARSER.replace(
        "    fn parses_numbers() {\n",
        "    fn parses_numbers() {\n        // Don't run this in parallel: the parser keeps a cache, so results leak\n",
    ).replace(
        "pub fn parse(input: &str) -> Option<u32> {\n",
        "pub fn parse(input: &str) -> Option<u32> {\n    // Don't cache here: callers mutate the input, so it rots\n",
    )
    scan = mine_comments.warning_comments("src/lib.rs", source.encode())
    assert [symbol for _, symbol in scan.found] == ["parse"]
    assert scan.skipped[Noise.TEST_COMMENT] == 1
