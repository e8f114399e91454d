"""Noise rules QA pass 6 found not firing on rack (Ruby) and jsoup (Java) (F6, F10).

- F6: work that only makes code faster proposes nothing unless its why names a failure, also when it says what it
  stops redoing ("Avoid rebuilding regex") or what it costs ("inefficient … overhead"); a why that only says what
  "should" or "shouldn't" be, under whatever condition, is no cause; a sentence about a test harness or a test's
  outcome ("The supplied JMH always failed previously, and always passes now.") is no part of a why.
- F10: RDoc's ``##`` lines (Rack::Lint's SPEC) are documentation, and a comment that carries on a sentence begun
  above it ("such that each String must not contain NUL …") is a fragment.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace import mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise, VerdictKind, classify, only_should
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined, record

PARSER = "lib/rack/multipart/parser.rb"


def test_work_that_stops_redoing_or_costs_less_is_performance() -> None:
    """rack 0b45107 and 8c62821."""
    rebuilt = classify(
        record(
            "Avoid rebuilding regex (#2042)",
            "Previously we would rebuild this regex once per-part. We can instead\ncompile it once per-request.\n",
            (PARSER,),
        )
    )
    assert rebuilt.reason == Noise.PERFORMANCE
    lazy = classify(
        record(
            "Lazily initialize the response body and only buffer it if required.",
            "The implementation of `Rack::Response` will double buffer every body even\nif the user does not call "
            "`#write`. This is inefficient and additionally\nimposes some type checking overhead even if none is "
            "wanted.\n\nFixes <https://github.com/socketry/falcon/issues/93>.\n",
            ("lib/rack/response.rb",),
        )
    )
    assert lazy.reason == Noise.PERFORMANCE
    failed = classify(  # unless its why names a failure
        record(
            "Avoid recompiling the route table on every request",
            "Previously the table was rebuilt per request, which raised a KeyError when a route was added "
            "concurrently.\n",
            ("lib/router.rb",),
        )
    )
    assert failed.lesson


def test_a_why_that_only_says_what_should_or_should_not_be_is_no_cause() -> None:
    """rack 8ab9d47 ("shouldn't") and jsoup 5ee376b ("should … if they are …")."""
    undeprecated = classify(
        record(
            "Undeprecate Utils#byte_ranges",
            "Similar to the changes made in 6d18e5183b7bbc34dc406b63ff98a377a85d5ec3,\nwe shouldn't deprecate this "
            "without an appropriate replacement.\n\nFixes #1845\n",
            ("lib/rack/utils.rb",),
        )
    )
    assert undeprecated.reason == Noise.WHY_ONLY_SHOULD
    prefix = classify(
        record(
            "Entity decoding supports prefix matches",
            "When parsing named HTML entities, base entities should resolve if they are a prefix of the input token "
            "(and not in an  attribute). Finds the longest prefix.\n\nValidated matches browser behavior and "
            "extended entities *don't* match (like `&clubsuite;`)\n\nFixes #2207\n",
            ("src/main/java/org/jsoup/parser/Tokeniser.java",),
        )
    )
    assert prefix.reason == Noise.WHY_ONLY_SHOULD
    # beside a failure or a cause, "should" explains
    assert not only_should("When the socket is closed, the write should fail loudly.")
    assert not only_should("If the header is empty the parser should not crash.")
    assert not only_should("This should not be cached because the key changes per request.")
    # rack 10864b6: a condition in a sentence of its own says what went wrong
    assert not only_should(
        "In the formatted query string, the field should be fully URL-encoded. It was noticed that if params were "
        "provided as a nested hash it produced a different result than a hash of string fields."
    )


def test_talk_about_a_test_harness_is_left_out_of_the_why() -> None:
    """jsoup 81cf92b: the cause stays, the JMH's outcome goes."""
    verdict = classify(
        record(
            "Set the cached children atomically",
            "If a multithreaded app under significant GC pressure called Element#children(), race conditions could "
            "occur getting and setting the user data.\n\nNeed to revisit test, doesn't always fire unless system is "
            "constrained. Probably needs deeper iterations or more GC. The supplied JMH always failed previously, "
            "and always passes now.\n\nFixes #2366\n",
            ("src/main/java/org/jsoup/nodes/Element.java",),
        )
    )
    assert verdict.kind == VerdictKind.FIX
    assert verdict.why == (
        "If a multithreaded app under significant GC pressure called Element#children(), race conditions could "
        "occur getting and setting the user data."
    )
    only_tests = classify(
        record(
            "Fix stale cache in Element children",
            "The benchmark would fail under GC pressure, because the JMH harness reuses the documents.\n",
            ("src/main/java/org/jsoup/nodes/Element.java",),
        )
    )
    assert only_tests.reason == Noise.WHY_TESTS


LINT = """\
module Rack
  class Lint
    def check_header(key, value)
      if value.kind_of?(String)
        check_header_value(key, value)
      elsif value.kind_of?(Array)
        ## or an +Array+ of +String+ values, \\
        value.each { |v| check_header_value(key, v) }
      end
    end

    def check_header_value(key, value)
      ## such that each +String+ must not contain <tt>NUL</tt> (<tt>\\0</tt>), because a proxy would split it.
      if value.match?(/[\\x00\\x0A\\x0D]/)
        raise LintError, "invalid header value #{key}"
      end
    end

    def check_status(status)
      # The status, if parsed as integer, must be greater than or equal to
      # 100, since lower codes are informational.
      raise LintError, "bad status" unless status.to_i >= 100
      # and must never be 0, because some servers would then hang on the response.
      raise LintError, "zero status" if status.to_i.zero?
    end
  end
end
"""


def test_rdoc_double_hash_lines_are_documentation() -> None:
    scan = mine_comments.warning_comments("lib/rack/lint.rb", LINT.encode())
    assert [c.text for c, _ in scan.found if "+String+" in c.text] == []
    assert scan.skipped[Noise.DOCSTRING] == 1


def test_a_comment_that_carries_on_a_sentence_begun_above_is_a_fragment() -> None:
    scan = mine_comments.warning_comments("lib/rack/lint.rb", LINT.encode())
    assert all(not c.text.startswith("and must") for c, _ in scan.found)
    assert scan.skipped[Noise.COMMENT_FRAGMENT] >= 1
    trailing = (  # a trailing comment opening on its verb: its subject is the code on its line
        "def flush(io)\n"
        "  io.sync = true # is required: the socket would otherwise buffer the last frame forever\n"
        "  io.flush\nend\n"
    )
    kept = mine_comments.warning_comments("lib/io.rb", trailing.encode())
    assert kept.skipped[Noise.COMMENT_FRAGMENT] == 0


def test_mining_a_ruby_history_proposes_none_of_these(tmp_path: Path, open_ws: list[Workspace]) -> None:
    """End to end: the performance commit and the SPEC line propose nothing, and each is counted by its rule."""
    repo = Repo(tmp_path / "rack")
    repo.write("lib/rack/lint.rb", LINT)
    repo.write(
        PARSER, "class Parser\n  def handle_mime_body(part)\n    re = /#{part}/\n    re.match(part)\n  end\nend\n"
    )
    repo.commit("Import rack")
    repo.edit(PARSER, "    re = /#{part}/\n", "    re = @re ||= /#{part}/\n")
    repo.commit(
        "Avoid rebuilding regex (#2042)\n\nPreviously we would rebuild this regex once per-part. We can instead\n"
        "compile it once per-request."
    )
    ws, report = mined(repo, open_ws)
    texts = [m.text for m in ws.suggestions()]
    assert not any("rebuilding regex" in t or "+String+" in t for t in texts), texts
    assert report.noise.get(Noise.PERFORMANCE) == 1
    assert report.noise.get(Noise.DOCSTRING) == 1
