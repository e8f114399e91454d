"""A lesson's why and a warning comment's text, as QA pass 5 found them on fzf and jq (F6, F7, F8, F11).

- F6: a sentence that opens on a contrast ("However, we only do this for …", "But the temp files … will not be
  removed") states an exception to the change, not its reason: it stands for the sentence it contrasts with, or is
  skipped; "…, which is how I spotted this issue" is the author's story, no part of the reason.
- F7: a command example in a body (a shell comment, a command with options or a pipe) is no prose, and a list written
  as lines without full stops is one sentence a line, never one run-on sentence.
- F8: "..." inside a code span ends no sentence; a warning comment over the length cap ends at a whole sentence (or
  a whole word), never inside a link.
- F11: a trailing comment that opens on its verb says its subject, the code on its line; "XXX We should …" is a task
  and "XXX This should be dead code …" a defensive note, neither a warning.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace import mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_lessons import clip_sentences, sentences, why
from forewarn.workspace.mine_rules import CAUSE_WORDS, STRONG_WORDS, Noise, classify
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined, record

# fzf fff7eda
WINDOWS_KILL = """\
Windows doesn't have signals, the default Kill doesn't actually kill
anything, and other forms of termination don't allow cleanup. So we
spawn preview processes in a new process group and send them a
CTRL_BREAK_EVENT to terminate.

However, we only do this for "pwsh" (PowerShell 7+) and unknown/
posix-ish shells, because cmd.exe and Windows PowerShell
("powershell.exe") don't always exit on Ctrl-Break. pwsh also needs
the -NonInteractive flag to exit on Ctrl-Break.

Fix #3134
"""


def test_a_contrast_stands_for_the_sentence_it_contrasts_with() -> None:
    found = why(WINDOWS_KILL, "Terminate child processes on Windows (#4723)", CAUSE_WORDS, STRONG_WORDS)
    assert found == (
        "Windows doesn't have signals, the default Kill doesn't actually kill anything, and other forms of "
        "termination don't allow cleanup. So we spawn preview processes in a new process group and send them a "
        "CTRL_BREAK_EVENT to terminate."
    )
    # a contrast that tells what went wrong is the cause (fzf 90a8800b, 2e3dc754)
    raced = (
        "We cache a merger for partial input as well, because it is invalidated as soon as new data comes in.\n"
        "However, there was a race condition where a cached merger for a partial input is used even after the\n"
        "input stream was complete.\n"
    )
    assert "However, there was a race condition" in why(raced, "Fix race in merger cache", CAUSE_WORDS, STRONG_WORDS)
    otherwise = (
        "Make the tiebreak use the original line.\n\nHowever, if we calculate length tiebreak only on the matched\n"
        "components, the result can be very confusing when multiple --nth components are specified.\n"
    )
    assert why(otherwise, "Length tiebreak on the whole line", CAUSE_WORDS, STRONG_WORDS).startswith("However, if we")


def test_a_contrast_with_nothing_before_it_is_no_why() -> None:
    """fzf b7248d4: the body's only sentence is the exception ("But the temp files … will not be removed")."""
    body = (
        "Close #4283\n\nBut the temp files for the `f` flags in the 'become' template will not\n"
        'be removed, because we will need them after "becoming" another program.\n\n'
        "  e.g. fzf --bind 'enter:become:cat {f}'\n"
    )
    assert why(body, "Remove temp files before 'become' when using --tmux option", CAUSE_WORDS, STRONG_WORDS) == ""


def test_a_sentence_pointing_back_at_a_contrast_is_lost_with_it() -> None:
    """fzf 94999101: "It is set to 'false' if …" refers to the 'hidden' property the contrast names."""
    body = (
        "* change-preview-window restores the initial preview window options,\n"
        "  and overrides the properties that are specified\n"
        "* However, 'hidden' property is treated differently. It is set to\n"
        "  'false' if the specified properties of the action is non-empty, because the window would stay hidden.\n"
    )
    assert why(body, "Fix the behavior of change-preview-window action", CAUSE_WORDS, STRONG_WORDS) == ""


def test_the_authors_story_is_left_out_of_the_reason() -> None:
    """jq 7be68707."""
    body = (
        "Freeing the same pointer multiple times is undefined behavior and can cause\n"
        "heap corruption, which is how I spotted this issue.\n"
    )
    found = why(body, "Remove multiple calls to free when successively calling jq_reset", CAUSE_WORDS, STRONG_WORDS)
    assert found == "Freeing the same pointer multiple times is undefined behavior and can cause heap corruption."


def test_a_command_example_is_no_why() -> None:
    """fzf f92f9f1: an indented shell comment and command were glued into one "sentence"."""
    body = (
        "  # The first line of the second chunk would prematurely wrap\n"
        "  printf '%0500s\\n\\n%0500s' 0 0 | fzf --wrap --read0\n"
    )
    assert sentences(body) == []
    assert why(body, "Fix wrapping of the list section", CAUSE_WORDS, STRONG_WORDS) == ""
    assert sentences("$ make test\nThe build failed because the cache was stale.") == [
        "The build failed because the cache was stale."
    ]

    # a bullet's wrapped line, indented, is still its text
    body = "* The cache was filled before the lock was taken,\n  and a second reader saw a half-written entry.\n"
    assert sentences(body) == [
        "The cache was filled before the lock was taken, and a second reader saw a half-written entry."
    ]


def test_two_list_lines_without_full_stops_are_two_sentences() -> None:
    """jq a949745."""
    body = (
        "Error on non-number and nan codepoint, would asserd before\n"
        "Replace negative codepoint and surrogate range with unicode replacement character, would assert before\n"
    )
    assert sentences(body) == [
        "Error on non-number and nan codepoint, would asserd before",
        "Replace negative codepoint and surrogate range with unicode replacement character, would assert before",
    ]
    # text wrapped by an editor is one sentence, a capitalised word after the break or not
    wrapped = (
        "Windows doesn't have signals, so a process that is asked to stop by the\n"
        "Kill call is not actually stopped and cannot clean up its temporary files\n"
        "Windows only lets a process group receive a break event from the console.\n"
    )
    assert len(sentences(wrapped)) == 1


def test_an_ellipsis_inside_a_code_span_ends_no_sentence() -> None:
    """jq c70ae1a."""
    body = (
        "Simplifies the compilation of `foreach` to avoid the problem in #3227 by\n"
        "removing unnecessary `FORK ... BACKTRACK`.\n\nDoes not address `reduce`, which is less trivial.\n"
    )
    assert sentences(body)[0] == (
        "Simplifies the compilation of `foreach` to avoid the problem in #3227 by removing unnecessary "
        "`FORK ... BACKTRACK`."
    )
    verdict = classify(record("fix: `foreach` should not break init backtracking with `DUPN` (#3266)", body))
    assert verdict.why is None or verdict.why.count("`") % 2 == 0


TMUX = """\
package fzf

func tmuxFloatingPaneInfo() (int, int, bool) {
\t// TMUX_PANE is not set when fzf is not started from within a pane
\t// (e.g. 'bind-key 0 run-shell "fzf --popup"'). Do not use a floating
\t// pane there; a blocking run-shell suspends key processing for the
\t// client until the command exits, so fzf in a floating pane would
\t// never receive a key and the client would appear frozen until the
\t// process is killed externally. A popup is unaffected; its input is
\t// handled at the client overlay level, bypassing the suspended path.
\t// The right approach for such bindings is 'run-shell -b', which does
\t// not suspend key processing, as discussed in:
\t//   https://github.com/tmux/tmux/issues/5384
\ttarget := os.Getenv("TMUX_PANE")
\tif target == "" {
\t\treturn 0, 0, false
\t}
\treturn 1, 1, true
}
"""


def test_a_long_warning_comment_ends_at_a_whole_sentence_never_inside_a_link() -> None:
    scan = mine_comments.warning_comments("src/tmux.go", TMUX.encode())
    [(comment, symbol)] = scan.found
    assert symbol == "tmuxFloatingPaneInfo"
    assert len(comment.text) <= mine_comments.MAX_COMMENT_CHARS
    assert comment.text.endswith("bypassing the suspended path. …")
    assert "https://github.com/tmux/tmux/" not in comment.text


def test_one_sentence_over_the_cap_ends_at_a_whole_word() -> None:
    text = "Do not reuse the buffer " + "x " * 30 + "see https://example.com/a/very/long/path/to/the/discussion ok"
    clipped = clip_sentences(text, 80)
    assert len(clipped) <= 80 and clipped.endswith(" …")
    assert "https://" not in clipped or "discussion" in clipped
    assert clip_sentences("Short enough.", 80) == "Short enough."


STRPTIME = """\
static jv f_strptime(jq_state *jq, jv a, jv b) {
  const char *input = jv_string_value(a);
  const char *end = my_mktime(input, &tm);
  if (end == NULL || (*end != '\\0' && !isspace((unsigned char)*end)))
    return ret_error2(a, b, jv_string("date does not match format"));
  jv_free(b);
  int set = *end == '\\0';
  jv_free(a); // must come after `*end` because `end` is a pointer into `a`'s string
  return jv_number(set);
}

static jv parse_slice(jv j, jv start_jv, jv end_jv) {
  if (jv_get_kind(j) != JV_KIND_ARRAY) {
    /*
     * XXX This should be dead code because callers shouldn't call this
     * function if `j' is neither an array nor a string.
     */
    jv_free(j);
    return jv_invalid_with_msg(jv_string("Only arrays and strings can be sliced"));
  }
  return j;
}

static jv parser_next(struct jv_parser *p) {
  if (!(p->flags & JV_PARSE_SEQ)) {
    // We're not parsing a JSON text sequence; throw this buffer away.
    // XXX We should fail permanently here.
    p->curr_buf = 0;
    p->curr_buf_pos = 0;
  }
  return p->next;
}
"""


def test_a_trailing_comment_says_the_code_on_its_line_as_its_subject() -> None:
    scan = mine_comments.warning_comments("src/builtin.c", STRPTIME.encode())
    assert [(c.text, s) for c, s in scan.found] == [
        ("`jv_free(a)` must come after `*end` because `end` is a pointer into `a`'s string", "f_strptime")
    ]


def test_xxx_notes_to_self_are_tasks_or_defensive_notes() -> None:
    scan = mine_comments.warning_comments("src/builtin.c", STRPTIME.encode())
    assert scan.skipped[Noise.COMMENT_TASK] == 1
    assert scan.skipped[Noise.COMMENT_DEFENSIVE] == 1


def test_the_trailing_comment_reaches_the_suggestion(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("src/builtin.c", STRPTIME)
    repo.commit("Add date parsing")
    ws, _ = mined(repo, open_ws)
    texts = [m.text for m in ws.suggestions() if m.source == "comment"]
    assert texts == [
        "In `f_strptime`: `jv_free(a)` must come after `*end` because `end` is a pointer into `a`'s string"
    ]
