"""The pure converters and settings layering, without a server."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from forewarn.lsp import convert
from forewarn.lsp import settings as lsp_settings
from forewarn.lsp.convert import DiagnosticHit, Span
from forewarn.memory.store import Anchor, Memory

NOW = 1_800_000_000.0  # a fixed "now" so ages are reproducible
PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def memory(mid: str, mtype: str = "gotcha", status: str = "active", text: str = "t", days: float = 0) -> Memory:
    from forewarn.memory.text import to_iso

    at = to_iso(NOW - days * 86400)
    return Memory(mid, mtype, text, Anchor("a.py", "f", 3, 5), "user", 1.0, at, at, status)


def span(line: int | None = 3, end: int | None = 5, file: str = "a.py") -> Span:
    return Span(f"file:///w/{file}", file, "f" if line else None, line, end)


def all_escaped(markdown: str) -> bool:
    """Every character that can open a Markdown construct is part of a backslash escape pair."""
    i = 0
    while i < len(markdown):
        ch = markdown[i]
        if ch == "\\":
            if i + 1 >= len(markdown) or markdown[i + 1] not in PUNCT:  # escapes only ever precede punctuation
                return False
            i += 2
            continue
        if ch in convert.MARKDOWN_ACTIVE:
            return False
        i += 1
    return True


@given(st.text())
def test_escaped_markdown_is_inert_and_lossless(text: str) -> None:
    out = convert.escape_markdown(text)
    assert all_escaped(out.replace("  \n", "\n"))
    unescaped = re.sub(r"\\(.)", r"\1", out.replace("  \n", "\n"), flags=re.S)
    assert unescaped == convert._CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def test_escape_defuses_links_html_and_bidi() -> None:
    out = convert.escape_markdown("[x](command:rm) <script>&amp; ![i](http://e) \u202egnp.exe")
    assert re.search(r"(?<!\\)\]\(", out) is None  # no unescaped "](": no link can form
    assert "<script" not in out.replace("\\<", "") and "\u202e" not in out
    assert out.startswith("\\[x\\](command:rm)")
    assert convert.escape_markdown("Use Money.from_decimal (not float), please.") == (
        "Use Money.from\\_decimal (not float), please."
    )


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
    assert first.message == "gotcha: lesson 0 — 3 months ago, recorded by a person"
    assert (first.range.start.line, first.range.end.line) == (2, 5)
    theirs = diags[-1]
    assert theirs.range == convert.FILE_RANGE
    assert theirs.related_information[0].location.uri == "file:///w/c.py"  # type: ignore[index]
    assert theirs.related_information[0].location.range.start.line == 6  # type: ignore[index]
    assert "[about c.py::f]" in theirs.message


def test_selection_lines_and_ranges() -> None:
    rng = types.Range(start=types.Position(4, 2), end=types.Position(6, 0))
    assert convert.selection_lines(rng) == (5, 6)  # a selection ending at column 0 leaves that line out
    assert convert.selection_lines(types.Range(start=types.Position(4, 2), end=types.Position(4, 2))) == (5, 5)
    assert convert.line_span_range(1, 1) == types.Range(start=types.Position(0, 0), end=types.Position(1, 0))


def test_code_actions_only_for_our_diagnostics() -> None:
    ours = types.Diagnostic(range=convert.FILE_RANGE, message="m", source="forewarn", code="ID1", data={"id": "ID1"})
    theirs = types.Diagnostic(range=convert.FILE_RANGE, message="m", source="pyright", code="ID2")
    actions = convert.code_actions("file:///a.py", convert.FILE_RANGE, None, [ours, theirs, ours])
    commands = [(a.command.command, a.command.arguments) for a in actions if a.command]
    assert commands[0][0] == "forewarn.remember" and commands[0][1][0]["text"] is None  # type: ignore[index]
    assert {c for c, _ in commands[1:]} == {
        "forewarn.confirm", "forewarn.markOutdated", "forewarn.supersede", "forewarn.forget",
    }  # fmt: skip
    assert all(args[0]["id"] == "ID1" for _, args in commands[1:])  # type: ignore[index]


def test_hover_markdown_lists_memories_with_importance() -> None:
    body = convert.hover_markdown(
        "Invoice.total", [memory("01ABC", text="Round *once*")], convert.Importance(3, 40, 7), now=NOW
    )
    assert body is not None
    assert "`Invoice.total`" in body and "ranks 3 of 40" in body and "7 files depend" in body
    assert "Round \\*once\\*" in body
    assert convert.hover_markdown(None, [], None) is None


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
    actions = convert.code_actions("file:///a.py", convert.FILE_RANGE, "f", [ours])
    bare = convert.bare_commands(actions)
    assert [c.command for c in bare] == [a.command.command for a in actions]  # type: ignore[union-attr]
    assert bare[0].title == "Forewarn: remember a gotcha for f"
