"""A C++ header's declarations carry their definitions' memories (QA pass 7, finding 10): ``os.h`` declares
``_thread_id()`` and ``logger.h``'s class declares ``flush()``, both defined in ``-inl.h`` files with memories; an
open of either header showed none, while the hover on each declaration did. A function in a namespace is called
bare or through its namespace (``os::thread_id()``), not as a method."""

from __future__ import annotations

from pathlib import Path

from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo

FILES = {
    "include/os.h": (
        "#pragma once\nnamespace spdlog {\nnamespace details {\nnamespace os {\n"
        "SPDLOG_API size_t _thread_id() SPDLOG_NOEXCEPT;\nSPDLOG_API size_t thread_id() SPDLOG_NOEXCEPT;\n"
        '} // namespace os\n} // namespace details\n} // namespace spdlog\n#include "os-inl.h"\n'
    ),
    "include/os-inl.h": (
        "#pragma once\nnamespace spdlog {\nnamespace details {\nnamespace os {\n"
        "SPDLOG_INLINE size_t _thread_id() SPDLOG_NOEXCEPT {\n    return 7;\n}\n\n"
        "SPDLOG_INLINE size_t thread_id() SPDLOG_NOEXCEPT {\n    return _thread_id();\n}\n"
        "} // namespace os\n} // namespace details\n} // namespace spdlog\n"
    ),
    "include/logger.h": (
        "#pragma once\nnamespace spdlog {\nclass SPDLOG_API logger\n{\npublic:\n    void flush();\n"
        '    size_t id() { return details::os::thread_id(); }\n};\n} // namespace spdlog\n#include "logger-inl.h"\n'
    ),
    "include/logger-inl.h": (
        "#pragma once\nnamespace spdlog {\nSPDLOG_INLINE void logger::flush()\n{\n    flush_();\n}\n"
        "} // namespace spdlog\n"
    ),
}


def test_a_headers_declarations_show_their_definitions_memories(tmp_path: Path, open_ws: list[Workspace]) -> None:
    repo = Repo(tmp_path / "repo")
    for rel, text in FILES.items():
        repo.write(rel, text)
    repo.commit("spdlog, header-only")
    ws = Workspace.open(repo.root, embedder=None)
    open_ws.append(ws)
    ws.reindex(list(FILES))
    tid = ws.remember("pthread_threadid_np on macOS", type="gotcha", file="include/os-inl.h",
                      symbol="spdlog.details.os._thread_id").memory  # fmt: skip
    cached = ws.remember("cached per thread", type="gotcha", file="include/os-inl.h",
                         symbol="spdlog.details.os.thread_id").memory  # fmt: skip
    flush = ws.remember("flush takes the sinks' mutexes", type="gotcha", file="include/logger-inl.h",
                        symbol="spdlog.logger.flush").memory  # fmt: skip

    def shown(rel: str) -> set[str]:
        return {h.memory.id for h in ws.open_view(rel, limit=50, record=False).hits if h.relation == "dependency"}

    assert shown("include/os.h") == {tid.id, cached.id}  # the prototypes
    assert shown("include/logger.h") == {flush.id, cached.id}  # the class's declaration; os::thread_id() called
