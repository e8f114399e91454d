"""Resolve imports to workspace files, one small strategy per language family.

The strategy is chosen by the ``resolver`` named in a language's query header, so a new language
that imports like an existing one needs no code here. Indexes are kept incrementally by
``add``/``remove``; nothing is read from disk except small config files (``go.mod``) through
``read_text``. Imports that cannot be in the workspace (stdlib, third-party) resolve to ``[]``.

Decisions:
- Python: absolute modules match files by dotted-path suffix, so any source root works (``src/``,
  monorepo sub-projects); a root inside a package (a directory with ``__init__.py``) is not a root,
  so ``import json`` never lands on ``pkg/serializers/json.py``. Several roots: the one nearest the
  importer, then the shortest. ``from pkg import name`` gives the submodule file when ``pkg/name`` is
  a module, else the package's ``__init__.py``.
- Go: an import under a ``go.mod`` module path gives the package directory's ``.go`` files, never its
  ``_test.go`` files (Go never compiles another package's tests into an importer).
- Rust: ``mod x;`` is recorded as ``x``; paths resolve to the longest prefix that is a module file
  (``a.rs`` or ``a/mod.rs``), from the crate root (``crate::``), the parent module (``super::``), another
  crate of the workspace named by its Cargo.toml (``grep_searcher::`` → ``crates/searcher/src/lib.rs``) or the
  current module (``self::`` and bare paths, which then fall back to the crate root).
- C/C++: quoted includes relative to the includer, then by path suffix nearest the includer;
  ``<system>`` includes stay unresolved.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable

from forewarn.indexing.languages import language_by_name
from forewarn.indexing.records import Import

log = logging.getLogger(__name__)

PY_EXTENSIONS = (".py", ".pyi")
JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
TS_FOR_JS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
TS_LANGUAGES = frozenset({"typescript", "tsx"})
GO_MODULE_LINE = re.compile(r"^\s*module\s+(\S+)", re.MULTILINE)
RUST_ROOT_FILES = ("lib.rs", "main.rs")
RUST_DIR_MODULE_FILES = ("lib.rs", "main.rs", "mod.rs")
RUBY_LOAD_ROOTS = ("lib", "app", "")  # where bare ``require 'x'`` looks, in order
CARGO_TABLE = re.compile(r"^\s*\[([^\[\]]+)\]\s*(?:#.*)?$")  # `[package]`, `[lib]` (not `[[bin]]`)
CARGO_NAME = re.compile(r"""^\s*name\s*=\s*["']([^"']+)["']""")

Resolver = Callable[[str, Import], list[str]]


class ImportResolver:
    """Imports → workspace-relative files. Paths are POSIX, relative to the workspace root."""

    def __init__(self, files: Iterable[str], read_text: Callable[[str], str | None]) -> None:
        self._read_text = read_text
        self._files: set[str] = set()
        self._dir_files: dict[str, set[str]] = defaultdict(set)
        self._by_basename: dict[str, set[str]] = defaultdict(set)
        self._py_modules: dict[str, set[str]] = defaultdict(set)  # dotted suffix → files
        self._go_mods: dict[str, str | None] = {}  # dir → module path (None: no go.mod there)
        self._crates: dict[str, str] | None = None  # Rust crate name (as `use`d) → its root module's folder
        self._strategies: dict[str, Resolver] = {
            "python": self._python,
            "javascript": self._javascript,
            "go": self._go,
            "rust": self._rust,
            "java": self._java,
            "include": self._include,
            "ruby": self._ruby,
        }
        for rel in files:
            self.add(rel)

    # ----------------------------------------------------------------- incremental indexes
    def add(self, rel: str) -> None:
        if rel in self._files:
            return
        self._files.add(rel)
        directory, base = posixpath.split(rel)
        self._dir_files[directory].add(rel)
        self._by_basename[base].add(rel)
        for key in _py_module_suffixes(rel):
            self._py_modules[key].add(rel)
        if base == "go.mod":
            self._go_mods.pop(directory, None)
        if base == "lib.rs":
            self._crates = None

    def remove(self, rel: str) -> None:
        if rel not in self._files:
            return
        self._files.discard(rel)
        directory, base = posixpath.split(rel)
        _discard(self._dir_files, directory, rel)
        _discard(self._by_basename, base, rel)
        for key in _py_module_suffixes(rel):
            _discard(self._py_modules, key, rel)
        if base == "go.mod":
            self._go_mods.pop(directory, None)
        if base == "lib.rs":
            self._crates = None

    def resolve(self, importer_rel: str, language: str, imp: Import) -> list[str]:
        spec = language_by_name(language)
        strategy = self._strategies.get(spec.resolver) if spec is not None else None
        if strategy is None or not imp.spec:
            return []
        found = strategy(importer_rel, imp)
        return [f for f in dict.fromkeys(found) if f != importer_rel]

    # ----------------------------------------------------------------- Python
    def _python(self, importer: str, imp: Import) -> list[str]:
        spec = imp.spec
        if spec.startswith("."):
            level = len(spec) - len(spec.lstrip("."))
            base = posixpath.dirname(importer)
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            rest = spec[level:]
            module = self._py_file(posixpath.join(base, *rest.split("."))) if rest else self._py_package(base)
            return self._with_submodules(module, posixpath.join(base, *rest.split(".")) if rest else base, imp.names)
        found = self._py_absolute(importer, spec)
        if found is None:
            return []
        return self._with_submodules(found, _py_module_dir(found), imp.names)

    def _with_submodules(self, module: str | None, module_dir: str, names: tuple[str, ...]) -> list[str]:
        """``from m import a, b``: the submodules ``m/a``, ``m/b`` where they exist, else ``m`` itself."""
        out: list[str] = []
        need_module = not names
        for name in names:
            sub = self._py_file(posixpath.join(module_dir, name)) if name != "*" else None
            if sub is not None:
                out.append(sub)
            else:
                need_module = True
        if need_module and module is not None:
            out.insert(0, module)
        return out

    def _py_file(self, path: str) -> str | None:
        """The file of module path ``a/b`` (``a/b.py``, ``a/b.pyi``, ``a/b/__init__.py``)."""
        path = posixpath.normpath(path)
        for ext in PY_EXTENSIONS:
            if path + ext in self._files:
                return path + ext
        return self._py_package(path)

    def _py_package(self, directory: str) -> str | None:
        directory = posixpath.normpath(directory)
        for ext in PY_EXTENSIONS:
            init = posixpath.join(directory, "__init__" + ext) if directory != "." else "__init__" + ext
            if init in self._files:
                return init
        return None

    def _py_absolute(self, importer: str, dotted: str) -> str | None:
        candidates = []
        depth = dotted.count(".") + 1
        for file in self._py_modules.get(dotted, ()):
            root = _py_root(file, depth)
            if self._py_package(root) is None or root == "":
                candidates.append((-_common_depth(importer, root), root.count("/"), len(file), file))
        return min(candidates)[3] if candidates else None

    # ----------------------------------------------------------------- JavaScript / TypeScript
    def _javascript(self, importer: str, imp: Import) -> list[str]:
        if not imp.spec.startswith("."):
            return []  # packages and path aliases live outside the workspace's relative graph
        target = posixpath.normpath(posixpath.join(posixpath.dirname(importer), imp.spec))
        found = self._js_file(target, typescript=importer.endswith((".ts", ".tsx", ".mts", ".cts")))
        return [found] if found else []

    def _js_file(self, target: str, typescript: bool) -> str | None:
        stem, ext = posixpath.splitext(target)
        if typescript and ext in TS_FOR_JS:
            for alt in TS_FOR_JS[ext]:
                if stem + alt in self._files:
                    return stem + alt
        if target in self._files:
            return target
        for candidate in (target, posixpath.join(target, "index")):
            for extension in JS_EXTENSIONS:
                if candidate + extension in self._files:
                    return candidate + extension
        return None

    # ----------------------------------------------------------------- Go
    def _go(self, importer: str, imp: Import) -> list[str]:
        directory = posixpath.dirname(importer)
        while True:
            module = self._go_module(directory)
            if module is not None:
                break
            if not directory:
                return []
            directory = posixpath.dirname(directory)
        if imp.spec != module and not imp.spec.startswith(module + "/"):
            return []
        package_dir = posixpath.join(directory, imp.spec[len(module) + 1 :]) if imp.spec != module else directory
        package_dir = posixpath.normpath(package_dir) if package_dir else ""
        package_dir = "" if package_dir == "." else package_dir
        return sorted(
            f for f in self._dir_files.get(package_dir, ()) if f.endswith(".go") and not f.endswith("_test.go")
        )

    def _go_module(self, directory: str) -> str | None:
        if directory not in self._go_mods:
            text = self._read_text(posixpath.join(directory, "go.mod") if directory else "go.mod")
            match = GO_MODULE_LINE.search(text) if text else None
            self._go_mods[directory] = match.group(1) if match else None
        return self._go_mods[directory]

    # ----------------------------------------------------------------- Rust
    def _rust(self, importer: str, imp: Import) -> list[str]:
        segments = [s for s in imp.spec.split("::") if s]
        if not segments:
            return []
        head = segments[0]
        crate_root = self._rust_crate_root(importer)
        if head == "crate":
            bases, segments = [crate_root], segments[1:]
        elif head in ("super", "self"):
            base = _rust_module_dir(importer)
            while segments and segments[0] in ("super", "self"):
                if segments.pop(0) == "super":
                    base = posixpath.dirname(base)
            bases = [base]
        elif (crate := self._rust_crates().get(head)) is not None and not self._rust_local(importer, head):
            bases, segments = [crate], segments[1:]  # `use grep_searcher::Searcher`: another crate of the workspace
        else:
            bases = [_rust_module_dir(importer), crate_root]
        paths = [[*segments, *name.split("::")] for name in imp.names if name not in ("*", "self")] or [segments]
        out: list[str] = []
        for path in paths:
            for base in dict.fromkeys(b for b in bases if b is not None):
                found = self._rust_longest(base, path)
                if found:
                    out.append(found)
                    break
        return out

    def _rust_longest(self, base: str, segments: list[str]) -> str | None:
        for end in range(len(segments), 0, -1):
            path = posixpath.join(base, *segments[:end])
            for candidate in (path + ".rs", posixpath.join(path, "mod.rs")):
                if candidate in self._files:
                    return candidate
        # every segment names an item: the base module's own file (``super::Item`` → ``../mod.rs``)
        candidates = [base + ".rs"] if base else []
        candidates += [posixpath.join(base, name) for name in RUST_DIR_MODULE_FILES]
        return next((c for c in candidates if c in self._files), None)

    def _rust_local(self, importer: str, head: str) -> bool:
        """Whether ``head`` names a module of the importer's own crate, beside it or at the crate's root."""
        bases = (_rust_module_dir(importer), self._rust_crate_root(importer))
        return any(
            candidate in self._files
            for base in bases
            if base is not None
            for candidate in (posixpath.join(base, head + ".rs"), posixpath.join(base, head, "mod.rs"))
        )

    def _rust_crates(self) -> dict[str, str]:
        """The workspace's library crates by the name code ``use``s them by (Cargo.toml's ``[lib]`` name, else its
        ``[package]`` name, ``-`` read as ``_``), each to the folder of its ``src/lib.rs``; read once per set of
        ``lib.rs`` files."""
        if self._crates is None:
            crates: dict[str, str] = {}
            for lib in sorted(self._by_basename.get("lib.rs", ())):
                source_dir = posixpath.dirname(lib)
                if posixpath.basename(source_dir) != "src":
                    continue
                crate_dir = posixpath.dirname(source_dir)
                name = _cargo_lib_name(self._read_text(posixpath.join(crate_dir, "Cargo.toml")))
                if name:
                    crates.setdefault(name.replace("-", "_"), source_dir)
            self._crates = crates
        return self._crates

    def _rust_crate_root(self, importer: str) -> str | None:
        directory = posixpath.dirname(importer)
        while True:
            if any(posixpath.join(directory, f) in self._files for f in RUST_ROOT_FILES):
                return directory
            if not directory:
                return None
            directory = posixpath.dirname(directory)

    # ----------------------------------------------------------------- Java
    def _java(self, importer: str, imp: Import) -> list[str]:
        parts = imp.spec.split(".")
        if "*" in imp.names or parts[-1] == "*":
            package = "/".join(p for p in parts if p != "*")
            return sorted(f for d in self._dirs_ending(package) for f in self._dir_files[d] if f.endswith(".java"))
        # a static or nested-class import names members after the class: drop them until a file matches
        for end in range(len(parts), 0, -1):
            found = self._by_suffix("/".join(parts[:end]) + ".java", importer)
            if found:
                return [found]
        return []

    def _dirs_ending(self, suffix: str) -> list[str]:
        return [d for d in self._dir_files if d == suffix or d.endswith("/" + suffix)]

    # ----------------------------------------------------------------- C / C++
    def _include(self, importer: str, imp: Import) -> list[str]:
        spec = imp.spec
        if spec.startswith("<"):
            return []
        local = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        if local in self._files:
            return [local]
        found = self._by_suffix(posixpath.normpath(spec).lstrip("./"), importer)
        return [found] if found else []

    # ----------------------------------------------------------------- Ruby
    def _ruby(self, importer: str, imp: Import) -> list[str]:
        spec = imp.spec if imp.spec.endswith(".rb") else imp.spec + ".rb"
        if spec.startswith("."):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
            return [target] if target in self._files else []
        for root in RUBY_LOAD_ROOTS:
            target = posixpath.join(root, spec) if root else spec
            if target in self._files:
                return [target]
        # gems and sub-projects keep their own lib/: look for any .../lib/<spec>
        suffix = posixpath.join("lib", spec)
        found = self._by_suffix(suffix, importer)
        return [found] if found else []

    # ----------------------------------------------------------------- shared
    def _by_suffix(self, suffix: str, importer: str) -> str | None:
        """The file whose path ends with ``suffix`` (whole components), nearest the importer."""
        base = posixpath.basename(suffix)
        matches = [f for f in self._by_basename.get(base, ()) if f == suffix or f.endswith("/" + suffix)]
        if not matches:
            return None
        return min(matches, key=lambda f: (-_common_depth(importer, posixpath.dirname(f)), len(f), f))


def _discard(index: dict[str, set[str]], key: str, rel: str) -> None:
    bucket = index.get(key)
    if bucket is not None:
        bucket.discard(rel)
        if not bucket:
            del index[key]


def _py_module_suffixes(rel: str) -> list[str]:
    """Every dotted suffix a Python file could be imported as: ``src/a/b.py`` → b, a.b, src.a.b."""
    if not rel.endswith(PY_EXTENSIONS):
        return []
    parts = rel.rsplit(".", 1)[0].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(p.isidentifier() for p in parts[-1:]):
        return []
    suffixes = []
    for start in range(len(parts) - 1, -1, -1):
        if not parts[start].isidentifier():
            break
        suffixes.append(".".join(parts[start:]))
    return suffixes


def _py_root(file: str, depth: int) -> str:
    """The directory a module of ``depth`` dotted parts was imported from."""
    parts = file.split("/")
    strip = depth if parts[-1].split(".")[0] != "__init__" else depth + 1
    return "/".join(parts[:-strip])


def _py_module_dir(module_file: str) -> str:
    """Where a module's submodules live: a package's own directory, else the module's stem."""
    directory, base = posixpath.split(module_file)
    if base.split(".")[0] == "__init__":
        return directory
    return posixpath.join(directory, base.split(".")[0])


def _cargo_lib_name(text: str | None) -> str | None:
    """The name a Cargo.toml's library is used by: its ``[lib]`` table's ``name``, else its ``[package]``'s."""
    names: dict[str, str] = {}
    table = ""
    for line in (text or "").splitlines():
        if header := CARGO_TABLE.match(line):
            table = header.group(1).strip()
        elif table in ("lib", "package") and (name := CARGO_NAME.match(line)):
            names.setdefault(table, name.group(1))
    return names.get("lib") or names.get("package")


def _rust_module_dir(rel: str) -> str:
    """Where ``mod x;`` in ``rel`` looks for ``x``: ``a/b.rs`` → ``a/b``, ``a/mod.rs`` → ``a``."""
    directory, base = posixpath.split(rel)
    return directory if base in RUST_DIR_MODULE_FILES else posixpath.join(directory, base[: -len(".rs")])


def _common_depth(a: str, b: str) -> int:
    """How many leading directories two paths share."""
    count = 0
    for x, y in zip(posixpath.dirname(a).split("/"), b.split("/"), strict=False):
        if x != y or not x:
            break
        count += 1
    return count
