"""The pure converters and settings layering, without a server."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from markdown_it import MarkdownIt

from forewarn.lsp import convert
from forewarn.lsp import settings as lsp_settings
from forewarn.lsp.convert import DiagnosticHit, Span
from forewarn.memory.records import Anchor, Memory
from forewarn.memory.vocabulary import MemoryType

NOW = 1_800_000_000.0  # a fixed "now" so ages are reproducible
NOW_ISO = "2027-01-15T08:00:00+00:00"


def memory(mid: str, mtype: str = "gotcha", status: str = "active", text: str = "t", days: float = 0) -> Memory:
    from forewarn.memory.text import to_iso

    at = to_iso(NOW - days * 86400)
    return Memory(mid, mtype, text, Anchor("a.py", "f", 3, 5), "user", 1.0, at, at, status)


def span(line: int | None = 3, end: int | None = 5, file: str = "a.py") -> Span:
    return Span(f"file:///w/{file}", file, "f" if line else None, line, end)


# CommonMark with raw HTML, tables and strikethrough on: the most a client could render
RENDER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
ORDINARY = ["charge_card", "double-charges", "snake_case_name", "a - b", "2*3*4", "Money.from_decimal (not float)",
            "R&D owns it", "x < y and y > z", "cost: 5 * n", "see issue #12", "~/src/app", "a_b_ c _d", "3.14",
            "it's *not* safe", "wrap `charge_card` in a retry"]  # fmt: skip
MARKDOWN_PIECES = st.sampled_from(
    ["[a](command:x)", "[b]: command:y", "![i](https://e/x.png)", "<a href='command:z'>", "<img src=x>", "&amp;",
     "&#60;", "```", "`", "``", "\\", "<x@y.z>", "<https://e>", "](", "[", "]", "\n", "\n\n", "    ", "*", "**", "_",
     "__", "~", "~~", "|", "|---|", "- ", "+ ", "1. ", "2) ", "# ", "> ", "===", "---", "***", "http://e.example/x",
     "www.e.example", "a@b.example", " ", "a", "é", "€", "\t", ":", "(", ")", "!", "=", "#"]
)  # fmt: skip
TEXTS = st.one_of(st.text(max_size=200), st.lists(MARKDOWN_PIECES, max_size=16).map("".join))


def rendered_text(markdown: str) -> str:
    """The text a reader sees: paragraphs' text, a line break as a newline, a paragraph break as a blank line.

    Fails on any construct but a paragraph and a line break.
    """
    paragraphs: list[str] = []
    for token in RENDER.parse(markdown):
        if token.type == "inline":
            parts: list[str] = []
            for child in token.children or []:
                assert child.type in ("text", "text_special", "hardbreak", "softbreak"), (child.type, markdown)
                parts.append(child.content if child.type.startswith("text") else "\n")
            paragraphs.append("".join(parts))
        else:
            assert token.type in ("paragraph_open", "paragraph_close"), (token.type, markdown)
    return "\n\n".join(paragraphs)


def normalised(text: str) -> str:
    """What ``escape_markdown`` promises to keep: the text less control and bidi characters, each line
    trimmed, runs of blank lines as one paragraph break."""
    text = convert.CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    return re.sub(r"\n\n+", "\n\n", "\n".join(line.strip() for line in text.split("\n"))).strip("\n")


@given(TEXTS)
def test_escaped_markdown_renders_as_the_text_itself(text: str) -> None:
    markdown = convert.escape_markdown(text)
    assert rendered_text(markdown) == normalised(text)
    assert not re.search(r"<(?!/?(?:p|br)\b)", RENDER.render(markdown))  # paragraphs and line breaks only
    assert not re.search(r"(?<!\\)(?:https?|ftp)://|(?<!\\)www\.", markdown, re.I)  # GFM would link these


def test_ordinary_text_needs_no_backslash() -> None:
    for text in ORDINARY:
        assert rendered_text(convert.escape_markdown(text)) == text
        if "`" not in text and "*not*" not in text and text != "2*3*4":
            assert convert.escape_markdown(text) == text, text
    # pairs render as code or emphasis (CommonMark: 2<em>3</em>4), so those alone are escaped
    assert convert.escape_markdown("wrap `charge_card` in a retry") == "wrap \\`charge_card\\` in a retry"
    assert convert.escape_markdown("2*3*4") == "2\\*3\\*4"
    assert convert.escape_markdown("__init__ runs once") == "\\_\\_init\\_\\_ runs once"


def test_escape_defuses_links_html_blocks_and_bidi() -> None:
    out = convert.escape_markdown("[x](command:rm) <script>&amp; ![i](http://e) \u202egnp.exe")
    assert out == "[x\\](command:rm) \\<script>\\&amp; ![i\\](http\\://e) gnp.exe"
    out = convert.escape_markdown(
        "- a\n1. b\n# c\n> d\n    e\n---\nf\n===\nsee http://evil.example/x or www.evil.example"
    )
    assert out == (
        "\\- a  \n1\\. b  \n\\# c  \n\\> d  \ne  \n\\---  \nf  \n\\===  \n"
        "see http\\://evil.example/x or www\\.evil.example"
    )


def test_code_span_cannot_be_broken_and_names_stay_on_one_line() -> None:
    assert convert.code_span("charge_card") == "`charge_card`"
    assert convert.code_span("a``b") == "```a``b```"
    assert convert.code_span("`x") == "`` `x ``"
    assert convert.flat_text("A.[`x\n\n[**Click**](command:y)\n\n`]") == "A.[`x [**Click**](command:y) `]"


def test_every_memory_type_has_an_icon() -> None:
    assert set(MemoryType) <= set(convert.TYPE_ICONS)
    assert len(set(convert.TYPE_ICONS.values())) == len(convert.TYPE_ICONS)  # told apart at a glance


def test_severity_by_type_status_and_relation() -> None:
    assert convert.severity(memory("1", "gotcha"), neighbour=False) == types.DiagnosticSeverity.Warning
    assert convert.severity(memory("1", "error_pattern"), neighbour=False) == types.DiagnosticSeverity.Warning
    for kind in ("decision", "convention", "dead_end"):
        assert convert.severity(memory("1", kind), neighbour=False) == types.DiagnosticSeverity.Information
    assert convert.severity(memory("1", "gotcha", "stale"), neighbour=False) == types.DiagnosticSeverity.Hint
    assert convert.severity(memory("1", "gotcha"), neighbour=True) == types.DiagnosticSeverity.Information


def test_diagnostics_cap_warnings_and_point_neighbours_home() -> None:
    hits = [DiagnosticHit(memory(str(i), text=f"lesson {i}", days=90), span()) for i in range(5)]
    hits.append(DiagnosticHit(memory("n", text="theirs"), span(None, None, "b.py"), neighbour=span(7, 9, "c.py")))
    diags = convert.diagnostics(hits, max_warnings=3, now=NOW)
    severities = [d.severity for d in diags]
    assert severities[:3] == [types.DiagnosticSeverity.Warning] * 3
    assert severities[3:] == [types.DiagnosticSeverity.Information] * 3  # demoted, not dropped
    first = diags[0]
    assert (
        first.code == "0"
        and first.source == "forewarn"
        and first.data == {"id": "0", "type": "gotcha", "status": "active"}
    )
    assert first.message == "lesson 0\ngotcha · 3 months ago, recorded here"  # one origin phrase, no "a person"
    assert (first.range.start.line, first.range.end.line) == (2, 5)
    theirs = diags[-1]
    assert theirs.range == convert.FILE_RANGE
    assert theirs.related_information[0].location.uri == "file:///w/c.py"  # type: ignore[index]
    assert theirs.related_information[0].location.range.start.line == 6  # type: ignore[index]
    when = convert.age(hits[-1].memory.created_at, NOW)
    assert theirs.message == f"theirs\ngotcha about c.py::f · {when}, recorded here"  # the same phrase as above


def test_suggestions_are_hints_that_name_their_commit_and_a_cap_says_how_many_more() -> None:
    import dataclasses

    commits = [
        {"sha": "abc1234def", "author": "Ann", "date": "2024-03-02T10:00:00+00:00", "subject": "Fix"},
        {"sha": "0011223344", "author": "Bo\nb", "date": "2023-01-01T00:00:00+00:00", "subject": "Older"},
    ]
    mined = dataclasses.replace(
        memory("s", status="suggested", text="quantize once"), source="commit", provenance={"commits": commits[:1]}
    )
    view = convert.FileView("a.py", [DiagnosticHit(memory("g"), span())], 30, [DiagnosticHit(mined, span())], True)
    diags = convert.file_diagnostics(view, max_warnings=3, max_diagnostics=5, now=NOW)
    assert [d.severity for d in diags] == [
        types.DiagnosticSeverity.Warning, types.DiagnosticSeverity.Hint,  # a suggestion never warns
        types.DiagnosticSeverity.Information,  # one entry for all that was left out
    ]  # fmt: skip
    assert diags[1].message.startswith("quantize once\nsuggested gotcha (accept or dismiss) · ")
    assert diags[1].message.endswith("suggested from commit abc1234 by Ann, 2024-03-02")
    assert diags[2].message == (
        "30 more memories on this file and the code it uses: forewarn memory list --file a.py "
        "or the Search Memories command; more suggestions on this file: the Review Suggestions command "
        "(:Forewarn review), or forewarn memory review --file a.py"
    )
    assert diags[2].code is None and diags[2].data == {"more": 30, "more_suggestions": True}
    accepted = dataclasses.replace(mined, status="active", provenance={"commits": commits})
    assert convert.origin(accepted) == "learned from commit abc1234 by Ann, 2024-03-02 and 1 related commit"
    older = dataclasses.replace(accepted, provenance={"commits": commits[1:]})
    assert convert.origin(older) == "learned from commit 0011223 by Bo b, 2023-01-01"  # names flattened
    assert convert.origin(dataclasses.replace(mined, source="comment")) == "suggested from a warning comment"
    titles = [
        a.title for a in convert.code_actions("file:///w/a.py", convert.FILE_RANGE, None, [diags[1]], prompts=True)
    ]
    assert titles[1:] == [
        "Forewarn: accept suggestion (s)", "Forewarn: edit and accept suggestion (s)",
        "Forewarn: dismiss suggestion (s)",
    ]  # fmt: skip
    body = convert.hover_markdown(
        "f", [memory(str(i)) for i in range(convert.HOVER_MEMORIES + 2)], None, NOW, file="a.py"
    )
    assert body is not None and body.endswith(
        "2 more memories on this symbol: `forewarn memory list --file a.py` or the Search Memories command"
    )


def test_selection_lines_and_ranges() -> None:
    rng = types.Range(start=types.Position(4, 2), end=types.Position(6, 0))
    assert convert.selection_lines(rng) == (5, 6)  # a selection ending at column 0 leaves that line out
    assert convert.selection_lines(types.Range(start=types.Position(4, 2), end=types.Position(4, 2))) == (5, 5)
    assert convert.line_span_range(1, 1) == types.Range(start=types.Position(0, 0), end=types.Position(1, 0))


def test_code_actions_only_for_our_diagnostics() -> None:
    ours = types.Diagnostic(range=convert.FILE_RANGE, message="m", source="forewarn", code="ID1", data={"id": "ID1"})
    theirs = types.Diagnostic(range=convert.FILE_RANGE, message="m", source="pyright", code="ID2")
    actions = convert.code_actions("file:///a.py", convert.FILE_RANGE, None, [ours, theirs, ours], prompts=True)
    commands = [(a.command.command, a.command.arguments) for a in actions if a.command]
    assert commands[0][0] == "forewarn.remember" and commands[0][1][0]["text"] is None  # type: ignore[index]
    assert {c for c, _ in commands[1:]} == {
        "forewarn.confirm", "forewarn.markOutdated", "forewarn.supersede", "forewarn.forget",
    }  # fmt: skip
    assert all(args[0]["id"] == "ID1" for _, args in commands[1:])  # type: ignore[index]


def test_a_client_that_cannot_prompt_is_offered_only_complete_actions() -> None:
    memory = types.Diagnostic(range=convert.FILE_RANGE, message="m", source="forewarn", code="ID1", data={"id": "ID1"})
    mined = types.Diagnostic(
        range=convert.FILE_RANGE, message="m", source="forewarn", data={"id": "S1", "status": "suggested"}
    )
    actions = convert.code_actions("file:///a.py", convert.FILE_RANGE, "f", [memory, mined])
    offered = [(a.command.command, a.command.arguments[0]) for a in actions if a.command and a.command.arguments]
    # R5: accepting or dismissing a suggestion is a person's decision: never offered to an agent host
    assert [c for c, _ in offered] == ["forewarn.confirm", "forewarn.markOutdated", "forewarn.forget"]
    assert all("text" not in argument for _, argument in offered)  # nothing left for the client to fill in
    assert not convert.client_prompts(None) and not convert.client_prompts({"forewarn": {"promptsForText": "yes"}})
    assert convert.client_prompts({"other": 1, "forewarn": {"promptsForText": True}})
    answer = convert.needs_text("forewarn.supersede", "ID1")
    assert answer["done"] is False and answer["needs"] == "text"
    assert "forewarn memory supersede ID1 TEXT" in answer["message"] and "nothing was changed" in answer["message"]


def test_hover_markdown_lists_memories_with_importance() -> None:
    body = convert.hover_markdown(
        "Invoice.total", [memory("01ABC", text="Round *once*")], convert.Importance(3, 40, 7), now=NOW
    )
    assert body is not None
    assert "`Invoice.total`" in body and "ranks 3 of 40" in body and "7 files depend" in body
    assert "Round \\*once\\*" in body
    assert convert.hover_markdown(None, [], None) is None


def test_a_mined_memorys_hover_says_its_track_record() -> None:
    """Issue 23: what the history after a lesson says about its code, in the hover ("fixed 3 times since")."""
    import dataclasses

    track = {"fixes": 3, "last_fix": "2024-05-01T10:00:00Z", "since": "2023-01-02T10:00:00Z", "scope": "symbol"}
    mined = dataclasses.replace(
        memory("01ABC", text="Avoid reintroducing a bug in `f`: a crash on None."),
        source="commit",
        provenance={"commits": [{"sha": "abc1234ff", "author": "Ann", "date": "2023-01-02T10:00:00Z"}], "track": track},
    )
    body = convert.hover_markdown("f", [mined], None, now=NOW)
    assert body is not None and "its code was fixed 3 times since (last on 2024-05-01)" in body
    person = convert.hover_markdown("f", [memory("01ABD")], None, now=NOW)
    assert person is not None and "fixed" not in person  # a person's memory has no track record


def test_settings_layers_and_problems(tmp_path: Path) -> None:
    (tmp_path / ".forewarn").mkdir()
    (tmp_path / ".forewarn" / "config.toml").write_text("[diagnostics]\nmax_warnings = 5\n")
    settings, problems = lsp_settings.folder_settings(tmp_path, None, None)
    assert settings.diagnostics.max_warnings == 5 and problems == []
    settings, problems = lsp_settings.folder_settings(
        tmp_path, {"forewarn": {"diagnostics": {"maxWarnings": 1}}}, {"logLevel": "DEBUG"}
    )
    assert settings.diagnostics.max_warnings == 1 and settings.log_level == "DEBUG"
    settings, problems = lsp_settings.folder_settings(tmp_path, "nonsense", {"diagnostics": {"enabled": "yes"}})
    assert settings.diagnostics.enabled is True and settings.diagnostics.max_warnings == 5
    assert len(problems) == 2 and "initializationOptions must be an object" in problems[0]
    settings, problems = lsp_settings.folder_settings(tmp_path, {"diagnostics": {"maxWarnings": -3}}, None)
    assert settings.diagnostics.max_warnings == 5  # the folder's value stays: -3 is refused with a reason
    assert problems == ["initializationOptions: setting 'diagnostics.maxWarnings' = -3 must be at least 0; kept 5"]
    message = lsp_settings.problems_message([f"p{i}" for i in range(20)])
    assert "p7" in message and "p8" not in message and "12 more" in message


def test_bare_commands_for_clients_without_literals() -> None:
    ours = types.Diagnostic(range=convert.FILE_RANGE, message="m", source="forewarn", code="ID1")
    actions = convert.code_actions("file:///a.py", convert.FILE_RANGE, "f", [ours], prompts=True)
    bare = convert.bare_commands(actions)
    assert [c.command for c in bare] == [a.command.command for a in actions]  # type: ignore[union-attr]
    assert bare[0].title == "Forewarn: remember a gotcha for f"


def test_one_open_shows_a_few_headlines_one_per_lesson_and_counts_the_rest() -> None:
    """At most ``max_diagnostics`` entries, ``max_warnings`` of them Warnings; a lesson on several places is one
    entry naming them; file-wide memories are one entry; a headline is the lesson's first line, 120 characters
    at most, and the rest of the text is in relatedInformation."""
    long = "Retries must be idempotent. " * 10
    copies = (memory("c2", text="same lesson"), span(20, 22, "a.py"))
    elsewhere = (memory("c3", text="same lesson"), Span("file:///w/b.py", "b.py", "B.run#3", 4, 6))
    hits = [
        DiagnosticHit(memory("g1", text="first line\nsecond line"), span()),
        DiagnosticHit(memory("g2", text="same lesson"), span(10, 12), also=(copies, elsewhere)),
        DiagnosticHit(memory("g3", text=long), span()),
        DiagnosticHit(
            Memory("w1", "decision", "whole file", Anchor("a.py"), "user", 1.0, NOW_ISO, NOW_ISO),
            span(None, None),
            summary=(Memory("w2", "note", "another", Anchor("a.py"), "user", 1.0, NOW_ISO, NOW_ISO),),
        ),
        *(DiagnosticHit(memory(f"x{i}", text=f"extra {i}"), span()) for i in range(4)),
    ]
    diags = convert.file_diagnostics(convert.FileView("a.py", hits, 7), max_warnings=2, max_diagnostics=5, now=NOW)
    assert len(diags) == 5
    assert [d.severity for d in diags[:4]] == [
        types.DiagnosticSeverity.Warning, types.DiagnosticSeverity.Warning,
        types.DiagnosticSeverity.Information, types.DiagnosticSeverity.Information,  # demoted past two
    ]  # fmt: skip
    first_lines = [d.message.split("\n")[0] for d in diags[:4]]
    assert first_lines[:2] == ["first line", "same lesson"]
    assert len(first_lines[2]) <= 120 and first_lines[2].endswith("…") and first_lines[2].startswith("Retries")
    assert diags[0].related_information[0].message == "first line second line"  # type: ignore[index]
    same = diags[1]
    assert "also on a.py::f, b.py::B.run" in same.message and "#3" not in same.message
    assert same.data["ids"] == ["g2", "c2", "c3"]  # type: ignore[index]
    assert [r.location.uri for r in same.related_information or []] == ["file:///w/a.py", "file:///w/b.py"]
    wide = diags[3]
    assert wide.message.startswith("whole file\ndecision about the whole file · ")
    assert wide.message.endswith("1 more about the whole file (note)")
    assert wide.related_information[0].message == "note: another"  # type: ignore[index]
    more = diags[4]
    assert more.message.startswith("11 more memories on this file and the code it uses")  # 7 + 4 lessons left out
    assert more.data == {"more": 11}
    quiet = convert.file_diagnostics(convert.FileView("a.py", hits[:2]), max_warnings=3, max_diagnostics=5, now=NOW)
    assert len(quiet) == 2  # nothing left out: no "more" entry


def test_headline_is_the_first_line_cut_at_a_word() -> None:
    assert convert.headline("  Fix the cache\n\nLonger body.") == "Fix the cache"
    cut = convert.headline("word " * 40)
    assert cut == ("word " * 23).strip() + "…" and len(cut) <= 120
    assert convert.headline("x" * 300) == "x" * 119 + "…"
    assert convert.headline("\n\n") == ""
