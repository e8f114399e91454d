"""Which workspace file an import names, from the import's text: a module path (``billing.models``), a relative
path (``./lib/pay``) or a Rust path (``crate::a::b``), matched by its path tail (pure: no index, no I/O)."""

from __future__ import annotations

import functools
import posixpath

from forewarn.indexing import lookup

# a relative import's file suffix, which its stem matches without: ``./util.js`` is ``util.ts`` in TypeScript's ESM
SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
STEMS_CACHED = 1 << 16  # file → (stem, folder), asked per dependency on every hover and open: a few MB at most


def spec_path(spec: str) -> str:
    """An import as a path tail: ``billing.models`` → ``billing/models``, ``./lib/pay`` → ``lib/pay``."""
    text = spec.strip().strip(lookup.QUOTES)
    while text.startswith(("./", "../")):
        text = text.split("/", 1)[1]
    text = text.lstrip(".")
    for prefix in ("crate::", "self::", "super::"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    if spec.strip().strip(lookup.QUOTES).startswith((".", "/")) and text.endswith(SCRIPT_SUFFIXES):
        text = text.rsplit(".", 1)[0]  # TypeScript's ESM ``../core/util.js`` names ``core/util.ts``
    if "/" not in text:
        text = text.replace("::", "/").replace(".", "/")
    return text.strip("/")


def parent_spec(spec: str) -> str:
    for sep in ("::", "."):
        if sep in spec:
            return spec.rsplit(sep, 1)[0]
    return ""


def matches_spec(rel: str, spec: str) -> bool:
    """Whether workspace file ``rel`` is what import ``spec`` names (its path tail, or its folder's)."""
    tail = spec_path(spec)
    return bool(tail) and matches_tail(rel, tail)


def matches_tail(rel: str, tail: str) -> bool:
    parent = stem_and_parent(rel)[1]
    return names_file(rel, tail) or (bool(parent) and (parent == tail or parent.endswith("/" + tail)))


@functools.lru_cache(maxsize=STEMS_CACHED)
def stem_and_parent(rel: str) -> tuple[str, str]:
    """``a/b/c.py`` → (``a/b/c``, ``a/b``): what an import's path tail is matched against (asked per dependency)."""
    slash = rel.rfind("/")
    parent, name = (rel[:slash], rel[slash + 1 :]) if slash >= 0 else ("", rel)
    dot = name.rfind(".")
    stem = f"{parent}/{name[:dot] if dot > 0 else name}" if parent else (name[:dot] if dot > 0 else name)
    return stem, parent


def module_file(spec: str, deps: dict[str, float], importer: str = "") -> str | None:
    """The file among ``importer``'s dependencies that import ``spec`` names: the one a relative spec reaches from
    the importer's folder, else one named by the path tail (a file before a folder), the strongest when several."""
    tail = spec_path(spec)
    matching = [d for d in deps if matches_tail(d, tail)] if tail else []
    here = relative_stem(importer, spec)
    exact = [d for d in matching if here and stem_and_parent(d)[0] == here]  # classic's ./checks.js, not core's
    named = [d for d in matching if names_file(d, tail)]  # ``./core.js`` is core/core.ts, not any file in core/
    return max(exact or named or matching, key=lambda d: deps[d]) if matching else None


def relative_stem(importer: str, spec: str) -> str:
    """``./checks.js`` from ``v4/classic/schemas.ts`` → ``v4/classic/checks`` ("" for a spec that is not relative)."""
    text = spec.strip().strip(lookup.QUOTES)
    if not importer or not text.startswith(("./", "../")):
        return ""
    path = posixpath.normpath(posixpath.join(posixpath.dirname(importer), text))
    return path.rsplit(".", 1)[0] if path.endswith(SCRIPT_SUFFIXES) else path


def names_file(rel: str, tail: str) -> bool:
    """Whether the path tail names ``rel`` itself rather than its folder."""
    stem = stem_and_parent(rel)[0]
    return stem == tail or stem.endswith("/" + tail)
