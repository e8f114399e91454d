"""QA pass 9b findings 1b, 1c, 8 and 10: a call that does not reach a workspace definition shows none of its
memories, and a method used as a value is a use for an open as it is for a hover.

- 1b: ``self.stdout.flush()`` with ``stdout: W`` (``W: Write``) is the trait's, not
  the file's ``ReceiverBuffer::flush``;
- 1c: ``base.set(key, value)`` (``base`` a parameter) is no proxy trap table's ``set`` written in ``objectTraps = {``,
  and ``arrayTraps.set`` is not ``objectTraps``'s;
- 8: ``export const produce = immer.produce`` (``immer = new Immer()``) uses ``Immer.produce``: the open shows what
  the hover shows;
- a library's class (``Path(name)``) says the same as a generic; ``Optional[Invoice]`` says nothing of its own;
- 10: Go's ``m := NewRouter(); m.Use(…)`` in a test file of the package is ``Mux.Use``.

Real tree-sitter grammars, a real index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from forewarn.workspace.declared_types import holding_object
from forewarn.workspace.engine import Workspace
from forewarn.workspace.symbols import SymbolLookup
from tests.workspace.lookup_at import resolved_at
from tests.workspace.test_opening import gotcha, neighbours, write_files

WALK_RS = """\
use std::io::Write;

pub struct ReceiverBuffer<W> {
    stdout: W,
    count: usize,
}

impl<W: Write> ReceiverBuffer<W> {
    fn flush(&mut self) -> Result<(), String> {
        if self.stdout.flush().is_err() {
            return Err(String::new());
        }
        Ok(())
    }

    fn stop(&mut self) -> Result<(), String> {
        self.flush()?;
        Ok(())
    }
}
"""

PROXY_TS = """\
export const objectTraps: ProxyHandler<object> = {
\tget(state: any, prop: string) {
\t\treturn state[prop]
\t},
\tset(state: any, prop: string, value: any) {
\t\tstate.assigned_!.set(prop, true)
\t\treturn true
\t}
}

const arrayTraps: ProxyHandler<object> = {}
arrayTraps.get = function(state: any, prop: string) {
\treturn objectTraps.get!.call(this, state[0], prop, state[0])
}
export function forward(state: any, prop: string, value: any) {
\treturn objectTraps.set!.call(this, state, prop, value, state)
}
export function forwardArray(state: any, prop: string) {
\treturn arrayTraps.set!.call(this, state, prop, undefined)
}
"""
PATCHES_TS = """\
import {objectTraps} from "./proxy"

export function applyOne(base: any, key: string, value: any) {
\treturn base.set(key, value)
}
"""
IMMER_CLASS_TS = """\
export class Immer {
\tproduce(base: any, recipe: any) {
\t\treturn recipe(base)
\t}

\tcreateDraft(base: any) {
\t\treturn base
\t}
}
"""
IMMER_TS = """\
import {Immer} from "./immerClass"

const immer = new Immer()

export const produce = immer.produce

export const createDraft = immer.createDraft.bind(immer)

export function other(thing: any) {
\treturn thing.createDraft
}
"""
CHI_GO = """\
package chi

func NewRouter() *Mux {
\treturn &Mux{}
}
"""
MUX_GO = """\
package chi

type Mux struct {
\tn int
}

func (mx *Mux) Use(mw int) {
\tmx.n = mw
}
"""
BILLING_PY = """\
class Invoice:
    def total(self):
        return 0

    def read_text(self):
        return ""
"""
APP_PY = """\
from pathlib import Path
from typing import Optional

from billing import Invoice


def run(invoice: Optional[Invoice], name: str):
    invoice.total()
    notes = Path(name)
    return notes.read_text()
"""
MUX_TEST_GO = """\
package chi

import "testing"

func TestUse(t *testing.T) {
\tm := NewRouter()
\tm.Use(1)
}
"""


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    files = {
        "Cargo.toml": '[package]\nname = "fd"\n',
        "src/main.rs": "mod walk;\n",
        "src/walk.rs": WALK_RS,
        "ts/proxy.ts": PROXY_TS,
        "ts/patches.ts": PATCHES_TS,
        "ts/immerClass.ts": IMMER_CLASS_TS,
        "ts/immer.ts": IMMER_TS,
        "go.mod": "module example.com/chi\n\ngo 1.21\n",
        "chi.go": CHI_GO,
        "mux.go": MUX_GO,
        "mux_test.go": MUX_TEST_GO,
        "billing.py": BILLING_PY,
        "app.py": APP_PY,
    }
    root = tmp_path / "ws"
    write_files(root, files)
    with Workspace.open(root, embedder=None) as w:
        w.reindex()
        yield w


def test_a_method_on_a_generic_field_is_not_the_files_namesake(ws: Workspace) -> None:
    assert resolved_at(ws, "src/walk.rs", WALK_RS, "self.stdout.flush()", "flush") is None
    assert resolved_at(ws, "src/walk.rs", WALK_RS, "self.flush()?", "flush") == (
        "src/walk.rs",
        ("ReceiverBuffer.flush",),
    )
    wanted = {"flush": [("src/walk.rs", "ReceiverBuffer.flush")]}
    body = WALK_RS.replace("fn flush(&mut self)", "fn flushed(&mut self)").replace("self.flush()?", "self.stop()?")
    assert SymbolLookup(ws.indexer, ws.graph).uses("src/walk.rs", body, wanted) == {}  # only `self.stdout.flush()`


def test_an_object_literals_method_is_reached_only_through_that_object(ws: Workspace) -> None:
    assert resolved_at(ws, "ts/patches.ts", PATCHES_TS, "base.set(key", "set") is None
    assert resolved_at(ws, "ts/proxy.ts", PROXY_TS, "arrayTraps.set!", "set") is None
    assert resolved_at(ws, "ts/proxy.ts", PROXY_TS, "objectTraps.set!", "set") == ("ts/proxy.ts", ("set",))
    assert resolved_at(ws, "ts/proxy.ts", PROXY_TS, "objectTraps.get!", "get") == ("ts/proxy.ts", ("get",))
    gotcha(ws, "set must return true or the proxy throws", "ts/proxy.ts", "set")
    assert neighbours(ws, "ts/patches.ts") == {}


def test_holding_object_is_the_literal_bound_last_before_the_method() -> None:
    assert holding_object(PROXY_TS, 5) == "objectTraps"
    assert holding_object(PROXY_TS, 1) is None
    assert holding_object("const api = {\n\tnested: {\n\t\tget() {}\n\t}\n}\n", 3) == "nested"


def test_a_method_used_as_a_value_is_a_use_for_the_open_as_for_the_hover(ws: Workspace) -> None:
    assert resolved_at(ws, "ts/immer.ts", IMMER_TS, "immer.createDraft", "createDraft") == (
        "ts/immerClass.ts",
        ("Immer.createDraft",),
    )
    gotcha(ws, "produce freezes its result", "ts/immerClass.ts", "Immer.produce")
    gotcha(ws, "createDraft needs finishDraft", "ts/immerClass.ts", "Immer.createDraft")
    assert neighbours(ws, "ts/immer.ts") == {"produce freezes its result": 5, "createDraft needs finishDraft": 7}


def test_a_go_constructor_in_a_test_file_of_the_package_names_its_class(ws: Workspace) -> None:
    assert resolved_at(ws, "mux_test.go", MUX_TEST_GO, "m.Use(1)", "Use") == ("mux.go", ("Mux.Use",))


def test_a_library_class_says_no_workspace_method_and_a_wrapper_says_nothing(ws: Workspace) -> None:
    assert resolved_at(ws, "app.py", APP_PY, "notes.read_text()", "read_text") is None  # pathlib's Path
    assert resolved_at(ws, "app.py", APP_PY, "invoice.total()", "total") == ("billing.py", ("Invoice.total",))
