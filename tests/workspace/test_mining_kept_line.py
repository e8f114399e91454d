"""A lesson shows the line its change put in the code, when it is still there: blind readers marked lessons "partly"
that named the symptom and never what to keep ("DST overlap period wrong", not "skip the add when the value is 0").
"""

from __future__ import annotations

from pathlib import Path

from forewarn.indexing.conventions import is_test_path
from forewarn.workspace import mine_kept
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_code import joined
from forewarn.workspace.mine_fixes import counts_toward_hotspot
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, kinds, mined


def test_a_new_condition_comes_before_other_new_lines() -> None:
    removed = ["    total = amount"]
    added = ["    total = amount", "    log.debug('charging')", "    if amount is None:", "        return 0"]
    assert mine_kept.candidates(removed, added, "billing.py") == ("if amount is None:",)  # "return 0" says nothing


def test_a_moved_or_renamed_line_and_a_dropped_comment_are_no_change() -> None:
    removed = ["    item->valuestring = (char*)out; /* assign here */", "    if (key == NULL)"]
    added = ["    item->valuestring = (char*)out;", "    if (new_key == NULL)"]
    assert mine_kept.candidates(removed, added, "cJSON.c") == ()


def test_a_reset_and_a_release_are_telling_a_plain_assignment_is_not() -> None:
    added = ["    total = price * 2;", "    c->fd = -1;", "    redisFree(c);"]
    assert mine_kept.candidates([], added, "net.c") == ("c->fd = -1;", "redisFree(c);")


def test_a_rewrite_shows_nothing() -> None:
    added = [f"    if (x{i} > 0) y{i} = x{i};" for i in range(mine_kept.SHOWN_MAX_NEW_LINES + 1)]
    assert mine_kept.candidates([], added, "a.c") == ()


def test_only_a_line_still_at_head_and_not_the_signature_is_shown() -> None:
    chunk = "static int parse(char *s) {\n    if (s == NULL) {\n        return -1;\n    }\n}\n"
    code = joined(chunk, "a.c")
    assert mine_kept.shown_line(["if (t == NULL) {", "if (s == NULL) {"], chunk, code, "a.c") == "if (s == NULL)"
    assert mine_kept.shown_line(["static int parse(char *s) {"], chunk, code, "a.c") is None


def _guarded_charge(tmp_path: Path) -> Repo:
    """The billing repository with a fix that guards ``charge`` against a missing amount."""
    repo = billing_repo(tmp_path / "repo")
    guarded = "    if amount is None:\n        raise ValueError(amount)\n    total = amount\n"
    repo.edit("billing.py", "    total = amount\n", guarded)
    repo.commit("Fix crash in charge when the amount is missing\n\nA missing amount was charged as None, and the "
                "gateway crashed on it when it summed the order.")  # fmt: skip
    return repo


def test_a_fix_lesson_ends_with_the_line_it_put_in(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = _guarded_charge(tmp_path)
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in kinds(ws, "fix") if m.anchor is not None and m.anchor.symbol == "charge"]
    assert lesson.text.endswith("Still in the code from this change: `if amount is None:`")
    assert lesson.provenance is not None and lesson.provenance["kept"] == "if amount is None:"


def test_a_line_a_later_change_rewrote_is_not_shown(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = _guarded_charge(tmp_path)
    repo.edit("billing.py", "    if amount is None:\n", "    if amount is None or amount < 0:\n")
    repo.commit("Refuse negative amounts in charge")
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in kinds(ws, "fix") if m.anchor is not None and m.anchor.symbol == "charge"]
    assert lesson.text.endswith("Still in the code from this change: `raise ValueError(amount)`")


def test_c_projects_test_files_are_tests() -> None:
    assert is_test_path("test.c") and is_test_path("src/test-url.c") and is_test_path("net_unittest.cc")
    assert not is_test_path("hiredis.c") and not is_test_path("contest.c")


def test_a_hot_spot_shows_the_lines_its_newest_fixes_put_in(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = billing_repo(tmp_path / "repo")
    repo.edit("billing.py", "    return -amount\n", "    if amount is None:\n        return 0\n    return -amount\n")
    repo.commit("Fix refund crash for a missing amount")
    negative = "        return 0\n    if amount < 0:\n        raise ValueError(amount)\n"
    repo.edit("billing.py", "        return 0\n", negative)
    repo.commit("Fix refund of a negative amount")
    ws, _ = mined(repo, open_ws)
    [hot] = kinds(ws, "hotspot")
    assert hot.text.endswith("Still in the code from these fixes: `if amount < 0:`; `if amount is None:`")


def test_a_line_every_error_path_has_names_no_rule() -> None:
    added = ["\tif err != nil {", "\t\treturn err", "\tresult = nil", "\tif conn.closed {"]
    assert mine_kept.candidates([], added, "conn.go") == ("if conn.closed {",)


def test_a_fix_offering_support_makes_no_hot_spot() -> None:
    assert not counts_toward_hotspot("fix: customParseFormat supports Q quarter / w weekOfYear")
    assert not counts_toward_hotspot("fix(utc): support string argument like +HH:mm")
    assert not counts_toward_hotspot("fix: update Duration plugin to support no-argument")
    assert counts_toward_hotspot("Fix crash when the server supports gzip")
    assert counts_toward_hotspot("fix: handle servers that support HTTP/2 only")
    assert counts_toward_hotspot("Fix broken IPv6 support")
