"""Blind labelling 10 (jackson-core's warning comments): a comment that argues with a tool ("FindBugs doesn't know
about it and complains... so let's add dummy break here") warns no one (``comment-lint-suppression``); one that opens
on a word pointing back at what stands above it ("Otherwise not included", "Except one special case: …", "Plus we
can …") or trails off in an ellipsis is a fragment read alone (``comment-fragment``); an author's stamp ("26-Nov-2015,
tatu:") is no part of the lesson, and where it opens a note inside a block the stamped note is the warning; "Should
never return 0, so let's fail" guards what cannot happen (``comment-defensive``); "By default, …" with no cause says
what the code does (``comment-no-reason``).
"""

from __future__ import annotations

from pathlib import Path

from forewarn.memory.vocabulary import MemorySource, MemoryStatus
from forewarn.workspace import mine_comment_rules, mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_comment_rules import without_markup
from forewarn.workspace.mine_rules import Noise
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined

READER = """\
package org.acme.stream;

public class TokenReader {
    public TokenReader skipNested() {
        while (true) {
            Token t = next();
            if (t == null) {
                finish();
                /* given the limits, finish() above should never return;
                 * however, SpotBugs doesn't know about it and
                 * complains... so let's add a dummy return here
                 */
                return this;
            }
            depth += t.delta();
        }
    }

    protected boolean refill() throws IOException {
        int count = source.read(buffer, 0, buffer.length);
        if (count > 0) {
            // 14-Mar-2019, ann: Since the mark offset depends on it too, must shift the mark by this amount
            //   to avoid a negative mark, which would fail the next reset of the stream.
            mark -= consumed;
            return true;
        }
        // Should never read 0 characters, so let's fail
        if (count == 0) {
            throw new IOException("source returned 0 characters");
        }
        return false;
    }

    public Token nextFiltered() {
        if (filter.includes(current)) {
            return current;
        }
        // Otherwise not included (leaves must be explicitly included, or the filter would leak them)
        return skip();
    }

    public Path trimmed(Path context) {
        if (!context.hasSegment()) {
            // Except one special case: never prune the root when it is wanted, or the path would lose it
            if (!keepRoot) {
                context = context.parent();
            }
        }
        return context.toPath();
    }

    public void grow() {
        // Plus we can scan only the primary area, and entries must never move down: the order would break
        for (int i = 0; i < slots.length; ++i) {
            rehash(i);
        }
    }

    public Token oddName(int ch) {
        if (ch == '#') {
            // Careful, since this may also be the leading char of an unquoted name...
            return comment(ch);
        }
        return name(ch);
    }

    public Token number(boolean neg) {
        buffer.setLength(length);
        // And there we have it!
        // 26-Jun-2022, ann: Careful here, as non-standard numbers can
        //    cause surprises - never use plain "reset()" but apply the difference
        return complete(neg, length);
    }

    public TokenReader(boolean padded) {
        // By default, require padding on input if written on output; do not accept input without it
        this.padded = padded;
    }
}
"""
KEPT_SHIFT = (
    "Since the mark offset depends on it too, must shift the mark by this amount to avoid a negative mark, which would "
    "fail the next reset of the stream."
)
KEPT_NUMBER = (
    'Careful here, as non-standard numbers can cause surprises - never use plain "reset()" but apply the difference'
)


def test_jackson_like_comments_keep_only_the_warnings() -> None:
    scan = mine_comments.warning_comments("src/main/java/org/acme/stream/TokenReader.java", READER.encode())
    assert [(c.text, c.line) for c, _ in scan.found] == [(KEPT_SHIFT, 22), (KEPT_NUMBER, 70)]
    assert scan.skipped[Noise.LINT_SUPPRESSION] == 1  # argues with SpotBugs
    assert scan.skipped[Noise.COMMENT_DEFENSIVE] == 1  # should never read 0 characters, so fail
    assert scan.skipped[Noise.COMMENT_FRAGMENT] == 4  # Otherwise, Except one special case, Plus, the ellipsis
    assert scan.skipped[Noise.COMMENT_NO_REASON] >= 1  # By default, …


def test_a_comment_arguing_with_a_tool_is_no_warning() -> None:
    for comment in (
        "given constraints, above should never return; however, FindBugs doesn't know about it and complains",
        "Never remove this cast: it is only here to keep the compiler happy",
        "add a dummy return here, the switch above never falls through",
        "Don't drop this clone, it is needed to satisfy the borrow checker",
        "the linter is not smart enough to see that this must stay as it is",
    ):
        assert mine_comment_rules.argues_with_tool(comment), comment
    for comment in (
        "Never reuse the buffer: the compiler inlines it and the second caller would see stale data",
        "must never return null: callers dereference it",
        "Must return a dummy value here: callers never check for null",
        "Do not compile the pattern twice, it is slow",
    ):
        assert not mine_comment_rules.argues_with_tool(comment), comment


def test_only_words_that_need_what_is_above_make_a_fragment() -> None:
    for comment in (
        "Otherwise not included (leaves must be explicitly included)",
        "Except one special case: do not prune root if we need it",
        "Except that the lock must not be held here",
        "Plus we can scan only through the primary hash area",
        "Else ch must be RS; don't clear buf",
        "But never close it here, the caller owns it",
        "and must not be shared",
        "Careful, since this may alternatively be leading char of unquoted name...",
        "otherwise caller must handle using some other mechanism, so…",
    ):
        assert mine_comment_rules.fragment_read_alone(comment), comment
    for comment in (
        "Also, never call this twice: the second call frees the handle again",
        "However, this must not block: it runs on the event loop",
        "Except for the root, nodes must never be pruned while a reader holds them",
        "Except on Windows, paths must be compared case-sensitively",
        "Never reorder these fields: the wire format lists them in this order, a, b, c etc...",
        "Must be invoked as json!(@array [...])",
        "Orders must never be retried, the gateway charges twice",
    ):
        assert not mine_comment_rules.fragment_read_alone(comment), comment


def test_a_stamp_is_dropped_and_opens_a_note_of_its_own() -> None:
    def warns(lines: list[str]) -> bool:
        return "must" in " ".join(lines).lower() or "careful" in " ".join(lines).lower()

    assert mine_comment_rules.stamped_note(["05-Aug-2008, bob: this MUST start with the exact value"], warns) == (
        ["this MUST start with the exact value"],
        0,
    )
    block = ["And there we have it!", "26-Jun-2022, ann: Careful here, as numbers", "can cause surprises"]
    assert mine_comment_rules.stamped_note(block, warns) == (["Careful here, as numbers", "can cause surprises"], 1)
    assert mine_comment_rules.stamped_note(["Done. 2021-03-04 ann: must not block"], warns) == (["must not block"], 0)
    # an issue tag stays: it says where the reason is
    tagged = ["[core#133]: beware of super long indexes; assume ints are fine"]
    assert mine_comment_rules.stamped_note(tagged, warns) == (tagged, 0)
    # a date inside a sentence is no stamp
    dated = ["never accept versions released before 2019-08-12: their checksums are wrong"]
    assert mine_comment_rules.stamped_note(dated, warns) == (dated, 0)


def test_a_guard_for_what_cannot_happen_and_a_stated_default() -> None:
    assert mine_comment_rules.defensive_failure("Should never return 0, so let's fail")
    assert mine_comment_rules.defensive_failure("should never be negative here, so just throw")
    assert not mine_comment_rules.defensive_failure("must never return null: callers dereference it")
    assert not mine_comment_rules.defensive_failure("should never be called twice, so we keep a flag")
    assert mine_comment_rules.states_default("By default, require padding on input if written on output")
    assert not mine_comment_rules.states_default(
        "By default, never follow redirects, since a loop would hang the worker"
    )


def test_mined_from_a_repository_the_warnings_lose_their_stamps(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("src/main/java/org/acme/stream/TokenReader.java", READER)
    repo.commit("Add the token reader")
    ws, report = mined(repo, open_ws)
    everything = [*MemoryStatus]
    memories = [
        m
        for m in ws.store.anchored_to_files(["src/main/java/org/acme/stream/TokenReader.java"], everything)
        if m.source == MemorySource.COMMENT
    ]
    texts = sorted(m.text for m in memories)
    assert len(texts) == 2, texts
    assert "must shift the mark" in texts[0] + texts[1] and "reset()" in texts[0] + texts[1]
    assert not any("ann:" in t or "2022" in t or "there we have it" in t for t in texts)
    assert report.noise[Noise.LINT_SUPPRESSION] >= 1 and report.noise[Noise.COMMENT_FRAGMENT] >= 4


def test_a_comments_documentation_markup_is_left_out() -> None:
    shared = "The bucket must not be shared, see {@link Parser}."
    lines = ["-----------", "Resets the state.", "<p>", shared, "@since 2.4"]
    assert without_markup(lines) == ["Resets the state.", "", "The bucket must not be shared, see Parser."]
