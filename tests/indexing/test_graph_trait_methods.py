"""Rust standard-trait items link files only through imports or the implementing type's name.

bat's ``build/syntax_mapping.rs`` had 25 dependents through ``from_str``, ``try_from`` and ``Err``: every file
calling ``Err(...)`` or ``toml::from_str`` "used" the three files implementing ``FromStr``/``TryFrom``.
"""

from __future__ import annotations

from pathlib import Path

from forewarn.config import Settings
from forewarn.indexing.graph import FileGraph
from forewarn.indexing.indexer import Indexer
from tests.gitrepo import write_files

MAPPING = """use std::fmt;
use std::str::FromStr;

pub enum MappingTarget {
    MapTo(String),
    Unknown,
}

impl FromStr for MappingTarget {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(MappingTarget::MapTo(s.to_owned()))
    }
}

impl fmt::Display for MappingTarget {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "target")
    }
}

pub struct Tokens {
    pos: usize,
}

impl Iterator for Tokens {
    type Item = u8;
    fn next(&mut self) -> Option<u8> {
        None
    }
}
"""

# names what mapping.rs implements (from_str, Err, next, fmt, Error) without any path to it
CONFIG = """pub fn load_config_text(text: &str, out: &mut String) -> Result<u8, Error> {
    let parsed: u8 = toml::from_str(text).map_err(|e| Error::from(e))?;
    if parsed == 0 {
        return Err(Error::Empty);
    }
    let mut words = text.split(' ');
    words.next();
    text.fmt(out);
    render_mapping_table(parsed);
    Ok(parsed)
}
"""

FILES = {
    "src/lib.rs": "mod mapping;\nmod config;\nmod table;\nmod error;\nmod printer;\nmod app;\nmod pick;\n",
    "src/mapping.rs": MAPPING,
    "src/config.rs": CONFIG,
    "src/table.rs": "pub fn render_mapping_table(rows: u8) -> u8 {\n    rows\n}\n",
    "src/error.rs": "pub enum Error {\n    Empty,\n}\n",
    "src/printer.rs": "use crate::error::Error;\nuse crate::mapping::Tokens;\n\n"
    "pub fn print_tokens(tokens: &mut Tokens) -> Result<(), Error> {\n    tokens.next();\n    Ok(())\n}\n",
    # no `use` of the mapping module: the paths name its type
    "src/app.rs": 'pub fn parse_target() -> bool {\n    crate::mapping::MappingTarget::from_str("x").is_ok()\n}\n',
    "src/pick.rs": "pub fn unknown_target() -> u8 {\n    let _ = crate::mapping::MappingTarget::Unknown;\n    0\n}\n",
}


def _indexed_graph(root: Path) -> FileGraph:
    write_files(root, FILES)
    with Indexer(root, Settings()) as ix:
        ix.index()
        return ix.graph


def test_a_bare_mention_of_a_std_trait_item_uses_no_implementing_file(tmp_path: Path) -> None:
    graph = _indexed_graph(tmp_path)
    assert "src/mapping.rs" not in graph.dependencies("src/config.rs")
    assert "src/error.rs" not in graph.dependencies("src/config.rs")  # `Error` with no import is someone else's
    assert "src/table.rs" in graph.dependencies("src/config.rs")  # an ordinary name still links by itself
    # an import still makes the trait item a use, and the project's own `Error` is reached through its import
    assert "src/mapping.rs" in graph.dependencies("src/printer.rs")
    assert set(graph.dependents("src/error.rs")) == {"src/lib.rs", "src/printer.rs"}


def test_a_path_through_the_implementing_type_still_counts(tmp_path: Path) -> None:
    graph = _indexed_graph(tmp_path)
    assert set(graph.dependents("src/mapping.rs")) == {"src/lib.rs", "src/printer.rs", "src/app.rs", "src/pick.rs"}
    assert graph.dependents_count("src/mapping.rs") == 4
