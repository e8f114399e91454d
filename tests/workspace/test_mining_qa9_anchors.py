"""QA pass 9a, findings 2 and 6: a constructor that only stores what it is given is no place for a lesson, nor is
code that only lost a clause of its condition while the commit wrote its new rule elsewhere.

- gson 46b97bf "Fixed nullSafe usage" gave ``TreeTypeAdapter``'s constructor a ``boolean nullSafe`` parameter and
  ``this.nullSafe = nullSafe;``; the behaviour changed in ``read()`` and ``write()``. The parameter list a
  constructor stores, like its field assignments, declares: the lesson goes to the code that reads the field.
- gson 2deb209 "Make `RuntimeTypeAdapterFactory` recognize subclasses only conditionally" only re-wrapped its
  private constructor's signature onto two lines; ``create()`` gained the logic. A line wrapped anew is no change.
- gson e7cf5c4 "Only create one `BoundField` instance per field": the message names the class, whose constructor
  only lost and gained field assignments; naming a class names no constructor that only declares.
- fd 16c2d1e "walk: Flush stdout in batches" dropped ``interactive_terminal &&`` from ``flush`` and wrote "flush
  before waiting when the channel is empty" in ``poll``: the lesson is about the rule written, in ``poll``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forewarn.workspace import history, mine_code
from forewarn.workspace.engine import Workspace
from forewarn.workspace.history import BlobReader
from forewarn.workspace.mine_anchors import SymbolFinder
from forewarn.workspace.mine_rules import Noise
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined, place_of


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


ADAPTER = """package com.example;

public final class TreeAdapter<T> extends Adapter<T> {
  private final Serializer<T> serializer;
  private final Deserializer<T> deserializer;

  public TreeAdapter(Serializer<T> serializer, Deserializer<T> deserializer,
      Context context) {
    this.serializer = serializer;
    this.deserializer = deserializer;
  }

  @Override public T read(Reader in) throws IOException {
    Element value = Streams.parse(in);
    if (value.isNull()) {
      return null;
    }
    return deserializer.deserialize(value, context);
  }

  @Override public void write(Writer out, T value) throws IOException {
    if (value == null) {
      out.nullValue();
      return;
    }
    Streams.write(serializer.serialize(value, context), out);
  }
}
"""
NULL_SAFE = (
    "Fixed nullSafe usage\n\n"
    "The serializer adapters used to ignore this attribute, which resulted in inconsistent behaviour."
)


def _null_safe_fixed(repo: Repo) -> str:
    repo.write("src/TreeAdapter.java", ADAPTER)
    repo.commit("Add the tree adapter")
    repo.edit(
        "src/TreeAdapter.java",
        "  private final Deserializer<T> deserializer;\n",
        "  private final Deserializer<T> deserializer;\n  private final boolean nullSafe;\n",
    )
    repo.edit("src/TreeAdapter.java", "      Context context) {\n", "      Context context, boolean nullSafe) {\n")
    repo.edit(
        "src/TreeAdapter.java",
        "    this.deserializer = deserializer;\n",
        "    this.deserializer = deserializer;\n    this.nullSafe = nullSafe;\n",
    )
    repo.edit("src/TreeAdapter.java", "    if (value.isNull()) {\n", "    if (nullSafe && value.isNull()) {\n")
    repo.edit("src/TreeAdapter.java", "    if (value == null) {\n", "    if (nullSafe && value == null) {\n")
    return repo.commit(NULL_SAFE)


def test_a_parameter_a_constructor_stores_is_no_place_for_the_lesson(repo: Repo, open_ws: list[Workspace]) -> None:
    placed = place_of(repo, _null_safe_fixed(repo), open_ws)
    assert placed.anchor is not None
    assert placed.anchor.symbol == "TreeAdapter.read"  # where the field decides something (read and write tie)


def test_a_constructor_that_only_stores_its_new_parameter_declares(repo: Repo, open_ws: list[Workspace]) -> None:
    sha = _null_safe_fixed(repo)
    with BlobReader(repo.root) as blobs:
        [commit] = history.iter_commits(repo.root, [f"{sha}^!"])
        [change] = commit.files
        touched = SymbolFinder(blobs).touched(change.path, change.blob, change.hunks)
    assert touched["TreeAdapter.TreeAdapter"].logic == 3  # its signature and the field it sets: changed, logic
    assert touched["TreeAdapter.TreeAdapter"].behaviour == 0  # … and all of it declares
    assert touched["TreeAdapter"].behaviour == 0  # "private final boolean nullSafe;" declares too
    assert touched["TreeAdapter.read"].behaviour == 2


def test_a_constructor_alone_gaining_a_field_proposes_nothing(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("src/TreeAdapter.java", ADAPTER)
    repo.commit("Add the tree adapter")
    repo.edit("src/TreeAdapter.java", "      Context context) {\n", "      Context context, boolean nullSafe) {\n")
    repo.edit(
        "src/TreeAdapter.java",
        "    this.deserializer = deserializer;\n",
        "    this.deserializer = deserializer;\n    this.nullSafe = nullSafe;\n",
    )
    repo.commit(NULL_SAFE)
    ws, report = mined(repo, open_ws)
    assert not [m for m in ws.suggestions() if m.source == "commit"]
    assert report.noise[Noise.DECLARATION_ANCHOR] == 1


FACTORY = """package com.example;

public final class RuntimeFactory<T> implements Factory {
  private final Class<?> baseType;
  private final String typeFieldName;

  private RuntimeFactory(Class<?> baseType, String typeFieldName, boolean maintainType) {
    if (typeFieldName == null || baseType == null) {
      throw new NullPointerException();
    }
    this.baseType = baseType;
    this.typeFieldName = typeFieldName;
  }

  public <R> Adapter<R> create(Gson gson, Token<R> type) {
    if (type == null || !baseType.isAssignableFrom(type.getRawType())) {
      return null;
    }
    return new Adapter<R>(gson, type);
  }
}
"""


def test_a_signature_only_wrapped_anew_is_no_place_even_when_its_class_is_named(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    repo.write("src/RuntimeFactory.java", FACTORY)
    repo.commit("Add the runtime factory")
    repo.edit(
        "src/RuntimeFactory.java",
        "  private final String typeFieldName;\n",
        "  private final String typeFieldName;\n  private boolean recognizeSubtypes;\n",
    )
    repo.edit(
        "src/RuntimeFactory.java",
        "  private RuntimeFactory(Class<?> baseType, String typeFieldName, boolean maintainType) {\n",
        "  private RuntimeFactory(\n      Class<?> baseType, String typeFieldName, boolean maintainType) {\n",
    )
    repo.edit(
        "src/RuntimeFactory.java",
        "    if (type == null || !baseType.isAssignableFrom(type.getRawType())) {\n",
        "    if (type == null) {\n      return null;\n    }\n    Class<?> rawType = type.getRawType();\n"
        "    boolean handle = recognizeSubtypes ? baseType.isAssignableFrom(rawType) : baseType.equals(rawType);\n"
        "    if (!handle) {\n",
    )
    sha = repo.commit(
        "Make `RuntimeFactory` recognize subclasses only conditionally\n\n"
        "Recognizing any subtype is a change in behaviour, and it broke at least one client of this code."
    )
    placed = place_of(repo, sha, open_ws)
    assert placed.anchor is not None
    assert placed.anchor.symbol == "RuntimeFactory.create"


HANDLER = """class Handler:
    def __init__(self, sock, timeout):
        self.sock = sock
        self.timeout = timeout

    def close(self):
        self.sock.close()
"""


def test_a_python_init_gaining_a_parameter_and_its_field_yields_to_the_logic(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    repo.write("pkg/handler.py", HANDLER)
    repo.commit("Add the handler")
    repo.edit(
        "pkg/handler.py",
        "    def __init__(self, sock, timeout):\n",
        "    def __init__(self, sock, timeout, strict=False):\n",
    )
    repo.edit(
        "pkg/handler.py",
        "        self.timeout = timeout\n",
        "        self.timeout = timeout\n        self.strict = strict\n",
    )
    repo.edit(
        "pkg/handler.py",
        "        self.sock.close()\n",
        "        if self.strict or self.sock:\n            self.sock.close()\n",
    )
    sha = repo.commit(
        "Fix `Handler` closing a socket twice\n\nClosing twice raised OSError because the descriptor was gone."
    )
    placed = place_of(repo, sha, open_ws)
    assert placed.anchor is not None
    assert placed.anchor.symbol == "Handler.close"


def test_constructors_by_language() -> None:
    assert mine_code.is_constructor("TreeAdapter.TreeAdapter#2", "constructor")
    assert mine_code.is_constructor("Handler.__init__", "method")
    assert mine_code.is_constructor("Client.constructor", "method")
    assert mine_code.is_constructor("Parser.initialize", "method")
    assert mine_code.is_constructor("Options.Options", "function")  # C++'s Options::Options
    assert not mine_code.is_constructor("Handler.close", "method")
    assert not mine_code.is_constructor("init", "function")


def test_a_line_wrapped_anew_changes_no_logic() -> None:
    one = ["  private Factory(Class<?> baseType, String name, boolean keep) {"]
    two = ["  private Factory(", "      Class<?> baseType, String name, boolean keep) {"]
    assert mine_code.logic_lines(one, two, "F.java") == 0
    assert mine_code.logic_lines(one, ["  private Factory(", "      Class<?> baseType, String name) {"], "F.java") == 3
    wrapped = ["def f(", "    a: int,", "    b: str,", ") -> None:"]
    assert mine_code.logic_lines(["def f(a: int, b: str) -> None:"], wrapped, "f.py") == 0
    call = ["    return go(a, b)"]
    assert mine_code.logic_lines(call, ["    return go(", "        a, b", "    )"], "g.ts") == 0


def test_java_and_c_fields_declare() -> None:
    for line in ("private final boolean nullSafe;", "final String name;", "private boolean recognizeSubtypes;"):
        assert mine_code.is_declaration(line), line
    for line in ("protected static final Map<String, Integer> SIZES;", "static char *buf = NULL;"):
        assert mine_code.is_declaration(line), line
    for line in ("return value;", "throw error;", "continue outer;", "x = compute(y);", "char *name = NULL;"):
        assert not mine_code.is_declaration(line), line
    assert not mine_code.is_declaration("private final Map<String, Foo> map = new LinkedHashMap<>();")


def test_a_parameter_list_ends_where_its_parenthesis_closes() -> None:
    assert mine_code.header_end(["public Foo(int a,", "    int b) {", "  this.a = a;"]) == 1
    assert mine_code.header_end(['@SuppressWarnings("x")', "Foo(int a) {"]) == 1
    assert mine_code.header_end(["    int b) {", "  this.a = a;"]) == 0  # a list begun before the lines
    assert mine_code.header_end(["class Foo {"]) is None


WALK = """impl<W: Write> ReceiverBuffer<W> {
    fn poll(&mut self) -> Result<(), ExitCode> {
        match self.rx.recv() {
            Ok(entry) => {
                self.print(&entry)?;
                self.flush()?;
            }
            Err(_) => self.stop(),
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ExitCode> {
        if self.config.interactive_terminal && self.stdout.flush().is_err() {
            return Err(ExitCode::GeneralError);
        }
        Ok(())
    }
}
"""
BATCHES = (
    "walk: Flush stdout in batches\n\n"
    "With the old behaviour, fd could wait for the whole traversal to finish before printing anything when piped "
    "into another command."
)


def _batched(repo: Repo) -> str:
    repo.write("src/walk.rs", WALK)
    repo.commit("Add the receiver")
    repo.edit("src/walk.rs", "                self.flush()?;\n", "")
    repo.edit(
        "src/walk.rs",
        "            Err(_) => self.stop(),\n        }\n",
        "            Err(_) => self.stop(),\n        }\n"
        "        if self.mode == ReceiverMode::Streaming && self.rx.is_empty() {\n"
        "            self.flush()?;\n        }\n",
    )
    repo.edit("src/walk.rs", "self.config.interactive_terminal && self.stdout", "self.stdout")
    return repo.commit(BATCHES)


def test_code_that_only_lost_a_clause_yields_to_the_code_that_wrote_the_rule(
    repo: Repo, open_ws: list[Workspace]
) -> None:
    placed = place_of(repo, _batched(repo), open_ws)
    assert placed.anchor is not None
    assert placed.anchor.symbol == "ReceiverBuffer.poll"


def test_what_a_change_did_to_conditions() -> None:
    dropped = mine_code.reach(["    if a.ready && b.flush().is_err() {"], ["    if b.flush().is_err() {"], "w.rs")
    assert dropped == mine_code.Reach(cut=True, decides=False)
    written = mine_code.reach(
        ["        self.flush()?;"], ["        if rx.is_empty() {", "        self.flush()?;"], "w.rs"
    )
    assert written == mine_code.Reach(cut=False, decides=True)
    renamed = mine_code.reach(["    if a.ready && b.ok() {"], ["    if b.ok() {", "        go();"], "w.rs")
    assert not renamed.cut  # it lost a clause and wrote a call: more than a condition widened
    assert not mine_code.reach(["    send(a, b)"], ["    send(b)"], "w.py").cut  # an argument, no clause
    assert not mine_code.reach(["    return x?;"], ["    return y?;"], "w.rs").decides  # Rust's ? decides nothing


def test_a_named_symbol_that_only_lost_a_clause_keeps_the_lesson(repo: Repo, open_ws: list[Workspace]) -> None:
    repo.write("src/walk.rs", WALK)
    repo.commit("Add the receiver")
    repo.edit("src/walk.rs", "self.config.interactive_terminal && self.stdout", "self.stdout")
    repo.edit(
        "src/walk.rs",
        "                self.print(&entry)?;\n",
        "                if self.keep { self.print(&entry)?; }\n",
    )
    sha = repo.commit("Fix `flush` skipping pipes\n\nOutput piped to another command was never flushed, so it waited.")
    placed = place_of(repo, sha, open_ws)
    assert placed.anchor is not None
    assert placed.anchor.symbol == "ReceiverBuffer.flush"  # the message names it: naming outranks the rule's place
