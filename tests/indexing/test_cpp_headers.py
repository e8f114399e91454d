"""A ``.h`` is C unless its text is C++ (QA pass 7, finding 1: spdlog, a header-only C++ library, was parsed with
the C grammar: no classes, methods without their class, 121 of 146 files with parse errors). The text decides,
so a C header (``extern "C"`` for C++ callers included) stays C; an index written before parses its headers again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from forewarn import paths
from forewarn.config import Settings
from forewarn.indexing.indexer import Indexer
from forewarn.indexing.languages import is_cpp_header, language_for_path
from tests.indexing.test_index_migrations import _refs_of

CPP_HEADER = """\
#pragma once

#include <string>

namespace spdlog {
namespace sinks {

template<typename Mutex>
class rotating_file_sink final : public base_sink<Mutex>
{
public:
    rotating_file_sink(std::string base_filename, std::size_t max_size);
    void rotate_();

private:
    std::size_t max_size_;
};

template<typename Mutex>
void rotating_file_sink<Mutex>::rotate_()
{
    max_size_ = 0;
}

} // namespace sinks
} // namespace spdlog
"""
C_HEADER = """\
#ifndef CJSON_H
#define CJSON_H

#ifdef __cplusplus
extern "C"
{
#endif

typedef struct cJSON {
    struct cJSON *next;
    int type;
} cJSON;

/* the class of an item: see type */
int cJSON_GetArraySize(const cJSON *array);

#ifdef __cplusplus
}
#endif

#endif
"""


def test_the_text_of_a_header_says_whether_it_is_cpp() -> None:
    assert is_cpp_header(CPP_HEADER) and is_cpp_header(CPP_HEADER.encode())
    assert not is_cpp_header(C_HEADER)
    assert is_cpp_header("class SPDLOG_API logger\n{\n};\n") and is_cpp_header("class registry;\n")
    assert is_cpp_header("inline void f() { std::terminate(); }\n")
    spec = language_for_path("include/spdlog/sinks/rotating_file_sink.h", CPP_HEADER)
    assert spec is not None and spec.name == "cpp"
    c_spec = language_for_path("cJSON.h", C_HEADER)
    assert c_spec is not None and c_spec.name == "c"
    plain = language_for_path("any.h")  # no text: by the extension alone
    assert plain is not None and plain.name == "c"


def _symbols(db: Path, rel: str) -> set[str]:
    conn = sqlite3.connect(str(db))
    try:
        rows = conn.execute("SELECT c.symbol FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.rel = ?", (rel,))
        return {symbol for (symbol,) in rows}
    finally:
        conn.close()


def test_a_cpp_header_is_indexed_as_cpp_and_an_older_index_parses_it_again(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "include").mkdir(parents=True)
    (root / "include" / "sink.h").write_text(CPP_HEADER, encoding="utf-8")
    (root / "include" / "cJSON.h").write_text(C_HEADER, encoding="utf-8")
    with Indexer(root, Settings()) as ix:
        ix.index()
        languages = {rec.rel: rec.language for rec in ix.store.files().values()}
    assert languages == {"include/sink.h": "cpp", "include/cJSON.h": "c"}
    db = paths.workspace_dir(root) / "index.db"
    assert {"spdlog.sinks.rotating_file_sink", "spdlog.sinks.rotating_file_sink.rotate_"} <= _symbols(
        db, "include/sink.h"
    )
    conn = sqlite3.connect(str(db))  # what the previous release left: the header as C, m008 not applied
    with conn:
        conn.execute("UPDATE files SET language = 'c' WHERE rel = 'include/sink.h'")
        conn.execute("DELETE FROM chunks WHERE symbol LIKE 'spdlog.%'")
        conn.execute("DELETE FROM _migrations WHERE name = 'm008_cpp_headers'")
    conn.close()
    with Indexer(root, Settings()) as ix:
        report = ix.index()
    assert "spdlog.sinks.rotating_file_sink.rotate_" in _symbols(db, "include/sink.h")
    assert report.reparsed == sorted(report.changed) == ["include/cJSON.h", "include/sink.h"]  # read again, unchanged


EXPORTED = """\
namespace spdlog {
class SPDLOG_API logger
{
public:
    void flush();
};

SPDLOG_INLINE logger::logger(std::string name)
    : name_(name)
{}

SPDLOG_INLINE void logger::flush()
{
    flush_();
}

template<typename T>
FMT_CONSTEXPR inline auto to_string(T value) -> std::string
{
    return value;
}
} // namespace spdlog
"""
C_TYPES = """\
YY_BUFFER_STATE yy_create_buffer(FILE *file, int size)
{
    return 0;
}

UNITY_INTERNAL_PTR UnityNumToPtr(const UNITY_INT num, const UNITY_UINT8 size)
{
    return 0;
}

struct FOO_T bar;
"""


def test_export_macros_do_not_hide_a_class_or_its_methods(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "logger.h").write_text(EXPORTED, encoding="utf-8")
    (root / "lexer.c").write_text(C_TYPES, encoding="utf-8")
    with Indexer(root, Settings()) as ix:
        ix.index()
    db = paths.workspace_dir(root) / "index.db"
    found = _symbols(db, "logger.h")
    assert {"spdlog.logger", "spdlog.logger.flush", "spdlog.logger.logger", "spdlog.to_string"} <= found, found
    assert {"yy_create_buffer", "UnityNumToPtr"} <= _symbols(db, "lexer.c")  # a type in capitals stays a type
    conn = sqlite3.connect(str(db))
    try:  # a chunk's text is the file's own (its span starts after the macro)
        texts = [t for (t,) in conn.execute("SELECT text FROM chunks WHERE symbol = 'spdlog.logger.flush'")]
    finally:
        conn.close()
    assert any(t.startswith("void logger::flush()\n{\n    flush_();") for t in texts), texts


OS_H = """\
#pragma once
namespace spdlog {
namespace details {
namespace os {
SPDLOG_API size_t _thread_id() SPDLOG_NOEXCEPT;
std::string SPDLOG_API getenv(const char *field);
} // namespace os
} // namespace details
} // namespace spdlog
"""
OS_INL_H = """\
#pragma once
namespace spdlog {
namespace details {
namespace os {
SPDLOG_INLINE size_t _thread_id() SPDLOG_NOEXCEPT {
    return 0;
}

std::string SPDLOG_INLINE getenv(const char *field) {
    return field;
}
} // namespace os
} // namespace details
} // namespace spdlog
"""
PROTOTYPES_H = "#ifndef JV_H\n#define JV_H\nint jv_array_length(int j);\nchar *jv_string_value(int j);\n#endif\n"


def _refs(db: Path, rel: str) -> set[str]:
    return set(_refs_of(db, rel))


def test_macros_around_a_functions_name_and_a_declaration_is_a_use_of_its_definition(tmp_path: Path) -> None:
    """``SPDLOG_INLINE size_t _thread_id() SPDLOG_NOEXCEPT {`` and ``std::string SPDLOG_INLINE getenv(`` are found;
    a header's prototypes (``_thread_id();``, ``jv_array_length(int j);``) are references to the definitions, so an
    open of the header shows their memories (QA pass 7, finding 10)."""
    root = tmp_path / "ws"
    (root / "include").mkdir(parents=True)
    for rel, text in {"include/os.h": OS_H, "include/os-inl.h": OS_INL_H, "include/jv.h": PROTOTYPES_H}.items():
        (root / rel).write_text(text, encoding="utf-8")
    with Indexer(root, Settings()) as ix:
        ix.index()
    db = paths.workspace_dir(root) / "index.db"
    assert {"spdlog.details.os._thread_id", "spdlog.details.os.getenv"} <= _symbols(db, "include/os-inl.h")
    assert {"_thread_id", "getenv"} <= _refs(db, "include/os.h")
    assert {"jv_array_length", "jv_string_value"} <= _refs(db, "include/jv.h")


TRY_MACROS = """\
namespace spdlog {
SPDLOG_INLINE thread_pool::~thread_pool()
{
    SPDLOG_TRY
    {
        threads_.clear();
    }
    SPDLOG_CATCH_STD
}

SPDLOG_INLINE void logger::sink_it_(const details::log_msg &msg)
{
    SPDLOG_TRY { sink->log(msg); }
    SPDLOG_LOGGER_CATCH(msg.source)
}

SPDLOG_INLINE void thread_pool::post_log(async_logger_ptr &&worker_ptr)
{
    post_async_msg_(std::move(worker_ptr));
}
} // namespace spdlog
"""


def test_try_and_catch_written_as_macros_leave_the_definitions_after_them(tmp_path: Path) -> None:
    """QA pass 7 recheck: ``SPDLOG_TRY { … } SPDLOG_CATCH_STD`` made one unnamed chunk of the rest of the file."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "thread_pool-inl.h").write_text(TRY_MACROS, encoding="utf-8")
    with Indexer(root, Settings()) as ix:
        ix.index()
    found = _symbols(paths.workspace_dir(root) / "index.db", "thread_pool-inl.h")
    assert {"spdlog.thread_pool.~thread_pool", "spdlog.logger.sink_it_", "spdlog.thread_pool.post_log"} <= found, found
