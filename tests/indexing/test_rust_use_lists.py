"""The names a Rust ``use`` list binds (forewarn.indexing.lookup): each name is its own, never its neighbour's alias
(``use crate::walk::{ErrorKind, WalkBuilder}`` bound ``ErrorKind`` to ``WalkBuilder`` and back, so a hover on either
showed the other), and a path in the list keeps its module (``{doc::version}`` is ``crate::flags::doc``'s)."""

from __future__ import annotations

from forewarn.indexing import lookup
from forewarn.indexing.languages import language_by_name


def test_names_side_by_side_in_a_use_list() -> None:
    spec = language_by_name("rust")
    assert spec is not None
    source = b"use std::io;\nuse crate::flags::{ErrorKind, WalkBuilder as WB, doc::version};\n"
    got = {(b.local, b.original, b.source, b.module) for b in lookup.bindings(spec, source)}
    assert got == {
        ("io", "io", "std::io", True),
        ("ErrorKind", "ErrorKind", "crate::flags", False),
        ("WB", "WalkBuilder", "crate::flags", False),
        ("version", "version", "crate::flags::doc", False),
    }
