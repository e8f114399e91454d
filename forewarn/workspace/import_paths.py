"""Which workspace file an import names, from the import's text: a module path (``billing.models``), a relative
path (``./lib/pay``) or a Rust path (``crate::a::b``), matched by its path tail (pure: no index, no I/O)."""

from __future__ import annotations

import functools

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
    stem, parent = stem_and_parent(rel)
    slashed = "/" + tail
    return stem == tail or stem.endswith(slashed) or (bool(parent) and (parent == tail or parent.endswith(slashed)))


@functools.lru_cache(maxsize=STEMS_CACHED)
def stem_and_parent(rel: str) -> tuple[str, str]:
    """``a/b/c.py`` → (``a/b/c``, ``a/b``): what an import's path tail is matched against (asked per dependency)."""
    slash = rel.rfind("/")
    parent, name = (rel[:slash], rel[slash + 1 :]) if slash >= 0 else ("", rel)
    dot = name.rfind(".")
    stem = f"{parent}/{name[:dot] if dot > 0 else name}" if parent else (name[:dot] if dot > 0 else name)
    return stem, parent


def module_file(spec: str, deps: dict[str, float]) -> str | None:
    """The file among this one's dependencies that import ``spec`` names (the strongest when several)."""
    tail = spec_path(spec)
    matching = [d for d in deps if matches_tail(d, tail)] if tail else []
    return max(matching, key=lambda d: deps[d]) if matching else None
