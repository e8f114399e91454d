"""Mining round 15 (issue 23): wrong anchors and obsolete guards that round 13's blind judges rejected.

A hot spot on code that is at HEAD one call holding none of its fixes' lines (a wrapper whose loop moved into what
it calls) proposes nothing and is counted (``hotspot-on-wrapper``). A field of a struct or object literal set to a
constant (a constructor that only initialises the field the fix added) declares, it does not behave: no lesson is
placed there; a field's type in a struct's declaration (its layout) is no such literal.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace import mine_code
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise
from tests.gitrepo import Repo
from tests.workspace.billing_history import kinds, mined

LOOP = """\
def serve_conn(c):
    while c.open:
        c.handle()
{fixes}"""

WRAPPER = """\
def serve_conn(c):
    return serve_counted(c, True)


def serve_counted(c, counted):
    while c.open:
        c.handle()
{fixes}"""

FIXES = ("        c.reset()\n", "        c.flush()\n", "        c.drain()\n")
SUBJECTS = ("Fix keep-alive connections hanging", "Fix user values leaking between requests", "Fix hijacked conns")


@pytest.mark.parametrize("moved", [False, True])
def test_a_hot_spot_on_a_wrapper_whose_loop_moved_out_is_left_out(
    tmp_path: Path, open_ws: list[Workspace], moved: bool
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("server.py", LOOP.format(fixes=""))
    repo.commit("Add the server")
    for n, subject in enumerate(SUBJECTS, start=1):
        repo.write("server.py", LOOP.format(fixes="".join(FIXES[:n])))
        repo.commit(subject)
    if moved:
        repo.write("server.py", WRAPPER.format(fixes="".join(FIXES)))
        repo.commit("Count served connections")
    ws, report = mined(repo, open_ws)
    assert [m.anchor.symbol for m in kinds(ws, "hotspot") if m.anchor] == ([] if moved else ["serve_conn"])
    assert report.noise.get(Noise.WRAPPER_HOTSPOT, 0) == int(moved)


def test_a_hot_spot_whose_fixes_changed_the_one_call_stays() -> None:
    call = mine_code.wrapper_call("def token(user):\n    return sign(user.id, salt=user.salt)\n", "auth.py")
    assert call == "returnsign(user.id,salt=user.salt)"
    assert mine_code.wrapper_call("def token(user):\n    return sign(user.id) if user else None\n", "a.py") is None


def test_a_literal_field_set_to_a_constant_only_declares() -> None:
    for line in ("max_stream_id: StreamId::MAX,", "timeout: opts.timeout,", "limit: 10,", "closed: true,"):
        assert mine_code.is_declaration(line), line
    refused = ("prioritize: Prioritize::new(config),", "next: Ok(config.next),", "Timeout: 5 * time.Second,")
    for line in (*refused, "epoch: AtomicEpoch,", "state: atomic::State,"):
        assert not mine_code.is_declaration(line), line
    assert mine_code.behaviour([], ["            max_stream_id: StreamId::MAX,"], "src/send.rs").lines == 0


SEND = """\
pub struct Send {
    next_id: u32,
}

impl Send {
    pub fn new() -> Self {
        Send {
            next_id: 1,
        }
    }
}
"""

GO_AWAY = """
    pub fn recv_go_away(&mut self, last: u32) -> Result<(), u32> {
        if last > self.max_id {
            return Err(last);
        }
        self.max_id = last;
        Ok(())
    }
}
"""


def test_a_lesson_is_not_placed_on_a_constructor_that_only_sets_the_new_field(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write("src/send.rs", SEND)
    repo.commit("Add the sender")
    text = SEND.replace("    next_id: u32,\n", "    next_id: u32,\n    max_id: u32,\n")
    text = text.replace("            next_id: 1,\n", "            next_id: 1,\n            max_id: u32::MAX,\n")
    repo.write("src/send.rs", text[: text.rindex("}")] + GO_AWAY.lstrip("\n"))
    repo.commit(
        "Fix a GOAWAY frame moving the next stream id\n\n"
        "A GOAWAY should lower the highest id we accept, because the peer never saw the streams above it."
    )
    ws, report = mined(repo, open_ws)
    # not the constructor that only set the new field: the struct that declares it (a long one is broad-anchor)
    assert [m.anchor.symbol for m in ws.suggestions() if m.source == "commit" and m.anchor] == ["Send"]
    assert report.noise.get(Noise.DECLARATION_ANCHOR, 0) == 0
