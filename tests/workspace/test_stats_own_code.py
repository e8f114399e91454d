"""``stats``' most important files and the session briefing's are the team's own code (QA pass 7, finding 7:
spdlog's bundled copy of fmt filled 7 of the 10 "most important files with and without memories")."""

from __future__ import annotations

from pathlib import Path

from forewarn.mcp.hooks.handler import briefing
from forewarn.mcp.hooks.session import SessionState
from forewarn.workspace.engine import Workspace
from tests.gitrepo import Repo
from tests.indexing.test_repomap_own_code import ATTRIBUTES, FILES, NOT_OWN


def test_vendored_and_generated_files_are_not_the_teams_most_important(
    tmp_path: Path, open_ws: list[Workspace]
) -> None:
    repo = Repo(tmp_path / "ws")
    for rel, text in {**FILES, ".gitattributes": ATTRIBUTES}.items():
        repo.write(rel, text)
    repo.commit("the app, its vendored library and its generated files")
    ws = Workspace.open(repo.root, embedder=None)
    open_ws.append(ws)
    ws.reindex(list(FILES))
    ranks, _ = ws.graph.file_ranks()
    assert set(sorted(ranks, key=lambda r: -ranks[r])[:3]) & NOT_OWN  # PageRank puts them first
    stats = ws.stats()
    listed = [f.file for f in stats.important_files] + [rel for rel, _ in stats.important_without_memories]
    assert listed and not set(listed) & NOT_OWN, listed
    assert [f.rank for f in stats.important_files] == list(range(1, len(stats.important_files) + 1))
    vendored = ws.remember("vendored_add overflows", type="gotcha", file="vendor/mathlib/core.py",
                           symbol="vendored_add").memory  # fmt: skip
    own = ws.remember("own_save drops the row", type="gotcha", file="app/model.py", symbol="OwnModel.own_save").memory
    said = briefing(ws, SessionState())
    assert own.id in said and vendored.id not in said, said
