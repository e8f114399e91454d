"""The line a change put in its code that holds what it taught, shown with the lesson when it is still there.

A lesson's headline and why come from the commit message; what to keep is in the diff. Blind readers of fresh
histories marked lessons "partly" when they named the symptom and never the fix ("DST overlap period wrong", but
not "skip ``field.add`` when the value is 0"). :func:`candidates` picks, from the lines a commit added to one
symbol, the few that say what it did: a new condition first (a guard, a check, a branch), then a call that frees,
closes, resets or raises, then any other new logic line. Lines the commit also removed (moved, re-indented) are no
change; declarations, log lines, lone brackets and ``else`` are none either. A change that wrote many new logic
lines rewrote the code: no single line of it is the fix, and nothing is shown.

:func:`shown_line` keeps the first candidate still in the symbol at HEAD (a line a later change rewrote is history,
and showing it would tell a reader to keep code that is gone), and never one longer than a line of a hover.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from forewarn.workspace import mine_code

SHOWN_CANDIDATES = 3  # the best lines kept per symbol: the first still at HEAD is shown
# a change that wrote more new logic lines than this in one symbol rewrote it: one line of it is no summary
SHOWN_MAX_NEW_LINES = 10
SHOWN_MIN_CHARS = 8  # "x = 1;" says nothing a reader can keep
SHOWN_MAX_CHARS = 110  # one line of a hover; a longer statement is a call over many arguments, not the rule
SIGNATURE_MAX_LINES = 8  # a parameter list closing past this many lines from the top is no signature's
# a line that branches or compares: the rule the change wrote ("if (value == 0) {", "guard let …", "case …:")
_CONDITION = re.compile(
    r"^(\}?\s*else\s+if|elif|if|unless|while|guard|case|when|catch|except|match|switch)\b|&&|\|\||==|!=|<=|>="
    r"|\bis\s+(not\s+)?None\b|\bnot\s+in\b|\binstanceof\b"
)
# a call that releases, resets or gives up: a leak's, a double use's or an error path's fix
_RELEASE_WORDS = "free|close|release|unlock|lock|dispose|cleanup|clear|reset|flush|cancel|destroy|delete|retry|abort"
_ACTION = re.compile(
    rf"(?<![A-Za-z])({_RELEASE_WORDS}|fclose)(?![a-z])|(?<![A-Z])({_RELEASE_WORDS.title()})(?![a-z])"  # redisFree
    r"|\b(raise|throw|panic|assert)\b|\berrors\.New\b|\bfmt\.Errorf\b"
    r"|\breturn\s+(nil|null|None|NULL|false|False|-1|err)\b"
)
# a pointer, handle or field reset after use: "c->fd = -1;", "self._conn = None" (no declared type before the name)
_RESET = re.compile(r"^[\w.\[\]]+(->[\w\[\]]+)*\s*=\s*(NULL|nil|None|null|nullptr|-1|0)\s*;?$")
# a comment after the code on its line: a change that only dropped it changed no code
_COMMENT_START = re.compile(r"\s*/\*|\s+//|\s+#")
_NAME = re.compile(r"[A-Za-z_]\w*")
# a line that goes on to the next: it ends on an operator, a comma or an opening bracket
_UNFINISHED = re.compile(r"(&&|\|\||[-+*/%=<>!&|^?,(\[]|\band|\bor|\bnot)\s*$")
# … or carries on the one before: it opens on an operator or a closing bracket
_CONTINUED = re.compile(r"^(&&|\|\||[/%=<>|^?:.,)\]]|and\b|or\b)")  # not "--n;", "*p = NULL;"
# words every error path has: a line of nothing else ("if err != nil", "throw err", "result = nil") names no rule
_GENERIC_NAMES = frozenset({
    "if", "else", "elif", "while", "return", "throw", "raise", "not", "is", "and", "or", "in",
    "err", "error", "e", "ex", "exc", "nil", "null", "None", "NULL", "nullptr", "undefined",
    "true", "false", "True", "False", "ok", "result", "res", "ret", "rc", "self", "this",
})  # fmt: skip
# nothing a reader could keep: a bare return, a brace with else, a label, a string alone
_EMPTY = re.compile(
    r"^(\}?\s*else\s*[{:]?|return(\s+(nil|null|None|NULL|false|False|true|True|-1|0|undefined))?;?|end|\}\)?;?"
    r"|\)\s*\{?|default\s*:|[\"'`].*[\"'`][,;]?|@\w+.*)$"
)


def candidates(removed: Sequence[str], added: Sequence[str], path: str) -> tuple[str, ...]:
    """Up to SHOWN_CANDIDATES lines (stripped, as written) that the change added to one symbol and that say what it
    did, best first; () when it wrote more than SHOWN_MAX_NEW_LINES new logic lines (a rewrite) or nothing telling.
    """
    python = mine_code.is_python(path)
    gone = Counter(_bare(line, python) for line in removed)
    shapes = Counter(_NAME.sub("x", key) for key in gone.elements())
    new: list[str] = []
    for line in mine_code.without_logging(added):
        text = _code_part(line.strip())  # a comment line, or one opening on a block comment, leaves nothing
        if not mine_code.is_logic(text) or mine_code.is_declaration(text) or mine_code.is_import(text):
            continue
        key = mine_code.normalize(text, python=python)
        shape = _NAME.sub("x", key)
        if gone[key] > 0:
            gone[key] -= 1  # moved or re-indented: the same statement as before
        elif shapes[shape] > 0:
            shapes[shape] -= 1  # the same statement with a name changed ("key" → "new_key")
        else:
            new.append(text)
    if len(new) > SHOWN_MAX_NEW_LINES:
        return ()
    telling = [t for t in dict.fromkeys(new) if _readable(t) and _weight(t) > 0]
    ranked = sorted(range(len(telling)), key=lambda i: (-_weight(telling[i]), i))
    return tuple(telling[i] for i in ranked[:SHOWN_CANDIDATES])


def _bare(line: str, python: bool) -> str:
    """A line as :func:`mine_code.normalize` has it, less a comment after its code."""
    return mine_code.normalize(_code_part(line.strip()), python=python)


def _code_part(text: str) -> str:
    """A line less the comment after its code: one that opens outside any string literal (an even count of each
    quote before it), so that "// HttpClient doesn't support SOCKS" goes and "'http://x'" stays."""
    for m in _COMMENT_START.finditer(text):
        before = text[: m.start()]
        if all(before.count(q) % 2 == 0 for q in "\"'`"):
            return before.rstrip()
    return text


def _readable(text: str) -> bool:
    """A whole statement a reader can take in: no comment, and no piece of one written over several lines (its
    brackets unbalanced, or it ends on an operator or opens on one: "((CMARK_OPT_SMART & options) &&")."""
    if len(text) < SHOWN_MIN_CHARS or _EMPTY.match(text):
        return False  # comment lines never get here: mine_code.is_logic left them out
    if any(text.count(a) != text.count(b) for a, b in ("()", "[]")) or _UNFINISHED.search(text):
        return False
    return not _CONTINUED.match(text) and bool(set(_NAME.findall(text)) - _GENERIC_NAMES)


def _weight(text: str) -> int:
    return 2 * bool(_CONDITION.search(text)) + bool(_ACTION.search(text) or _RESET.match(text))


class AtHead:
    """A symbol's code at HEAD, to find which of a change's :func:`candidates` still stand there: its text, its
    :func:`mine_code.joined` form (``code``) and its signature's lines, which are never shown (a change that made a
    function static changed its header, which no reader needs shown). Built once per symbol: a hot spot asks it
    for each of its fixes."""

    def __init__(self, chunk_text: str, code: str, path: str) -> None:
        self.code, self.path, self.python = code, path, mine_code.is_python(path)
        own = chunk_text.splitlines()
        end = mine_code.header_end(own)
        if end is None or end >= SIGNATURE_MAX_LINES:
            end = 0  # no parameter list closes near the top: the first line is the signature
        self.header = {_key(line, path, self.python) for line in own[: end + 1]}

    def shown_line(self, lines: Sequence[str]) -> str | None:
        """The first of ``lines`` still here and not the signature, tidied for a sentence (a trailing opening brace
        dropped); none longer than SHOWN_MAX_CHARS."""
        return next((t for t in (self._shown(line) for line in lines) if t is not None), None)

    def _shown(self, line: str) -> str | None:
        if "`" in line:
            return None  # a template string: the lesson's own quoting would break it
        key = _key(line, self.path, self.python)
        if len(key) < SHOWN_MIN_CHARS or key not in self.code or key in self.header:
            return None
        text = re.sub(r"\s*\{$", "", line) if not self.python else line
        text = " ".join(re.sub(r"^\}\s*", "", text).split())  # "} else if (…)": the brace closed the branch before
        return text if len(text) <= SHOWN_MAX_CHARS else None  # clipped, a long call reads as a fragment


def shown_line(lines: Sequence[str], chunk_text: str, head_code: str, path: str) -> str | None:
    """The first of ``lines`` (:func:`candidates`) still in the symbol's code at HEAD (``chunk_text``, and
    ``head_code``: its :func:`mine_code.joined` form): :meth:`AtHead.shown_line`."""
    if not lines or not head_code:
        return None
    return AtHead(chunk_text, head_code, path).shown_line(lines)


def _key(line: str, path: str, python: bool) -> str:
    return "".join(mine_code.normalize(part, python=python) for part in mine_code.code_lines([line], path))


def kept_sentence(*lines: str, fixes: bool = False) -> str:
    """The lesson's last paragraph: the line the change put in (``fixes``: the lines a hot spot's fixes did), which a
    reader should keep."""
    if not fixes:
        return f"Still in the code from this change: `{lines[0]}`"
    return "Still in the code from these fixes: " + "; ".join(f"`{line}`" for line in lines)
