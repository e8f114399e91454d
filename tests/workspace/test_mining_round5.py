"""Mining round 5 (issue 23): what a second blind judge rejected on fresh histories — each rule on a repository or
source the test builds.

Documentation above a declaration is no warning in any language; a commit its author typed "chore", "feat" or
"perf", or that only makes code faster, teaches no pitfall; pull-request template text and a squashed commit's
item about other work are no why; a revert needs its own reason; a hot spot counts only the fixes aimed at it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace import mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise, VerdictKind, classify, real_fix, substantive_fix
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, mined, record


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return billing_repo(tmp_path / "repo")


def noise_of(subject: str, body: str) -> Noise | None:
    verdict = classify(record(subject, body))
    return verdict.reason if verdict.kind == VerdictKind.NOISE else None


# --- comments --------------------------------------------------------------------------------------------------------

GO_SOURCE = b"""\
package web

// SetCookie adds a Set-Cookie header to the response. The provided cookie must have a valid Name.
// Invalid cookies may be silently dropped.
func (c *Context) SetCookie(cookie *Cookie) {
\tc.writer.Add(cookie)
}

// IndentedJSON writes the value as indented JSON.
// WARNING: use this only in development, since pretty printing costs CPU and bandwidth.
func (c *Context) IndentedJSON(code int, obj any) {
\tc.render(code, obj)
}

func (c *Context) Flush() {
\t// never flush before the headers are written: the client would read a response without a status line
\tc.writer.Flush()
}
"""

JS_SOURCE = b"""\
/**
 * Resolve the URL against the base.
 * WARNING: the base must be absolute, otherwise relative paths resolve against the page.
 */
function resolve(base, url) {
  return new URL(url, base).href;
}
"""


def test_documentation_above_a_declaration_is_no_warning_in_any_language() -> None:
    scan = mine_comments.warning_comments("web.go", GO_SOURCE)
    assert [(c.kind, symbol) for c, symbol in scan.found] == [("never", "Context.Flush")]
    assert scan.skipped[Noise.DOC_COMMENT] == 2
    js = mine_comments.warning_comments("url.js", JS_SOURCE)
    assert js.found == [] and js.skipped[Noise.DOC_COMMENT] == 1
    # a HACK in a doc comment still speaks to whoever edits the code
    function = JS_SOURCE[JS_SOURCE.index(b"function") :]
    hack = b"/**\n * HACK: the parser drops the last byte, so we pad the input with a newline first.\n */\n" + function
    assert [c.kind for c, _ in mine_comments.warning_comments("url.js", hack).found] == ["HACK"]


def test_a_go_doc_comment_in_a_mined_repository_proposes_nothing(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("web.go", GO_SOURCE.decode())
    repo.commit("Add the web context")
    ws, report = mined(repo, open_ws)
    assert [m.anchor.symbol for m in ws.suggestions() if m.anchor] == ["Context.Flush"]
    assert report.noise[Noise.DOC_COMMENT] == 2


# --- commits ---------------------------------------------------------------------------------------------------------


def test_a_commit_typed_chore_feat_or_perf_is_no_lesson_and_no_fix() -> None:
    body = "When the body exceeds the limit, reading it fails with MaxBytesError, so we return 413 instead of 400."
    assert noise_of("chore(bind): return 413 status code when error is MaxBytesError", body) == Noise.NOT_A_FIX_TYPE
    assert noise_of("perf(tree): reuse the params slice", body) == Noise.NOT_A_FIX_TYPE
    assert real_fix("feat: fixes mem leak relating to streams")  # mistyped: its words still name a fix
    assert classify(record("fix(bind): return 413 when the body is too large", body)).lesson


def test_a_commit_that_only_makes_code_faster_is_no_lesson() -> None:
    assert (
        noise_of("reuse bytes when cleaning the URL paths", "path: use a stack buffer in CleanPath to avoid allocs in "
                 "the common case.") == Noise.PERFORMANCE
    )  # fmt: skip
    kept = classify(record("Fix the header cache", "The cache was keyed by name only, so it could return a wrong "
                           "value because two hosts share a name, and it is faster now."))  # fmt: skip
    assert kept.lesson


def test_pull_request_template_text_is_no_why() -> None:
    body = (
        "- [x] I have rebased all commits where necessary so that reviewing this pull request can be done without "
        "having to merge it first.\n- [x] Tests pass because they were run."
    )
    assert noise_of("Fix memory leak in respond", body) == Noise.PR_TEMPLATE
    template = "Many debug logs have no line breaks because callers omit them.\n\nYour pull request should have no "
    verdict = classify(record("Fix debug output without line breaks", template + "more than two commits."))
    assert verdict.lesson and "pull request" not in verdict.why


def test_a_why_from_a_squashed_item_about_other_work_is_no_why() -> None:
    body = (
        "* fix: catch-all conflicting wildcard\n\n* add: test cases\n\n"
        "* chore: update the workflows\n\nModify the return statements in tree.go to return a value because the "
        "linter would fail otherwise.\n"
    )
    assert noise_of("fix(router): catch-all conflicting wildcard", body) == Noise.WHY_OFF_TOPIC
    on_topic = (
        "* response_writer: don't panic on Hijack when the wrapper is unsupported\n\n"
        "* response_writer: keep Written() false when Hijack is unsupported, because callers check it first.\n"
    )
    assert classify(record("fix(response): panic on Hijack when wrapper unsupported", on_topic)).lesson


def test_a_revert_needs_a_reason_of_its_own() -> None:
    kept = "This reverts commit 1234567.\n\n* chore: revert #2220\n\n* Don't revert the receive changes\n"
    assert noise_of('Revert "raise ClientDisconnected on HTTP"', kept) == Noise.REVERT_KEPT
    other = 'Revert "fix: move all data handling to the protocol and ensure the connection is closed (#1332)".'
    assert noise_of('Revert "stream interface"', other) == Noise.REVERT_TITLE_WHY
    same = 'Revert "Log exception traceback in case of invalid HTTP request when using h11 (#889)".'
    assert classify(record('Revert "log exception traceback in case of invalid HTTP request"', same)).lesson


# --- hot spots -------------------------------------------------------------------------------------------------------

SERVICE = """\
def new_server(options):
    server = {}
    server["port"] = options.get("port", 80)
    return server


def route(server, path):
    parts = path.split("/")
    node = server
    for part in parts:
        node = node.setdefault(part, {})
    return node
"""


def test_a_hot_spot_counts_only_the_fixes_aimed_at_it(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("server.py", SERVICE)
    repo.commit("Add the server")
    for n, bug in enumerate(("empty segments", "trailing slashes", "double slashes")):
        repo.edit("server.py", "    parts = path.split(\"/\")\n",
                  f"    parts = path.split(\"/\")\n    parts = [p for p in parts if p != {n!r}]  # {bug}\n"
                  f"    if not parts:\n        parts = [{n!r}]\n        node = server\n")  # fmt: skip
        repo.edit("server.py", '    server["port"]', f'    server["opt{n}"] = None\n    server["port"]')
        repo.commit(f"Fix route with {bug}")
    ws, report = mined(repo, open_ws)
    hot = [m.anchor.symbol for m in ws.suggestions() if m.anchor and "needed" in m.text]
    assert hot == ["route"]
    assert report.noise[Noise.FIX_IN_PASSING] == 3  # each fix touched new_server in passing: one line against four
    # a linter's findings and import renames are no part of a pattern
    assert not substantive_fix("fix composite literal uses unkeyed fields warnings")
    assert not substantive_fix("Fix golangci-lint findings in the router")
    assert not substantive_fix("fix: rename the loop import")
    assert substantive_fix("Fix route with double slashes")
