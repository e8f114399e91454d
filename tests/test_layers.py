"""Each layer imports only the layers below it (docs/internals.md, "Layout").

Every module's imports are read with ``ast``: top-level, function-level and ``TYPE_CHECKING`` ones,
relative ones resolved, and ``importlib.import_module("...")`` with a literal name. A layer reaching
up or sideways fails here, naming the file and line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parent.parent / "forewarn"

PROTOCOL = ("pygls", "lsprotocol")  # the editor protocol: only forewarn.lsp speaks it
FRONT_ENDS = ("forewarn.lsp", "forewarn.cli", "forewarn.mcp")

# layer -> modules it must never import (a name matches itself and everything under it)
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "forewarn.indexing": (*PROTOCOL, "forewarn.workspace", *FRONT_ENDS, "forewarn.memory"),
    "forewarn.memory": (*PROTOCOL, "forewarn.workspace", *FRONT_ENDS, "forewarn.indexing"),
    "forewarn.workspace": FRONT_ENDS,
    "forewarn.lsp": ("forewarn.cli", "forewarn.mcp"),
    "forewarn.mcp": ("forewarn.lsp", "forewarn.cli"),
}


@dataclass(frozen=True)
class ImportSite:
    module: str  # the importing module, dotted
    target: str  # the imported module, dotted and absolute
    line: int


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE_ROOT.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def imports_of(path: Path) -> list[ImportSite]:
    """Every module ``path`` imports, wherever the import statement sits."""
    module = module_name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[ImportSite] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [ImportSite(module, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.module, node.level)
            found.append(ImportSite(module, base, node.lineno))
            # ``from forewarn import lsp`` imports the subpackage, not a name in forewarn/__init__.py
            found += [ImportSite(module, f"{base}.{alias.name}", node.lineno) for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(ImportSite(module, node.args[0].value, node.lineno))
    return found


def _absolute(module: str, is_package: bool, target: str | None, level: int) -> str:
    if level == 0:
        return target or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]  # a module's relative imports start from its package
    parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*parts, target] if target else parts)


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations(paths: list[Path]) -> list[str]:
    out: list[str] = []
    seen: set[tuple[Path, int, str]] = set()  # one report per statement and rule (``from x import a, b``)
    for path in paths:
        for site in imports_of(path):
            for layer, banned in FORBIDDEN.items():
                if not _within(site.module, layer):
                    continue
                for bad in banned:
                    if _within(site.target, bad) and (path, site.line, bad) not in seen:
                        seen.add((path, site.line, bad))
                        rel = path.relative_to(PACKAGE_ROOT.parent)
                        out.append(f"{rel}:{site.line}: {layer} must not import {site.target} ({bad})")
    return out


def all_modules() -> list[Path]:
    return sorted(PACKAGE_ROOT.rglob("*.py"))


def test_no_layer_reaches_up_or_sideways() -> None:
    found = violations(all_modules())
    assert found == [], "layer violations:\n" + "\n".join(found)


def test_every_layer_is_checked() -> None:
    layers = {p.name for p in PACKAGE_ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {"indexing", "memory", "workspace", "lsp", "cli"} <= layers
    assert len(all_modules()) > 30  # the walk found the package, not an empty folder


@pytest.mark.parametrize(
    ("where", "source", "expected"),
    [
        ("memory/bad.py", "import pygls.server\n", "forewarn.memory must not import pygls.server"),
        ("indexing/bad.py", "def f():\n    from forewarn.memory import store\n", "must not import forewarn.memory"),
        (
            "memory/bad.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..indexing.records import Tag\n",
            "forewarn.memory must not import forewarn.indexing.records",
        ),
        ("workspace/bad.py", "from forewarn import lsp\n", "forewarn.workspace must not import forewarn.lsp"),
        ("lsp/bad.py", "import importlib\nimportlib.import_module('forewarn.cli.main')\n", "forewarn.cli.main"),
    ],
)
def test_a_violation_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, source: str, expected: str
) -> None:
    fake_root = tmp_path / "forewarn"
    bad = fake_root / where
    bad.parent.mkdir(parents=True)
    bad.write_text(source, encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE_ROOT"]), "PACKAGE_ROOT", fake_root)
    found = violations([bad])
    assert len(found) == 1 and expected in found[0], found
