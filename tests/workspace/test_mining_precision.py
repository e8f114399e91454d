"""Mining proposes only what is worth an interruption (issue 23, round 2): each rule on a repository the test builds.

Whole-file, class-wide and typing-only anchors propose nothing; a lesson whose code was rewritten since is obsolete;
hot spots need a pattern of real fixes whose lines still stand; texts keep their explaining sentence whole.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace import mine_comments, mining
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_lessons import why
from forewarn.workspace.mine_rules import CAUSE_WORDS, STRONG_WORDS, Noise, VerdictKind, classify, real_fix
from tests.gitrepo import Repo
from tests.workspace.billing_history import BILLING, billing_repo, kinds, mined, record, revert, round_charge

WHY = "A negative amount would refund a charge twice because the sign flips."


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return billing_repo(tmp_path / "repo")


def fix_refund(repo: Repo, n: int, subject: str | None = None, *, date: str | None = None, body: str = "") -> str:
    """A real fix of refund's logic (no explanation unless ``body``: a fix, not a lesson)."""
    repo.write("billing.py", BILLING.replace("return -amount", f"return -abs(amount) * {n} + {n}"))
    return repo.commit((subject or f"Fix refund rounding for case {n}") + (f"\n\n{body}" if body else ""), date=date)


# --- what a commit is ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subject", "body", "reason"),
    [
        ("Add a retry helper", WHY, Noise.FEATURE),
        ("Allow passing bytes to refund (fixes #86)", WHY, Noise.FEATURE),
        ("Remove the utils-merge dependency", WHY, Noise.DEPENDENCY),
        ("bugfix", WHY, Noise.VAGUE),
        ("Fixed last broken commit", WHY, Noise.VAGUE),
        ("Correct the fix for #4025", WHY, Noise.VAGUE),  # its object was an issue number
        ("Fixes based on review", WHY, Noise.VAGUE),
        ("Fix broken tests on the new runner", WHY, Noise.TEST_ONLY),
    ],
)
def test_features_dependencies_and_vague_subjects_teach_nothing(subject: str, body: str, reason: Noise) -> None:
    paths = ("tests/test_a.py",) if "tests" in subject else ("a.py",)
    verdict = classify(record(subject, body, paths))
    assert (verdict.kind, verdict.reason) == (VerdictKind.NOISE, reason)


def test_a_real_fix_names_product_behaviour() -> None:
    assert real_fix("Fix refund rounding for credits") and real_fix("Fix #1955: Do not reuse the request")
    for subject in ("bugfix", "Fix python 3 tests", "Add X (fixes #86)", "Fix deps pinning", "fix spaces", "tmp fix"):
        assert not real_fix(subject), subject


def test_the_why_is_whole_sentences_that_explain_never_cut() -> None:
    long = "When the pool is shared " + "and the socket is reused " * 20 + "a second request would hang."
    assert why(long, "Fix pool", CAUSE_WORDS, STRONG_WORDS) == long  # one long sentence, kept whole
    assert why(long * 2, "Fix pool", CAUSE_WORDS, STRONG_WORDS) == ""  # an essay: nothing beyond the headline
    story = (
        "The original request was never overridden in resolve. As such a 303 would turn a POST into a GET. "
        "Also fixed a hazard in fetch, what if the value is false-ish? I think this should work fine now. "
        "Add a failing test so that it cannot come back."
    )
    assert why(story, "Fix redirects", CAUSE_WORDS, STRONG_WORDS) == (
        "The original request was never overridden in resolve. As such a 303 would turn a POST into a GET."
    )  # it points back, so the sentence before it comes along; side notes, questions, hedges and tests do not
    imperative = "If the header value is an array, coerce the values to strings instead of the whole array."
    assert why(imperative, "Allow arrays", CAUSE_WORDS, STRONG_WORDS) == ""  # says what the code does, not why
    assert why("Throw if the status is a string because callers would send 500.", "x", CAUSE_WORDS, STRONG_WORDS)


# --- where it lands ------------------------------------------------------------------------------------------------


def test_a_lesson_on_a_whole_file_proposes_nothing(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("settings.py", "TIMEOUT = 5\n")
    repo.commit("Add settings")
    repo.write("settings.py", "TIMEOUT = 30\n")
    repo.commit(f"Fix the timeout for slow gateways\n\n{WHY}")
    ws, report = mined(repo, open_ws)
    assert ws.suggestions() == [] and report.noise[Noise.FILE_ANCHOR] == 1


def test_a_lesson_that_changed_only_a_docstring_or_comment_proposes_nothing(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    repo.edit("billing.py", "def refund(card, amount):\n", 'def refund(card, amount):\n    """Negative: a credit."""\n')
    repo.commit(f"Fix refund for credit notes by saying so\n\n{WHY}")
    repo.edit("billing.py", "    total = amount\n", "    total = amount  # cents, never floats\n")
    repo.commit(f"Fix charge rounding notes for auditors\n\n{WHY}")
    ws, report = mined(repo, open_ws)
    assert ws.suggestions() == [] and report.noise[Noise.DOCS] == 2


def test_class_wide_and_typing_only_anchors_propose_nothing(repo: Repo, open_ws: list[Workspace]) -> None:
    fields = "".join(f"    field_{i} = {i}\n" for i in range(45))
    repo.write("models.py", f"class Invoice:\n{fields}\n\nclass Row(TypedDict):\n    amount: int\n")
    repo.commit("Add models")
    repo.write("models.py", f"class Invoice:\n{fields.replace('field_3 = 3', 'field_3 = 4')}\n\n"
               "class Row(TypedDict):\n    amount: int\n")  # fmt: skip
    repo.commit(f"Fix the third field of invoices\n\n{WHY}")
    repo.write("models.py", f"class Invoice:\n{fields.replace('field_3 = 3', 'field_3 = 4')}\n\n"
               "class Row(TypedDict):\n    amount: int\n    total: int\n")  # fmt: skip
    repo.commit(f"Fix rows without totals\n\n{WHY}")
    ws, report = mined(repo, open_ws)
    assert ws.suggestions() == []
    assert report.noise[Noise.BROAD_ANCHOR] == 1 and report.noise[Noise.TYPING_CODE] == 1


def test_a_lesson_on_a_function_overloaded_since_lands_on_its_implementation(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    repo.write("conv.py", "def conv(x):\n    return str(x)\n")
    repo.commit("Add conv")
    repo.write("conv.py", "def conv(x):\n    return str(x) if x is not None else ''\n")
    repo.commit(f"Fix conv for missing values\n\n{WHY}")
    stubs = "@overload\ndef conv(x: int) -> str: ...\n@overload\ndef conv(x: None) -> str: ...\n"
    repo.write("conv.py", "from typing import overload\n" + stubs + (repo.root / "conv.py").read_text())
    repo.commit("Type conv")
    ws, _ = mined(repo, open_ws)
    [fix] = kinds(ws, "fix")
    assert fix.anchor is not None and fix.anchor.symbol == "conv#3"  # the stubs are conv and conv#2
    assert fix.text.startswith("Avoid reintroducing a bug in `conv`: conv for missing values.")


def test_a_lesson_whose_code_was_rewritten_since_is_obsolete(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.edit("billing.py", "    total = amount\n", "    total = max(amount, card.limit_for(amount))\n")
    repo.commit(f"Fix charges over the card limit\n\n{WHY}")
    ws, _ = mined(repo, open_ws)
    assert len(kinds(ws, "fix")) == 1  # the lesson's lines stand
    repo.write("other.py", "X = 1\n")
    repo.commit("Add other")
    repo.edit("billing.py", "    total = max(amount, card.limit_for(amount))\n", "    total = card.capped(amount)\n")
    repo.commit("Move the limit into the card")
    fresh = Repo(repo.root)  # the same repository, mined again from scratch by a new data dir
    ws2 = Workspace.open(fresh.root, embedder=None)
    open_ws.append(ws2)
    ws2.set_mining_state(mining.STATE_LAST_MINED, "")
    report = mining.mine(ws2, since="2000-01-01")
    assert report.noise[Noise.REWRITTEN] == 1


# --- hot spots ---------------------------------------------------------------------------------------------------


def test_two_fixes_years_apart_are_no_hot_spot_three_are(repo: Repo, open_ws: list[Workspace]) -> None:
    fix_refund(repo, 1, date="2016-03-01T00:00:00Z")
    fix_refund(repo, 2, date="2024-03-01T00:00:00Z")
    ws, report = mined(repo, open_ws)
    assert kinds(ws, "hotspot") == [] and report.noise[Noise.WEAK_HOTSPOT] == 1
    fix_refund(repo, 3, date="2024-05-01T00:00:00Z")
    mining.mine(ws, hold_back=False)
    [hot] = kinds(ws, "hotspot")
    assert hot.text.endswith("It has needed 3 fixes from 2016 to 2024-05-01.")


def test_two_recent_fixes_close_together_or_a_security_fix_make_a_hot_spot(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    fix_refund(repo, 1, date="2024-03-01T00:00:00Z")
    fix_refund(repo, 2, date="2024-04-01T00:00:00Z")
    repo.write("auth.py", "def token(user):\n    return user.id\n")
    repo.commit("Add auth", date="2010-01-01T00:00:00Z")
    repo.write("auth.py", "def token(user):\n    return sign(user.id)\n")
    repo.commit("Fix token forgery (security)", date="2012-01-01T00:00:00Z")
    repo.write("auth.py", "def token(user):\n    return sign(user.id, salt=user.salt)\n")
    repo.commit("Fix token reuse across users", date="2020-01-01T00:00:00Z")
    ws, _ = mined(repo, open_ws)
    assert sorted(m.anchor.symbol for m in kinds(ws, "hotspot") if m.anchor) == ["refund", "token"]


def test_fixes_that_change_no_logic_or_whose_lines_a_rewrite_replaced_do_not_count(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    repo.edit("billing.py", "    return -amount", "    # credits are negative\n    return -amount")
    repo.commit("Fix refund for credits")  # a comment: no logic changed
    repo.edit("billing.py", "def refund(card, amount):\n", 'def refund(card, amount):\n    """Refund."""\n')
    repo.commit("Fix refund of partial orders")  # a docstring
    repo.edit("billing.py", "    return -amount", "    return  -amount")
    repo.commit("Fix refund spacing issue")  # whitespace
    ws, report = mined(repo, open_ws)
    assert kinds(ws, "hotspot") == [] and report.noise.get(Noise.WEAK_HOTSPOT, 0) == 0  # none counted at all
    for n in range(1, 4):
        repo.edit("billing.py", "    total = amount\n", f"    total = amount + surcharge_for_case_{n}(card)\n")
        repo.commit(f"Fix charge surcharge for case {n}", date=f"2024-0{n}-10T00:00:00Z")
        repo.edit("billing.py", f"    total = amount + surcharge_for_case_{n}(card)\n", "    total = amount\n")
        repo.commit(f"Tidy charge after case {n}", date=f"2024-0{n}-20T00:00:00Z")
    mining.mine(ws)
    assert kinds(ws, "hotspot") == []  # each fix's lines were taken out by a tidy-up, not by a later fix


def test_a_hot_spot_that_says_what_another_says_is_a_duplicate_and_one_on_lessons_is_folded_into_them(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    for n in range(1, 4):
        repo.write("billing.py", BILLING.replace("total = amount", f"total = amount * {n} + {n}").replace(
            "return -amount", f"return -abs(amount) * {n} + {n}"))  # fmt: skip
        repo.commit(f"Fix rounding in charge and refund, case {n}")
    repo.write("pool.py", "def take(pool):\n    return pool.pop()\n")
    repo.commit("Add pool")
    for n in range(1, 4):  # each fix adds a check that stays: three lessons that stand
        checks = "".join(f"    check_case_{k}(pool)\n" for k in range(1, n + 1))
        repo.write("pool.py", f"def take(pool):\n{checks}    return pool.pop()\n")
        repo.commit(f"Fix take on an empty pool, case {n}\n\n{WHY}")
    ws, report = mined(repo, open_ws)
    hot = [m.anchor.symbol for m in kinds(ws, "hotspot") if m.anchor]
    assert hot in (["charge"], ["refund"])  # the same three commits: one hot spot
    assert report.noise[Noise.DUPLICATE] == 1  # the second billing hot spot
    # take: three lessons and its hot spot are one suggestion on one symbol, the newest lesson first, evidence combined
    [take] = [m for m in ws.suggestions() if m.anchor and m.anchor.symbol == "take"]
    assert report.noise[Noise.SAME_SYMBOL] == 3
    assert take.text.startswith("Avoid reintroducing a bug in `take`: take on an empty pool, case 3.")
    assert "Also (commit " not in take.text and "case 2" not in take.text  # the others are evidence, not quoted
    assert take.text.endswith("\n\nHistory: its code has needed 3 fixes in 2024.")
    assert take.provenance is not None and len(take.provenance["commits"]) == 3 and take.provenance["fixes"] == 3


def test_a_backport_by_the_same_author_with_the_same_subject_is_one_fix(repo: Repo, open_ws: list[Workspace]) -> None:
    base = repo.git("rev-parse", "HEAD")
    fix_refund(repo, 1, "Fix refund sign for credit cards", date="2024-03-01T00:00:00Z")
    repo.git("checkout", "-q", "-b", "v1", base)
    repo.write("billing.py", BILLING.replace("return -amount", "return -abs(amount) * 1 + 1  # backport"))
    repo.commit("Fix refund sign for credit cards", date="2024-03-02T00:00:00Z")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "-X", "ours", "--no-edit", "v1")
    ws, report = mined(repo, open_ws)
    assert report.noise[Noise.CHERRY_PICK] == 1 and kinds(ws, "hotspot") == []  # one fix, not a recent pair


# --- reverts, runtimes, comments --------------------------------------------------------------------------------


def test_a_revert_naming_only_a_sha_says_what_it_undid(repo: Repo, open_ws: list[Workspace]) -> None:
    bad = round_charge(repo)
    revert(repo, bad, f"Revert {bad[:7]}\n\nThis reverts commit {bad}.\n\n"
           "Rounding each charge lost cents on long invoices because the errors add up.")  # fmt: skip
    ws, _ = mined(repo, open_ws)
    [dead] = ws.suggestions()
    assert dead.text.startswith("Do not bring back “Round totals in charge” in `charge`")


def test_a_lesson_about_a_runtime_the_project_dropped_is_history(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("pyproject.toml", '[project]\nname = "b"\nrequires-python = ">=3.10"\n')
    repo.commit("Add pyproject")
    fix_refund(repo, 1, "Fix refund amounts on Python 2", body=WHY)
    fix_refund(repo, 2, "Fix refund amounts for credit notes", body=WHY)
    ws, report = mined(repo, open_ws)
    assert [m.text.split("\n")[0] for m in kinds(ws, "fix")] == [
        "Avoid reintroducing a bug in `refund`: refund amounts for credit notes."
    ]
    assert report.noise[Noise.OLD_RUNTIME] == 1


def test_questions_fragments_notes_and_import_comments_are_no_warnings() -> None:
    source = b"""\
def digest(h):
    # XXX should the partial digests be encoded too?
    a = 1
    # Standard case: root URI must match
    b = 2
    # XXX handle auth-int.
    c = 3
    # Avoid circular import: the models module must not import this one at load time
    from .models import Model
    # never call this before the digest is complete, the server rejects partial ones
    return a + b + c
"""
    scan = mine_comments.warning_comments("auth.py", source)
    assert [c.kind for c, _ in scan.found] == ["never"]
    assert scan.skipped[Noise.OPEN_QUESTION] == 1 and scan.skipped[Noise.COMMENT_FRAGMENT] == 2
    assert scan.skipped[Noise.IMPORT_COMMENT] == 1


# --- round 3: a why, not a what; substantive history; comments that add to the code ---------------------------------


@pytest.mark.parametrize(
    ("subject", "body", "reason"),
    [
        ("Flip conditional in send", "Fixes #12. Instead of the type we check the attribute, which should be more "
         "lenient with wrapped requests.", Noise.WHAT_NOT_WHY),  # a change described: "instead", "should" name no cause
        ("Make DecodeError a subclass of the base error", "Fixes #30. This should help callers that catch it.",
         Noise.WHAT_NOT_WHY),
        ("Fix regression introduced in 262bdf0a", WHY, Noise.VAGUE),  # a commit id says where the lesson is, not what
    ],
)  # fmt: skip
def test_a_subject_that_says_what_was_done_needs_a_cause_and_a_commit_id_is_no_headline(
    subject: str, body: str, reason: Noise
) -> None:
    verdict = classify(record(subject, body))
    assert (verdict.kind, verdict.reason) == (VerdictKind.NOISE, reason)
    assert classify(record("Flip conditional in send", WHY)).lesson  # with a cause it teaches


def test_trivial_or_quiet_fixes_make_no_hot_spot(repo: Repo, open_ws: list[Workspace]) -> None:
    fix_refund(repo, 1, "Fix stupid logic error in refund", date="2024-01-01T00:00:00Z")
    fix_refund(repo, 2, "Fix refund on Python 3", date="2024-02-01T00:00:00Z")
    fix_refund(repo, 3, "Fix refund of partial orders", date="2024-03-01T00:00:00Z")
    repo.write("auth.py", "def token(user):\n    return user.id\n")
    repo.commit("Add auth", date="2010-01-01T00:00:00Z")
    for n in range(1, 4):  # three real fixes, the newest eleven years before the history's end: settled code
        repo.write("auth.py", f"def token(user):\n    return sign(user.id, {n})\n")
        repo.commit(f"Fix token reuse across users, case {n}", date=f"2013-0{n}-01T00:00:00Z")
    ws, report = mined(repo, open_ws)
    assert kinds(ws, "hotspot") == [] and report.noise[Noise.WEAK_HOTSPOT] == 2


def test_comments_that_restate_their_code_or_sit_on_a_whole_class_are_no_warnings() -> None:
    source = b"""\
def cached(self):
    # Must return the cached value of self here
    return self.cached_value


class Bar:
    # WARNING: the iterator interface relies on this being a plain generator that holds no state
    def generator(self):
        yield 1
"""
    scan = mine_comments.warning_comments("bar.py", source)
    assert scan.skipped[Noise.RESTATES_CODE] == 1
    assert [symbol for _, symbol in scan.found] == ["Bar.generator"]  # the method below it, never the class
    assert not mine_comments.restates_code("never release the connection: urllib3 does it", "return self.raw.read()")


def test_a_warning_on_a_whole_class_proposes_nothing(repo: Repo, open_ws: list[Workspace]) -> None:
    body = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(20))
    repo.write("bar.py", f"class Bar:\n    # never share one Bar between threads: its cursor is not locked\n\n{body}")
    repo.commit("Add bar")
    ws, report = mined(repo, open_ws)
    assert ws.suggestions() == [] and report.noise[Noise.BROAD_ANCHOR] == 1
