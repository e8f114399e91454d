"""QA pass 8b, findings 2 and 6: which definition a commit's lesson goes to.

- zod's ``core/schemas.ts`` assigns ``inst._zod.parse = …`` in 46 schema constructors (``parse`` … ``parse#46`` by
  position); a schema added above one shifts the ordinals, so an old commit's ``parse#N`` is another schema's parser
  at HEAD. A namesake is followed by what it is written in, its position there, or its code; else it is no symbol's.
- ripgrep f55548b "fix `matches_all` false positives" wrote a new ``matches_all`` for each strategy and fixed
  ``GlobSet::matches_all_candidate``: a helper it wrote whole is no candidate, named or not.
- ripgrep 74959a1 "man: escape all hyphens in flag names" re-wrapped one flag's help text (a raw string) and fixed
  ``generate_flag``: a string literal's text weighs less than logic.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.memory.suggestions import ANCHOR_FILE, ANCHOR_SYMBOL
from forewarn.workspace import mining
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_head import HeadIndex
from forewarn.workspace.mine_product import is_product_path
from tests.gitrepo import Repo
from tests.workspace.billing_history import place_of

SCHEMAS = "src/schemas.ts"


def _schema(name: str, body: str) -> str:
    return (
        f'export const {name}: core.$constructor<{name}> = core.$constructor("{name}", (inst, def) => {{\n'
        f"  inst._zod.parse = (payload, ctx) => {{\n{body}  }};\n}});\n\n"
    )


STRING_BODY = '    if (typeof payload.value !== "string") payload.issues.push(issue(def));\n    return payload;\n'
RECORD_BODY = (
    "    const input = payload.value;\n"
    "    for (const key of Object.keys(input)) {\n"
    "      const result = def.keyType._zod.run({ value: key, issues: [] }, ctx);\n"
    "      payload.value[key] = result.value;\n"
    "    }\n"
    "    return payload;\n"
)
RECORD_FIXED = RECORD_BODY.replace(
    "      payload.value[key] = result.value;\n",
    "      if (result.issues.length) payload.issues.push(...result.issues);\n"
    "      payload.value[result.value] = input[key];\n",
)
TUPLE_BODY = (
    "    const input = payload.value;\n"
    "    if (!Array.isArray(input)) payload.issues.push(issue(def));\n"
    "    return payload;\n"
)
RECORD_FIX = (
    "fix(v4): apply key schema transforms in z.record()\n\n"
    "The key schema ran but its result was dropped, because the original key was written back instead of the "
    "transformed one."
)


def _record_fixed(tmp_path: Path) -> tuple[Repo, str]:
    """A repository whose string and record schemas each have a parser, and the commit fixing the record's."""
    repo = Repo(tmp_path / "repo")
    repo.write(SCHEMAS, _schema("$ZodString", STRING_BODY) + _schema("$ZodRecord", RECORD_BODY))
    repo.commit("Add schemas")
    repo.write(SCHEMAS, _schema("$ZodString", STRING_BODY) + _schema("$ZodRecord", RECORD_FIXED))
    return repo, repo.commit(RECORD_FIX)


def test_a_namesake_is_followed_to_the_same_definition_when_one_is_added_above_it(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write(SCHEMAS, _schema("$ZodString", STRING_BODY) + _schema("$ZodRecord", RECORD_BODY))
    repo.commit("Add schemas")
    repo.write(SCHEMAS, _schema("$ZodString", STRING_BODY) + _schema("$ZodRecord", RECORD_FIXED))
    fix = repo.commit(RECORD_FIX)  # $ZodRecord's parser is parse#2 here
    repo.write(
        SCHEMAS,
        _schema("$ZodString", STRING_BODY) + _schema("$ZodTuple", TUPLE_BODY) + _schema("$ZodRecord", RECORD_FIXED),
    )
    repo.commit("feat: add z.tuple()")  # … and parse#3 at HEAD, where parse#2 is $ZodTuple's
    placement = place_of(repo, fix, open_ws)
    assert placement.anchor is not None and placement.anchor.symbol == "parse#3"
    assert [a.symbol for a in placement.fixed] == ["parse#3"]


def test_a_namesake_that_cannot_be_told_apart_at_head_counts_for_no_symbol(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo, fix = _record_fixed(tmp_path)
    # the record schema renamed, and a map schema with the same parser added above it: either could be the one
    repo.write(
        SCHEMAS,
        _schema("$ZodString", STRING_BODY) + _schema("$ZodMap", RECORD_FIXED) + _schema("$ZodDict", RECORD_FIXED),
    )
    repo.commit("refactor: rename $ZodRecord")
    placement = place_of(repo, fix, open_ws)
    assert placement.anchor is not None and placement.anchor.anchor == ANCHOR_FILE  # counted, never guessed
    assert placement.fixed == []


def test_a_namesake_renamed_where_it_is_written_is_found_by_its_code(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo, fix = _record_fixed(tmp_path)
    repo.write(
        SCHEMAS,
        _schema("$ZodTuple", TUPLE_BODY) + _schema("$ZodString", STRING_BODY) + _schema("$ZodDict", RECORD_FIXED),
    )
    repo.commit("refactor: rename $ZodRecord")
    placement = place_of(repo, fix, open_ws)
    assert placement.anchor is not None and placement.anchor.symbol == "parse#3"


def test_head_says_where_each_namesake_is_written(tmp_path: Path, open_ws: list[Workspace]) -> None:
    """What folding one suggestion per symbol needs to keep zod's 46 parsers apart."""
    repo = Repo(tmp_path / "repo")
    repo.write(SCHEMAS, _schema("$ZodString", STRING_BODY) + _schema("$ZodRecord", RECORD_BODY))
    repo.write("src/once.ts", "export function once(a: number) {\n  return a + 1;\n}\n")
    repo.commit("Add schemas")
    ws = Workspace.open(repo.root, embedder=None)
    open_ws.append(ws)
    ws.reindex()
    head = HeadIndex(ws)
    assert head.written_in(SCHEMAS, "parse") == "export const $ZodString"
    assert head.written_in(SCHEMAS, "parse#2") == "export const $ZodRecord"
    assert head.written_in("src/once.ts", "once") == ""


GLOBSET = "crates/globset/src/lib.rs"
GLOBSET_BEFORE = """\
pub struct GlobSet {
    strats: Vec<Strategy>,
}

impl GlobSet {
    pub fn matches_all_candidate(&self, path: &Candidate<'_>) -> bool {
        for strat in &self.strats {
            if !strat.is_match(path) {
                return false;
            }
        }
        true
    }
}

struct LiteralStrategy(Map);

impl LiteralStrategy {
    fn is_match(&self, candidate: &Candidate<'_>) -> bool {
        self.0.contains_key(candidate.path.as_bytes())
    }
}

struct SuffixStrategy(Map);

impl SuffixStrategy {
    fn is_match(&self, candidate: &Candidate<'_>) -> bool {
        self.0.ends_with(candidate.path.as_bytes())
    }
}
"""


def test_helpers_a_fix_wrote_whole_are_no_anchor_even_when_its_subject_names_them(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write(GLOBSET, GLOBSET_BEFORE)
    repo.commit("globset: add GlobSet")
    after = GLOBSET_BEFORE.replace("if !strat.is_match(path)", "if !strat.matches_all(path)")
    for strategy, test in (("LiteralStrategy", "contains_key"), ("SuffixStrategy", "ends_with")):
        after = after.replace(
            f"impl {strategy} {{\n",
            f"impl {strategy} {{\n    fn matches_all(&self, candidate: &Candidate<'_>) -> bool {{\n"
            f"        self.0.len() == 1 && self.0.{test}(candidate.path.as_bytes())\n    }}\n\n",
        )
    after = after.replace(  # a refactor on the way, more lines than the fix: the fix is where the new helper is called
        "        self.0.ends_with(candidate.path.as_bytes())\n",
        "        let path = candidate.path.as_bytes();\n        let found = self.0.ends_with(path);\n        found\n",
    )
    repo.write(GLOBSET, after)
    sha = repo.commit(
        "globset: fix `matches_all` false positives\n\n"
        "Previously we only checked that all strategies matched, but didn't check within the strategies "
        "themselves, because one glob of a strategy matching was taken for all of them."
    )
    placement = place_of(repo, sha, open_ws)
    assert placement.anchor is not None and placement.anchor.symbol == "GlobSet.matches_all_candidate"


DEFS = "crates/core/flags/defs.rs"
DEFS_BEFORE = """\
struct PreGlob;

impl Flag for PreGlob {
    fn doc_long(&self) -> &'static str {
        r"
This flag works in conjunction with the \\flag{pre} flag.
then it is possible to use \\fB\\-\\-pre\\fP \\fIpre-pdftotext\\fP \\fB--pre-glob
'\\fP\\fI*.pdf\\fP\\fB'\\fP to make it so ripgrep only executes the
\\fIpre-pdftotext\\fP command on files with a \\fI.pdf\\fP extension.
"
    }
}
"""
DEFS_AFTER = DEFS_BEFORE.replace(
    """then it is possible to use \\fB\\-\\-pre\\fP \\fIpre-pdftotext\\fP \\fB--pre-glob
'\\fP\\fI*.pdf\\fP\\fB'\\fP to make it so ripgrep only executes the
\\fIpre-pdftotext\\fP command on files with a \\fI.pdf\\fP extension.""",
    """then it is possible to use \\fB\\-\\-pre\\fP \\fIpre-pdftotext\\fP
\\fB\\-\\-pre\\-glob\\fP '\\fI*.pdf\\fP' to make it so ripgrep only executes
the \\fIpre-pdftotext\\fP command on files with a \\fI.pdf\\fP extension.""",
)
# ripgrep's is crates/core/flags/doc/man.rs; a ``doc/`` folder is documentation to mining (mine_product.DOCS_PATH)
MAN = "crates/core/flags/man.rs"
MAN_BEFORE = """\
fn generate_flag(flag: &'static dyn Flag, out: &mut String) {
    let name = flag.name_long();
    write!(out, r"\\fB\\-\\-{name}\\fP");
    if let Some(var) = flag.doc_variable() {
        write!(out, r"=\\fI{var}\\fP");
    }
    write!(out, r"\\-\\-{}", flag.name_long());
}
"""


def test_a_string_literals_rewrapped_text_weighs_less_than_the_logic_the_fix_changed(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write(DEFS, DEFS_BEFORE)
    repo.write(MAN, MAN_BEFORE)
    repo.commit("Add flags and man page")
    repo.write(DEFS, DEFS_AFTER)
    repo.write(MAN, MAN_BEFORE.replace("flag.name_long()", 'flag.name_long().replace("-", r"\\-")'))
    sha = repo.commit(
        "man: escape all hyphens in flag names\n\n"
        "Apparently, if we don't do this, some roff renderers use a special Unicode hyphen, because an unescaped "
        "hyphen is a typographic one. That in turn makes searching a man page not work as one would expect."
    )
    placement = place_of(repo, sha, open_ws)
    assert placement.anchor is not None
    assert (placement.anchor.file, placement.anchor.symbol) == (MAN, "generate_flag")
    assert placement.anchor.anchor == ANCHOR_SYMBOL


def test_lessons_on_namesakes_written_in_different_statements_stay_apart(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """zod's top suggestion folded the lessons of five schemas' ``parse`` closures into a sixth's dead end: one
    suggestion per symbol keeps a file's same-named definitions apart when they are written in different statements."""
    repo = Repo(tmp_path / "repo")
    repo.write(SCHEMAS, _schema("$ZodString", STRING_BODY) + _schema("$ZodRecord", RECORD_BODY))
    repo.commit("Add schemas")
    repo.write(SCHEMAS, _schema("$ZodString", STRING_BODY) + _schema("$ZodRecord", RECORD_FIXED))
    repo.commit(RECORD_FIX)
    string_fixed = STRING_BODY.replace("payload.issues.push(issue(def))", "payload.issues.push(issue(def, payload))")
    repo.write(SCHEMAS, _schema("$ZodString", string_fixed) + _schema("$ZodRecord", RECORD_FIXED))
    repo.commit(
        "fix(v4): report the input of a failed z.string()\n\n"
        "The issue was raised without the payload, because the input was dropped before the issue was built, so "
        "error maps never saw what failed."
    )
    ws = Workspace.open(repo.root, embedder=None)
    open_ws.append(ws)
    mining.mine(ws, hold_back=False)
    on = sorted(
        (m.anchor.symbol, m.text.split(":")[0]) for m in ws.suggestions() if m.anchor and m.anchor.file == SCHEMAS
    )
    assert on == [("parse", "In `parse` of `$ZodString`"), ("parse#2", "In `parse` of `$ZodRecord`")]  # whose parse


def test_a_doc_module_inside_a_source_root_is_product_code() -> None:
    """ripgrep's crates/core/flags/doc/ is the Rust module writing the man page and --help; a top-level docs/ (or a
    docs package beside the product) is documentation, its site code and Sphinx config with it."""
    assert is_product_path("crates/core/flags/doc/man.rs") and is_product_path("src/app/docs/render.py")
    assert not is_product_path("docs/conf.py") and not is_product_path("packages/docs/pages/index.tsx")
    assert not is_product_path("src/doc/notes.md")
