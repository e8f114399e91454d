"""QA pass 9a (immer, gson, fd, chi), the message rules:

- finding 3: fixes whose messages say what went wrong in words the rules did not read as a cause ("As a result …",
  "… violating the guarantee that …", "the same silent footgun", "trivial to OOM the JVM", "aren't guaranteed to
  contain …", "Unfortunately, the parser can't …"), and a concurrency fix whose subject says "cyclic dependency",
  read as dependency work;
- finding 7: a clippy warning silenced, and one library swapped for another (its manifest and call sites), proposed
  as lessons;
- finding 5: a hot spot on a JavaScript build tool's configuration (tsup.config.ts);
- finding 10: a fix typed ``error_pattern`` for the word "exception" in a story paragraph, with no error quoted;
- finding 4: a conventional ``fix: Revert "…"`` whose reason says "nor could I think of …", read as a hedge.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.memory.vocabulary import MemoryType
from forewarn.workspace import mine_code
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_dependencies import dependency_subject
from forewarn.workspace.mine_product import is_product_path
from forewarn.workspace.mine_rules import Noise, VerdictKind, classify, real_fix
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, kinds, mined, record, round_charge


def test_a_consequence_or_a_broken_promise_said_outright_is_a_cause() -> None:
    for subject, body in (
        ("fix: keep the cache when nothing was evicted", "The evict() helper routed every call through "
         "markDirty. As a result calls that remove nothing produced a new cache object for every reader."),
        ("fix: copy the row before handing it out", "Sorting moves the row to another slot, so the lookup "
         "returns the stored object itself. Writing to it changes the caller's input, violating the promise "
         "that inputs are never modified."),
        ("fix: reject separators in extra patterns too", "Only the first pattern was checked. A separator in "
         "any other pattern is the same silent footgun: the search finds nothing and says nothing."),
        ("fix: cap the group index read from input", "A crafted document with a huge group index makes the "
         "reader allocate gigabytes, making it trivial to OOM the server from a small request."),
        ("Fix the recoverer on newer runtimes", "On newer runtimes the lines of a stack trace aren't guaranteed "
         "to contain a dot, so slicing at the dot reads a negative index."),
        ("Fix panic when using --owner", "Unfortunately, the argument parser can't merge an optional value "
         "with an optional flag, so the check for an empty owner happens after parsing."),
    ):  # fmt: skip
        verdict = classify(record(subject, body))
        assert verdict.kind == VerdictKind.FIX and verdict.why, subject


def test_a_breaking_change_is_no_cause() -> None:
    verdict = classify(record("Fix the option name", "This is a breaking change for anyone who set the old option."))
    assert verdict.kind == VerdictKind.NOISE


def test_the_codes_own_dependencies_are_no_dependency_work() -> None:
    assert real_fix("Fix non-threadsafe creation of adapter for type with cyclic dependency")
    assert not dependency_subject("Fix a hang on schemas with a circular dependency")
    assert not dependency_subject("Handle dependency injection of optional services")
    assert dependency_subject("Update dependencies") and dependency_subject("Bump serde to 1.0.190")
    assert dependency_subject("fix: avoid circular dependency between body.ts and request.ts")  # import plumbing


def test_a_linter_silenced_is_lint_work() -> None:
    verdict = classify(record("fix: clippy warning for unnecessary closure", "Now that MSRV is above 1.62, we can "
                              "use then_some instead of a closure because it reads better."))  # fmt: skip
    assert verdict.reason == Noise.COSMETIC
    joined = classify(record("Fix clippy warnings and a crash in the walker", "The walker crashed because the queue "
                             "was empty when the last worker quit."))  # fmt: skip
    assert joined.kind == VerdictKind.FIX  # a headline that joins a fix of behaviour keeps its lesson


def test_a_story_that_mentions_an_exception_makes_no_error_pattern() -> None:
    verdict = classify(record(
        "Only read numeric addresses when deserializing",
        "Because of old API limits, the reader resolved host names too, so reading a document could wait on the "
        "network.\n\nWe ran our internal tests with a version that threw an exception on every address, and none "
        "failed.",
    ))  # fmt: skip
    assert verdict.kind == VerdictKind.FIX and verdict.type == MemoryType.GOTCHA
    quoted = classify(record("Fix crash on empty input", "Reading an empty file raised ValueError: no rows, because "
                             "the header was required."))  # fmt: skip
    assert quoted.type == MemoryType.ERROR_PATTERN and quoted.error


def test_a_build_tools_configuration_is_no_product_code() -> None:
    for path in (
        "tsup.config.ts",
        "vite.config.mjs",
        "packages/web/jest.config.js",
        "karma.conf.js",
        "vitest-reporter.ts",
    ):
        assert not is_product_path(path), path
    assert is_product_path("src/config.ts") and is_product_path("src/core/proxy.ts") and is_product_path("src/vite.ts")


CARGO = '[package]\nname = "finder"\n\n[dependencies]\nansi_term = "0.12"\nregex = "1"\n'
MAIN = "fn paint(name: &str) -> String {\n    ansi_term::Colour::Blue.paint(name).to_string()\n}\n"


def test_a_library_swapped_for_another_is_dependency_work(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("Cargo.toml", CARGO)
    repo.write("src/main.rs", MAIN)
    repo.commit("Add finder")
    repo.edit("Cargo.toml", 'ansi_term = "0.12"', 'nu-ansi-term = "0.49"')
    repo.edit("src/main.rs", "ansi_term::Colour::Blue", "nu_ansi_term::Color::Blue")
    repo.commit("Use nu-ansi-term instead of ansi-term\n\nBecause ansi-term is no longer maintained.")
    repo.edit("src/main.rs", ".to_string()", '.to_string() + ""')
    repo.commit("Use owned strings instead of borrowed ones in paint\n\nBecause callers kept the name longer than "
                "the buffer, which would otherwise dangle.")  # fmt: skip
    ws, report = mined(repo, open_ws)
    assert report.noise.get(Noise.DEPENDENCY) == 1
    texts = [m.text for m in ws.suggestions()]
    assert not [t for t in texts if "nu-ansi-term" in t]
    assert [t for t in texts if "owned strings" in t]  # the same words with no manifest changed: still a lesson


def test_a_fix_that_reverts_with_a_reason_in_the_first_person_is_a_dead_end(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """immer 4d3d6ff: `fix: Revert "prevent prototype pollution …"` with git's revert line and "… nor could I think of
    anything" in its reason, read as a hedge ("I think"): no dead end."""
    repo = billing_repo(tmp_path / "repo")
    sha = round_charge(repo)
    repo.git("revert", "--no-edit", sha)
    repo.git("commit", "--amend", "-q", "-m",
             'fix: Revert "Round totals in charge" (#12)\n\n'
             f"This reverts commit {sha}.\n"
             "This fixes #3 and #4, while the reporter could not show that rounding closed a real gap in the "
             "totals, nor could I think of one.\n")  # fmt: skip
    ws, _ = mined(repo, open_ws)
    [dead] = kinds(ws, "revert")
    assert "bring back" in dead.text and "Round totals in charge" in dead.text and "nor could I think" in dead.text


GO_WRITER = """package compress

type writer struct {
	wrote bool
	level int
}

func (w *writer) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	w.level = code
}
"""


def test_a_local_renamed_through_a_function_fixes_nothing_there(tmp_path: Path, open_ws: list[Workspace]) -> None:
    """chi 403a33c renamed ``WriteHeader``'s receiver ``w`` → ``cw`` while fixing two other lines: counted as one
    of three fixes of ``WriteHeader``, a hot spot where the history shows two fixes three years apart."""
    assert mine_code.renamed_only(["if w.wrote {", "w.wrote = true", "w.level = code"],
                                  ["if cw.wrote {", "cw.wrote = true", "cw.level = code"])  # fmt: skip
    assert not mine_code.renamed_only(["f(a)"], ["f(b)"])  # another value passed: a fix
    assert not mine_code.renamed_only(["x.a = 1", "x.b = 2", "x.c = 3"], ["x.z = 1", "x.b = 2", "x.c = 3"])  # a field
    repo = Repo(tmp_path / "repo")
    repo.write("compress.go", GO_WRITER)
    repo.commit("Add writer")
    for n, (old, new) in enumerate((("w.level = code", "w.level = code + 1"), ("w.level = code + 1", "w.level = 2"))):
        repo.edit("compress.go", old, new)
        repo.commit(f"Fix header level {n}\n\nThe level was off by one, because the code was stored as is.",
                    date=f"202{n}-01-01T12:00:00+00:00")  # fmt: skip
    repo.write("compress.go", GO_WRITER.replace("w.level = code", "w.level = 2").replace("(w *writer)", "(cw *writer)")
               .replace("\tw.", "\tcw.").replace("if w.", "if cw."))  # fmt: skip
    repo.commit("Fix compress to call the right writer\n\nThe receiver shadowed the inner writer, so calls went "
                "to the wrong one.", date="2022-01-01T12:00:00+00:00")  # fmt: skip
    _, report = mined(repo, open_ws)
    assert report.noise.get(Noise.WEAK_HOTSPOT) == 1  # two fixes: no pattern (three would make a hot spot)


def test_a_dead_end_folded_into_a_lesson_on_its_code_still_says_not_to_bring_it_back(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """immer: the revert 4d3d6ff, folded into the lesson on `get`, read "Also (commit 4d3d6ff): Revert “prevent
    prototype pollution …”", the opposite of its warning."""
    repo = billing_repo(tmp_path / "repo")
    repo.edit("billing.py", "total = amount", "total = round(amount)")
    sha = repo.commit("Round totals before sending\n\nWe round here because the gateway rejects fractions otherwise.")
    repo.git("revert", "--no-edit", sha)
    repo.git("commit", "--amend", "-q", "-m",
             f'Revert "Round totals before sending"\n\nThis reverts commit {sha}.\n\nRounding broke refunds of '
             "partial payments, which were short by a cent.")  # fmt: skip
    repo.edit(
        "billing.py", "    return total\n", "    if total < 0:\n        raise ValueError(total)\n    return total\n"
    )
    repo.commit("Fix charge accepting negative amounts\n\nA negative amount was charged as a refund, because "
                "charge never checked the sign.")  # fmt: skip
    ws, _ = mined(repo, open_ws)
    [one] = [m for m in ws.suggestions() if m.anchor and m.anchor.symbol == "charge"]
    assert one.text.startswith("Avoid reintroducing") or "negative" in one.text.split("\n", 1)[0], one.text
    assert "Do not bring back “Round totals before sending”" in one.text, one.text  # the folded dead end


def test_a_dead_end_folded_behind_other_lessons_still_says_not_to_bring_it_back(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """Folded lessons are their kept lesson's evidence and say nothing in its text; they no longer take the places a
    folded dead end's line needs (two newer lessons on `charge` hid the revert's "Do not bring back")."""
    repo = billing_repo(tmp_path / "repo")
    repo.edit("billing.py", "total = amount", "total = round(amount)")
    sha = repo.commit("Round totals before sending\n\nWe round here because the gateway rejects fractions otherwise.")
    repo.git("revert", "--no-edit", sha)
    repo.git("commit", "--amend", "-q", "-m",
             f'Revert "Round totals before sending"\n\nThis reverts commit {sha}.\n\nRounding broke refunds of '
             "partial payments, which were short by a cent.")  # fmt: skip
    guards = (
        ("if total < 0:", "Fix charge accepting negative amounts", "charge never checked the sign"),
        ("if total > LIMIT:", "Fix charge above the card limit", "the network rejects it and the batch failed"),
        ("if total is None:", "Fix charge of an empty amount", "imports leave it empty and abs(None) raised"),
    )
    for guard, subject, why in guards:
        repo.edit(
            "billing.py", "    return total\n", f"    {guard}\n        raise ValueError(total)\n    return total\n"
        )
        repo.commit(f"{subject}\n\nIt was charged wrongly, because {why}.")
    ws, _ = mined(repo, open_ws)
    [one] = [m for m in ws.suggestions() if m.anchor and m.anchor.symbol == "charge"]
    assert "Do not bring back “Round totals before sending”" in one.text, one.text
