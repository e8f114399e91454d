"""QA pass 9a, F8: the editors' review list (``forewarn.review``) is the CLI's queue: those worth a look first,
each row saying whether it is (``worthALook``)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_review_order_qa9 import _seed
from tests.lsp.conftest import open_session


def test_the_review_command_lists_the_worth_a_look_first_and_marks_each(tmp_path: Path) -> None:
    texts = _seed(tmp_path)
    session = open_session(tmp_path)
    try:
        answer = session.review(None)
    finally:
        session.close()
    rows = answer["suggestions"]
    assert [r["text"] for r in rows] == [texts["fix:new"], texts["fix:old"], texts["comment:must"],
                                         texts["fix:unexplained"]]  # fmt: skip
    assert [r["worthALook"] for r in rows] == [True, True, False, False]
    assert answer["worth_a_look"] == 2 and answer["total"] == 4
