"""QA pass 10b, feature, refactor and upgrade commits mined as lessons (a blind labeller: "noise, no trap"):

- a subject that offers something ("Fallback to JSON highlighting if …", "Batch reporter output for …", "Custom file
  upload MIME type", "`URL` overload for …", "Improve … conversion") and a why that names no fault;
- any subject whose why argues only a benefit ("somewhat cleaner", "these are useful over …", "it would be good to");
- a feature behind an issue tracker's key ("LANG-1225: Add …");
- a rework ("rewrite `buffer` to use bounded MPSC", "unify and rename combinators") with no fault in its why;
- a library's version taken ("update to Tokio 0.3"), a hint added to a failure ("Suggest use of …"), a warning's
  verbosity raised, and "Functionally does nothing" said by the author.

A commit worded the same way whose why names a fault keeps its lesson.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_dependencies import dependency_subject
from forewarn.workspace.mine_features import feature, offered, reworked
from forewarn.workspace.mine_rules import Noise, classify
from tests.workspace.billing_history import billing_repo, mined, record


def test_an_offer_whose_why_names_no_fault_is_a_feature() -> None:
    for subject, body in (
        ("Fallback to plain totals if the currency contains cents", "Some gateways don't use a minor unit but "
         "simply contain cents in their code. The formatter can already handle those cases, but the charge was "
         "ignoring them, so that cents were shown as whole units."),
        ("Batch refund lines for simple lists of amounts (#208)", "Rather than having a single amount on each line, "
         "which hurts readability due to the need for scrolling quite a bit.\n\nFixes #170"),
        ("Custom card type for uploads (#927)", "In order to specify a custom card type for uploads, a syntax "
         "similar to the gateway's is used so that the type given is forwarded."),
        ("`Decimal` overload for `Billing.charge`", "Functionally does nothing, just somewhat cleaner to be able to "
         "do `charge(Decimal)` than `charge(str(Decimal))` when handling a `Decimal`."),
        ("PAY-1579: Improve rounding of remaining cents", "Single cents can be changed in place to avoid a delete "
         "then an insert.\n\nCloses #568"),
        ("PAY-1225: Add charge_graph and charge_print which match the card classes", "These are useful over "
         "charge_ascii because they do not contain the DEL character."),
    ):  # fmt: skip
        verdict = classify(record(subject, body))
        assert not verdict.lesson, subject


def test_an_offer_whose_why_names_a_fault_keeps_its_lesson() -> None:
    for subject, body in (
        ("Fallback to the card's currency when the account has none", "The charge raised KeyError because an "
         "account without a currency has no entry, so the refund never ran."),
        ("Improve rounding of cents in charge", "Rounding half-cents down lost a cent on every second refund, because "
         "the ledger was truncated."),
        ("Batch refunds per card", "Refunding one by one hit the gateway's rate limit and the rest failed."),
    ):  # fmt: skip
        verdict = classify(record(subject, body))
        assert verdict.lesson, subject


def test_a_rework_whose_why_names_no_fault_is_a_refactor() -> None:
    verdict = classify(record("util: unify and rename combinators (#499)", "These combinators are very similar in "
                              "purpose. Before releasing, it would be good to de-duplicate the types, so that the "
                              "naming is the same."))  # fmt: skip
    assert verdict.reason == Noise.REFACTOR
    verdict = classify(record("rewrite `buffer` to use a bounded queue (#635)", "Currently the buffer uses an "
                              "unbounded queue plus a semaphore, in order to re-implement a bounded queue. This was "
                              "necessary because the old queue had no way to reserve a slot."))  # fmt: skip
    assert verdict.reason == Noise.REFACTOR
    kept = classify(record("Rewrite the buffer's wake-up", "The old code lost a wake-up when two callers raced, "
                           "because the flag was cleared before the queue was read."))  # fmt: skip
    assert kept.lesson
    assert reworked("Rework the parser", "It would be good to share the tokenizer, so that both read alike.")
    assert not reworked("Rework the parser", "It crashed on empty input.") and not reworked("Rework the parser", "")


def test_a_benefit_alone_is_no_lesson_and_the_helpers_say_why() -> None:
    assert feature("LANG-1225: Add randomGraph") and feature("[JIRA-12] Support colours") and not feature("LANG-2")
    assert offered("Log the refund id", "It would be good to see which refund ran, in order to specify it later.")
    assert not offered("Log the refund id", "Without it a failed refund could not be traced.")
    assert not offered("Fallback to zero", "")  # no why: the rules for a body without one decide


def test_an_upgrade_a_hint_and_a_warnings_verbosity_are_no_lessons() -> None:
    assert dependency_subject("update to Tokio 0.3 (#476)") and dependency_subject("Port to Gtk 4.0")
    assert not dependency_subject("Update to the latest spec of the card format")
    hint = classify(record("Suggest use of cardopts.EquateErrors (#234)", "If charge panics because it is trying "
                           "to access an unexported field, suggest cardopts.EquateErrors."))  # fmt: skip
    assert hint.reason == Noise.MESSAGE_WORDING
    verbose = classify(record("Increase verbosity required to warn about amount overflow.", "When debugging the "
                              "charge would warn about amounts over 15 digits. This is handled properly, and is not "
                              "uncommon, so that it is not displayed by default."))  # fmt: skip
    assert verbose.reason == Noise.MESSAGE_WORDING


def test_features_and_reworks_are_not_proposed_from_a_real_history(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = billing_repo(tmp_path / "repo")
    repo.edit("billing.py", "total = amount", "total = amount or 0")
    repo.commit("Fallback to zero if the amount is empty\n\nIt would be good to charge nothing rather than ask the "
                "caller, and it is somewhat cleaner to read.")  # fmt: skip
    repo.edit("billing.py", "return -amount", "return -abs(amount)")
    repo.commit("Rewrite refund to negate the absolute amount\n\nThis was necessary because the old helper was "
                "slated for removal, so that the code stays short.")  # fmt: skip
    repo.edit("billing.py", "total = amount or 0", "total = round(amount or 0, 2)")
    repo.commit("Fallback to rounding the amount in charge\n\nThe gateway raised an error because fractions of a "
                "cent were sent, so every such charge failed.")  # fmt: skip
    ws, report = mined(repo, open_ws)
    assert report.noise.get(Noise.FEATURE) == 2 and report.noise.get(Noise.REFACTOR) == 1  # and "Add billing"
    texts = [m.text for m in ws.suggestions()]
    assert [t for t in texts if "fractions of a cent" in t]  # the fault named: kept
    assert not [t for t in texts if "somewhat cleaner" in t or "slated for removal" in t]


def test_an_offer_whose_why_names_a_limit_passed_silently_keeps_its_lesson() -> None:
    """jsoup's "fallback SOCKS proxies to HttpURLConnection": the JDK client does not support them and silently
    bypassed the proxy: a trap, though the subject offers a fallback."""
    why = (
        "The JDK HttpClient does not support per-request SOCKS proxies, so dispatch those requests via "
        "HttpURLConnection instead of JDKs default of silently bypassing the proxy."
    )
    assert not offered("fallback SOCKS proxies to HttpURLConnection", why)


def test_a_contract_kept_in_order_to_allow_something_is_no_benefit_alone() -> None:
    """zlib's "assure that deflateParams() will not switch functions mid-block": its why states a contract, and
    its "in order to allow switching" does not make it a feature."""
    why = (
        "This alters the specification in zlib.h, so that deflateParams() will not change any parameters if there "
        "is not enough output space in the event that a block is emitted in order to allow switching the "
        "compression function."
    )
    assert not offered("assure that deflateParams() will not switch functions mid-block", why)
