"""The class a variable's own declaration says it holds, read from the text of the definition around it.

Declared or assigned a new instance, in any language: ``Element link``, ``args: &HiArgs``, ``q = httpx.QueryParams(…)``,
``x = new Foo(…)`` (``DECLARED_AS``), or a field the file declares (``FIELD_DECLARED``). In Rust and Go, constructed in
a way the code plainly says (``nearest_binding`` reads the statement, ``returned_type`` what the function it calls
declares it returns):

- Rust ``let x = Foo { … }``, ``let x = Foo::new(…)`` (``-> Self``/``-> Foo``; ``-> Result<Self, E>`` or
  ``-> Option<Foo>`` only with ``?``, ``.unwrap()`` or ``.expect(…)`` after the call), ``let x = y.method(…)`` and
  ``let x = function(…)`` on the same terms; ``Foo::default()`` is a Foo by the ``Default`` trait;
- Go ``x := &Foo{…}``, ``var x *Foo``, ``x := pkg.NewFoo(…)`` or ``x, err := NewFoo(…)``
  (``func NewFoo() (*Foo, error)``).

A call that returns a generic or a trait object (``-> impl Iterator``, ``-> Box<dyn …>``, ``-> T``), anything chained
after the call, or a call whose definition is not one, says nothing: a wrong class is worse than none.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from forewarn.indexing.std_paths import STD_CRATES

# a variable declared with a class (``Element link`` before ``=``, ``:``, ``;``, ``,``, ``)``; ``link: Element``) or
# assigned one's instance (``link = Element(…)``, ``= new Element(…)``),
# filled with the variable's escaped name: a capitalised type only, so ``return link;`` never reads as one
DECLARED_AS = (
    r"\b([A-Z][\w$]*)(?:<[^;(){{}}=]*>)?(?:\[\])*\s+{0}\s*[:=;,)]"
    r"|(?<![\w$.]){0}\s*:\s*(?:&(?:'\w+\s+)?(?:mut\s+)?)?([A-Z][\w$]*)"  # Rust's `args: &HiArgs`, `&'a mut T`
    r"|(?<![\w$.]){0}\s*=\s*(?:new\s+)?(?:[\w$]+\.)*([A-Z][\w$]*)\s*\("  # constructed: `q = httpx.QueryParams(…)`
)
# a name declared with a class anywhere in a file (a struct's or class's field): ``ig_root: Ignore,``, ``Ignore ig;``
FIELD_DECLARED = re.compile(
    r"(?<![\w$.])(?P<name1>[a-z_][\w$]*)\s*:\s*(?P<type1>[A-Z][\w$]*)\b(?!\s*::)"
    r"|\b(?P<type2>[A-Z][\w$]*)(?:<[^;(){}=]*>)?\s+(?P<name2>[a-z_][\w$]*)\s*[;=]"
)
# … or, in Java, a primitive (``int value = …;``): what picks ``value(long)`` over ``value(double)``
PRIMITIVE_DECLARED = r"(?<![\w$.])(byte|short|int|long|float|double|boolean|char)\s+{0}\s*[=;,)]"
PRIMITIVE_LANGUAGES = frozenset({"java"})
CONSTRUCTED_LANGUAGES = frozenset({"rust", "go"})  # where ``nearest_binding`` reads a variable's binding statement

# where a statement binds the variable (filled with its escaped name); a binding it cannot read still hides earlier ones
RUST_BINDS = (
    r"\blet\s+(?:mut\s+)?{0}\b\s*(?P<eq>=)?(?!=)"  # `let mut x = …`; `let x: T` is DECLARED_AS's
    r"|\blet\s*\((?:[^()=]*[(,\s])?(?:mut\s+)?{0}\s*[,)]"  # `let (a, x) = …`
    r"|\bfor\s+(?:mut\s+)?{0}\s+in\b"
    r"|\b(?:Some|Ok|Err)\(\s*(?:mut\s+|ref\s+)?{0}\s*\)"  # `if let Some(x) = …`, a match arm
)
GO_BINDS = (
    r"(?<![\w.])(?P<names>(?:\w+\s*,\s*)*{0}(?:\s*,\s*\w+)*)\s*(?P<eq>:=)"  # `x := …`, `x, err := …`, range
    r"|\bvar\s+{0}\s+(?P<var>\*?(?:\w+\.)?[A-Z]\w*)\s*(?:$|[;\n}}=])"  # `var x *Foo`
    r"|\bvar\s+{0}\b"
)
_PATH = r"(?:[A-Za-z_]\w*::)*"
# `Foo { … }`, `crate::Foo { … }`: not `Enum::Variant { … }` (a variant, not the class), nor `Self { … }`
RUST_LITERAL = re.compile(r"\s*&?(?:mut\s+)?(?:[a-z_]\w*::)*(?!Self\b)(?P<type>[A-Z]\w*)\s*\{")
RUST_ASSOCIATED = re.compile(rf"\s*(?P<path>{_PATH})(?P<owner>[A-Z]\w*)(?:::<[^>;]*>)?::(?P<function>[a-z_]\w*)\s*\(")
RUST_METHOD = re.compile(r"\s*(?P<receiver>[a-z_]\w*)\s*\.\s*(?P<function>[a-z_]\w*)\s*(?:::<[^>;]*>)?\s*\(")
RUST_FUNCTION = re.compile(rf"\s*(?P<path>{_PATH})(?P<function>[a-z_]\w*)\s*\(")
RUST_UNWRAPS = re.compile(r"\s*(?:\?|\.\s*unwrap\s*\(\s*\)|\.\s*expect\s*\()")  # `?`, `.unwrap()`, `.expect(…)`
GO_LITERAL = re.compile(r"\s*&?(?:\w+\.)?(?P<type>[A-Z]\w*)\s*\{")  # `&Foo{…}`, `pkg.Foo{…}`
GO_FUNCTION = re.compile(r"\s*(?:(?P<package>[a-z_]\w*)\.)?(?P<function>[A-Za-z_]\w*)\s*\(")
SAME_CLASS_METHODS = frozenset({"clone", "to_owned"})  # `let x = y.clone();` holds what y holds
RUST_WRAPPERS = frozenset({"Result", "Option"})  # what `?`, `.unwrap()` and `.expect(…)` take the value out of
TYPE_KINDS = frozenset({"class", "struct", "enum", "union", "interface", "trait", "type"})  # a class the index defines
Resolve = Callable[[str, str | None, str | None], tuple[str, tuple[str, ...]] | None]  # (name, receiver, path root)
RUST_PATH_SEGMENT = re.compile(r"(?:[A-Za-z_]\w*::)*([A-Z]\w*)(?:<.*>)?", re.DOTALL)


UNSAID = "?"  # what ``declared_in`` answers when the definition's text says nothing of the variable
# a declared type whose methods are its argument's (``x: Optional[Foo]``, ``p: Partial<Foo>``, ``b: Box<dyn Sink>``):
# it says nothing itself
TYPE_WRAPPERS = frozenset(
    {"Optional", "Union", "Annotated", "Final", "ClassVar", "Readonly", "Partial", "Required", "Box", "Rc", "Arc"}
)
# an object literal bound to a name: `const objectTraps: ProxyHandler<S> = {`, `traps: {`
OBJECT_LITERAL = re.compile(
    r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*(?::[^=\n{]*)?=\s*\{"  # `const traps: Handler<S> = {`
    r"|(?<![\w$.])([A-Za-z_$][\w$]*)\s*:\s*\{"  # `traps: {`, nested in another literal
)


def declared_in(
    lines: Sequence[str],
    variable: str,
    language: str,
    rel: str,
    definitions: Callable[[str], Sequence[Any]],
    resolve: Resolve | None,
) -> str:
    """The class ``lines`` (a definition's, up to the use on the last line) declare ``variable`` with, the nearest
    declaration winning: ``DECLARED_AS``, or in Rust and Go a binding ``constructed_type`` reads (a binding on the
    use's own line, ``let x = x.iter();``, is not yet in force) or ``let x = y.clone();`` (y's). ``UNSAID`` when
    nothing declares it or the nearest binding says nothing (the caller's other rules apply)."""
    window = "\n".join(lines)
    found = [(m.start(), m[1] or m[2] or m[3]) for m in re.finditer(DECLARED_AS.format(re.escape(variable)), window)]
    if language in PRIMITIVE_LANGUAGES:
        found += [(m.start(), m[1]) for m in re.finditer(PRIMITIVE_DECLARED.format(re.escape(variable)), window)]
        found.sort()
    if language in CONSTRUCTED_LANGUAGES:
        bound = nearest_binding(window[: len(window) - len(lines[-1])], variable, language)
        if bound is not None and (not found or bound.at > found[-1][0]):  # it hides what was declared before it
            if bound.function in SAME_CLASS_METHODS and bound.receiver and resolve is not None:  # one step
                earlier = [*window[: bound.at].split("\n"), ""]
                return declared_in(earlier, bound.receiver, language, rel, definitions, None)
            return constructed_type(bound, language, rel, definitions, resolve) or UNSAID
    return found[-1][1] if found else UNSAID


@dataclass(frozen=True, slots=True)
class Bound:
    """The statement nearest before the use that binds a variable, as far as it says what it holds."""

    at: int  # its offset in the text read
    type: str | None = None  # the class written there: ``Foo { … }``, ``var x *Foo``
    owner: str | None = None  # ``Foo`` of ``Foo::new(…)``
    receiver: str | None = None  # ``y`` of ``y.method(…)``
    package: str | None = None  # ``pkg`` of Go's ``pkg.NewFoo(…)``
    function: str | None = None  # the function or method called, when the value is one call
    unwrapped: bool = False  # Rust: `?`/`.unwrap()`/`.expect(…)` follows the call
    path_root: str | None = None  # Rust: the first segment of the called path (``crate`` of ``crate::f(…)``)
    results: int = 1  # Go: the names bound (``x, err :=`` takes the first of two results)


def nearest_binding(text: str, variable: str, language: str) -> Bound | None:
    """The last statement of ``text`` that binds ``variable`` (Rust ``let``, ``for``, ``Some(x)``; Go ``:=``,
    ``var``), read as far as it plainly says what it holds; None when nothing binds it there."""
    name = re.escape(variable)
    pattern = (RUST_BINDS if language == "rust" else GO_BINDS).format(name)
    found = list(re.finditer(pattern, text, re.MULTILINE))
    if not found:
        return None
    last = found[-1]
    bound = Bound(last.start())
    if not last["eq"]:
        var = last.groupdict().get("var")
        return Bound(bound.at, type=var.lstrip("*").rpartition(".")[2]) if var else bound
    value = last.end()
    if language == "rust":
        return _rust_value(text, value, bound)
    names = [n.strip() for n in last["names"].split(",")]
    return _go_value(text, value, bound) if names[0] == variable else bound


def _rust_value(text: str, at: int, bound: Bound) -> Bound:
    if (m := RUST_LITERAL.match(text, at)) is not None:
        end = _call_end(text, m.end() - 1)
        return Bound(bound.at, type=m["type"]) if end is not None and text[end:].lstrip().startswith(";") else bound
    for pattern in (RUST_ASSOCIATED, RUST_METHOD, RUST_FUNCTION):
        if (m := pattern.match(text, at)) is None:
            continue
        end = _call_end(text, m.end() - 1)
        unwrap = RUST_UNWRAPS.match(text, end) if end is not None else None
        if unwrap is not None and unwrap.group().rstrip().endswith("("):  # `.expect(…)`: past its message
            end = _call_end(text, unwrap.end() - 1)
        elif unwrap is not None:
            end = unwrap.end()
        if end is None or not text[end:].lstrip().startswith(";"):
            return bound  # anything chained after the call (`Foo::new(p).build()`), or an unclosed call
        groups = m.groupdict()
        path = groups.get("path") or ""
        if path.split("::", 1)[0] in STD_CRATES:
            return bound  # `std::env::current_dir()?`: the standard library's
        return Bound(
            bound.at,
            owner=groups.get("owner"),
            receiver=groups.get("receiver"),
            function=m["function"],
            unwrapped=unwrap is not None,
            path_root=path.split("::", 1)[0] or None,
        )
    return bound


def _go_value(text: str, at: int, bound: Bound) -> Bound:
    names = 1 + text[bound.at : at].count(",")
    if names == 1 and (m := GO_LITERAL.match(text, at)) is not None:
        end = _call_end(text, m.end() - 1)
        return Bound(bound.at, type=m["type"]) if end is not None and _statement_ends(text, end) else bound
    if (m := GO_FUNCTION.match(text, at)) is None or (end := _call_end(text, m.end() - 1)) is None:
        return bound
    if not _statement_ends(text, end):
        return bound  # chained, or an expression that goes on
    return Bound(bound.at, package=m["package"], function=m["function"], results=names)


def _statement_ends(text: str, at: int) -> bool:
    """Whether a Go statement ends at ``at``: nothing but a comment or ``;`` after it on its line."""
    rest = text[at:].split("\n", 1)[0].strip()
    return not rest or rest.startswith(("//", ";"))


def _call_end(text: str, open_paren: int) -> int | None:
    """The offset after the parenthesis closing the one at ``open_paren`` (strings and chars skipped), or None."""
    depth = 0
    k = open_paren
    quote = ""
    while k < len(text):
        ch = text[k]
        if quote:
            if ch == "\\":
                k += 1
            elif ch == quote:
                quote = ""
        elif ch in '"`':
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return None


def returned_type(signature: str, language: str, owner: str | None, unwrapped: bool, results: int = 1) -> str | None:
    """The class a function's ``signature`` says it returns, as a binding takes it: Rust ``-> Self`` (``owner``),
    ``-> Foo``, ``-> &Foo``, ``-> Result<Self, E>`` / ``Option<Foo>`` only ``unwrapped``; Go ``*Foo``, ``pkg.Foo``,
    the first of ``results`` results. None for anything else (a generic is checked by the caller: a workspace type)."""
    params = _parameters_at(signature)
    if language == "go" and signature.startswith("func (") and (receiver := _call_end(signature, params)) is not None:
        params = signature.find("(", receiver)  # a method's receiver comes first: `func (f *Foo) Run() *Bar`
    close = _call_end(signature, params) if params >= 0 else None
    if close is None:
        return None
    rest = signature[close:].strip()
    if language == "rust":
        return _rust_returned(rest, owner, unwrapped)
    if results > 1 or rest.startswith("("):
        inner = rest[1:-1] if rest.startswith("(") and rest.endswith(")") else None
        parts = [p.strip() for p in inner.split(",")] if inner is not None and "(" not in inner else []
        if len(parts) != results or not parts:
            return None
        rest = parts[0].split()[-1] if parts[0] else ""
    match = re.fullmatch(r"\*?(?:\w+\.)?([A-Z]\w*)", rest)
    return match.group(1) if match else None


def _parameters_at(signature: str) -> int:
    """Where a signature's parameter list opens: the first ``(`` outside its generics (``<F: Fn(u8) -> u8>``)."""
    depth = 0
    for k, ch in enumerate(signature):
        if ch == "<":
            depth += 1
        elif ch == ">" and signature[k - 1] != "-":
            depth -= 1
        elif ch == "(" and depth == 0:
            return k
    return -1


def _rust_returned(rest: str, owner: str | None, unwrapped: bool) -> str | None:
    if not rest.startswith("->"):
        return None
    kind = re.split(r"\bwhere\b", rest[2:], maxsplit=1)[0].strip()
    if unwrapped:
        wrapper = re.fullmatch(rf"{_PATH}(\w+)\s*<(.*)>", kind, re.DOTALL)
        if wrapper is None or wrapper.group(1) not in RUST_WRAPPERS:
            return None
        kind = _first_argument(wrapper.group(2))
    kind = re.sub(r"^&\s*(?:'\w+\s+)?(?:mut\s+)?", "", kind)
    plain = RUST_PATH_SEGMENT.fullmatch(kind)
    if plain is None or re.search(r"\b(?:dyn|impl)\b", kind) or plain.group(1) in RUST_WRAPPERS:
        return None  # `impl Iterator`, `Box<dyn …>`, `Vec<Foo>`, a Result kept whole
    return owner if plain.group(1) == "Self" else plain.group(1)


def _first_argument(arguments: str) -> str:
    """``Self`` of ``Self, io::Error``; a generic's own arguments stay whole."""
    depth = 0
    for k, ch in enumerate(arguments):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            return arguments[:k].strip()
    return arguments.strip()


def constructed_type(
    bound: Bound,
    language: str,
    rel: str,
    definitions: Callable[[str], Sequence[Any]],
    resolve: Resolve | None,
) -> str | None:
    """The class ``bound`` plainly gives its variable: one written there, or the one every definition of the function
    it calls declares it returns (``definitions``: the index's definitions of a name; ``resolve``: the hover's
    resolution of a call, None to read no method's or free function's return: one step only). None when in doubt."""
    if bound.type is not None or bound.function is None:
        return bound.type
    signatures: list[tuple[str, str | None]]
    if bound.owner is not None:  # `Foo::new(…)`: Foo's own associated function
        defs = [d for d in definitions(bound.function) if class_of(d.symbol) == bound.owner]
        if not defs:  # `Foo::default()` derived: the Default trait returns Self
            return bound.owner if bound.function == "default" and is_type(bound.owner, definitions) else None
        signatures = [(d.signature, bound.owner) for d in defs]
    elif language == "go":  # `NewFoo(…)` of this package, `pkg.NewFoo(…)` of the folder so named
        folder = bound.package if bound.package else posixpath.dirname(rel)
        in_folder = posixpath.basename if bound.package else str
        signatures = [
            (d.signature, None)
            for d in definitions(bound.function)
            if d.category == "function"
            and "." not in d.symbol
            and in_folder(posixpath.dirname(d.rel)) == folder
        ]  # fmt: skip
    else:  # `y.method(…)`, `function(…)`: the definition a hover on its name finds
        found = resolve(bound.function, bound.receiver, bound.path_root) if resolve is not None else None
        if found is None:
            return None
        signatures = [
            (d.signature, class_of(d.symbol) or None)
            for d in definitions(bound.function)
            if d.rel == found[0] and d.symbol in found[1]
        ]
    kinds = {returned_type(sig, language, owner, bound.unwrapped, bound.results) for sig, owner in signatures}
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind is not None and is_type(kind, definitions) else None  # `-> T`: a generic is no class


def field_types(text: str) -> dict[str, str | None]:
    """The names ``text`` declares with a class (``ig_root: Ignore``, ``private Ignore igRoot;``) anywhere, each with
    its class when every declaration of it agrees (None when they do not)."""
    found: dict[str, str | None] = {}
    for m in FIELD_DECLARED.finditer(text):
        name, kind = (m["name1"], m["type1"]) if m["name1"] else (m["name2"], m["type2"])
        found[name] = kind if found.get(name, kind) == kind else None
    return found


def is_type(name: str, definitions: Callable[[str], Sequence[Any]]) -> bool:
    """Whether the index defines a class (struct, enum, trait, …) named ``name``."""
    return any(d.category in TYPE_KINDS for d in definitions(name))


def class_of(symbol: str) -> str:
    """The class a member's symbol path names: ``Node`` of ``a.Node.before``; "" for a top-level one."""
    parts = symbol.split(".")
    return parts[-2] if len(parts) > 1 else ""


def names_no_class(kind: str, definitions: Callable[[str], Sequence[Any]]) -> bool:
    """Whether a declared type is a name the workspace defines nothing by: a generic parameter (``stdout: W`` with
    ``W: Write``) or a library's type (``Map``, ``String``, Go's ``strings.NewReader(…)``). A method called on such
    a value is none of the workspace's. ``Self``, the wrappers of ``TYPE_WRAPPERS`` and a name the workspace defines
    as anything (a class, or a function ``DECLARED_AS`` took for one: Go's ``x = pkg.NewFoo(…)``) say nothing of it
    (False): the hover's other steps decide."""
    if kind == "Self" or kind in TYPE_WRAPPERS:
        return False
    return not definitions(kind)


def holding_object(text: str, line: int) -> str | None:
    """The name of the object literal ``text`` binds last before ``line`` (1-based: where a method written in it
    starts, a symbol with no class), ``objectTraps`` of ``const objectTraps = { … set(…) {`` : the object that
    method is called through. None when no object literal is bound before it."""
    before = "\n".join(text.split("\n", line - 1)[: line - 1])
    found = None
    for m in OBJECT_LITERAL.finditer(before):
        found = m[1] or m[2]
    return found
