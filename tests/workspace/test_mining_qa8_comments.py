"""QA pass 8, findings 10 and 9 (locales): warning comments in a Rust ``#[test] fn`` outside ``mod tests``, a word in
a code span (the TypeScript type `never`), a TypeScript type alias, a benchmark's section banner, a label before a
colon taken for a reason; and translation tables (zod's ``locales/fr.ts``) counted as hot spots of fixes.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace import mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_product import is_product_path
from forewarn.workspace.mine_rules import Noise
from tests.gitrepo import Repo
from tests.workspace.billing_history import kinds, mined

# ripgrep's crates/core/flags/defs.rs keeps each flag's test beside the flag, as a top-level test function
RIPGREP_FLAG_TEST = """\
fn update(v: &str, patterns: &mut Vec<String>) {
    patterns.push(v.to_string());
}

#[cfg(test)]
#[test]
fn test_regexp() {
    let args = parse_low_raw(["-e", "foo"]).unwrap();
    assert_eq!(args.patterns.len(), 1);

    // While we support invalid UTF-8 arguments in general, patterns must be
    // valid UTF-8.
    #[cfg(unix)]
    {
        let result = parse_low_raw([bytes(b"\\xFF")]);
        assert!(result.is_err(), "{result:?}");
    }
}
"""
UTF8_WARNING = "While we support invalid UTF-8 arguments in general, patterns must be valid UTF-8."


def _texts(path: str, source: str) -> list[str]:
    return [c.text for c, _ in mine_comments.warning_comments(path, source.encode()).found]


def test_a_warning_in_a_rust_test_function_outside_mod_tests_is_test_code() -> None:
    scan = mine_comments.warning_comments("crates/core/flags/defs.rs", RIPGREP_FLAG_TEST.encode())
    assert scan.found == [] and scan.skipped[Noise.TEST_COMMENT] == 1
    # the same comment in the product's function is proposed
    product = RIPGREP_FLAG_TEST.replace("#[cfg(test)]\n#[test]\n", "")
    assert _texts("crates/core/flags/defs.rs", product) == [UTF8_WARNING]


def test_a_cfg_test_module_not_named_tests_and_a_tokio_test_are_test_code() -> None:
    module = """\
#[cfg(test)]
mod flag_checks {
    fn check() {
        // Never reuse the parser here: it keeps state across runs and the second run would fail.
        let p = Parser::new();
    }
}
"""
    assert _texts("src/flags.rs", module) == []
    tokio = """\
#[tokio::test]
async fn serves() {
    // Never reuse the parser here: it keeps state across runs and the second run would fail.
    let p = Parser::new();
}
"""
    assert _texts("src/server.rs", tokio) == []
    assert _texts("src/server.rs", tokio.replace("#[tokio::test]\n", "")) != []  # a plain async fn is product code


def test_a_word_in_a_code_span_is_no_warning_word() -> None:
    # zod's core/util.ts: the only "never" is the TypeScript type `never`
    source = """\
export function toShape(shape: Shape, target: Target) {
  // Rebuilds the shape with a marker on each key that disagrees, so the diagnostic names the key instead of
  // failing. A key the target lacks reports `expected: never`; a key the schema lacks reports `received: never`.
  return mark(shape, target);
}
"""
    assert _texts("src/util.ts", source) == []
    said = source.replace("`expected: never`", "nothing: never pass it")
    assert _texts("src/util.ts", said) != []  # the same word outside a code span still warns


def test_a_comment_on_a_typescript_type_alias_or_interface_holds_no_lesson() -> None:
    source = """\
// Never widen this to string: the server rejects unknown modes and the request would fail.
export type Mode = "read" | "write";

export interface Options {
  // Never widen this to string: the server rejects unknown modes and the request would fail.
  mode: Mode;
}
"""
    scan = mine_comments.warning_comments("src/options.ts", source.encode())
    assert scan.found == [] and scan.skipped[Noise.TYPING_CODE] == 2
    as_function = source.replace('export type Mode = "read" | "write";', "export function mode() { return 1; }")
    assert _texts("src/options.ts", as_function) != []


def test_benchmark_code_is_no_product_code_and_a_banner_is_no_warning() -> None:
    assert not is_product_path("packages/bench/memory/leaks.ts")  # zod
    assert not is_product_path("benches/search.rs") and not is_product_path("benchsuite/benchsuite.py")
    assert is_product_path("src/benchmark_runner.ts")  # a file named so, in the product's folder
    banner = """\
export function run(i: number) {
  // --- parsing: input data must not be retained, or the heap grows on every run ---
  return parse(i);
}
"""
    scan = mine_comments.warning_comments("src/run.ts", banner.encode())
    assert scan.found == [] and scan.skipped[Noise.COMMENT_FRAGMENT] == 1


def test_a_label_before_a_colon_is_no_reason() -> None:
    # zod's compile.ts: a label, then the rule the next line enforces
    assert not mine_comments.gives_reason("No rest: input must be in [optinStart, items.length]")
    assert not mine_comments.gives_reason("Length bounds: the input must stay within the tuple's items")
    # a clause of its own after the warning, or between a label and the warning, still says why
    assert mine_comments.gives_reason("never share a Bar: its cursor is not locked")
    assert mine_comments.gives_reason("Windows: paths are case-insensitive - never compare them with ==")
    assert mine_comments.gives_reason("XXX: the gateway rejects totals over 10k")
    # an instruction before the colon is no label: the clause after it gives the reason (zod's compile.ts)
    assert mine_comments.gives_reason(
        "Always cache the property read: the runtime reads input[key] exactly once, so a getter must not be re-read"
    )


TRANSLATION = """\
export function error(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return "Entrée invalide : {expected} attendu";
    case "too_big":
      return "Trop grand";
    default:
      return "Entrée invalide";
  }
}
"""


def test_translation_files_are_words_not_product_logic() -> None:
    for words in ["packages/zod/src/v4/locales/fr.ts", "src/locale/pt-BR/_lib/localize.ts", "po/de.po"]:
        assert not is_product_path(words), words
    # the engines beside them are code: Django's translation machinery, a locale folder's shared helpers
    for engine in ["django/utils/translation/trans_real.py", "src/locale/_lib/buildMatchFn.ts", "lib/i18n/backend.rb"]:
        assert is_product_path(engine), engine


def test_fixes_of_a_translation_table_make_no_hot_spot(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("src/locales/fr.ts", TRANSLATION)
    repo.write("src/parse.ts", "export function parse(s: string) {\n  return s.trim();\n}\n")
    repo.commit("Add the French messages")
    for n, (old, new) in enumerate(
        [
            ("Trop grand", "Trop grand : {maximum} au plus"),
            ('Entrée invalide"', 'Saisie invalide"'),
            (" attendu", " attendu, reçu {received}"),
        ]
    ):
        repo.edit("src/locales/fr.ts", old, new)
        repo.commit(f"fix(locales): improve french translation, take {n}", author=f"Dev{n}")
    ws, report = mined(repo, open_ws)
    assert kinds(ws, "hotspot") == []  # the words of messages: no logic that keeps breaking
    assert report.noise[Noise.DOCS] == 3
