"""Mining round 14 (issue 23): what round 13's blind judges rejected.

A file that says at its top that it was copied from another project (a vendored compatibility header whose "Latest
version:" points upstream) is not the team's to edit: neither its commits' lessons, its hot spots nor its warning
comments are proposed, and each one left out is counted (``copied-code``). The project's own files keep theirs, even
ones that talk about copying, name the project's own address, or were generated from its templates.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace import mine_code
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_copied import copied_header
from forewarn.workspace.mine_rules import Noise, classify
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined, record

COMPAT_HEADER = """\
// Header file providing new C API functions to old interpreter versions.
//
// Copyright Contributors to the compat project.
//
// Latest version:
// https://raw.example.org/compat/main/compat.h

static inline double compat_clock(void) {
    // Avoid floor() here: we must not have to link to libm, which some embedders refuse to load.
    double seconds = (double)now_ns() / 1e9;
    return seconds;
}
"""

OWN_SOURCE = """\
double own_clock(void) {
    // Avoid floor() here: we must not have to link to libm, which some embedders refuse to load.
    double seconds = (double)now_ns() / 1e9;
    return seconds;
}
"""

WHY = "The embedders that load us without libm crashed at import, because floor() pulled the symbol in."


def test_a_header_that_says_where_it_came_from_is_copied() -> None:
    assert copied_header(COMPAT_HEADER)
    assert copied_header('"""This module was vendored from upstream, unmodified."""\n', "app")
    assert copied_header("# Copied from https://example.org/retry/retry.py with its licence.\n", "app")


def test_a_file_that_talks_about_copying_is_the_projects_own() -> None:
    assert not copied_header(OWN_SOURCE)
    assert not copied_header('def clone(req):\n    """Headers are copied from the request, never shared."""\n')
    assert not copied_header("# See https://example.org/issue/12 for why the retry is bounded.\n")
    assert not copied_header("\n" * 40 + "// copied from https://example.org/x/y.c\n", "app")
    assert not copied_header("//Parse method copied from https://github.com/brianc/node-postgres\n", "node-postgres")
    assert not copied_header("// Code generated from pgtype/int.go.erb. DO NOT EDIT.\n\npackage pgtype\n", "pgx")


def test_lessons_and_comments_on_a_copied_file_are_left_out(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("src/compat.h", COMPAT_HEADER.replace("now_ns() / 1e9", "floor(now_ns()) / 1e9"))
    repo.write("src/own.c", OWN_SOURCE.replace("now_ns() / 1e9", "floor(now_ns()) / 1e9"))
    repo.commit("Add the clocks")
    repo.write("src/compat.h", COMPAT_HEADER)
    repo.commit(f"Fix compat_clock crashing embedders without libm\n\n{WHY}")
    repo.write("src/own.c", OWN_SOURCE)
    repo.commit(f"Fix own_clock crashing embedders without libm\n\n{WHY}")
    ws, report = mined(repo, open_ws)
    files = {m.file for m in ws.suggestions()}
    assert "src/compat.h" not in files and "src/own.c" in files
    assert report.noise.get(Noise.COPIED, 0) == 2  # the commit's lesson and the warning comment


def test_a_change_its_author_calls_functionally_equivalent_teaches_nothing() -> None:
    same = record(
        "Fix reversed arguments of strings.ContainsAny in ScanScientific",
        "Functionally equivalent due to the symmetry of the characters searched, but it read the wrong way round.",
        ("numeric.go",),
    )
    verdict = classify(same)
    assert verdict.reason == Noise.SAME_BEHAVIOUR and not verdict.lesson and not verdict.fix
    changed = record(
        "Fix ScanScientific dropping the exponent sign",
        "Functionally equivalent for positive exponents, except that a negative one was read as positive, because "
        "the sign was checked after the digits were consumed.",
        ("numeric.go",),
    )
    assert classify(changed).lesson
    assert classify(record("Fix ScanScientific dropping the exponent sign", WHY_SIGN, ("numeric.go",))).lesson


WHY_SIGN = "A negative exponent was read as positive because the sign was checked after the digits were consumed."


def test_log_statements_are_no_behaviour() -> None:
    removed = ['trace!("release; stream={:?}", id);']
    added = ["tracing::trace!(", '    "release_capacity; stream={:?}; available={}",', "    id, available", ");"]
    assert mine_code.behaviour(removed, added, "src/recv.rs").logging_only
    assert mine_code.behaviour(removed, added, "src/recv.rs").lines == 0
    assert mine_code.without_logging(['log.Printf("closing %v", c)', "c.Close()"]) == ["c.Close()"]
    branch = ["} else {", "    tracing::trace!(", '        "dropped {:?}, over the limit",', "    id", ");", "}"]
    assert mine_code.without_logging(["push(id);", *branch]) == ["push(id);"]
    assert mine_code.without_logging(["push(id);", *branch[:-1]]) == ["push(id);"]  # its "}" was there before
    assert mine_code.without_logging(["} else {", "    drop(id);", "}"]) == ["} else {", "    drop(id);", "}"]
    assert not mine_code.behaviour(["log.Fatal(err)"], ['log.Fatalf("open: %v", err)'], "main.go").logging_only
    also_sets = mine_code.behaviour(["self.logger.debug('x')"], ["self.logger.debug('x')", "self.n = 0"], "a.py")
    assert not also_sets.logging_only


STREAMS = """\
import logging

log = logging.getLogger(__name__)


def limits():
    return {"max_pending": 10, "expire_seconds": 30}


def expire_reset(stream, now):
    if now - stream.reset_at > limits()["expire_seconds"]:
        stream.forget()
"""

FORGET = "        stream.forget()\n"
LIMITS_WHY = "Remembering reset streams forever let memory grow without bound, because a peer can reset at will."


def test_a_lesson_goes_past_code_that_only_gained_log_lines(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("streams.py", STREAMS)
    repo.commit("Add the streams")
    repo.edit("streams.py", '"max_pending": 10, "expire_seconds": 30', '"max_pending": 20, "expire_seconds": 5')
    repo.edit("streams.py", FORGET, f'        log.debug("forget %s", stream)\n{FORGET}')
    repo.commit(f"Fix expire_reset remembering reset streams too long\n\n{LIMITS_WHY}")
    ws, _report = mined(repo, open_ws)
    lessons = [m for m in ws.suggestions() if m.source == "commit"]
    assert [m.anchor.symbol for m in lessons if m.anchor] == ["limits"] and len(lessons) == 1


def test_a_lesson_on_code_that_only_gained_log_lines_is_left_out(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("streams.py", STREAMS)
    repo.commit("Add the streams")
    repo.edit("streams.py", FORGET, f'        log.debug("forget %s", stream)\n{FORGET}')
    repo.commit(f"Fix expire_reset remembering reset streams too long\n\n{LIMITS_WHY}")
    ws, report = mined(repo, open_ws)
    assert [m for m in ws.suggestions() if m.source == "commit"] == []
    assert report.noise.get(Noise.LOGGING_ANCHOR, 0) == 1
