"""What a change did to the code, line by line: logic or not, and whether it still stands at HEAD (pure text).

Mining weighs a fix by what it changed, not by what its subject claims:

- :func:`logic_lines` counts the changed lines that are program logic. A line removed and added again with only
  whitespace, quotes, a trailing comma or type annotations changed is no change (Python's line by line,
  TypeScript's over the change's lines at once: :func:`without_types`); blank lines, comments, docstring lines,
  imports and lone brackets are no logic. "fix spaces" changes no logic line, nor "fix types".
- :func:`sample` keeps the distinctive logic lines a change added (normalized), and :func:`survival` says how
  many of them the code at HEAD still holds: a lesson whose lines were replaced since is about code that is gone.
  Lines are compared whitespace-free as substrings of the HEAD code joined into one line, so a reformatter that
  wraps a long call over several lines does not make it look rewritten.
- :func:`is_stub` and :func:`is_typing_only` recognise code that only declares types (``@overload`` stubs,
  ``TypedDict`` and ``Protocol`` classes, TypeScript interfaces and type aliases, ``.pyi`` and ``.d.ts`` files):
  no lesson or hot spot belongs there.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import NamedTuple

from forewarn.workspace.mine_ts_types import is_typescript, without_types

KEPT_LINE_CHARS = 160  # a normalized line is cut here: enough to be distinctive, small to keep
SAMPLE_LINES = 12  # the added lines kept per change and symbol to check at HEAD: the longest are the most telling
MIN_SAMPLE_CHARS = 12  # a shorter normalized line ("returnNone", "}else{") is in every function: proves nothing

_SPACE = re.compile(r"\s+")
_TRAILING_COMMA = re.compile(r",(?=[)\]}])")
_COMMENT = re.compile(r"^(#|//|/\*|\*|<!--|--(?!-)|;)")
_DOC_QUOTE = re.compile(r'^[rRbBuUfF]?("""|\'\'\'|""|\'\')')
_IMPORT = re.compile(
    r"^(import\s|from\s+\S+\s+import\b|export\s+\*\s+from\b|#\s*include\b|using\s|use\s|package\s|"
    r"(const|let|var)\s+[\w{}\s,]+=\s*require\()"
)
_PUNCTUATION = re.compile(r"^[\s(){}\[\];,.:]*$")
_NO_OP = re.compile(r"^(pass|\.\.\.|break|continue|else:|try:|finally:)$")
_TRAILING_PY_COMMENT = re.compile(r"\s+#[^'\"]*$")
_PY_VARIABLE_ANNOTATION = re.compile(r"^(?P<name>[A-Za-z_][\w.]*)\s*:\s*[^=]+?(?P<rest>\s*=.*)?$")
_PY_DEF = re.compile(r"^(async\s+)?def\s")
_OVERLOAD = re.compile(r"^\s*@(\w+\.)*overload\b", re.MULTILINE)
_PY_STUB_BODY = re.compile(r":\s*(\.\.\.|pass)\s*$")
_TYPING_BASES = re.compile(r"^\s*class\s+\w+\s*\((?:[^)]*\b)?(TypedDict|Protocol)\b", re.MULTILINE)
_TYPING_PATH = re.compile(r"\.(pyi|d\.ts)$")


def is_python(path: str) -> bool:
    return path.endswith((".py", ".pyi"))


def _strip_def_annotations(line: str) -> str:
    """``def f(a: int = 1, *b: str) -> X:`` → ``def f(a = 1, *b):`` (bracket-aware: ``dict[str, int]`` is one type)."""
    head, sep, rest = line.partition("(")
    if not sep:
        return line
    out: list[str] = [head, "("]
    depth, skipping = 0, False
    i = 0
    while i < len(rest):
        ch = rest[i]
        if depth == 0 and ch == ")":
            tail = rest[i:]
            arrow = tail.find("->")
            if arrow >= 0:
                colon = tail.rfind(":")
                tail = tail[:arrow].rstrip() + (tail[colon:] if colon > arrow else "")
            out.append(tail)
            return "".join(out)
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if depth == 0 and ch == ":" and not skipping:
            skipping = True
            i += 1
            continue
        if depth == 0 and ch in ",=" and skipping:
            skipping = False
        if not skipping:
            out.append(ch)
        i += 1
    return "".join(out)


def without_annotations(line: str) -> str:
    """A Python line with its type annotations and trailing comment removed (what the program does stays)."""
    text = _TRAILING_PY_COMMENT.sub("", line.strip())
    if _PY_DEF.match(text):
        return _strip_def_annotations(text)
    m = _PY_VARIABLE_ANNOTATION.match(text)
    if m and not text.startswith(("else", "try", "finally", "lambda")) and not text.endswith(":"):
        return m.group("name") + (m.group("rest") or "")
    return text


def normalize(line: str, *, python: bool = False) -> str:
    """A line as the program sees it: no whitespace, one kind of quote, no trailing comma before a closer."""
    text = without_annotations(line) if python else line.strip()
    text = _SPACE.sub("", text).replace("'", '"').rstrip(";")
    return _TRAILING_COMMA.sub("", text)[:KEPT_LINE_CHARS]


def is_logic(line: str) -> bool:
    """The stripped source line does something: not blank, a comment, a docstring line, an import or a lone bracket."""
    text = line.strip()
    if not text or _PUNCTUATION.match(text) or _NO_OP.match(text):
        return False
    return not (_COMMENT.match(text) or _DOC_QUOTE.match(text) or _IMPORT.match(text))


def is_import(line: str) -> bool:
    """An import, include or require statement."""
    return bool(_IMPORT.match(line.strip()))


# a TypeScript declaration that only names types: an interface, a type alias, a ``declare``
_TS_TYPING_DECLARATION = re.compile(r"^\s*(export\s+)?(default\s+)?(declare\s|interface\s|type\s+[\w$]+\s*[<=])")


def code_lines(lines: Sequence[str], path: str) -> list[str]:
    """The lines as the program runs them, to normalize: TypeScript's comment lines left out and its types
    stripped (see :func:`without_types`); other languages' as they are (Python's annotations go line by line)."""
    if not is_typescript(path):
        return list(lines)
    code = [line for line in lines if not _COMMENT.match(line.strip())]
    return without_types("\n".join(code), jsx=path.endswith(".tsx")).split("\n") if code else []


# a line that only declares state: a field set to a literal or a parameter (``self.x = None``, ``this.y = opts;``), a
# bare annotation (``partial: int``), a Go struct field or var (``Timeout time.Duration``), a TS class field. A change
# of these alone (round 5's judges: a class that only gained annotations, an ``__init__`` that only sets fields)
# holds no behaviour: the lesson's logic lives elsewhere
_LITERAL = r"(None|True|False|nil|null|NULL|nullptr|undefined|true|false|-?\d+(\.\d+)?|\"\"|''|\[\]|\{\}|\(\))"
_FIELD_VALUE = _LITERAL[:-1] + r"|\w+)"
_DECLARATION = re.compile(
    rf"^((self|this|cls)\.\w+(\s*:\s*[^=]+)?\s*=\s*{_FIELD_VALUE};?"
    r"|[A-Za-z_]\w*\s*:\s*[\w\[\], .|\"']*[\w\]\"']"  # a bare annotation (no value)
    r"|((public|private|protected|readonly|static|declare)\s+)*[A-Za-z_]\w*[?!]?\s*:\s*[^=;(]+;"
    r"|(var\s+)?[A-Za-z_]\w*\s+[*\[\]\w.]+(\s+`[^`]*`)?"  # Go: a struct field or a var, with its tag
    # a field of a struct or object literal set to a literal, a constant ("StreamId::MAX") or a parameter's field, no
    # call: "max_stream_id: StreamId::MAX," in h2's Send::new, JS's "to: opts.to,"; never "name: Type," (a Rust
    # struct's field declares its layout: crossbeam's false-sharing fix reordered them)
    rf"|[A-Za-z_]\w*\s*:\s*({_LITERAL}|&?[A-Za-z_]\w*(\.[A-Za-z_]\w*)+|[A-Za-z_]\w*(::[A-Za-z_]\w*)*::[A-Z][A-Z0-9_]*),?"
    # a Java, C# or C field, with its modifiers, set to a literal or nothing: "private final boolean nullSafe;",
    # "final String name;", "static char *buf = NULL;". No modifier, no field: a C local set to NULL may be the fix
    r"|((public|private|protected|internal|static|final|readonly|volatile|transient|mutable)\s+)+"
    rf"[A-Za-z_][\w.:]*(<[^;=()]*>)?[*&\[\]]*\s+[*&]*[A-Za-z_]\w*(\[\w*\])*(\s*=\s*{_LITERAL})?;)$"
)
_TRAILING_DECLARATION_COMMENT = re.compile(r"\s+(#|//)[^'\"`]*$")
# first words that make a "name type" line a statement, not a declaration
_NOT_A_NAME = re.compile(
    r"^(return|go|defer|goto|case|default|throw|yield|await|new|delete|typeof|raise|del|assert|export|const|let|"
    r"else|do|try|in|of|not|print|exec|global|nonlocal|except|with|lambda|async|function|void|if|for|while|break|"
    r"continue)\b"
)


# a type's own header, with its bases and attributes: ``class MaxConnectionsError(ConnectionError):``, ``export class
# Foo extends Bar {``, ``type Rows struct {``, ``pub struct Rows<'a> {``, ``#[derive(Debug)]``. It names a type and
# what it is a kind of, no behaviour: a lesson on an exception class that the commit only declared or gave a field
# belongs to the code that raises or uses it (round 10's judges: "MaxConnectionsError", "TimeoutError", "Rows")
_TYPE_HEADER = re.compile(
    r"^(class\s+\w+\s*(\([^()]*\))?\s*:"
    r"|((export|default|abstract|declare)\s+)*class\s+[\w$]+(<[^>]*>)?(\s+(extends|implements)\s+[\w$.<>, ]+)*\s*\{?"
    r"|type\s+\w+(\[[^\]]*\])?\s+(struct|interface)\s*\{"
    r"|(pub(\([\w ]+\))?\s+)?(struct|enum|union)\s+\w+(<[^>]*>)?\s*[{;(]?"
    r"|#\[(derive|non_exhaustive|repr)\b.*\])$"
)


# a statement that only writes a log or trace line (``trace!(…)``, ``tracing::debug!``, ``log.Printf``,
# ``self.logger.warning``, ``console.error``): the program does the same without it. A fix whose only change in a
# symbol was its log lines made no change there (round 13's judges: a stream function that only gained trace lines
# while the limits it was about changed in the config); ``log.Fatal`` and its kind exit, so they stay behaviour
_LOGGING = re.compile(
    r"^(((tracing|log)::)?(trace|debug|info|warn|error)!\s*\("
    r"|([\w.]*\.)?(log|logger|_log|_logger|logging|console|klog|glog|slog|tracing)"
    r"\.(trace|debug|info|warn|warning|error|exception|critical|log|print|printf|println)(f|w|ln)?\s*\()",
    re.IGNORECASE,
)


# a branch opened only to hold log lines: ``} else {`` whose body, once its logging goes, is its closing brace (or
# the end of the change, when the brace that closes it was already there)
_ELSE_OPENER = re.compile(r"^\}?\s*else\s*\{$")
_CLOSER = re.compile(r"^\}[;,]?$")


def without_logging(lines: Sequence[str]) -> list[str]:
    """The lines less every statement that only logs (see _LOGGING), a call over several lines included to the
    line that closes its parentheses, and an ``else`` branch that held nothing else."""
    kept: list[str] = []
    depth = 0
    logged = False
    for line in lines:
        text = line.strip()
        if depth == 0 and not _LOGGING.match(text):
            if logged and _CLOSER.match(text) and kept and _ELSE_OPENER.match(kept[-1].strip()):
                kept.pop()  # the branch held only log lines: neither its opener nor its closer does anything
            else:
                kept.append(line)
            logged = False
            continue
        depth = max(0, depth + text.count("(") - text.count(")"))
        logged = True
    if logged and kept and _ELSE_OPENER.match(kept[-1].strip()):
        kept.pop()  # the change ends inside the branch (its closer was there before): it held only log lines
    return kept


def is_declaration(line: str) -> bool:
    """The stripped logic line only declares state (see _DECLARATION): no behaviour of its own."""
    text = _TRAILING_DECLARATION_COMMENT.sub("", line.strip())  # "partial: int  # type: ignore[assignment]"
    return bool(_DECLARATION.match(text)) and not _NOT_A_NAME.match(text)


def is_type_header(line: str) -> bool:
    """The stripped line is a type's header or attribute (see _TYPE_HEADER)."""
    return bool(_TYPE_HEADER.match(_TRAILING_DECLARATION_COMMENT.sub("", line.strip())))


# a constructor's own name, where its language gives it one (Python, JavaScript and TypeScript, Ruby); Java's has its
# kind, C++'s its class's name
_CONSTRUCTOR_NAMES = frozenset({"__init__", "constructor", "initialize"})
_ORDINAL = re.compile(r"#\d+$")


def is_constructor(symbol: str, kind: str) -> bool:
    """``symbol`` (of chunk ``kind``) builds its class's instances: what its parameter list declares, it stores."""
    parts = [_ORDINAL.sub("", part) for part in symbol.split(".")]
    return kind == "constructor" or parts[-1] in _CONSTRUCTOR_NAMES or (len(parts) > 1 and parts[-1] == parts[-2])


def header_end(lines: Sequence[str]) -> int | None:
    """The index of the line closing a definition's parameter list (the first parenthesis it opens, balanced; a list
    begun before ``lines`` closes where the count drops below zero); None when none closes within them. An
    annotation or decorator line (``@SuppressWarnings("x")``) opens no parameter list."""
    depth, opened = 0, False
    for i, line in enumerate(lines):
        if not opened and line.lstrip().startswith("@"):
            continue
        for ch in line:
            if ch == "(":
                depth, opened = depth + 1, True
            elif ch == ")":
                depth -= 1
                if depth < 0 or (opened and depth == 0):
                    return i
    return None


class Behaviour(NamedTuple):
    """What a change did beyond logging and declaring, its log statements stripped (:func:`without_logging`) once."""

    logic: int  # changed logic lines, as logic_lines counts them
    lines: int  # changed logic lines that are no declaration (see is_declaration) nor a log statement (see _LOGGING)
    logging_only: bool  # the change's logic lines were all log statements (at least one)


def behaviour(
    removed: Sequence[str], added: Sequence[str], path: str, header: Collection[str] = frozenset()
) -> Behaviour:
    """The change's :class:`Behaviour`. Its ``lines`` are counted as ``logic_lines`` counts. A type's
    header the change added (a new exception class) declares too; one it rewrote changed the type's bases, which
    decides what catches it ("change base-classes for NoMoreData …"): that is behaviour. ``header`` holds the
    changed lines of a constructor's parameter list (:func:`is_constructor`): the parameters it stores, which
    declare as its field assignments do."""
    quiet_removed, quiet_added = without_logging(removed), without_logging(added)
    rebased = any(is_type_header(line) for line in removed)

    def declares(line: str) -> bool:
        return is_declaration(line) or line in header or (not rebased and is_type_header(line))

    gone = [line for line in quiet_removed if not declares(line)]
    lines = logic_lines(gone, [line for line in quiet_added if not declares(line)], path)
    logic = logic_lines(removed, added, path)
    logs = logic > 0 and not logic_lines(quiet_removed, quiet_added, path)
    return Behaviour(logic, lines, logs)


def logic_lines(removed: Sequence[str], added: Sequence[str], path: str) -> int:
    """Changed lines that are logic, once lines removed and added again with only cosmetic changes cancel out. Lines
    that are left, taken in order, which join into the same text on both sides only re-wrapped code (a signature put
    on two lines): no logic changed."""
    python = is_python(path)
    gone = Counter(normalize(line, python=python) for line in code_lines(removed, path) if is_logic(line))
    new = Counter(normalize(line, python=python) for line in code_lines(added, path) if is_logic(line))
    left_gone, left_new = gone - new, new - gone
    if left_gone and left_new and _rewrapped(removed, added, path, left_gone, left_new):
        return 0
    if (
        left_gone
        and left_new
        and renamed_only(_left_lines(removed, path, left_gone), _left_lines(added, path, left_new))
    ):
        return 0
    return sum(left_gone.values()) + sum(left_new.values())


# a line's tokens: a member name after "." (kept as it is: a field renamed is a change), a name, or anything else
_TOKEN = re.compile(r"(?P<member>(?<=\.)[A-Za-z_]\w*)|(?P<name>[A-Za-z_]\w*)|(?P<other>\S)")
RENAMED_NAMES = 2  # at most this many names renamed at once: more is a rewrite
MIN_RENAMED_LINES = 3  # a name renamed where it is bound and used; a line or two passing another name is a fix


def _left_lines(lines: Sequence[str], path: str, left: Counter[str]) -> list[str]:
    """The logic lines of ``lines`` (in order) whose normalized text is among ``left``."""
    python = is_python(path)
    left = Counter(left)
    out = []
    for line in code_lines(lines, path):
        text = normalize(line, python=python)
        if is_logic(line) and left[text] > 0:
            left[text] -= 1
            out.append(line)
    return out


def renamed_only(gone: Sequence[str], new: Sequence[str]) -> bool:
    """The lines left on each side, paired in order, differ only by a local name renamed the same way on every one
    of them (chi's receiver ``w`` → ``cw`` through ``WriteHeader``): no logic changed. A member name (``x.w``) must
    stay; one line's other name (``f(a)`` → ``f(b)``) is a change of what is passed, not a rename."""
    if len(gone) != len(new) or len(gone) < MIN_RENAMED_LINES:
        return False
    mapping: dict[str, str] = {}
    for old_line, new_line in zip(gone, new, strict=True):
        old_tokens, new_tokens = _TOKEN.finditer(old_line), _TOKEN.finditer(new_line)
        old_list, new_list = list(old_tokens), list(new_tokens)
        if len(old_list) != len(new_list):
            return False
        for a, b in zip(old_list, new_list, strict=True):
            if a.lastgroup != b.lastgroup:
                return False
            if a.lastgroup != "name":
                if a[0] != b[0]:
                    return False
            elif mapping.setdefault(a[0], b[0]) != b[0]:
                return False
    renames = {a: b for a, b in mapping.items() if a != b}
    return (
        0 < len(renames) <= RENAMED_NAMES
        and len(set(renames.values())) == len(renames)
        and not (set(renames.values()) & {a for a, b in mapping.items() if a == b})
    )


def _rewrapped(
    removed: Sequence[str], added: Sequence[str], path: str, left_gone: Counter[str], left_new: Counter[str]
) -> bool:
    """The lines left on each side of a change (``left_*``: normalized logic lines that found no equal), with the
    lone brackets written between them, join into one same text: they were wrapped anew, nothing else."""
    python = is_python(path)

    def joined_left(lines: Sequence[str], left: Counter[str]) -> str:
        left = Counter(left)
        out: list[str] = []
        for line in code_lines(lines, path):
            text = normalize(line, python=python)
            if is_logic(line) and left[text] > 0:
                left[text] -= 1
                out.append(line.strip())
            elif out and line.strip() and _PUNCTUATION.match(line.strip()):
                out.append(line.strip())  # "\n) {" closing a wrapped signature
        whole = " ".join(out)  # one line, read as one: a wrapped ``def``'s annotations go as an unwrapped one's
        whole = without_annotations(whole) if python else whole
        return _TRAILING_COMMA.sub("", _SPACE.sub("", whole).replace("'", '"').rstrip(";"))

    return joined_left(removed, left_gone) == joined_left(added, left_new)


# a clause of a condition: what a line that lost one no longer decides on
_CLAUSE = re.compile(r"&&|\|\||\b(and|or)\b")
# a line that branches or compares (no ternary: Rust's ``?`` returns an error, TypeScript's ``?.`` reads a field)
_CONDITION = re.compile(r"\b(if|elif|while|unless|when|switch|case|match)\b|&&|\|\||==|!=|<=|>=|\b(and|or|not)\b")


class Reach(NamedTuple):
    """What a change did to the conditions of the code it changed (see :func:`reach`)."""

    cut: bool  # every line it changed only lost a clause of its condition ("if a && b {" → "if b {"), nothing added
    decides: bool  # it wrote a line that compares or branches that was not there before ("if rx.is_empty() {")


def reach(removed: Sequence[str], added: Sequence[str], path: str) -> Reach:
    """The change's :class:`Reach`: a definition that only dropped a condition's clause widened a rule that stands;
    one that wrote a new condition holds the rule the commit added (fd's "Flush stdout in batches" dropped
    ``interactive_terminal &&`` from ``flush`` and wrote "flush when the channel is empty" in ``poll``)."""
    python = is_python(path)
    gone = [(normalize(line, python=python), line) for line in code_lines(removed, path) if is_logic(line)]
    new = [(normalize(line, python=python), line) for line in code_lines(added, path) if is_logic(line)]
    left_gone = Counter(n for n, _ in gone) - Counter(n for n, _ in new)
    left_new = Counter(n for n, _ in new) - Counter(n for n, _ in gone)
    decides = any(left_new[n] > 0 and _CONDITION.search(line) for n, line in new)
    olds, news = list(left_gone.elements()), list(left_new.elements())
    cut = bool(news) and len(olds) == len(news) and all(_cut_from(n, olds) for n in news)
    return Reach(cut, decides and not cut)  # a condition cut shorter is no condition written


def _cut_from(line: str, olds: list[str]) -> bool:
    """``line`` is one of ``olds`` with one span taken out, and that span held a clause of a condition."""
    for old in olds:
        if len(old) <= len(line):
            continue
        k = next((i for i, (a, b) in enumerate(zip(line, old, strict=False)) if a != b), len(line))
        tail = line[k:]
        if old.endswith(tail) and _CLAUSE.search(old[k : len(old) - len(tail)]):
            return True
    return False


def sample(lines: Iterable[str], path: str) -> tuple[str, ...]:
    """The most distinctive logic lines (normalized, longest first) of some code: what to look for at HEAD."""
    python = is_python(path)
    kept = {normalize(line, python=python) for line in code_lines(list(lines), path) if is_logic(line)}
    telling = sorted((s for s in kept if len(s) >= MIN_SAMPLE_CHARS), key=lambda s: (-len(s), s))
    return tuple(telling[:SAMPLE_LINES])


def joined(text: str, path: str) -> str:
    """Code as one normalized line, to look sampled lines up in as substrings."""
    python = is_python(path)
    lines = text.splitlines()
    code = _TRAILING_COMMA.sub("", "".join(normalize(line, python=python) for line in lines))
    if not is_typescript(path):
        return code
    # a sampled line lost its types with what its change held around it: the whole signature, or none of it (a
    # parameter's line alone); one sampled by an earlier run kept them all. Each form is looked in
    whole = "".join(normalize(line) for line in code_lines(lines, path))
    alone = "".join(normalize(line) for one in lines for line in code_lines([one], path))
    return "\n".join(_TRAILING_COMMA.sub("", form) for form in (whole, alone, code))


# what a line may lose without its logic changing: the name it assigned to, or the keyword handing its value on
_TARGET = re.compile(r"^([\w.\[\]\"]+(\+|-|\*|/|\||&)?=(?!=)|(return|yield|await|const|let|var)(?=[\w(\[{\"-]))")


def _stands(line: str, places: Sequence[str]) -> bool:
    """The line, or its expression without the target it was assigned to, is in one of ``places``."""
    variants = [line]
    rest = _TARGET.sub("", line, count=1)
    if rest != line and len(rest) >= MIN_SAMPLE_CHARS:
        variants.append(rest)
    return any(v in place for v in variants for place in places)


def survival(lines: Sequence[str], head: str, *also: str) -> float | None:
    """The share of sampled lines still in the HEAD code (:func:`joined`) or in ``also`` (other normalized code that
    counts as still standing); None when there is nothing to check."""
    if not lines:
        return None
    places = (head, *also)
    return sum(1 for line in lines if _stands(line, places)) / len(lines)


def is_stub(text: str, path: str) -> bool:
    """A declaration with no body of its own: an ``@overload`` stub, or a function whose body is ``...``."""
    if not is_python(path):
        return False
    if _OVERLOAD.search(text.split("def ", 1)[0] if "def " in text else text):
        return True
    body = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("@")]
    return len(body) <= 2 and bool(body) and bool(_PY_STUB_BODY.search(body[-1]) or body[-1] == "...")


def is_typing_only(text: str, path: str) -> bool:
    """Code that only declares types: a stub, a ``TypedDict`` or ``Protocol`` class, a TypeScript interface, type
    alias or ``declare``, a ``.pyi``/``.d.ts`` file."""
    if _TYPING_PATH.search(path):
        return True
    first = text.split("\n", 1)[0]
    if is_typescript(path):  # an interface or a type alias, like a Protocol or a TypedDict: types, nothing runs
        return bool(_TS_TYPING_DECLARATION.match(first))
    return is_stub(text, path) or bool(_TYPING_BASES.match(first))


def declares_types(text: str, path: str) -> bool:
    """A definition whose members only declare types: a TypeScript interface or ``declare``, a ``TypedDict`` or
    ``Protocol`` class. (A class chunk's outline, whose bodies the index elides, is no stub: not asked here.)"""
    first = text.split("\n", 1)[0]
    if is_typescript(path):
        return bool(_TS_TYPING_DECLARATION.match(first))
    return bool(_TYPING_BASES.match(first))


# a wrapper's one statement: a call (returned, or not) with nothing decided around it
_CALL_STATEMENT = re.compile(r"^(return\s+|await\s+)*[\w.$\[\]*&]+\(.*\)\s*;?$")
# a comparison, a boolean or a conditional in that statement: it decides something itself ("return len(a) > 2 && …")
_DOCSTRING = re.compile(r"(\"\"\"|''')[\s\S]*?\1")
_DECIDES = re.compile(r"==|!=|<=|>=|&&|\|\||\?|\b(and|or|not|if|else)\b|[<>](?!-)")


def is_wrapper(text: str, path: str) -> bool:
    """A function whose body is one call and nothing else (``PrintErrf`` calling ``PrintErr``): a lesson about what it
    does is about the code it calls or its callers. One statement that compares or branches is logic of its own."""
    return wrapper_call(text, path) is not None


def wrapper_call(text: str, path: str) -> str | None:
    """A wrapper's one call, normalized (see :func:`is_wrapper`); None when the function is no wrapper."""
    python = is_python(path)
    if python:
        text = _DOCSTRING.sub("", text)
    lines = [line.strip() for line in text.splitlines()]
    head = next((i for i, line in enumerate(lines) if (line.endswith(":") if python else line.endswith("{"))), None)
    if head is None:
        return None
    body = [line for line in lines[head + 1 :] if is_logic(line)]
    if not python and body and body[-1] == "}":
        body = body[:-1]
    call = code_lines(body, path)[0] if len(body) == 1 else ""  # ``return g<T>(a as U)`` calls as ``g(a)`` does
    if _CALL_STATEMENT.match(call) and not _DECIDES.search(call):
        return normalize(call, python=python)
    return None
