"""What the text of a call says: the receiver before its name, and which of a file's same-named overloads it
can mean, read from its arguments.

A call is matched to overloads by its argument count, when the overloads' parameter counts tell them apart
(``before(a)`` is not ``before(a, b)``); a parameter with a default value, an optional one (``x?: T``) or a
variadic one (``String... parts``, ``*args``) makes a count a minimum, not exact. When the count leaves several, a
string literal argument keeps those whose parameter there is declared a string (``before("<p>")`` is
``before(String html)``, not ``before(Node node)``), as Java, C++ and Kotlin pick the most specific overload; then
a variable passed whose class the code around the call declares keeps the overloads declared with that very class
(``String html`` … ``before(html)``; a subclass or an interface tells nothing: all kept).
Anything unread (no argument list, a spread argument ``f(*xs)``, an unbalanced text, a declaration not found)
keeps every overload: a use is never narrowed on a guess.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from forewarn.indexing.languages import language_for_path
from forewarn.indexing.lookup import SUPER
from forewarn.workspace.text_positions import is_word

CALL_SCAN_CHARS = 4_000  # an argument list longer than this is left unread (all overloads kept)
CALL_LINES = 60  # lines after a hovered call read for its arguments (a longer list is left unread)
HASH_COMMENT_LANGUAGES = frozenset({"python", "ruby", "bash", "elixir", "r", "perl"})  # ``#`` starts a comment
DECLARATION_SCAN_CHARS = 8_000  # a definition's chunk declares it within this many characters (doc comment included)
SLASH_MARKS = re.compile(r"[/\"'`]")  # where a comment or a string may start (C-like languages)…
HASH_MARKS = re.compile(r"[#\"'`]")  # …and in Python, Ruby, shell
OPENERS = {"(": ")", "[": "]", "{": "}"}
QUOTE_CHARS = "\"'`"
# a generic's type arguments after a name (``Map<String, Node>``): type-like text only, so ``a < b, c > d`` is two
GENERIC_ARGS = re.compile(r"<[\w\s,.?&*:\[\]<>]*?>(?=[\s\w(),>\[\].:&*]|$)")
SPREAD = re.compile(r"^(?:\*{1,2}|\.\.\.)\s*[\w(\[]")  # ``*args``, ``**kw``, ``...rest`` passed along: count unknown
KEYWORD_ARGUMENT = re.compile(r"^[A-Za-z_]\w*\s*(?:=(?!=)|:(?!:))")  # ``key="x"`` (Python, Kotlin), ``key: "x"`` (C#)
KEYWORD_LAMBDA = re.compile(r"^(?:[A-Za-z_]\w*\s*=\s*)?lambda\b[^:]*$")  # a Python lambda still in its parameters
# a string literal argument (not bytes ``b"…"``, not a wide ``L"…"``; one quoted character is Java's or C's char)
STRING_LITERAL = re.compile(r'^[rRuUfF@$]{0,2}"(?:[^"\\]|\\.)*"$|^[rRuUfF]{0,2}\'(?:[^\'\\]|\\.){2,}\'$')
# a parameter's type that a string literal is (Java/C#/Kotlin ``String``, C++ ``std::string``/``const char*``, Python
# ``str``, TS ``string``), searched in the declared type alone (its name and type arguments left out)
STRING_TYPE = re.compile(r"\b(?:String|string|str|std::string|string_view|wstring)\b|\bchar\s*\*")
RECEIVER_PARAMS = frozenset({"self", "cls", "&self", "&mut self", "mut self", "this"})  # not passed in the call
MEMBER_SEPARATOR_TEXTS = ("?.", "->", "::", ".")  # lookup.MEMBER_SEPARATORS, longest first for a text scan
NO_PARAMS = frozenset({"", "void"})  # ``f()``, C's ``f(void)``
VARIABLE = re.compile(r"[A-Za-z_$][\w$]*")  # an argument that is a variable's name alone
PARAM_MODIFIERS = frozenset({"final", "const", "in", "out", "ref", "readonly", "mut", "volatile", "struct"})


@dataclass(frozen=True, slots=True)
class Params:
    """A definition's parameters as a call must fill them: at least ``least``, at most ``most`` (None: no limit)."""

    least: int
    most: int | None
    declared: tuple[str, ...]  # each parameter's declaration text, in order
    classes: tuple[str | None, ...] = ()  # each parameter's class (``_param_class``), in order
    strings: tuple[bool, ...] = ()  # whether each takes a string literal (``_takes_string``), in order

    def takes(self, count: int) -> bool:
        return self.least <= count and (self.most is None or count <= self.most)


def overloads_called(
    overloads: Mapping[str, Params | None],
    text: str,
    end: int,
    language: str,
    argument_type: Callable[[str], str | None] | None = None,
) -> frozenset[str] | None:
    """``called_overloads`` for the call whose name ends at ``end`` of ``text``, in a file of ``language``."""
    arguments = call_arguments(text, end, language in HASH_COMMENT_LANGUAGES)
    return called_overloads(overloads, arguments, argument_type)


def declared_params(chunk: object, symbol: str, rel: str) -> Params | None:
    """``parameters`` of ``symbol`` (``Node.before#2``) as its chunk (the index's, of file ``rel``) declares it."""
    text = str(getattr(chunk, "text", "") or "")
    path = re.sub(r"#\d+$", "", symbol)
    spec = language_for_path(rel)
    hashes = spec is not None and spec.name in HASH_COMMENT_LANGUAGES
    return parameters(text, path.rsplit(".", 1)[-1], "." in path, hashes) if text else None


def called_at(text: str, end: int) -> bool:
    """Whether the name ending at ``end`` is called: ``(`` follows, spaces aside."""
    while end < len(text) and text[end] in " \t":
        end += 1
    return end < len(text) and text[end] == "("


def call_arguments(text: str, end: int, hash_comments: bool = False) -> list[str] | None:
    """The arguments of the call whose name ends at ``end`` in ``text``, each stripped; None when no argument
    list follows (not a call: a reference, an assignment) or it cannot be read to its close."""
    pos = _skip_space(text, end)
    if text.startswith("::", pos):  # Rust's turbofish ``f::<T>(``
        pos = _skip_space(text, pos + 2)
    if pos < len(text) and text[pos] == "<":  # ``make<T>(`` (C++, TS)
        generic = GENERIC_ARGS.match(text, pos)
        pos = _skip_space(text, generic.end()) if generic else pos
    if pos >= len(text) or text[pos] != "(":
        return None
    return split_list(text, pos, hash_comments)


def split_list(text: str, open_at: int, hash_comments: bool = False) -> list[str] | None:
    """The top-level comma-separated items of the parenthesised list opening at ``open_at`` (nested brackets,
    strings, comments, generics and Python lambdas minded); [] for ``()``; None when it does not close soon."""
    items: list[str] = []
    piece: list[str] = []
    closers: list[str] = []
    pos, stop = open_at + 1, min(len(text), open_at + CALL_SCAN_CHARS)
    while pos < stop:
        ch = text[pos]
        skipped = _skip_quoted_or_comment(text, pos, hash_comments)
        if skipped is not None:
            piece.append(" " if text[pos] in "/#" else text[pos:skipped])
            pos = skipped
            continue
        if ch in OPENERS:
            closers.append(OPENERS[ch])
        elif ch in ")]}":
            if not closers:
                if ch != ")":
                    return None
                items.append("".join(piece).strip())
                return [] if items == [""] else items
            if closers.pop() != ch:
                return None
        elif ch == "<" and pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] in "_$"):
            generic = GENERIC_ARGS.match(text, pos)
            if generic is not None:
                piece.append(generic.group())
                pos = generic.end()
                continue
        elif ch == "," and not closers and not KEYWORD_LAMBDA.match("".join(piece).strip()):
            items.append("".join(piece).strip())
            piece = []
            pos += 1
            continue
        piece.append(ch)
        pos += 1
    return None


def parameters(declaration: str, name: str, method: bool, hash_comments: bool = False) -> Params | None:
    """The parameters of the definition of ``name`` in ``declaration`` (its chunk's text: comments and
    annotations before it are skipped), None when no parameter list is found. ``method``: a receiver parameter
    (``self``, Rust's ``&self``) comes first and is not counted."""
    code = _without_comments(declaration, hash_comments)
    named = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", code)  # the declaration names it first
    found = re.compile(r"\s*(?:<[^()]*?>\s*)?\(").match(code, named.end()) if named else None
    if found is None:  # Ruby's ``def m a, b``; a decorator ``@m.register``: not read
        return None
    items = split_list(code, found.end() - 1, hash_comments)
    if items is None:
        return None
    if items and items[0] in NO_PARAMS:
        items = []
    if method and items and (items[0] in RECEIVER_PARAMS or items[0].split(":")[0].strip() in RECEIVER_PARAMS):
        items = items[1:]
    items = [p for p in items if p not in ("*", "/")]  # Python's keyword-only and positional-only markers
    variadic = any(_variadic(p) for p in items)
    optional = sum(1 for p in items if _optional(p))
    required = len(items) - optional - sum(1 for p in items if _variadic(p))
    classes, strings = tuple(map(_param_class, items)), tuple(map(_takes_string, items))
    return Params(required, None if variadic else len(items), tuple(items), classes, strings)


def called_overloads(
    overloads: Mapping[str, Params | None],
    arguments: Sequence[str] | None,
    argument_type: Callable[[str], str | None] | None = None,
) -> frozenset[str] | None:
    """The symbols of ``overloads`` a call with ``arguments`` can mean; None when the call does not tell them
    apart (all fit, none fits, or its arguments are unread), which means every one of them. ``argument_type``
    names the class a variable passed as an argument is declared with where the call is (None: not declared so)."""
    if arguments is None or len(overloads) < 2 or any(SPREAD.match(a) for a in arguments):
        return None
    fitting = {s: p for s, p in overloads.items() if p is None or p.takes(len(arguments))}
    positional = list(itertools.takewhile(lambda a: not KEYWORD_ARGUMENT.match(a), arguments))
    literal_at = [i for i, a in enumerate(positional) if STRING_LITERAL.match(a)]
    if len(fitting) > 1 and literal_at:
        strings: dict[str, Params | None] = {
            s: p
            for s, p in fitting.items()
            if p is not None and all(i < len(p.strings) and p.strings[i] for i in literal_at)
        }
        fitting = strings or fitting
    if len(fitting) > 1 and argument_type is not None:
        fitting = _declared_alike(fitting, positional, argument_type) or fitting
    if not fitting or len(fitting) == len(overloads):
        return None
    return frozenset(fitting)


def _declared_alike(
    fitting: Mapping[str, Params | None], positional: Sequence[str], argument_type: Callable[[str], str | None]
) -> dict[str, Params | None]:
    """Those of ``fitting`` whose parameters are declared with the very classes the variables passed to them are
    (``before(html)`` where ``String html`` is declared: ``before(String html)``, not ``before(Node node)``); {}
    when no variable's class is known, or no overload takes them all as declared (a subclass, an interface: kept)."""
    typed = {i: t for i, a in enumerate(positional) if VARIABLE.fullmatch(a) and (t := argument_type(a))}
    if not typed:
        return {}
    costs = {
        s: sum(_widening(t, p.classes[i] if i < len(p.classes) else None) for i, t in typed.items())
        for s, p in fitting.items()
        if p is not None
    }
    least = min(costs.values(), default=math.inf)
    return {s: fitting[s] for s, cost in costs.items() if cost == least} if least < math.inf else {}


# Java's widening of a primitive argument, nearest first: an ``int`` passed picks ``value(long)`` over ``value(float)``
# and ``value(double)`` (the most specific that takes it), never ``value(boolean)``
WIDENS_TO = {
    "byte": ("short", "int", "long", "float", "double"),
    "short": ("int", "long", "float", "double"),
    "char": ("int", "long", "float", "double"),
    "int": ("long", "float", "double"),
    "long": ("float", "double"),
    "float": ("double",),
}


def _widening(argument: str, param: str | None) -> float:
    """How far a parameter declared ``param`` is from an argument declared ``argument``: 0 the same class, then each
    step of primitive widening; infinite when it does not take it as declared (a subclass, an interface: unknown)."""
    if param == argument:
        return 0
    wider = WIDENS_TO.get(argument, ())
    return wider.index(param) + 1 if param in wider else math.inf


def _param_class(param: str) -> str | None:
    """The class a parameter is declared with, without its package, type arguments, modifiers or name:
    ``final java.lang.String html`` and ``html: String`` are ``String``; None for a parameter without a type."""
    declared = _declared_part(param)
    words = [w for w in re.findall(r"[A-Za-z_$][\w$.]*", declared) if w not in PARAM_MODIFIERS]
    return words[-1].rsplit(".", 1)[-1] if words and not declared.rstrip().endswith(("]", "...")) else None


def _variadic(param: str) -> bool:
    """``*args``, ``**kw``, ``...rest``, ``String... parts``, Kotlin's ``vararg``, C#'s ``params``."""
    return param.startswith(("*", "...")) or "..." in param or bool(re.match(r"(?:vararg|params)\s", param))


def _takes_string(param: str) -> bool:
    """Whether ``param`` is declared with a string type (not an array or a container of strings), or with none
    (Python's ``def refund(x)`` under its ``@overload`` stubs)."""
    declared = _declared_part(param)
    if not declared.strip():
        return True
    return "[" not in declared and STRING_TYPE.search(declared) is not None


def _declared_part(param: str) -> str:
    """A parameter's declared type as written, without its type arguments, default value or name: ``html: str``
    (Python, TS, Kotlin, Rust) and ``final String html`` (Java, C++, C#) give ``str`` and ``final String``; ""
    for an untyped one."""
    head = GENERIC_ARGS.sub("", param).split("=")[0].strip()
    named_first = re.match(r"^\s*[\w$]+\??\s*:(?!:)\s*(.*)$", head)
    return named_first.group(1) if named_first else re.sub(r"[\w$]+\s*$", "", head)


def _optional(param: str) -> bool:
    """A parameter a call may leave out: a default value (``b = 1``, ``b: int = 1``), TypeScript's ``b?: T``, a
    Ruby block ``&block``."""
    head = GENERIC_ARGS.sub("", param)
    return (
        "=" in head.replace("==", "").replace("=>", "")
        or bool(re.match(r"^[\w$]+\?\s*:", head))
        or (head.startswith("&") and not head.startswith("&&"))
    )


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _skip_quoted_or_comment(text: str, pos: int, hash_comments: bool) -> int | None:
    """The position after the string or comment starting at ``pos``, or None when none starts there."""
    ch = text[pos]
    if (hash_comments and ch == "#") or (not hash_comments and text.startswith("//", pos)):  # Python's ``//`` divides
        newline = text.find("\n", pos)
        return len(text) if newline < 0 else newline
    if not hash_comments and text.startswith("/*", pos):
        close = text.find("*/", pos + 2)
        return len(text) if close < 0 else close + 2
    if ch not in QUOTE_CHARS or (ch == "'" and pos > 0 and text[pos - 1] == "&"):
        return None  # Rust's lifetime (``&'a str``) opens no string
    triple = ch * 3
    if text.startswith(triple, pos):
        close = text.find(triple, pos + 3)
        return len(text) if close < 0 else close + 3
    i = pos + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == ch:
            return i + 1
        if text[i] == "\n" and ch != "`":
            return i  # an unclosed quote ends at its line
        i += 1
    return len(text)


def _without_comments(text: str, hash_comments: bool) -> str:
    """The head of ``text`` with its comments blanked (strings kept): a doc comment naming ``before(String)`` is no
    declaration."""
    head = text[:DECLARATION_SCAN_CHARS]
    marks = HASH_MARKS if hash_comments else SLASH_MARKS
    out: list[str] = []
    pos = 0
    while (mark := marks.search(head, pos)) is not None:  # jump between the characters that may open one
        start = mark.start()
        end = _skip_quoted_or_comment(head, start, hash_comments)
        if end is None:
            out.append(head[pos : start + 1])
            pos = start + 1
            continue
        out.append(head[pos:start])
        out.append(head[start:end] if head[start] in QUOTE_CHARS else " ")
        pos = max(end, start + 1)
    out.append(head[pos:])
    return "".join(out)


def receiver_before(text: str, pos: int) -> str | None:
    """The name before a member separator ending at ``pos`` (``invoice`` in ``invoice.total``), "" when a
    separator follows something else (``Pool().connect``: a member of something unnamed), None for no separator."""
    for sep in MEMBER_SEPARATOR_TEXTS:
        if pos >= len(sep) and text.startswith(sep, pos - len(sep)):
            end = pos - len(sep)
            begin = end
            while begin > 0 and is_word(text[begin - 1]):
                begin -= 1
            name = text[begin:end]
            called = end - len(SUPER) - 2
            if not name and text.endswith(f"{SUPER}()", 0, end) and (called == 0 or not is_word(text[called - 1])):
                return SUPER  # Python's super().m()
            return name if name and not name[0].isdigit() else ""
    return None
