"""Memories in review, on small git repositories each test builds, with a real Workspace (no embedder)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from forewarn.memory.records import Memory
from forewarn.workspace import review as rv
from forewarn.workspace.engine import Workspace
from forewarn.workspace.history import GitError
from forewarn.workspace.review import FailOn, Reason, ReviewItem, failing, map_line, parse_diff, review, to_sarif
from tests.gitrepo import Repo

SCHEMA = Path(__file__).resolve().parent.parent / "data" / "sarif-schema-2.1.0.json"

BILLING = """\
import math


def charge(card, amount):
    total = amount
    return total


def refund(card, amount):
    return -amount


def legacy_fee(amount):
    return amount * 0.01
"""

SHOP = """\
from billing import charge


def checkout(cart):
    return charge(cart.card, cart.total)


def browse(cart):
    return list(cart.items)
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write("billing.py", BILLING)
    r.write("shop.py", SHOP)
    r.commit("billing and shop")
    return r


@pytest.fixture
def ws(repo: Repo) -> Iterator[Workspace]:
    with Workspace.open(repo.root, embedder=None) as w:
        w.reindex()
        yield w


def remember(ws: Workspace, text: str, file: str | None = None, symbol: str | None = None, **kw: object) -> Memory:
    return ws.remember(text, file=file, symbol=symbol, **kw).memory  # type: ignore[arg-type]


def by_id(report: rv.ReviewReport) -> dict[str, ReviewItem]:
    return {i.memory.id: i for i in report.items}


def line_of(root: Path, rel: str, needle: str) -> int:
    lines = (root / rel).read_text(encoding="utf-8").splitlines()
    return next(n for n, text in enumerate(lines, 1) if needle in text)


def test_a_changed_symbol_with_a_memory_is_listed_at_its_new_line(repo: Repo, ws: Workspace) -> None:
    m = remember(ws, "charge rounds per line, not per invoice", "billing.py", "charge", type="gotcha")
    repo.edit("billing.py", "import math\n", "import math\n\nTAX = 0.2\n\n\ndef tax(x):\n    return x * TAX\n")
    repo.edit("billing.py", "    total = amount\n", "    total = round(amount, 2)\n")
    report = review(ws)
    item = by_id(report)[m.id]
    assert item.file == "billing.py"
    assert item.line == line_of(repo.root, "billing.py", "def charge") == 10  # where it is now, not where it was
    assert Reason.CHANGED in item.reasons
    assert [(c.symbol, c.change) for c in report.changed if c.symbol in ("charge", "tax")] == [
        ("charge", "modified"),
        ("tax", "added"),
    ]


def test_a_changed_anchored_body_is_reported_as_made_stale_until_confirmed(repo: Repo, ws: Workspace) -> None:
    m = remember(ws, "charge must not round", "billing.py", "charge", type="gotcha")
    repo.edit("billing.py", "    total = amount\n", "    total = amount * 100 // 100\n")
    item = by_id(review(ws))[m.id]
    assert Reason.STALE in item.reasons and item.made_stale
    assert "no longer what this memory was written against" in item.why
    ws.confirm(m.id)  # "still true" for the new code: the anchor's hash is the new code's
    again = by_id(review(ws))[m.id]
    assert again.reasons == (Reason.CHANGED,)
    assert not failing([again], FailOn.STALE)


def test_a_memory_on_code_that_uses_a_changed_symbol_is_listed_one_hop_out(repo: Repo, ws: Workspace) -> None:
    user = remember(ws, "checkout holds the cart lock while charging", "shop.py", "checkout", type="decision")
    wide = remember(ws, "shop.py is imported by the web workers", "shop.py", type="note")
    unrelated = remember(ws, "browse is read-only", "shop.py", "browse", type="note")
    repo.edit("billing.py", "    total = amount\n", "    total = amount + 1\n")
    items = by_id(review(ws))
    assert items[user.id].reasons == (Reason.DEPENDENT,)
    assert items[user.id].file == "shop.py" and items[user.id].line == line_of(repo.root, "shop.py", "def checkout")
    assert items[user.id].via == ("billing.py::charge",)
    assert "charge" in items[user.id].why
    assert items[wide.id].reasons == (Reason.DEPENDENT,)  # file-wide in a file that uses it
    assert unrelated.id not in items  # its code never names charge
    capped = review(ws, dependents=1)  # a definition naming the changed symbol outranks a file-wide memory
    assert [i.memory.id for i in capped.items] == [user.id]
    assert [i.memory.id for i in capped.left_out] == [wide.id]
    assert capped.to_dict()["counts"]["left_out"] == 1


def test_a_deleted_symbol_counts_and_sits_where_it_was(repo: Repo, ws: Workspace) -> None:
    m = remember(ws, "legacy_fee is kept for the 2019 contracts", "billing.py", "legacy_fee", type="decision")
    repo.edit("billing.py", "\n\ndef legacy_fee(amount):\n    return amount * 0.01\n", "")
    report = review(ws)
    item = by_id(report)[m.id]
    assert item.reasons == (Reason.CHANGED, Reason.DELETED) and item.made_stale
    assert item.file == "billing.py"
    assert 1 <= item.line <= len((repo.root / "billing.py").read_text().splitlines())
    assert ("legacy_fee", "deleted") in [(c.symbol, c.change) for c in report.changed]
    assert str(item.memory.status) == "orphaned"  # the re-index saw it go, as the editor would
    assert failing(report.items, FailOn.STALE) == [item]


def test_a_deleted_file_lists_its_memories_at_the_old_path(repo: Repo, ws: Workspace) -> None:
    m = remember(ws, "browse pages at 50", "shop.py", "browse")
    (repo.root / "shop.py").unlink()
    item = by_id(review(ws))[m.id]
    assert item.file == "shop.py" and Reason.DELETED in item.reasons
    assert item.line == line_of_text(SHOP, "def browse")


def line_of_text(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_untouched_memories_are_not_listed(repo: Repo, ws: Workspace) -> None:
    refund = remember(ws, "refunds go through the ledger", "billing.py", "refund")
    everywhere = remember(ws, "money is integers of cents everywhere")
    browse = remember(ws, "browse is read-only", "shop.py", "browse")
    charge = remember(ws, "charge is idempotent", "billing.py", "charge")
    assert review(ws).items == []  # nothing changed yet
    repo.edit("billing.py", "    total = amount\n", "    total = amount  # cents\n")
    assert review(ws).items == [] and review(ws).changed == []  # a comment is not a change (D16)
    repo.edit("billing.py", "    total = amount  # cents\n", "    total = amount // 1\n")
    items = by_id(review(ws))
    assert charge.id in items
    assert refund.id not in items and everywhere.id not in items and browse.id not in items


def test_a_base_ref_reviews_the_branch_since_it_forked_plus_the_working_tree(repo: Repo, ws: Workspace) -> None:
    charge = remember(ws, "charge is idempotent", "billing.py", "charge", type="gotcha")
    browse = remember(ws, "browse is read-only", "shop.py", "browse")
    repo.git("checkout", "-q", "-b", "feature")
    repo.edit("billing.py", "    total = amount\n", "    total = amount * 2\n")
    repo.commit("double it")
    assert review(ws).items == []  # against HEAD the working tree is clean
    repo.edit("shop.py", "    return list(cart.items)\n", "    return sorted(cart.items)\n")  # not committed
    report = review(ws, "main")
    assert report.base == "main" and report.base_commit != report.head_commit
    items = by_id(report)
    assert Reason.STALE in items[charge.id].reasons  # committed on the branch
    assert Reason.CHANGED in items[browse.id].reasons  # still in the working tree


def test_sarif_validates_against_the_2_1_0_schema(repo: Repo, ws: Workspace) -> None:
    g = remember(ws, "charge rounds per line", "billing.py", "charge", type="gotcha")
    d = remember(ws, "checkout holds the lock", "shop.py", "checkout", type="decision")
    repo.edit("billing.py", "    total = amount\n", "    total = amount + 0\n")
    report = review(ws)
    sarif = to_sarif(report)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(sarif)
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "Forewarn"
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert "forewarn.gotcha" in rule_ids and "forewarn.decision" in rule_ids
    results = {r["properties"]["memoryId"]: r for r in run["results"]}
    assert results[g.id]["level"] == "warning" and results[d.id]["level"] == "note"
    assert results[g.id]["ruleId"] == rule_ids[results[g.id]["ruleIndex"]] == "forewarn.gotcha"
    loc = results[g.id]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "billing.py"
    assert loc["region"]["startLine"] == line_of(repo.root, "billing.py", "def charge")
    assert "charge rounds per line" in results[g.id]["message"]["text"]
    # the same memory at the same file keeps its fingerprint across pushes (lines may move)
    repo.edit("billing.py", "import math\n", "import math\nimport os\n")
    again = {r["properties"]["memoryId"]: r for r in to_sarif(review(ws))["runs"][0]["results"]}
    assert again[g.id]["partialFingerprints"] == results[g.id]["partialFingerprints"]
    assert again[g.id]["locations"][0]["physicalLocation"]["region"]["startLine"] == loc["region"]["startLine"] + 1


def private_memory(ws: Workspace, text: str, file: str, symbol: str) -> Memory:
    """A private memory: by ``remember(private=True)`` once visibility exists, else a stand-in carrying it."""
    if "private" in inspect.signature(Workspace.remember).parameters:
        return ws.remember(text, file=file, symbol=symbol, private=True).memory  # type: ignore[call-arg]
    m = remember(ws, text, file, symbol)

    class PrivateMemory(Memory):
        visibility = "private"

    return PrivateMemory(**{f.name: getattr(m, f.name) for f in dataclasses.fields(Memory)})


def test_private_memories_never_reach_json_or_sarif(repo: Repo, ws: Workspace) -> None:
    team = remember(ws, "charge is idempotent", "billing.py", "charge", type="gotcha")
    mine = private_memory(ws, "halfway through the charge refactor, do not merge", "billing.py", "charge")
    repo.edit("billing.py", "    total = amount\n", "    total = amount - 0\n")
    report = review(ws)
    items = by_id(report)
    if mine.id not in items:  # the stand-in is not in the store: place it as review would
        report = dataclasses.replace(report, items=[*report.items, dataclasses.replace(items[team.id], memory=mine)])
    assert any(i.private for i in report.items)  # the text output may show it, marked
    shared = json.dumps(report.to_dict()) + json.dumps(to_sarif(report))
    assert "do not merge" not in shared and mine.id not in shared
    assert team.id in json.dumps(report.to_dict()) and team.id in json.dumps(to_sarif(report))
    assert report.to_dict()["counts"]["memories"] == len(report.items) - 1


def test_fail_on_rules(repo: Repo, ws: Workspace) -> None:
    stale = remember(ws, "charge is idempotent", "billing.py", "charge", type="gotcha")
    near = remember(ws, "checkout holds the lock", "shop.py", "checkout")
    repo.edit("billing.py", "    total = amount\n", "    total = amount or 0\n")
    report = review(ws)
    assert {i.memory.id for i in failing(report.items, FailOn.STALE)} == {stale.id}
    assert {i.memory.id for i in failing(report.items, FailOn.ANY)} == {stale.id, near.id}
    assert failing(report.items, FailOn.NONE) == []
    assert failing(report.items, FailOn.CONTESTED) == []  # nothing is contested today
    contested = dataclasses.replace(by_id(report)[near.id], memory=dataclasses.replace(near, status="contested"))  # type: ignore[arg-type]
    assert failing([contested], FailOn.CONTESTED) == [contested]
    assert report.to_dict(FailOn.STALE)["failed"] is True and report.to_dict()["failed"] is False


def test_no_repository_no_history_and_a_bad_ref_are_clear_errors(tmp_path: Path, repo: Repo, ws: Workspace) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(GitError, match="not inside a git repository"):
        rv.resolve_base(plain, None)
    empty = Repo(tmp_path / "empty")
    with pytest.raises(GitError, match="no commits yet"):
        rv.resolve_base(empty.root, None)
    with pytest.raises(GitError, match="no commit named 'nope'"):
        review(ws, "nope")
    with pytest.raises(GitError, match="no commit named"):
        review(ws, "--output=/tmp/x")  # an option is never passed to git as a ref


def test_parse_diff_reads_hunks_renames_and_lines_that_look_like_headers() -> None:
    ids = {n: str(n) * 40 for n in range(6)}
    text = (
        f"diff --git a/q.sql b/q.sql\nindex {ids[1]}..{ids[2]} 100644\n"
        "--- a/q.sql\n+++ b/q.sql\n@@ -3,2 +3 @@ x\n--- a comment that was removed\n-select 1;\n+select 2;\n"
        'diff --git a/old.py "b/n\\303\\251w.py"\nsimilarity index 90%\n'
        'rename from old.py\nrename to "n\\303\\251w.py"\n'
        f"index {ids[3]}..{ids[4]} 100644\n"
        '--- a/old.py\n+++ "b/n\\303\\251w.py"\n@@ -10,0 +11,2 @@\n+a\n+b\n'
        f"diff --git a/gone.py b/gone.py\ndeleted file mode 100644\nindex {ids[5]}..{ids[0]}\n"
        "--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n"
    )
    q, renamed, gone = parse_diff(text)
    assert (q.path, q.old_path, q.status) == ("q.sql", "q.sql", "modified")
    assert [(h.old_start, h.old_count, h.new_start, h.new_count) for h in q.hunks] == [(3, 2, 3, 1)]
    assert (renamed.old_path, renamed.path, renamed.status) == ("old.py", "néw.py", "renamed")
    assert renamed.old_blob == "3" * 40
    assert (gone.path, gone.old_path, gone.status) == ("", "gone.py", "deleted")


def test_map_line_follows_insertions_and_deletions_above() -> None:
    hunks = parse_diff(
        "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -2,0 +3,3 @@\n+a\n+b\n+c\n@@ -10,2 +13,0 @@\n-x\n-y\n"
    )[0].hunks
    assert map_line(hunks, 1) == 1
    assert map_line(hunks, 5) == 8  # three lines inserted above
    assert map_line(hunks, 11) == 14  # deleted: where its hunk now sits
    assert map_line(hunks, 20) == 21  # +3 -2


def test_file_wide_memories_of_a_changed_file_are_capped_gotchas_first(repo: Repo, ws: Workspace) -> None:
    note = remember(ws, "billing.py was split out of shop.py in 2019", "billing.py", type="note")
    trap = remember(ws, "billing.py is loaded by the cron worker too", "billing.py", type="gotcha")
    charge = remember(ws, "charge is idempotent", "billing.py", "charge", type="note")
    repo.edit("billing.py", "    total = amount\n", "    total = amount * 1\n")
    full = by_id(review(ws))
    assert {note.id, trap.id, charge.id} <= set(full)
    assert full[trap.id].reasons == (Reason.CHANGED,) and full[trap.id].line == 1
    capped = review(ws, file_wide=1)
    assert {i.memory.id for i in capped.items} == {trap.id, charge.id}  # the symbol's memory is never capped
    assert [i.memory.id for i in capped.left_out] == [note.id]


def test_whitespace_and_comments_are_no_change_and_the_list_is_ranked_and_sized(repo: Repo, ws: Workspace) -> None:
    """D16: a whitespace- or comment-only edit changes no symbol and lists nothing, not even a changed file's
    file-wide memories; a real change lists what it rewrites first, then the rest, capped and counted."""
    wide = [remember(ws, f"billing.py note {n}", "billing.py", type="note") for n in range(3)]
    trap = remember(ws, "refund reverses the fee too", "billing.py", "refund", type="gotcha")
    user = remember(ws, "checkout charges once per cart", "shop.py", "checkout", type="gotcha")
    repo.edit("billing.py", "def refund(card, amount):\n", "def refund(card,   amount):  # trailing note\n")
    repo.edit("billing.py", "    return amount * 0.01\n", "    return amount * 0.01   \n\n")
    quiet = review(ws)
    assert quiet.changed == [] and quiet.items == [] and quiet.left_out == ()
    repo.edit("billing.py", "    return -amount\n", "    return -amount - 1\n")
    repo.edit("billing.py", "    total = amount\n", "    total = amount + 1\n")
    report = review(ws)
    assert [(c.symbol, c.change) for c in report.changed] == [("charge", "modified"), ("refund", "modified")]
    order = [i.memory.id for i in report.items]
    assert order[0] == trap.id  # made stale first
    assert order[-1] == user.id  # one hop out last
    listed_wide = [m.id for m in wide if m.id in order]
    assert len(listed_wide) == rv.MAX_FILE_WIDE_PER_FILE and len(report.left_out) == 3 - rv.MAX_FILE_WIDE_PER_FILE
    assert [rv.tier(i) for i in report.items] == sorted(rv.tier(i) for i in report.items)


def test_a_change_to_an_overloaded_implementation_is_a_change_to_its_memory(repo: Repo, ws: Workspace) -> None:
    """D2: the memory sits on the implementation behind the ``@overload`` stubs, so review lists it as made
    stale; what a person reads names ``Context.invoke``, never the internal ``#3``."""
    stubs = "    @t.overload\n    def invoke(self, x: int) -> int: ...\n\n" * 2
    implementation = "    def invoke(self, x):\n        return x\n"
    repo.write("core.py", f"import typing as t\n\n\nclass Context:\n{stubs}{implementation}")
    repo.commit("core")
    ws.reindex()
    m = remember(ws, "invoke fills defaults only for a Command", "core.py", "Context.invoke", type="gotcha")
    repo.edit("core.py", "        return x\n", "        return [x]\n")
    report = review(ws)
    item = by_id(report)[m.id]
    assert item.made_stale and item.why.startswith("Context.invoke changed")
    assert ("Context.invoke#3", "modified") in [(c.symbol, c.change) for c in report.changed]


def test_sarif_carries_memory_text_inert_and_says_where_it_came_from(repo: Repo, ws: Workspace) -> None:
    """R14 (``kit2/review_sarif.sh``): memory text reached SARIF's message verbatim, and ``[text](target)`` is
    SARIF's embedded-link syntax (§3.11.6): a memory from a pull request's file linked where it liked."""
    phishing = "see [the fix guide](https://evil.example/phish) and [this location](0) \\ then ![x](y)"
    m = remember(ws, f"charge rounds per line; {phishing}", "billing.py", "charge", type="gotcha")
    repo.edit("billing.py", "    total = amount\n", "    total = amount + 0\n")
    report = review(ws)
    sarif = to_sarif(report)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(sarif)
    (result,) = [r for r in sarif["runs"][0]["results"] if r["properties"]["memoryId"] == m.id]
    text = result["message"]["text"]
    assert r"see \[the fix guide\](https://evil.example/phish) and \[this location\](0) \\ then !\[x\](y)" in text
    assert not re.search(r"(?<!\\)\[[^\]]*(?<!\\)\]\(", text)  # no unescaped [..]( left: no embedded link
    assert "From: recorded here by " in text and result["properties"]["origin"]["kind"] == "person"
    assert report.to_dict()["memories"][0]["origin"]["vetted"] is True


def test_fail_on_reads_only_what_a_person_vetted(repo: Repo, ws: Workspace) -> None:
    """R4: what an agent or a shared file proposed never fails (nor passes) a review by itself."""
    vetted = remember(ws, "charge is idempotent", "billing.py", "charge", type="gotcha")
    repo.edit("billing.py", "    total = amount\n", "    total = amount or 0\n")
    item = by_id(review(ws))[vetted.id]
    waiting = dataclasses.replace(item, memory=dataclasses.replace(vetted, status="suggested"))  # type: ignore[arg-type]
    assert failing([item, waiting], FailOn.STALE) == [item] and failing([waiting], FailOn.ANY) == []
