"""Blind labelling 10b (restated comments): a header box opened by a rule line ("/* ======… Save the match info …
Return true if the current block must be flushed.") and a comment saying what a value holds ("set if current block
must be flushed") document the code (``docstring-not-warning``); "don't bother if …" narrates an early return, and
an alternative in a list ("must either be …, or be an exact match", "Must be Func, Map, or Slice", "(or none)") is
no reason (``comment-no-reason``); a link opening a comment is said after its words.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.memory.vocabulary import MemorySource, MemoryStatus
from forewarn.workspace import mine_comment_rules, mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined

DEFLATE = """\
#include "deflate.h"

int flush_block(state *s, int flush) {
    int bflush;           /* set if current block must be flushed */
    for (;;) {
        bflush = tally(s, 0, s->window[s->strstart]);
        if (bflush) {
            emit(s);
        }
    }
    return bflush;
}

/* ===========================================================================
 * Save the match info and tally the frequency counts. Return true if
 * the current block must be flushed.
 */
int tally(state *s, unsigned dist, unsigned lc) {
    s->sym_buf[s->sym_next++] = (uch)dist;
    return (s->sym_next == s->sym_end);
}

int open_mode(state *s, const char *mode) {
    /* must provide an "r", "w", or "a" */
    if (s->mode == MODE_NONE) {
        return -1;
    }
    /* do not free the window here, or the caller's pending output is lost */
    s->pending = 0;
    return 0;
}
"""
TYPES = """\
package org.acme.reflect;

public class Bounds {
    public static Type[] normalize(final Type[] bounds) {
        // don't bother if there's only one (or none) type
        if (bounds.length < 2) {
            return bounds;
        }
        return dedupe(bounds);
    }

    public static boolean assignable(Type from, Type to) {
        for (Type var : vars) {
            // parameters must either be absent from the subject type, within
            // the bounds of the wildcard type, or be an exact match to the
            // parameters of the target type.
            if (from != null && to != null && !to.equals(from)) {
                return false;
            }
        }
        return true;
    }

    public static String describe(TypeVariable<?> variable) {
        if (variable.getBounds().length > 0) {
            // https://issues.example.org/browse/LIB-1698
            // Never append an interface bound here: it recurses and overflows the stack on Java 17 and up.
            append = false;
        }
        return variable.getName();
    }
}
"""
KEPT_LOST = "do not free the window here, or the caller's pending output is lost"
KEPT_BOUND = (
    "Never append an interface bound here: it recurses and overflows the stack on Java 17 and up. "
    "(https://issues.example.org/browse/LIB-1698)"
)


def test_c_header_boxes_and_value_descriptions_are_documentation() -> None:
    scan = mine_comments.warning_comments("deflate.c", DEFLATE.encode())
    assert [c.text for c, _ in scan.found] == [KEPT_LOST]
    assert scan.skipped[Noise.DOCSTRING] == 2  # the variable's comment, the header box
    assert scan.skipped[Noise.COMMENT_NO_REASON] == 1  # "must provide an r, w, or a"


def test_java_narrations_and_lists_give_no_reason_and_a_link_goes_last() -> None:
    scan = mine_comments.warning_comments("src/main/java/org/acme/reflect/Bounds.java", TYPES.encode())
    assert [c.text for c, _ in scan.found] == [KEPT_BOUND]
    assert scan.skipped[Noise.COMMENT_NO_REASON] == 2  # "don't bother", "must either be … or be …"


def test_a_value_description_is_only_a_must_in_its_condition() -> None:
    for comment in (
        "set if current block must be flushed",
        "Save the match info. Return true if the current block must be flushed.",
        "true when the caller must retry the read",
        "nonzero if the window must be slid",
    ):
        assert mine_comment_rules.describes_value(comment), comment
    for comment in (
        "the lock must be held when this is set",
        "set if current block must be flushed; the caller must check it before writing",
        "if the stream is closed, the buffer must not be reused",
    ):
        assert not mine_comment_rules.describes_value(comment), comment
    assert mine_comment_rules.header_comment("=========== Save the match info")
    assert mine_comment_rules.header_comment("---------- Helpers")
    assert not mine_comment_rules.header_comment("--- parsing: input must not be retained ---x")
    assert mine_comment_rules.narrates_shortcut("don't bother if there's only one (or none) type")
    assert not mine_comment_rules.narrates_shortcut("don't call this twice, it frees the handle")


def test_only_an_or_that_lists_alternatives_is_no_reason() -> None:
    assert mine_comments.gives_reason("do not reuse the buffer, or the reader sees stale data")
    assert mine_comments.gives_reason("never close the fd here, or else the pool hands out a dead socket")
    assert mine_comments.gives_reason("Don't shrink the table, or it rehashes on every insert")
    for comment in (
        "Must be Func, Map, or Slice; which are not comparable.",
        "don't bother if there's only one (or none) type",
        "parameters must either be absent from the subject type, or be an exact match to the target type.",
        "we must switch between quoting and non-quoting until we encounter a non-quoted delimiter, or end of string",
    ):
        assert not mine_comments.gives_reason(comment), comment
    assert (
        mine_comment_rules.url_last("https://x.org/1 Never do it: it breaks")
        == "Never do it: it breaks (https://x.org/1)"
    )
    assert mine_comment_rules.url_last("Never do it, see https://x.org/1") == "Never do it, see https://x.org/1"


def test_mined_from_a_repository_only_the_warnings_remain(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("deflate.c", DEFLATE)
    repo.write("src/main/java/org/acme/reflect/Bounds.java", TYPES)
    repo.commit("Add the deflater and the bounds helper")
    ws, report = mined(repo, open_ws)
    everything = [*MemoryStatus]
    memories = [
        m
        for m in ws.store.anchored_to_files(["deflate.c", "src/main/java/org/acme/reflect/Bounds.java"], everything)
        if m.source == MemorySource.COMMENT
    ]
    texts = " | ".join(sorted(m.text for m in memories))
    assert len(memories) == 2, texts
    assert "pending output is lost" in texts and "overflows the stack" in texts
    assert "flushed" not in texts and "bother" not in texts and "exact match" not in texts
    assert texts.index("Java 17") < texts.index("https://issues.example.org")
    assert report.noise[Noise.DOCSTRING] >= 2 and report.noise[Noise.COMMENT_NO_REASON] >= 3
