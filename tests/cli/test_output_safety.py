"""F7: nothing the CLI prints from the repository or the store can drive the terminal or forge a line.

A hostile repository names a file with a colour escape and a newline, and a signature carries an OSC 52
clipboard write and a clear-screen; a teammate's memory carries escapes, C1 controls and a bidi override in
every field. Every command shows them as visible escapes (``\\x1b``), one line per field.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from forewarn.cli import util as cliutil
from forewarn.memory.records import Anchor, Memory, MemoryEvent
from forewarn.memory.text import clean_memory_text, new_id, to_iso
from forewarn.workspace.engine import Workspace
from tests.cli.conftest import Forewarn

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"  # puts "rm -rf ~" on the clipboard in terminals that allow it
CLEAR = "\x1b[2J"
EVIL_FILE = "billing/ev\x1b[31mil_totals.py"
FORGED_FILE = "billing/forged\nFAKE: all memories deleted.py"
ANSI = f"\x1b[31m{CLEAR}{OSC52}\x9b2J\x9d0;title\x9c\u202etxt.exe"
# what a terminal acts on or hides: ESC, BEL, C1 controls, bidi embeddings/overrides/isolates
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def hostile_repo(root: Path) -> Path:
    (root / "billing").mkdir(parents=True)
    (root / EVIL_FILE).write_text(f'def evil_total(x="{OSC52}{CLEAR}"):\n    return x\n')
    (root / FORGED_FILE).write_text("def forged_totals():\n    return 0\n")
    return root


def assert_safe(out: str) -> None:
    assert not UNSAFE.search(out), repr(out)
    assert "\nFAKE" not in out, out  # a newline in a file name does not start a line of its own


def test_shown_escapes_what_a_terminal_acts_on() -> None:
    assert cliutil.shown(EVIL_FILE) == "billing/ev\\x1b[31mil_totals.py"
    assert cliutil.shown("a\nb\tc") == "a\\x0ab\\x09c"
    assert cliutil.shown("a\nb\tc\x1b", lines=True) == "a\nb\tc\\x1b"
    assert cliutil.shown("\x9b\u202e\u2066\u200b\ufeff\U000e0041\ud800") == (
        "\\x9b\\u202e\\u2066\\u200b\\ufeff\\U000e0041\\ud800"
    )
    kept = "naïve café – 日本語 עברית 👩‍👩‍👧 (x) [y] {z}"  # letters, scripts, emoji joiners and punctuation
    assert cliutil.shown(kept) == kept


def test_map_search_and_stats_show_hostile_names_and_signatures_escaped(tmp_path: Path, forewarn: Forewarn) -> None:
    root = hostile_repo(tmp_path / "ws")
    for args in (["map"], ["search", "evil total forged totals", "--lexical"], ["stats"]):
        done = forewarn(*args, "-w", str(root))
        assert done.returncode == 0, done.stderr
        assert_safe(done.stdout + done.stderr)
        if args[0] != "stats":
            assert "ev\\x1b[31mil_totals.py" in done.stdout, done.stdout
    done = forewarn("search", "evil total", "--lexical", "--json", "-w", str(root))
    assert not UNSAFE.search(done.stdout)  # JSON escapes them as \u001b: the same data, inert on a terminal
    assert EVIL_FILE in {c["file"] for c in json.loads(done.stdout)["chunks"]}


def test_memory_list_show_and_history_escape_every_field(tmp_path: Path, forewarn: Forewarn) -> None:
    root = tmp_path / "ws"
    (root / "billing").mkdir(parents=True)
    (root / "billing" / "invoice.py").write_text("def total(lines):\n    return sum(lines)\n")
    at = to_iso(1_700_000_000)
    with Workspace.open(root, embedder=None) as engine:  # as an import from before validation stored it
        mid = new_id()
        engine.store.insert(
            Memory(mid, "gotcha", f"totals {ANSI}\nsecond line", Anchor("billing/invoice.py", f"total{ANSI}", 1, 2),
                   f"import{ANSI}", 1.0, at, at, status_reason=f"because{ANSI}", tags=(f"tag{ANSI}",)),
            [MemoryEvent(new_id(), mid, at, f"created{ANSI}", {"by": f"lead{ANSI}\nFAKE: forgotten"})],  # type: ignore[arg-type]
        )  # fmt: skip
    commands = (
        ["memory", "list"],
        ["memory", "show", mid],
        ["memory", "history", mid],
        ["search", "totals", "--lexical"],
    )
    for args in commands:
        done = forewarn(*args, "-w", str(root))
        assert done.returncode == 0, done.stderr
        assert "totals" in done.stdout and "\\x1b" in done.stdout, done.stdout
        assert_safe(done.stdout + done.stderr)
    shown = forewarn("memory", "show", mid, "-w", str(root)).stdout
    assert "totals \\x1b[31m\\x1b[2J" in shown and "\nsecond line" in shown  # the text keeps its own lines


def test_remember_stores_no_c1_or_bidi_controls() -> None:
    # each escape sequence goes whole: dropping its ESC alone left "[31m[2J]52;c;…" in the stored text
    assert clean_memory_text(f"a{ANSI}\x85b") == "atxt.exe\nb"
    assert (
        clean_memory_text("\x1b[1;31mALERT\x1b[0m: \x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\ \x1b(Bend")
        == "ALERT: link end"
    )
    assert clean_memory_text("[31m typed by hand, no escape") == "[31m typed by hand, no escape"
    assert clean_memory_text("ZWJ 👩‍👩‍👧 and ZWNJ می‌خواهم stay") == "ZWJ 👩‍👩‍👧 and ZWNJ می‌خواهم stay"
