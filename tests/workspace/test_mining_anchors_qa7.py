"""QA pass 7, finding 6: where attrs's lessons and warning comments went wrong.

- 862696a "Resolve field aliases before calling field_transformer" moved alias resolution in ``_transform_attrs``;
  its body's side paragraph ("Additionally, Attribute.evolve() now …") named ``Attribute.evolve``, which took the
  lesson. A side paragraph names no anchor; a name the subject writes as code that is a parameter of one touched
  function (``field_transformer``) names that function.
- ``_make.py``'s ``# XXX:`` repeated on every continuation line is one tagged paragraph: the repeats are dropped from
  the text, and the untagged paragraph above it (narrating the code) is no part of the warning.
- "Since fields have been frozen we must work around it." justifies the next line's workaround: no warning.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace import history
from forewarn.workspace.engine import Workspace
from forewarn.workspace.history import BlobReader
from forewarn.workspace.mine_anchors import (
    CODE_WORD,
    HeadIndex,
    SymbolFinder,
    _parameters,
    place,
    without_side_paragraphs,
)
from forewarn.workspace.mine_comments import warning_comments
from forewarn.workspace.mine_rules import Noise
from tests.gitrepo import Repo
from tests.workspace.billing_history import mined

MAKE = "src/attrs_lite/make.py"

BEFORE = """\
def transform_attrs(cls, these, field_transformer):
    attrs = list(these)
    if field_transformer is not None:
        attrs = field_transformer(cls, attrs)
    for a in attrs:
        if not a.alias:
            a.alias = a.name.lstrip("_")
    return attrs


class Attribute:
    def __init__(self, name, alias):
        self.name = name
        self.alias = alias

    def evolve(self, **changes):
        new = Attribute(self.name, self.alias)
        for key, value in changes.items():
            setattr(new, key, value)
        return new
"""

# the fix: aliases resolved before the transformer runs (4 logic lines), and, on the side, evolve keeps an
# auto-generated alias in step with a new name (6 logic lines: the most changed)
AFTER = """\
def transform_attrs(cls, these, field_transformer):
    attrs = list(these)
    for a in attrs:
        if not a.alias:
            a.alias = a.name.lstrip("_")
    if field_transformer is not None:
        attrs = field_transformer(cls, attrs)
    for a in attrs:
        if not a.alias:
            a.alias = a.name.lstrip("_")
    return attrs


class Attribute:
    def __init__(self, name, alias):
        self.name = name
        self.alias = alias

    def evolve(self, **changes):
        new = Attribute(self.name, self.alias)
        for key, value in changes.items():
            setattr(new, key, value)
        default = self.alias == self.name.lstrip("_")
        if "name" in changes and "alias" not in changes and default:
            new.alias = new.name.lstrip("_")
        elif "alias" in changes:
            new.alias = changes["alias"]
        return new
"""

MESSAGE = """\
Resolve field aliases before calling field_transformer

Previously, field_transformer received attributes with alias=None for
fields without an explicit alias. The default alias was only resolved
after the transformer ran, making it impossible for transformers to
access or use alias values.

This moves alias resolution to before the field_transformer call, so
transformers receive fully populated Attribute objects.

Additionally, Attribute.evolve() now automatically updates the alias
when the name changes, if the alias was auto-generated.

Fixes #1479
"""


# the same fix, with a smaller side change to evolve (2 logic lines): the fix is the most changed
AFTER_SMALL_SIDE = AFTER.replace(
    """        elif "alias" in changes:
            new.alias = changes["alias"]
""",
    "",
).replace(
    """        default = self.alias == self.name.lstrip("_")
        if "name" in changes and "alias" not in changes and default:""",
    """        if "name" in changes:""",
)


def _lesson_symbol(root: Path, message: str, open_ws: list[Workspace], after: str = AFTER) -> str | None:
    repo = Repo(root)
    repo.write(MAKE, BEFORE)
    repo.commit("Add attrs_lite")
    repo.write(MAKE, after)
    repo.commit(message)
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in ws.suggestions() if m.source == "commit"]
    assert lesson.anchor is not None
    return lesson.anchor.symbol


def test_a_symbol_named_only_in_a_side_paragraph_does_not_take_the_lesson(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    plain = MESSAGE.replace("before calling field_transformer", "before the transformer runs", 1)
    assert _lesson_symbol(tmp_path / "plain", plain, open_ws, AFTER_SMALL_SIDE) == "transform_attrs"
    # 862696a itself: the side paragraph names evolve, the subject names the transformer, evolve changed most
    assert _lesson_symbol(tmp_path / "repo", MESSAGE, open_ws) == "transform_attrs"


def test_a_parameter_the_subject_names_puts_the_lesson_on_its_function(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    """With no side paragraph, ``evolve`` is the most changed, yet the subject is about the transformer's caller."""
    side = "Additionally, Attribute.evolve() now automatically updates the alias\nwhen the name changes, if the alias"
    message = MESSAGE.replace(side + " was auto-generated.\n\n", "")
    assert "evolve" not in message
    assert _lesson_symbol(tmp_path / "repo", message, open_ws) == "transform_attrs"


def test_side_paragraphs_leave_the_subject_and_a_side_list_of_a_squash() -> None:
    message = "Fix Foo.bar\n\nThe cause.\n\nAlso, Baz.qux() is faster.\n\nAlso:\n* tidy up\n* fix docs\n"
    kept = without_side_paragraphs(message)
    assert "Baz.qux" not in kept and "faster" not in kept
    assert kept.startswith("Fix Foo.bar\n") and "The cause." in kept
    assert "* tidy up\n* fix docs" in kept  # bullets stay: a squash's items are still counted
    assert without_side_paragraphs("Also fix Foo.bar") == "Also fix Foo.bar"  # a subject is never a side paragraph


# attrs _make.py:873-880, as written
SLOTS = b"""\
class ClassBuilder:
    def create_slots_class(self):
        cd = dict(self._cls_dict)

        # If our class doesn't have its own implementation of __setattr__
        # (either from the user or by us), check the bases, if one of them has
        # an attrs-made __setattr__, that needs to be reset. We don't walk the
        # MRO because we only care about our immediate base classes.
        # XXX: This can be confused by subclassing a slotted attrs class with
        # XXX: a non-attrs class and subclass the resulting class with an attrs
        # XXX: class.  See `test_slotted_confused` for details.  For now that's
        # XXX: OK with us.
        if not self._wrote_own_setattr:
            cd["__attrs_own_setattr__"] = False
        return cd
"""


def test_a_tag_repeated_on_each_continuation_line_is_one_paragraph_without_the_repeats() -> None:
    scan = warning_comments("src/attr/_make.py", SLOTS)
    assert [(c.line, c.kind, c.text, symbol) for c, symbol in scan.found] == [
        (
            9,
            "XXX",
            "XXX: This can be confused by subclassing a slotted attrs class with a non-attrs class and subclass the"
            " resulting class with an attrs class.  See `test_slotted_confused` for details.  For now that's OK"
            " with us.",
            "ClassBuilder.create_slots_class",
        )
    ]


# attrs _funcs.py:488
RESOLVE = b"""\
def resolve_types(cls, hints):
    for field in fields(cls):
        if field.name in hints:
            # Since fields have been frozen we must work around it.
            _OBJ_SETATTR(field, "type", hints[field.name])
    return cls


def flush(log):
    # Since the caller holds the lock, we must not call flush_all here: it takes the lock again and deadlocks.
    log.write_pending()
"""


def test_since_we_must_work_around_it_justifies_the_next_line() -> None:
    scan = warning_comments("src/attr/_funcs.py", RESOLVE)
    assert scan.skipped[Noise.COMMENT_JUSTIFICATION] == 1
    assert [symbol for _, symbol in scan.found] == ["flush"]  # a "since … we must not" is still a warning


def test_a_symbol_the_fix_wrote_whole_is_marked_created(tmp_path: Path, open_ws: list[Workspace]) -> None:
    """attrs e59c360 "Fix pickle support for __slots__ classes" wrote ``Attribute.__getstate__``: the track record
    of that method (and of its comment) must not count its own creation as a fix. The placement says which
    symbols the commit wrote whole, for the walk to leave out of their records."""
    repo = Repo(tmp_path / "repo")
    repo.write(MAKE, BEFORE)
    repo.commit("Add attrs_lite")
    repo.edit(
        MAKE, "        return new\n", "        return new\n\n    def __getstate__(self):\n        return (self.name,)\n"
    )
    repo.edit(MAKE, "    attrs = list(these)\n", "    attrs = [a for a in these if a is not None]\n")
    sha = repo.commit("Fix pickle support for attributes\n\nPickling failed because the state was never defined.")
    ws = Workspace.open(repo.root, embedder=None)
    open_ws.append(ws)
    ws.reindex()  # what exists at HEAD, as mining reads it
    with BlobReader(repo.root) as blobs:
        [commit] = history.iter_commits(repo.root, [f"{sha}^!"])
        placement = place(commit, f"{commit.subject}\n{commit.body}", SymbolFinder(blobs), {}, HeadIndex(ws))
    assert {a.symbol: a.created for a in placement.fixed} == {"Attribute.__getstate__": True, "transform_attrs": False}


CLIENT = "src/attrs_lite/client.py"

CLIENT_BEFORE = """\
def make_client(base_url, session):
    prefix = base_url

    def send(path, body):
        url = prefix + path
        response = session.post(url, body)
        return response.json()

    return send
"""

# ofetch 8ea2d2b's shape: one line in the outer function, the calls changed in the closure it returns
CLIENT_AFTER = """\
def make_client(base_url, session):
    prefix = base_url.rstrip("/")

    def send(path, body):
        url = prefix + "/" + path.lstrip("/")
        response = session.post(url, body, timeout=10)
        response.raise_for_status()
        return response.json()

    return send
"""


def test_a_parameter_read_by_a_changed_closure_names_neither(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write(CLIENT, CLIENT_BEFORE)
    repo.commit("Add client")
    repo.write(CLIENT, CLIENT_AFTER)
    repo.commit(
        "Fix doubled slashes when base_url ends with one\n\n"
        "The server rejects paths with a double slash, so every request failed with 404."
    )
    ws, _ = mined(repo, open_ws)
    [lesson] = [m for m in ws.suggestions() if m.source == "commit"]
    assert lesson.anchor is not None and lesson.anchor.symbol == "make_client.send"


def test_only_a_parameter_name_of_the_signature_counts() -> None:
    """cxxopts 056a628 "Fix empty option name in `OptionException`": a type, met in a constructor's initializer."""
    signature = 'option_requires_argument(const std::string& option) : OptionException("missing " + option)'
    assert _parameters(signature) == "const std::string& option"
    assert not CODE_WORD.search("OptionException")
    assert CODE_WORD.search("globalOptions") and CODE_WORD.search("field_transformer")
