"""Mining round 10 (issue 23): lessons on the right code, and a reverted merge named by what it changed.

A hunk that only deletes code sits between two lines of the new file. It changed the symbol that holds both, or the
end of the one whose header the deleted lines are indented under; code deleted after a symbol's last line at that
symbol's own depth (a whole setting or function removed) is none of it. A revert of a merge names the pull request's
title, not "Merge pull request #N from …".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.indexing.languages import language_for_path
from forewarn.indexing.parse import parse_source
from forewarn.indexing.records import Chunk
from forewarn.workspace import mine_anchors, mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.history import Hunk
from forewarn.workspace.mine_anchors import touched_symbols
from forewarn.workspace.mine_rules import Noise, merged_title
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, kinds, mined, record

SETTINGS = """\
class Setting:
    name = None


class Ciphers(Setting):
    name = "ciphers"
    default = "TLS"


class FastOpen(Setting):
    name = "fast_open"
    default = False


class Backlog(Setting):
    name = "backlog"
    default = 2048
"""

SOCKET = """\
def set_options(sock, cfg):
    sock.setsockopt(1, 2, 3)
    if cfg.fast_open:
        sock.setsockopt(6, 23, cfg.queue)
    return sock


def close(sock):
    sock.close()
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return billing_repo(tmp_path / "repo")


def chunks_of(path: str, source: str) -> tuple[list[Chunk], dict[str, int]]:
    spec = language_for_path(path)
    assert spec is not None
    chunks = parse_source(path, source.encode(), spec).chunks
    return chunks, mine_anchors.columns_of(chunks, source.encode())


def test_a_symbol_s_depth_is_its_first_line_s_indentation() -> None:
    # "export default function" starts the function mid-line: its depth is the line's, 0
    _, columns = chunks_of("a.ts", "export default function parse(uri) {\n    return uri;\n}\n")
    assert columns == {"parse": 0}
    _, columns = chunks_of("config.py", SETTINGS)
    assert columns["Ciphers"] == 0


def test_code_deleted_after_a_symbol_at_its_own_depth_is_none_of_it() -> None:
    after = SETTINGS.replace('class FastOpen(Setting):\n    name = "fast_open"\n    default = False\n\n\n', "")
    chunks, columns = chunks_of("config.py", after)
    ciphers = next(c for c in chunks if c.symbol == "Ciphers")
    # git -U0: "@@ -10,5 +8,0 @@": five lines deleted after the new file's line 8, Ciphers' last line
    gone = Hunk(ciphers.end_line, ciphers.end_line, 5, removed=("", "", "class FastOpen(Setting):", '    name = "f"'))
    assert touched_symbols(chunks, [gone], "config.py", columns=columns) == {}
    # the same place, but lines indented under Ciphers' header: its own tail was deleted
    tail = Hunk(ciphers.end_line, ciphers.end_line, 1, removed=("    timeout = 30",))
    assert list(touched_symbols(chunks, [tail], "config.py", columns=columns)) == ["Ciphers"]
    # a deletion inside a symbol (code after it still belongs to it) is that symbol's, at any depth
    chunks, columns = chunks_of("sock.py", SOCKET)
    setter = next(c for c in chunks if c.symbol == "set_options")
    inner = Hunk(setter.start_line + 1, setter.start_line + 1, 2, removed=("    if cfg.nodelay:", "        x()"))
    assert list(touched_symbols(chunks, [inner], "sock.py", columns=columns)) == ["set_options"]


def test_a_reverted_setting_is_placed_on_the_code_that_used_it(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("config.py", SETTINGS)
    repo.write("sock.py", SOCKET)
    repo.commit("Add settings and socket options")
    # the last setting goes: git puts the deletion ("", "", "class Backlog…") right after FastOpen's last line
    repo.write("config.py", SETTINGS.split("\n\n\nclass Backlog")[0] + "\n")
    repo.write("sock.py", SOCKET.replace("    sock.setsockopt(1, 2, 3)\n", ""))
    repo.commit(
        "Revert backlog support\n\n"
        "On macOS the option is set but the server loops while applying it, which makes it unusable."
    )
    assert "@@ -13,5 +12,0 @@" in repo.git("show", "-U0", "HEAD", "--", "config.py")
    ws, _ = mined(repo, open_ws)
    [dead_end] = kinds(ws, "revert")
    assert dead_end.anchor is not None
    assert (dead_end.anchor.file, dead_end.anchor.symbol) == ("sock.py", "set_options")  # not FastOpen, above it


def test_a_reverted_merge_is_named_by_its_pull_request_title(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.git("checkout", "-q", "-b", "premium")
    repo.edit("billing.py", "    total = amount", "    total = amount * 2")
    repo.commit("Double the charge for premium cards")
    repo.git("checkout", "-q", "main")
    title = "Charge premium cards twice"
    repo.git("merge", "-q", "--no-ff", "-m", f"Merge pull request #7 from ann:premium\n\n{title}", "premium")
    merge = repo.git("rev-parse", "HEAD")
    repo.git("revert", "--no-edit", "-m", "1", merge)
    message = repo.git("log", "-1", "--format=%B")
    repo.git("commit", "--amend", "-q", "-m", f"{message}\nThe gateway refuses totals above the card's limit.")
    ws, _ = mined(repo, open_ws)
    [dead_end] = kinds(ws, "revert")
    assert dead_end.text.startswith(f"Do not bring back “{title}” in `charge`")
    assert "Merge pull request" not in dead_end.text.split("\n")[0]
    assert "refuses totals" in dead_end.text


def test_a_merge_title_is_the_first_line_of_its_body() -> None:
    pr = record("Merge pull request #12 from a/b", "Retry on a closed connection.\n\nLong text.", parents=2)
    assert merged_title(pr) == "Retry on a closed connection"
    gitlab = record(
        "Merge branch 'retry' into 'main'", "Retry on a closed connection\n\nSee merge request a/b!3", parents=2
    )
    assert merged_title(gitlab) == "Retry on a closed connection"
    assert merged_title(record("Merge branch 'retry'", "", parents=2)) is None  # a local merge says nothing more
    assert merged_title(record("Merge pull request #12 from a/b", "Signed-off-by: A <a@b.c>", parents=2)) is None
    assert merged_title(record("Retry on a closed connection", "Because.")) is None  # no merge


WEBSOCKET = """\
def is_upgrade(request):
    # RFC 6455: the method of an upgrade request must be GET, or the handshake is refused
    if request.method != "GET":
        return False
    return True
"""


def test_a_comment_in_plain_sight_in_a_short_symbol_is_no_lesson() -> None:
    short = mine_comments.warning_comments("ws.py", WEBSOCKET.encode())
    assert short.found == [] and short.skipped[Noise.IN_PLAIN_SIGHT] == 1
    # the same words in a long function: whoever reads the comment may not be reading that line
    padding = "".join(f"    step_{i}(request)\n" for i in range(40))
    long = WEBSOCKET.replace("def is_upgrade(request):\n", f"def is_upgrade(request):\n{padding}")
    assert [symbol for _, symbol in mine_comments.warning_comments("ws.py", long.encode()).found] == ["is_upgrade"]
    # one shared word ("totals"), or only the language's own ("return"), is no repetition
    gateway = "def charge(card, amount):\n    # XXX: the gateway rejects totals over 10k\n    total = amount\n"
    assert len(mine_comments.warning_comments("b.py", gateway.encode()).found) == 1
    state = (
        "def apply(state):\n"
        "    # XXX if an error happens we must make sure no state has been changed at the point of return\n"
        "    return commit(state)\n"
    )
    assert len(mine_comments.warning_comments("b.py", state.encode()).found) == 1
