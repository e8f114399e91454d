"""C and C++ macros that hide a declaration's shape from the grammar, blanked before parsing (pure).

tree-sitter does not expand macros, so a library's export and inline macros break the declarations they sit in:
``class SPDLOG_API logger {`` reads as a class named ``SPDLOG_API`` and a function ``logger``, and
``SPDLOG_INLINE void logger::flush()`` as a declaration of type ``SPDLOG_INLINE`` followed by an error. An
upper-case name with an underscore (``SPDLOG_API``, ``FMT_CONSTEXPR``, ``Q_DECL_EXPORT``) is taken for such a macro
only where the declaration around it would be whole without it:

- between ``class``/``struct``/``union`` and the type's name, when the name is followed by a base list, a body,
  ``final`` or the line's end (``struct FOO_T bar;`` declares a variable and is left alone);
- at the start of a declaration (after ``template<…>``, ``inline``, ``static``…), when a return type and a function
  name (``void logger::flush(``) or a constructor or destructor (``logger::logger(``) follow: a type spelt in
  capitals before a function's name alone (``YY_BUFFER_STATE yy_create_buffer(``) is the return type and stays;
- between a return type and the function's name (``std::string SPDLOG_INLINE getenv(``);
- after the parameters, before the body or the ``;`` (``size_t _thread_id() SPDLOG_NOEXCEPT {``);
- around a block, as a statement (``SPDLOG_TRY {`` … ``} SPDLOG_LOGGER_CATCH(msg.source)``): the block stays.

Never on a preprocessor line or a line a directive continues (``#define X(a) FOO_BAR``). Blanking writes spaces
over the macro, so every byte offset (chunk spans, lines, columns) is the file's own; the text of chunks and
signatures is always read from the file, never from the blanked copy.
"""

from __future__ import annotations

import re

C_FAMILY = frozenset({"c", "cpp"})
_CAPS = rb"[A-Z][A-Z0-9]*_[A-Z0-9_]*"
_LEAD = (
    rb"(?:template[ \t]*<[^;{}\n]*>[ \t]*"
    rb"|(?:inline|static|virtual|explicit|constexpr|consteval|extern|friend)[ \t]+)*"
)
_CLASS_MACRO = re.compile(
    rb"\b(?:class|struct|union)[ \t]+((?:" + _CAPS + rb"[ \t]+)+)(?=[A-Za-z_]\w*[ \t]*(?:final\b|:(?!:)|\{|\r?\n|$))",
    re.MULTILINE,
)
_DECL_MACRO = re.compile(
    rb"^[ \t]*"
    + _LEAD
    + rb"((?:"
    + _CAPS
    + rb"[ \t]+)+)(?="
    + _LEAD
    # a return type, then the function's name and its parameters
    + rb"(?:(?:const[ \t]+)?[A-Za-z_][\w:]*(?:<[^;{}\n]*>)?[ \t*&]+[*&]*[~A-Za-z_][\w:~]*[ \t]*\("
    # or a constructor or destructor defined outside its class
    + rb"|(?:\w+::)*(?P<cls>\w+)(?:<[^;{}\n]*>)?::~?(?P=cls)[ \t]*\())",
    re.MULTILINE,
)
# between a return type and the function's name (``std::string SPDLOG_INLINE getenv(``); the type is no keyword
# (``static YY_BUFFER_STATE f(``: the capitals are the type)
_MIDDLE_MACRO = re.compile(
    rb"^[ \t]*" + _LEAD + rb"(?!(?:const|unsigned|signed|struct|enum|union|typedef|return)\b)"
    rb"[A-Za-z_][\w:]*(?:<[^;{}\n]*>)?[ \t*&]+((?:" + _CAPS + rb"[ \t]+)+)(?=[*&]*[~A-Za-z_][\w:~]*[ \t]*\()",
    re.MULTILINE,
)
# a statement macro around a block: ``SPDLOG_TRY {`` and ``} SPDLOG_CATCH_STD`` / ``} SPDLOG_LOGGER_CATCH(msg.source)``
# (a try written as a macro where exceptions may be off): the braces stay, a plain block
_BLOCK_MACRO = re.compile(
    rb"^[ \t]*(" + _CAPS + rb")[ \t]*(?=(?:\r?\n[ \t]*)?\{)"
    rb"|\}[ \t]*(" + _CAPS + rb"(?:[ \t]*\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))?)[ \t]*(?=\r?\n|$|//)",
    re.MULTILINE,
)
# ... or on a line of its own right after the block's closing brace (``SPDLOG_TRY { f(); }`` then
# ``SPDLOG_LOGGER_CATCH(msg.source)``)
_AFTER_BLOCK_MACRO = re.compile(
    rb"^[ \t]*(" + _CAPS + rb"(?:[ \t]*\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))?)[ \t]*(?=\r?\n|$)",
    re.MULTILINE,
)
# after the parameters, before the body or the declaration's end (``_thread_id() SPDLOG_NOEXCEPT {``)
_TRAILING_MACRO = re.compile(
    rb"\)(?:[ \t]+(?:const|override|final|noexcept|volatile))*[ \t]+((?:" + _CAPS + rb"[ \t]*)+)"
    rb"(?=\{|;|:|->|\r?\n|$|(?:const|override|final)\b)",
    re.MULTILINE,
)


def without_macros(source: bytes, language: str) -> bytes:
    """``source`` with the declaration macros of a C or C++ file written over by spaces (same length); any other
    language's source as it is."""
    if language not in C_FAMILY or b"_" not in source:
        return source
    spans = [
        m.span(1)
        for rx in (_CLASS_MACRO, _DECL_MACRO, _MIDDLE_MACRO, _TRAILING_MACRO)
        for m in rx.finditer(source)
        if not _in_directive(source, m.start(1))
    ]
    spans += [
        m.span(group)
        for m in _BLOCK_MACRO.finditer(source)
        for group in (1, 2)
        if m.start(group) >= 0 and not _in_directive(source, m.start(group))
    ]
    spans += [
        m.span(1)
        for m in _AFTER_BLOCK_MACRO.finditer(source)
        if source[: m.start(1)].rstrip().endswith(b"}") and not _in_directive(source, m.start(1))
    ]
    if not spans:
        return source
    out = bytearray(source)
    for start, end in spans:
        out[start:end] = b" " * (end - start)
    return bytes(out)


def _in_directive(source: bytes, pos: int) -> bool:
    """``pos`` is on a preprocessor line (``#define X(a) FOO_BAR``) or a line it continues with a backslash: the
    grammar reads those as the directive's own tokens."""
    start = source.rfind(b"\n", 0, pos) + 1
    while True:
        if source[start:pos].lstrip().startswith(b"#"):
            return True
        if start == 0 or not source[: start - 1].rstrip(b"\r").endswith(b"\\"):
            return False
        start = source.rfind(b"\n", 0, start - 1) + 1


__all__ = ["C_FAMILY", "without_macros"]
