"""The file graph and its personalized PageRank.

A file that references a name points at the files that define it (Aider's idea), weighted by how
telling the name is; a resolved import adds an edge of its own. The weights live in three sparse
matrices: ``R`` (files × identifiers, reference strength), ``D`` (files × identifiers, who defines
what) and ``I`` (files × files, imports), so the file graph is ``R·diag(w)·Dᵀ + I``, with name
matches between files that no import links damped. Each file owns one row of ``R``, ``D`` and
``I``: changing a file patches its rows and the products are rebuilt in C by scipy, which keeps a
re-rank after one saved file within a few milliseconds (never a networkx graph: the slow path).

Which files a file *uses* and which *depend on* it (the neighbours whose memories an open shows, what a hover
counts, what review lists one hop out) are read from the same edges less name matches across language families
(``languages.family_for_path``): a jQuery test fixture naming what a Rust binary defines uses nothing of it.
PageRank keeps every edge.

A Go import resolves to every file of the package, but an importer uses only the files that define an exported
name it mentions (``PACKAGE_IMPORT_FAMILIES``): an import edge to any other file of the package is dropped, so a new
file nothing calls has no dependents.

A standard interface's items (``PROTOCOL_ITEMS``: Rust's ``fmt``, ``from_str``, ``next``, ``type Err``) are reached
through the interface (``s.parse()``, ``?``, a ``for`` loop), so a bare mention of one names no particular
implementation: such a definition draws an edge only from files an import links to its file.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import scipy.sparse as sp

from forewarn.indexing.conventions import is_test_path
from forewarn.indexing.languages import family_for_path

T = TypeVar("T")

# -- edge weights: how much one reference to a name says about the defining file ---------------
MENTIONED_IDENT_BOOST = 10.0  # the user named this identifier: edges through it matter most
DESCRIPTIVE_IDENT_BOOST = 10.0  # a long compound name (user_account_id) rarely collides by chance
DESCRIPTIVE_IDENT_MIN_LENGTH = 8  # shorter names are too generic to count as descriptive
PRIVATE_IDENT_DAMP = 0.1  # _private names are internal plumbing, not what a file is for
MANY_DEFINERS = 5  # a name defined in more files than this is generic (save, get, run)…
MANY_DEFINERS_DAMP = 0.1  # …so a reference to it says little about which file is meant
AMBIGUOUS_DEFINERS = 100  # beyond this a name links nearly everything to everything: ignore it
IMPORT_EDGE_WEIGHT = 5.0  # a resolved import names its target exactly, unlike a name match
UNIMPORTED_REF_DAMP = 0.05  # a name match with no import path behind it is often a builtin, local or library name

# Items of a language's standard interfaces, by language family (``languages.family_for_path``): a file defining
# one implements the interface for its own type, and others reach it through the interface or through that
# type's name (``MappingTarget::from_str`` names ``MappingTarget``), never by the item's name alone: ``Err(e)``,
# ``toml::from_str`` or ``iter.next()`` elsewhere is no use of the file. Only Rust's are listed: Go's ``String``
# and ``Error`` and Java's ``next`` are also ordinary type and method names that same-package files use unimported.
RUST_TRAIT_ITEMS = frozenset(
    {
        # methods of std traits (Display/Debug, FromStr, From/TryFrom, Clone, PartialEq/Ord, Hash, Default,
        # Drop, Deref, AsRef, Borrow, Iterator, IntoIterator, FromIterator, Future)
        *("fmt", "from_str", "from", "try_from", "into", "try_into", "clone", "clone_from", "eq", "ne"),
        *("partial_cmp", "cmp", "hash", "default", "drop", "deref", "deref_mut", "as_ref", "as_mut"),
        *("borrow", "borrow_mut", "next", "next_back", "size_hint", "into_iter", "from_iter", "poll"),
        # their associated types (a project's own ``enum Error`` is still reached through its imports)
        *("Err", "Error", "Item", "Target", "Output", "IntoIter", "Owned"),
    }
)
PROTOCOL_ITEMS: dict[str | None, frozenset[str]] = {"resolver:rust": RUST_TRAIT_ITEMS}

# Language families whose import names a package, a folder of files, and whose importer sees only the package's
# exported names, those starting with a capital letter (Go): an import says the importer uses the files of the
# package that define a name it mentions (``chi.URLParam``, ``r.Get`` on a ``*chi.Mux``), not every file of it.
PACKAGE_IMPORT_FAMILIES = frozenset({"resolver:go"})

# -- PageRank -----------------------------------------------------------------------------------
DAMPING = 0.85  # the usual random-surfer damping; lower spreads rank more evenly
TOLERANCE = 1e-6  # L1 change per iteration at which ranks stop moving in any way a ranking could show
MAX_ITERATIONS = 100  # power iteration converges in 20–50 steps on code graphs
FOCUS_FILE_WEIGHT = 1.0  # personalization mass per focus file (open, recent, named by the user)
IDENT_DEFINER_WEIGHT = 1.0  # personalization mass shared by the files defining a mentioned identifier
BACKGROUND_WEIGHT = 0.05  # share kept uniform when personalized, so unrelated files stay comparable

# -- definitions --------------------------------------------------------------------------------
UNREFERENCED_DEF_SHARE = 1e-3  # a definition nobody references still gets a sliver of its file's rank


def ident_weight(name: str) -> float:
    """How telling a reference to ``name`` is, from the name's shape alone."""
    weight = 1.0
    camel = any(c.isupper() for c in name[1:]) and any(c.islower() for c in name)
    compound = "_" in name.strip("_") or camel
    if len(name) >= DESCRIPTIVE_IDENT_MIN_LENGTH and compound:
        weight *= DESCRIPTIVE_IDENT_BOOST
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
        weight *= PRIVATE_IDENT_DAMP
    return weight


@dataclass(frozen=True, slots=True)
class _Matrices:
    refs: sp.csr_matrix  # files × idents: sqrt(reference count)
    defs: sp.csr_matrix  # files × idents: 1 where the file defines the name
    names: _NameMatrices  # ``refs`` and ``defs`` with protocol items (PROTOCOL_ITEMS) kept apart
    imports: sp.csr_matrix  # files × files: IMPORT_EDGE_WEIGHT per resolved import
    linked: sp.csr_matrix  # files × files: True where a file imports another directly or through a package
    ident_w: np.ndarray  # per-ident weight, before mentions
    graph: sp.csr_matrix  # files × files: the weighted file graph
    uses: sp.csr_matrix  # the graph's edges that say a file uses another: imports, and names within one family
    dependents: np.ndarray  # per file (row): how many live files have a ``uses`` edge to it (hovers tell it)


def _locked(method: Callable[..., T]) -> Callable[..., T]:
    """Serialise a FileGraph method: the daemon re-indexes in one thread while another ranks."""

    @functools.wraps(method)
    def wrapper(self: FileGraph, *args: Any, **kwargs: Any) -> T:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


class FileGraph:
    """Files linked by references and imports; ranks files and their definitions. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._slot: dict[str, int] = {}  # rel -> row
        self._rels: list[str | None] = []  # row -> rel (None: a free row)
        self._free: list[int] = []
        self._ident: dict[str, int] = {}
        self._ident_names: list[str] = []
        self._ident_base: list[float] = []
        self._ident_exported: list[bool] = []  # the name starts with a capital letter (PACKAGE_IMPORT_FAMILIES)
        self._refs = _RowStack(weighted=True)  # row -> ident ids, sqrt(reference count)
        self._defs = _RowStack(weighted=False)  # row -> ident ids
        self._protocol_defs = _RowStack(weighted=False)  # row -> ids of its defs that are PROTOCOL_ITEMS
        self._imports = _RowStack(weighted=False)  # row -> target rows
        self._family: list[int] = []  # row -> language family id (languages.family_for_path)
        self._families: dict[str | None, int] = {}
        self._test: list[bool] = []  # row -> test code by its path (conventions.is_test_path)
        self._import_cache: tuple[sp.csr_matrix, sp.csr_matrix] | None = None  # imports change less than names
        self._cache: _Matrices | None = None
        self._last_scores: np.ndarray | None = None  # warm start: one edit barely moves the ranks

    @classmethod
    def build(
        cls,
        files: Iterable[str],
        defs: Mapping[str, Iterable[str]],
        refs: Mapping[str, Mapping[str, int]],
        imports: Mapping[str, set[str]],
    ) -> FileGraph:
        graph = cls()
        for rel in files:
            graph.set_file(rel, defs.get(rel, ()), refs.get(rel, {}))
        graph.set_imports(imports)
        return graph

    # -- updates -------------------------------------------------------------------------------

    @_locked
    def set_file(self, rel: str, defined: Iterable[str], referenced: Mapping[str, int]) -> None:
        row = self._row(rel)
        defined = list(defined)
        protocol = PROTOCOL_ITEMS.get(family_for_path(rel), frozenset())
        self._defs.set(row, np.unique(np.fromiter((self._intern(n) for n in defined), dtype=np.int64)))
        self._protocol_defs.set(row, np.unique(np.array([self._ident[n] for n in defined if n in protocol], np.int64)))
        ids = np.fromiter((self._intern(n) for n in referenced), dtype=np.int64, count=len(referenced))
        weights = np.sqrt(np.fromiter(referenced.values(), dtype=np.float64, count=len(referenced)))
        order = np.argsort(ids)  # sorted rows make the CSR canonical without a sort per rebuild
        self._refs.set(row, ids[order], weights[order])
        self._cache = None
        if self._imports_by_name(row):
            self._import_cache = None  # which files of an imported package this file names, or whose names it defines

    @_locked
    def remove_file(self, rel: str) -> None:
        row = self._slot.pop(rel, None)
        if row is None:
            return
        self._rels[row] = None
        self._defs.set(row, _EMPTY_IDS)
        self._protocol_defs.set(row, _EMPTY_IDS)
        self._refs.set(row, _EMPTY_IDS, _EMPTY_WEIGHTS)
        self._set_import_row(row, _EMPTY_IDS)
        self._free.append(row)
        self._cache = None
        if self._imports_by_name(row):
            self._import_cache = None

    @_locked
    def set_imports(self, edges: Mapping[str, set[str]], *, replace_all: bool = True) -> None:
        """Resolved import edges by source file (all sources when ``replace_all``)."""
        if replace_all:
            for row in range(len(self._rels)):
                if self._rels[row] not in edges:
                    self._set_import_row(row, _EMPTY_IDS)
        for src, dsts in edges.items():
            if src not in self._slot:
                continue
            targets = sorted({self._slot[d] for d in dsts if d in self._slot and d != src})
            self._set_import_row(self._slot[src], np.array(targets, dtype=np.int64))

    def _set_import_row(self, row: int, targets: np.ndarray) -> None:
        if not np.array_equal(self._imports.get(row), targets):  # a save rarely changes imports: keep the cache
            self._imports.set(row, targets)
            self._cache = self._import_cache = None

    def _row(self, rel: str) -> int:
        row = self._slot.get(rel)
        if row is not None:
            return row
        family = self._families.setdefault(family_for_path(rel), len(self._families))
        if self._free:
            row = self._free.pop()
            self._rels[row] = rel
            self._family[row] = family
            self._test[row] = is_test_path(rel)
        else:
            row = len(self._rels)
            self._rels.append(rel)
            self._family.append(family)
            self._test.append(is_test_path(rel))
            for stack in (self._defs, self._protocol_defs, self._refs, self._imports):
                stack.append()
            self._import_cache = None  # one more file: the files × files matrices grow
        self._slot[rel] = row
        # imports that named this file before it existed resolve once the indexer re-resolves them
        return row

    def _intern(self, name: str) -> int:
        idx = self._ident.get(name)
        if idx is None:
            idx = self._ident[name] = len(self._ident_names)
            self._ident_names.append(name)
            self._ident_base.append(ident_weight(name))
            self._ident_exported.append(name[:1].isupper())
        return idx

    def _imports_by_name(self, row: int) -> bool:
        """Whether ``row``'s imports, and imports of it, count only through the names used (PACKAGE_IMPORT_FAMILIES)."""
        return self._family_name(self._family[row]) in PACKAGE_IMPORT_FAMILIES

    def _family_name(self, family: int) -> str | None:
        return next((name for name, fid in self._families.items() if fid == family), None)

    # -- matrices ------------------------------------------------------------------------------

    def _matrices(self) -> _Matrices:
        if self._cache is None:
            m = len(self._ident_names)
            refs = self._refs.csr(m)
            defs = self._defs.csr(m)
            protocol_defs = self._protocol_defs.csr(m)
            names = _NameMatrices(refs, _without(defs, protocol_defs), protocol_defs)
            imports, linked = self._import_matrices(refs, defs)
            definers = np.bincount(defs.indices, minlength=m)
            ident_w = np.asarray(self._ident_base, dtype=np.float64)
            ident_w = np.where(definers > MANY_DEFINERS, ident_w * MANY_DEFINERS_DAMP, ident_w)
            ident_w[(definers == 0) | (definers > AMBIGUOUS_DEFINERS)] = 0.0
            graph = self._combine(names, imports, linked, ident_w)
            uses = self._uses(graph, imports, linked, names, ident_w * (definers <= MANY_DEFINERS))
            live = np.array([rel is not None for rel in self._rels], dtype=bool)
            sources = np.repeat(np.arange(uses.shape[0]), np.diff(uses.indptr))
            dependents = np.bincount(uses.indices[live[sources]], minlength=uses.shape[1])
            self._cache = _Matrices(refs, defs, names, imports, linked, ident_w, graph, uses, dependents)
        return self._cache

    def _uses(
        self,
        graph: sp.csr_matrix,
        imports: sp.csr_matrix,
        linked: sp.csr_matrix,
        names: _NameMatrices,
        specific_w: np.ndarray,
    ) -> sp.csr_matrix:
        """``graph``'s edges that say a file uses another: an import, or a name match between files of one
        language family (``languages.family_for_path``) through a name few files define (``specific_w``: a
        reference to ``new`` or ``stdout``, defined all over, is no use of one file). A test file's definitions
        are used only by a file that imports it (a helper module): a test's local ``request`` is no one else's."""
        named = names.edges(specific_w, linked)
        sources = np.repeat(np.arange(named.shape[0]), np.diff(named.indptr))
        family = np.asarray(self._family, dtype=np.int64)
        tests = np.asarray(self._test, dtype=bool)
        linked_names = named.multiply(linked)  # a name an import path backs: a test helper module's too
        named.data = ((family[sources] == family[named.indices]) & ~tests[named.indices]).astype(np.float64)
        named = named + linked_names
        mask = (named + imports) > 0
        return graph.multiply(mask).tocsr()

    def _import_matrices(self, refs: sp.csr_matrix, defs: sp.csr_matrix) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        if self._import_cache is None:
            n = len(self._rels)
            imports = self._by_name(self._imports.csr(n), refs, defs) * IMPORT_EDGE_WEIGHT
            linked = (imports + imports @ imports) > 0  # direct imports, and imports of re-exporting packages
            self._import_cache = (imports, linked.tocsr())
        return self._import_cache

    def _by_name(self, imports: sp.csr_matrix, refs: sp.csr_matrix, defs: sp.csr_matrix) -> sp.csr_matrix:
        """``imports`` less the edges from a file of a PACKAGE_IMPORT_FAMILIES family to a file of the imported
        package that defines no exported name the importer mentions."""
        package_families = [fid for name, fid in self._families.items() if name in PACKAGE_IMPORT_FAMILIES]
        rows = np.isin(np.asarray(self._family, dtype=np.int64), package_families).astype(np.float64)
        if not rows.any() or not imports.nnz:
            return imports
        exported = np.asarray(self._ident_exported, dtype=np.float64)
        mentioned = (sp.diags(rows) @ (refs > 0).astype(np.float64) @ sp.diags(exported)).tocsr()
        named = (mentioned @ defs.T) > 0  # files × files: the importer mentions a name the other file defines
        package_imports = (sp.diags(rows) @ imports).tocsr()
        kept = (imports - package_imports + package_imports.multiply(named)).tocsr()
        kept.eliminate_zeros()
        return kept

    @staticmethod
    def _combine(
        names: _NameMatrices, imports: sp.csr_matrix, linked: sp.csr_matrix, ident_w: np.ndarray
    ) -> sp.csr_matrix:
        by_name = names.edges(ident_w, linked)
        backed = by_name.multiply(linked)
        graph = (by_name * UNIMPORTED_REF_DAMP + backed * (1 - UNIMPORTED_REF_DAMP) + imports).tocsr()
        rows = np.repeat(np.arange(graph.shape[0]), np.diff(graph.indptr))
        graph.data[graph.indices == rows] = 0.0  # a file using its own names says nothing of its importance
        graph.eliminate_zeros()
        return graph

    def _weighted(self, idents: Iterable[str]) -> tuple[sp.csr_matrix, np.ndarray]:
        mats = self._matrices()
        mentioned = [self._ident[i] for i in idents if i in self._ident]
        if not mentioned:
            return mats.graph, mats.ident_w
        ident_w = mats.ident_w.copy()
        ident_w[mentioned] *= MENTIONED_IDENT_BOOST
        return self._combine(mats.names, mats.imports, mats.linked, ident_w), ident_w

    # -- queries -------------------------------------------------------------------------------

    @_locked
    def files(self) -> list[str]:
        return sorted(self._slot)

    @_locked
    def rank(self, focus_files: Iterable[str] = (), idents: Iterable[str] = ()) -> dict[str, float]:
        """Personalized PageRank of every file; scores sum to 1."""
        scores = self._rank_vector(focus_files, tuple(idents))[0]
        return {rel: float(scores[row]) for rel, row in self._slot.items()}

    def _rank_vector(
        self, focus_files: Iterable[str], idents: tuple[str, ...]
    ) -> tuple[np.ndarray, sp.csr_matrix, np.ndarray]:
        graph, ident_w = self._weighted(idents)
        personal = self._personalization(focus_files, idents)
        start = self._last_scores if self._last_scores is not None and len(self._last_scores) == len(personal) else None
        scores = pagerank(graph, personal, start)
        self._last_scores = scores
        return scores, graph, ident_w

    def _personalization(self, focus_files: Iterable[str], idents: Iterable[str]) -> np.ndarray:
        n = len(self._rels)
        live = np.zeros(n)
        live[list(self._slot.values())] = 1.0
        personal = np.zeros(n)
        for rel in focus_files:
            if rel in self._slot:
                personal[self._slot[rel]] += FOCUS_FILE_WEIGHT
        if idents:
            defs_csc = self._matrices().defs.tocsc()
            for name in idents:
                idx = self._ident.get(name)
                if idx is None:
                    continue
                rows = defs_csc.indices[defs_csc.indptr[idx] : defs_csc.indptr[idx + 1]]
                if len(rows):
                    personal[rows] += IDENT_DEFINER_WEIGHT / len(rows)
        if not live.any():
            return live
        uniform = live / live.sum()
        if not personal.any():
            return uniform
        return (1 - BACKGROUND_WEIGHT) * personal / personal.sum() + BACKGROUND_WEIGHT * uniform

    @_locked
    def dependencies(self, rel: str) -> dict[str, float]:
        """Files whose definitions ``rel`` uses (or imports), with edge weights: a name it shares with a file of
        another language family is no use of it (``FileGraph._uses``)."""
        row = self._slot.get(rel)
        if row is None:
            return {}
        uses = self._matrices().uses
        start, end = uses.indptr[row], uses.indptr[row + 1]
        return self._named(uses.indices[start:end], uses.data[start:end])

    @_locked
    def dependents(self, rel: str) -> dict[str, float]:
        """Files that use ``rel``'s definitions (or import it), with edge weights: only files of its language
        family name its definitions (``FileGraph._uses``)."""
        row = self._slot.get(rel)
        if row is None:
            return {}
        column = self._matrices().uses[:, [row]].tocoo()
        return self._named(column.row, column.data)

    @_locked
    def dependents_count(self, rel: str) -> int:
        """``len(dependents(rel))``, counted for every file at once when the graph is built."""
        row = self._slot.get(rel)
        return 0 if row is None else int(self._matrices().dependents[row])

    def _named(self, rows: np.ndarray, weights: np.ndarray) -> dict[str, float]:
        pairs = ((self._rels[r], float(w)) for r, w in zip(rows, weights, strict=True))
        return dict(sorted(((rel, w) for rel, w in pairs if rel is not None), key=lambda p: -p[1]))

    @_locked
    def definition_scores(
        self, focus_files: Iterable[str] = (), idents: Iterable[str] = ()
    ) -> tuple[dict[str, float], list[tuple[str, str, float]]]:
        """File ranks, and (rel, name, score) for every definition, best first.

        A file's rank is split over its definitions by how much of the rank flowing into the file
        arrives through each name, so the definitions others use most come first.
        """
        idents = tuple(idents)
        ranks, graph, ident_w = self._rank_vector(focus_files, idents)
        scored = self._split_rank(ranks, graph, ident_w)
        coo = scored.tocoo()
        order = np.argsort(-coo.data, kind="stable")
        defs = [
            (rel, self._ident_names[coo.col[k]], float(coo.data[k]))
            for k in order
            if (rel := self._rels[coo.row[k]]) is not None
        ]
        file_ranks = {rel: float(ranks[row]) for rel, row in self._slot.items()}
        return file_ranks, defs

    def _split_rank(self, ranks: np.ndarray, graph: sp.csr_matrix, ident_w: np.ndarray) -> sp.csr_matrix:
        """files × idents: each file's rank shared over its definitions by the rank flowing in through each.

        Only references from files that import the definer count where there are any, so a
        builtin-like name (``super``, ``format``) called everywhere cannot claim its file's rank.
        """
        mats = self._matrices()
        out_weight = np.asarray(graph.sum(axis=1)).ravel()
        flow = np.divide(ranks, out_weight, out=np.zeros_like(ranks), where=out_weight > 0)
        weighted_refs = sp.diags(flow) @ mats.refs @ sp.diags(ident_w)  # files × idents
        any_ref = np.asarray(weighted_refs.sum(axis=0)).ravel()  # per ident, from every referencing file
        backed = (weighted_refs.T @ mats.linked).T.tocsr()  # files × idents, from files importing the definer
        backed_in = mats.defs.multiply(backed).tocsr()
        # files nobody imports (scripts, languages without resolved imports) fall back to name matches
        unbacked_rows = (np.asarray(backed_in.sum(axis=1)).ravel() == 0).astype(np.float64)
        inflow = backed_in + sp.diags(unbacked_rows) @ mats.names.open_defs.multiply(any_ref[np.newaxis, :])
        peak = inflow.max() if inflow.nnz else 0.0
        shares = (inflow + mats.defs * (UNREFERENCED_DEF_SHARE * peak if peak > 0 else 1.0)).tocsr()
        totals = np.asarray(shares.sum(axis=1)).ravel()
        scale = np.divide(ranks, totals, out=np.zeros_like(ranks), where=totals > 0)
        return (sp.diags(scale) @ shares).tocsr()


@dataclass(frozen=True, slots=True)
class _NameMatrices:
    """What name matches link: references against definitions, protocol items (PROTOCOL_ITEMS) kept apart."""

    refs: sp.csr_matrix  # files × idents: sqrt(reference count)
    open_defs: sp.csr_matrix  # files × idents: definitions a bare mention can reach
    protocol_defs: sp.csr_matrix  # files × idents: protocol items, reached by name only along imports

    def edges(self, ident_w: np.ndarray, linked: sp.csr_matrix) -> sp.csr_matrix:
        """files × files: reference strength through shared names weighted by ``ident_w``; a protocol item
        counts only where ``linked`` (an import path) joins the two files."""
        weighted = self.refs @ sp.diags(ident_w)
        by_name = (weighted @ self.open_defs.T).tocsr()
        if self.protocol_defs.nnz:
            by_name = (by_name + (weighted @ self.protocol_defs.T).multiply(linked)).tocsr()
        return by_name


def _without(matrix: sp.csr_matrix, part: sp.csr_matrix) -> sp.csr_matrix:
    """``matrix`` less the entries of ``part`` (a 0/1 subset of it)."""
    if not part.nnz:
        return matrix
    rest = (matrix - part).tocsr()
    rest.eliminate_zeros()
    return rest


_EMPTY_IDS = np.zeros(0, dtype=np.int64)
_EMPTY_WEIGHTS = np.zeros(0, dtype=np.float64)


class _RowStack:
    """A sparse matrix kept as one array per row (file), stacked into CSR on demand.

    Rows are sorted and unique, so the CSR is canonical without sorting. When only a few rows
    changed since the last stacking they are patched into the previous arrays (O(nnz) copies)
    instead of stacking every row again.
    """

    PATCH_MAX_ROWS = 16  # beyond this many changed rows a full restack is cheaper than patching

    def __init__(self, *, weighted: bool) -> None:
        self.rows: list[np.ndarray] = []
        self.values: list[np.ndarray] | None = [] if weighted else None
        self._flat: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # indptr, indices, data
        self._dirty: set[int] = set()

    def append(self) -> None:
        self.rows.append(_EMPTY_IDS)
        if self.values is not None:
            self.values.append(_EMPTY_WEIGHTS)
        self._flat = None

    def get(self, row: int) -> np.ndarray:
        return self.rows[row]

    def set(self, row: int, ids: np.ndarray, values: np.ndarray | None = None) -> None:
        self.rows[row] = ids
        if self.values is not None:
            self.values[row] = values if values is not None else np.ones(len(ids))
        self._dirty.add(row)

    def csr(self, ncols: int) -> sp.csr_matrix:
        if self._flat is None or len(self._dirty) > self.PATCH_MAX_ROWS:
            self._flat = self._stack()
        else:
            for row in sorted(self._dirty):
                self._flat = self._patch(self._flat, row)
        self._dirty.clear()
        indptr, indices, data = self._flat
        matrix = sp.csr_matrix((data, indices, indptr), shape=(len(self.rows), ncols))
        matrix.has_canonical_format = True
        return matrix

    def _stack(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        indptr = np.zeros(len(self.rows) + 1, dtype=np.int64)
        np.cumsum(list(map(len, self.rows)), out=indptr[1:])
        indices = np.concatenate(self.rows) if self.rows else _EMPTY_IDS
        data = np.concatenate(self.values) if self.values else np.ones(len(indices))
        return indptr, indices, data

    def _patch(
        self, flat: tuple[np.ndarray, np.ndarray, np.ndarray], row: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        indptr, indices, data = flat
        start, end = indptr[row], indptr[row + 1]
        ids = self.rows[row]
        values = self.values[row] if self.values is not None else np.ones(len(ids))
        indptr = indptr.copy()  # matrices handed out earlier keep their own arrays
        indptr[row + 1 :] += len(ids) - (end - start)
        return (
            indptr,
            np.concatenate((indices[:start], ids, indices[end:])),
            np.concatenate((data[:start], values, data[end:])),
        )


def pagerank(graph: sp.csr_matrix, personal: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Personalized PageRank by power iteration; dangling files hand their rank to ``personal``.

    ``start`` (the previous ranks) only speeds convergence; the result does not depend on it.
    """
    n = graph.shape[0]
    if n == 0 or not personal.any():
        return np.zeros(n)
    out_weight = np.asarray(graph.sum(axis=1)).ravel()
    inv = np.divide(1.0, out_weight, out=np.zeros(n), where=out_weight > 0)
    transition_t = (sp.diags(inv) @ graph).T.tocsr()
    dangling = out_weight == 0
    scores = personal.copy() if start is None or not start.any() else start / start.sum()
    for _ in range(MAX_ITERATIONS):
        leaked = scores[dangling].sum()
        new = DAMPING * (transition_t @ scores) + (DAMPING * leaked + 1 - DAMPING) * personal
        delta = np.abs(new - scores).sum()
        scores = new
        if delta < TOLERANCE:
            break
    total = scores.sum()
    return scores / total if total > 0 else scores
