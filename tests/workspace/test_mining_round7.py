"""Mining round 7 (issue 23): what the blind judges rejected among commit lessons — each rule on a repository or
source the test builds.

A subject that puts its fix in the tests is test work; a headline that names no behaviour ("`x` bug fix", "align X
with the documentation") needs a why that says what went wrong; a commit lesson is never placed in test code (a test
server, fixtures); and code that only gained fields or annotations in the commit is no place for its lesson.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace import mine_code, mine_comments
from forewarn.workspace.engine import Workspace
from forewarn.workspace.mine_rules import Noise, VerdictKind, classify, is_product_path, no_behaviour
from tests.gitrepo import Repo
from tests.workspace.billing_history import billing_repo, mined, record


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return billing_repo(tmp_path / "repo")


def noise_of(subject: str, body: str, paths: tuple[str, ...] = ("a.py",)) -> Noise | None:
    verdict = classify(record(subject, body, paths))
    return verdict.reason if verdict.kind == VerdictKind.NOISE else None


CAUSE = "On 32-bit systems the values overflowed because int is 32 bits wide there, so the checks failed."


def test_a_subject_that_puts_the_fix_in_the_tests_is_test_work() -> None:
    paths = ("validator.go", "validator_test.go")
    assert noise_of("Fix integer overflows in test when run on 32bit systems", CAUSE, paths) == Noise.FIX_IN_TESTS
    assert noise_of("Fix a race in the unit tests", CAUSE, paths) == Noise.FIX_IN_TESTS
    # a product function whose name starts with "test", or tests named as an object, are no location
    assert noise_of("Fix integer overflows in test_digits when run on 32bit", CAUSE, paths) is None
    assert noise_of("Fix integer overflows on 32bit systems", CAUSE, paths) is None


def test_a_headline_that_names_no_behaviour_needs_a_why_that_says_what_went_wrong() -> None:
    assert no_behaviour("`excluded_unless` bug fix")
    assert no_behaviour("refactor fix for 593")
    assert no_behaviour("WatchConfig and Kubernetes")
    assert no_behaviour("align required_without with the contract stated in the documentation")
    assert not no_behaviour("Fix crash when the body is empty")
    assert not no_behaviour("message passing in frozen errors")
    plain = "This updates the validation of excluded_unless and the table of cases that should pass."
    failing = "excluded_unless panicked when the other field was a nil pointer, because it was dereferenced first."
    # no behaviour word at all: no why rescues the headline
    assert noise_of("`excluded_unless` bug fix", plain) == Noise.NO_BEHAVIOUR
    assert noise_of("`excluded_unless` bug fix", failing) == Noise.NO_BEHAVIOUR
    # one behaviour word, or an alignment: kept only with a why that says what went wrong
    assert noise_of("Fix timeout handling in excludedUnless", plain) == Noise.NO_BEHAVIOUR
    assert noise_of("Fix timeout handling in excludedUnless", failing) is None
    lazy = "Fixed an issue where the lookup tables would not get initialised before the first parse_date_field call."
    assert noise_of("Fix parse_date_field validation", lazy) is None
    aligned = "Fixes `required_without` so that it aligns with the stated contract and usage examples."
    align = "Align required_without with the contract stated in the documentation"
    assert noise_of(align, aligned) == Noise.NO_BEHAVIOUR
    assert noise_of("Fix crash when the body is empty", plain) != Noise.NO_BEHAVIOUR
    # a negated predicate names a behaviour; a consequence ("will result in … crashing") says what went wrong
    assert not no_behaviour("Fix #12 - ParseError are not picklable")
    pool = "Calling pickle.loads on it will result in the entire process pool crashing."
    assert no_behaviour("Fix ParseError.__reduce__ for pickle_loads pickling")
    assert noise_of("Fix ParseError.__reduce__ for pickle_loads pickling", pool) is None


DEFENSIVE = b"""\
def read_chunked(self):
    data = self._read()
    # On CPython we should never need to flush the decoder. However, on other runtimes we might need to,
    # so flush it defensively anyway.
    self._flush_decoder()
    return data


def write(self, data):
    # never write after close: the socket is reused by the pool and another request would get the bytes
    self._write(data)
"""


def test_a_defensive_comment_is_no_warning() -> None:
    scan = mine_comments.warning_comments("response.py", DEFENSIVE)
    assert [symbol for _, symbol in scan.found] == ["write"]
    assert scan.skipped[Noise.COMMENT_DEFENSIVE] == 1


PRODUCT = """\
def fetch(url):
    return url.strip()
"""

SERVER = """\
class DummyServer:
    def serve(self, request):
        body = request.read()
        return body
"""


def test_a_commit_lesson_is_never_placed_in_a_test_server(repo: Repo, open_ws: list[Workspace]) -> None:
    assert not is_product_path("dummyserver/server.py") and not is_product_path("src/fixtures/data.py")
    assert is_product_path("src/fetch.py")
    repo.write("src/fetch.py", PRODUCT)
    repo.write("dummyserver/server.py", SERVER)
    repo.commit("Add fetch and its test server")
    fixed = "body = request.read() or b''\n        body = body[:10]"
    repo.edit("dummyserver/server.py", "body = request.read()", fixed)
    repo.commit("Fix crash in serve when the request is empty\n\nThe server crashed because read() returned None.")
    ws, report = mined(repo, open_ws)
    assert [m for m in ws.suggestions() if m.file and m.file.startswith("dummyserver")] == []
    assert report.noise[Noise.TEST_ANCHOR] == 1


HANDLER = """\
class Handler:
    def __init__(self, sock):
        self.sock = sock

    def close(self):
        self.sock.close()
        return True


class Reader:
    def __init__(self, fp):
        self.fp = fp

    def read(self, n):
        data = self.fp.read(n)
        return data
"""


def test_declarations_are_no_behaviour() -> None:
    declared = ("self.closed = False", "partial: int  # type: ignore", "this.timeout = opts;", "Timeout time.Duration")
    for line in declared:
        assert mine_code.is_declaration(line), line
    for line in ("return err", "self.closed = self.sock.close()", "x = compute(y)", "if x:", "export default"):
        assert not mine_code.is_declaration(line), line
    assert mine_code.behaviour(["self.a = 1"], ["self.a = None", "self.b = 0"], "a.py").lines == 0
    assert mine_code.behaviour([], ["self.b = 0", "if self.b:"], "a.py").lines == 1


def test_a_lesson_goes_to_the_logic_not_to_fields_declared(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("handler.py", HANDLER)
    repo.commit("Add the handler")
    # the constructor gains three fields, the logic changes in close: the lesson belongs to close
    repo.edit(
        "handler.py",
        "        self.sock = sock\n",
        "        self.sock = sock\n        self.closed = False\n        self.retries = 0\n        self.error = None\n",
    )
    guarded = "        if not self.closed:\n            self.sock.close()\n"
    repo.edit("handler.py", "        self.sock.close()\n", guarded)
    repo.commit("Fix double close of the socket\n\nClosing twice raised OSError because the descriptor was gone.")
    # a commit that changed nothing but fields and annotations has no logic to place its lesson on
    fields = "        self.fp = fp\n        self.partial = None\n        self.left = 0\n"
    repo.edit("handler.py", "        self.fp = fp\n", fields)
    repo.commit("Fix lost bytes on short reads\n\nA short read lost bytes because nothing remembered the remainder.")
    ws, report = mined(repo, open_ws)
    lessons = {m.anchor.symbol for m in ws.suggestions() if m.anchor and m.source == "commit"}
    assert "Handler.close" in lessons
    assert not {"Handler.__init__", "Reader.__init__", "Reader"} & lessons
    assert report.noise[Noise.DECLARATION_ANCHOR] == 1
