"""TypeScript code less what only the type checker reads: a pure text transform, for mining's logic lines.

Parameter, return, variable and member types, generic type parameters and arguments, ``as T``, ``satisfies T``,
``implements T``, the optional ``?:`` and the non-null ``!`` are stripped from a run of lines at once (a
signature's types span lines): "Fix areIntervalsOverlapping types", which only dropped ``<DateType extends Date>``
and ``Interval<DateType>``, changed no logic (QA pass 4, Q2). Only what looks like a type goes (_NOT_A_TYPE), and
only where a type can stand: a value changed beside a type still counts, and an object literal's ``key: value``
is no annotation.
"""

from __future__ import annotations

import re
from functools import lru_cache

TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
TS_TYPE_ARGS_CHARS = 2_000  # a ``<…>`` longer than this is no type list (a comparison that never closes): stop
TS_STRIPPED_CACHE = 4_096  # texts stripped, kept: one change's lines are counted, sampled and weighed in turn

# a type's text (its strings blanked) never holds these: an operator, a call, a keyword that does something
_NOT_A_TYPE = re.compile(
    r"&&|\|\||[=!]==?|[+*/%!]|-(?!\d)|\?\.|\b(new|return|await|yield|delete|throw|function)\b|\bthis\."
    r"|(?<![\w$.])(?!import\()[\w$][\w$.]*\("
)
_STRING_LITERAL = re.compile(r"\"(\\.|[^\"\\\n])*\"|'(\\.|[^'\\\n])*'|`(\\.|[^`\\])*`")
_CODE_COMMENT = re.compile(r"//[^\n]*|/\*[\s\S]*?(\*/|$)")
# what stands before an annotation's ``:``, by the bracket it is in: a parameter (destructured too), a class or
# interface member, a variable. An object literal's key, a label or a ``case`` is none of these
_TS_PARAM = re.compile(r"\s*((public|private|protected|readonly|override)\s+)*(\.\.\.)?([\w$]+|[{\[][\s\S]*[}\]])\s*")
_TS_MEMBER = re.compile(
    r"\s*((public|private|protected|readonly|static|declare|override|abstract|accessor)\s+)*"
    r"(#?[\w$]+|\[[^\]]*\]|\"[^\"]*\"|'[^']*')\s*"
)
_TS_VARIABLE = re.compile(r"\s*(export\s+)?(declare\s+)?(const|let|var|using)\s+[\w$]+\s*")
_TS_SPECIAL = frozenset("\"'`/\n<!?:()[]{},;")  # what the type stripper looks at; the rest it copies in runs
_TS_PLAIN = re.compile(r"[^\"'`/\n<!?:()\[\]{},;]+")
_TS_CAST_AHEAD = re.compile(r"(?<=\s)(as|satisfies|implements)\s")
_TS_MAYBE_TYPED = re.compile(r"[:<!]|\s(as|satisfies|implements|extends)\s")  # code with none of these has no types
_TS_TYPE_PARAMETER_LINE = re.compile(r"[ \t]*[\w$]+[ \t]+extends[ \t]+(.+?)[ \t]*,?[ \t]*")
_TS_LONE_NAME = re.compile(r"\s*[\w$]+\s*")
# what a value never holds but a type may: a primitive type's name, a type operator, type arguments, an array type,
# a mapped type's key
_TS_TYPE_WORD = re.compile(
    r"\b(string|number|boolean|unknown|any|never|object|bigint|symbol|keyof|infer|extends|readonly)\b"
    r"|[\w$]<|[\w$\]]\[\]|\[[\w$]+ in "
)
_TS_CAST = re.compile(r"(as|satisfies|implements)\s+(?=[\w$({\[\"'`])")
_TS_CAST_END = re.compile(r"\s(as|satisfies)\s")
_TS_NAMES = re.compile(r"\s*(import|export)(\s+type)?(\s+[\w$]+\s*,)?\s*")  # ``export { a as b }``: renames, no casts
_TS_CLASS_OR_INTERFACE = re.compile(r"\b(class|interface)\s+[\w$]+[^{;]*$")
_TS_KEYWORD_BEFORE = re.compile(r"\b(return|typeof|yield|await|case|in|of|void|throw|delete|instanceof)$")
_TS_REGEX_BEFORE = re.compile(r"(^|[(,=:\[!&|?{};]|\breturn)\s*$")
_TS_ARROW_BEFORE = re.compile(r"(=|\(|,|\basync)\s*$")
_TS_ARROW_PARAMS = re.compile(r"\s*\(")
_TSX_GENERICS = re.compile(r"\bextends\b|,\s*$")
_TS_EXPRESSION_END = re.compile(r"[\w$)\]}\"'`]\s*$")
_TS_AFTER_TYPE_ARGS = re.compile(r"\s*([(),;{}\[\]>|&`]|$)|[ \t]*\n|\s+(=(?!=)|extends\b|implements\b)")


def is_typescript(path: str) -> bool:
    return path.endswith(TS_SUFFIXES)


def _blank(text: str) -> str:
    return _STRING_LITERAL.sub('""', text)


def _looks_like_type(text: str) -> bool:
    blank = _blank(text)
    return bool(blank.strip()) and not _NOT_A_TYPE.search(blank)


def _literal_end(text: str, i: int) -> int:
    """The index after the string, template or regular expression literal opening at ``i`` (a line at most, but a
    template)."""
    quote, j, in_class = text[i], i + 1, False
    while j < len(text):
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "\n" and quote != "`":
            return j
        if quote == "/" and ch in "[]":
            in_class = ch == "["
        elif ch == quote and not in_class:
            return j + 1
        j += 1
    return len(text)


def _continues(text: str, start: int, newline: int) -> bool:
    """A type broken over lines goes on after this newline: nothing yet, a dangling ``|``/``&``, or a leading one."""
    before = text[start:newline].strip()
    return not before or before.endswith(("|", "&", "=>", ":")) or text[newline:].lstrip().startswith(("|", "&"))


def _type_end(text: str, i: int, mode: str) -> int:
    """Where the type starting at ``i`` ends: at a comma, closer or ``;`` of its own depth or the line's end, and by
    ``mode`` at ``=`` (param), at ``{`` or ``=>`` after it (return), at an operator (cast), at ``{`` alone
    (heritage: ``implements A, B {``)."""
    depth, j, seen = 0, i, False
    while j < len(text):
        ch, pair = text[j], text[j : j + 2]
        if ch in "\"'`":
            j, seen = _literal_end(text, j), True
            continue
        if pair == "=>":
            if depth == 0 and mode == "return" and seen:
                return j
            j, seen = j + 2, True
            continue
        if depth == 0 and (
            (ch in ",;)]}>" and not (ch == "," and mode == "heritage"))
            or (ch == "{" and seen and mode in ("return", "heritage"))
            or (ch == "=" and mode in ("param", "cast"))
            or (mode == "cast" and (ch in "?:\n" or pair in ("&&", "||") or _TS_CAST_END.match(text, j)))
            or (ch == "\n" and not _continues(text, i, j))
        ):
            return j
        depth += (ch in "([{<") - (ch in ")]}>")
        seen = seen or not ch.isspace()
        j += 1
    return j


def _type_parameter_line_end(text: str, i: int) -> int | None:
    """The end of the line at ``i`` when it is one type parameter (``D extends Date = Date,``), else None."""
    end = text.find("\n", i)
    end = len(text) if end < 0 else end
    line = _TS_TYPE_PARAMETER_LINE.fullmatch(text, i, end)
    if line is None:
        return None
    bound = line.group(1).replace("=>", "")
    return end if _looks_like_type(bound) and bound.count("<") == bound.count(">") else None


def _type_args_end(text: str, i: int) -> int | None:
    """The index after the ``<…>`` opening at ``i`` when it holds type parameters or arguments, else None."""
    depth, j = 0, i
    while j < min(len(text), i + TS_TYPE_ARGS_CHARS):
        ch = text[j]
        if ch in "\"'`":
            j = _literal_end(text, j)
            continue
        if text.startswith("=>", j):
            j += 2
            continue
        if ch == ";":
            return None
        depth += (ch in "<([{") - (ch in ">)]}")
        if depth == 0:
            fits = ch == ">" and _TS_AFTER_TYPE_ARGS.match(text, j + 1) and _looks_like_type(text[i + 1 : j])
            return j + 1 if fits else None
        j += 1
    return None


class _Frame:
    """A bracket open while stripping types: what a ``:`` directly inside it is, and where its current parameter,
    member or statement began in the output."""

    __slots__ = ("kind", "start", "statement", "ternaries")

    def __init__(self, kind: str, start: int) -> None:
        self.kind = kind  # paren, bracket, member (a class or interface body), names (import/export), block
        self.start = start  # the current parameter (paren) or line's segment (others)
        self.statement = start  # the current statement (to tell a class body from a block)
        self.ternaries = 0  # ``?`` seen whose ``:`` has not come yet


class _TypeStripper:
    """One pass over TypeScript text, writing it less its types (see :func:`without_types`)."""

    def __init__(self, text: str, jsx: bool) -> None:
        self.text = text
        self.jsx = jsx  # TSX: ``<div>`` is an element, not a type cast
        self.out: list[str] = []
        self.frames = [_Frame("block", 0)]
        self.line = 0  # where the current line began in ``out``
        self.optional = False  # a ``?`` before the next ``:`` made a name optional
        self.owed = 0  # newlines of stripped types, written at the next newline: ``f<\n T,\n>(`` keeps ``f(``

    def written(self, start: int) -> str:
        return "".join(self.out[start:])

    def tail(self) -> str:
        return "".join(self.out[-24:])

    def skip(self, start: int, end: int) -> int:
        self.owed += self.text.count("\n", start, end)
        return end

    def run(self) -> str:
        i = 0
        while i < len(self.text):
            i = self.step(i)
        self.out.append("\n" * self.owed)
        return "".join(self.out)

    def step(self, i: int) -> int:
        text, ch, frame = self.text, self.text[i], self.frames[-1]
        prev = text[i - 1] if i else "\n"
        if text.startswith(("//", "/*"), i):
            end = _CODE_COMMENT.match(text, i).end()  # type: ignore[union-attr]  # both openers match
            self.out.append(text[i:end])
            return end
        if ch in "\"'`" or (ch == "/" and _TS_REGEX_BEFORE.search(self.tail())):
            end = _literal_end(text, i)
            self.out.append(text[i:end])
            return end
        if prev == "\n" and len(self.frames) == 1 and (end := _type_parameter_line_end(text, i)):
            return self.skip(i, end)  # ``  U extends keyof Types,``: a type parameter's line, its list opened before
        if ch == "\n":
            self.out.append("\n" * (1 + self.owed))
            self.owed, self.line = 0, len(self.out)
            if frame.kind not in ("paren", "bracket"):
                frame.start = len(self.out)
            return i + 1
        if ch == "<" and (prev.isalnum() or prev in "_$" or self.arrow_generics(i)):
            end = _type_args_end(text, i)
            if end is not None:
                return self.skip(i, end)
        if prev.isspace() and (cast := _TS_CAST.match(text, i)) and self.casts(cast.group(1), frame):
            mode = "heritage" if cast.group(1) == "implements" else "cast"
            end = _type_end(text, cast.end(), mode)
            if _looks_like_type(text[cast.end() : end]):
                return self.skip(i, end)
        if ch not in _TS_SPECIAL:  # a run of names, numbers, operators and spaces: as it is, up to the next cast
            end = _TS_PLAIN.match(text, i).end()  # type: ignore[union-attr]  # ch is plain
            cast = _TS_CAST_AHEAD.search(text, i + 1, end)
            end = cast.start() if cast else end
            self.out.append(text[i:end])
            return end
        if ch == "!" and self.non_null(i, prev):
            return i + 1
        if ch == "?":
            return self.question(i, frame)
        if ch == ":":
            return self.colon(i, frame)
        self.out.append(ch)
        if ch in "([{":
            self.frames.append(_Frame(self.kind_of(ch, frame), len(self.out)))
        elif ch in ")]}":
            if len(self.frames) > 1:  # a change's lines may close what opened before them: ``): T {``
                self.frames.pop()
            parent = self.frames[-1]
            if ch == "}" and parent.kind not in ("paren", "bracket"):  # a block ended: a new statement begins
                parent.start = parent.statement = len(self.out)
            elif ch == ")":
                return self.return_type(i + 1, parent)
        elif ch == "," or (ch == ";" and frame.kind != "paren"):
            frame.start = len(self.out)
            if ch == ";":
                frame.statement = len(self.out)
        return i + 1

    def arrow_generics(self, i: int) -> bool:
        """``= <E extends Env>(app) => …``: an arrow function's type parameters (in TSX, ``<T,>`` or ``<T extends
        U>`` only: ``<div>`` is an element)."""
        if not _TS_ARROW_BEFORE.search(self.tail()):
            return False
        end = _type_args_end(self.text, i)
        if end is None or not _TS_ARROW_PARAMS.match(self.text, end):
            return False
        return not self.jsx or bool(_TSX_GENERICS.search(self.text, i + 1, end - 1))

    def non_null(self, i: int, prev: str) -> bool:
        """A postfix ``!`` (``x!.y``, ``f()!``, ``let x!: T``), not ``!=`` nor a ``return!x``."""
        if not (prev.isalnum() or prev in "_$)]") or self.text[i + 1 : i + 2] == "=":
            return False
        return not _TS_KEYWORD_BEFORE.search(self.text[max(0, i - 12) : i])

    def casts(self, word: str, frame: _Frame) -> bool:
        """``as``/``satisfies`` after an expression, ``implements`` in a class header; no rename in an import."""
        if word == "implements":
            return True
        line = self.written(self.line)
        renames = frame.kind == "names" or line.lstrip().startswith("import")
        return not renames and bool(_TS_EXPRESSION_END.search(line))

    def kind_of(self, opener: str, frame: _Frame) -> str:
        if opener != "{":
            return "paren" if opener == "(" else "bracket"
        if _TS_NAMES.fullmatch(self.written(self.line)[:-1]):
            return "names"
        statement = _CODE_COMMENT.sub("", _STRING_LITERAL.sub("", self.written(frame.statement)[:-1]))
        return "member" if _TS_CLASS_OR_INTERFACE.search(statement) else "block"

    def question(self, i: int, frame: _Frame) -> int:
        text = self.text
        if text.startswith("??", i) or (text.startswith("?.", i) and not text[i + 2 : i + 3].isdigit()):
            self.out.append(text[i : i + 2])
            return i + 2
        if text[i + 1 :].lstrip(" \t").startswith(":") and (frame.kind in ("paren", "member") or self.lone_name(frame)):
            self.optional = True
            return i + 1  # ``name?: T``: optional, to the type checker only (no object literal holds ``?:``)
        frame.ternaries += 1
        self.out.append("?")
        return i + 1

    def lone_name(self, frame: _Frame) -> bool:
        """A line that begins with a bare name outside any bracket of the change: a parameter's line whose
        signature opened before the change (``  key?: string``), or an object literal's (``  key: value,``)."""
        name = self.written(frame.start)
        return frame is self.frames[0] and bool(_TS_LONE_NAME.fullmatch(name)) and name.strip() != "default"

    def colon(self, i: int, frame: _Frame) -> int:
        optional, self.optional = self.optional, False
        if frame.ternaries:
            frame.ternaries -= 1
            self.out.append(":")
            return i + 1
        owner = {"paren": _TS_PARAM, "member": _TS_MEMBER, "block": _TS_VARIABLE}.get(frame.kind)
        typed = owner is not None and bool(owner.fullmatch(self.written(frame.start)))
        if typed or optional or self.lone_name(frame):
            end = _type_end(self.text, i + 1, "param")
            written = self.text[i + 1 : end]
            # out of its signature, a line is a parameter's when it was optional or names what only a type names
            if _looks_like_type(written) and (typed or optional or _TS_TYPE_WORD.search(_blank(written))):
                return self.skip(i, end)
        self.out.append(":")
        return i + 1

    def return_type(self, i: int, frame: _Frame) -> int:
        """After a ``)``: its ``: T`` when it is a return type, not a ternary's ``:`` nor a ``case f():``."""
        colon = i + len(self.text[i:]) - len(self.text[i:].lstrip(" \t"))
        if self.text[colon : colon + 1] != ":" or frame.ternaries or frame.kind == "bracket":
            return i
        if self.written(frame.start).lstrip().startswith(("case ", "case(", "default")):
            return i
        end = _type_end(self.text, colon + 1, "return")
        return self.skip(i, end) if _looks_like_type(self.text[colon + 1 : end]) else i


@lru_cache(maxsize=TS_STRIPPED_CACHE)
def without_types(text: str, *, jsx: bool = False) -> str:
    """TypeScript code less what only the type checker reads, with as many lines: a type spanning lines leaves its
    lines empty after the code that follows it on its last line, so ``f<\\n T,\\n>(`` keeps ``f(`` together.
    ``jsx``: the code is TSX."""
    return _TypeStripper(text, jsx).run() if _TS_MAYBE_TYPED.search(text) else text
