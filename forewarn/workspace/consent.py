"""What the user allowed for one workspace, kept in its data dir (``workspace.json``), outside the work tree.

A cloned repository decides what is in its folder, ``.forewarn/config.toml`` and ``.vscode/settings.json``
included, so a permission it could write is no permission. Mining a repository's history when it opens
(the editor's server does it in the background) hands commit messages, anyone's text, to the editor and to
agents, so it runs only where the user said so: the user-level ``mining.on_open`` for every workspace, or
this per-workspace consent (``forewarn mine --on-open``), which lives with the user's data.
"""

from __future__ import annotations

from pathlib import Path

from forewarn import paths

MINE_ON_OPEN = "mine_on_open"  # workspace.json: true where the user allowed mining when the folder opens


def mining_on_open_allowed(root: Path) -> bool:
    """Whether the user allowed the editor's server to mine this workspace's history when it opens."""
    record = paths.read_workspace_record(paths.workspace_dir(root))
    return bool(record and record.get(MINE_ON_OPEN) is True)


def allow_mining_on_open(root: Path, allowed: bool) -> None:
    """Record the user's choice for this workspace (``forewarn mine --on-open`` / ``--no-on-open``)."""
    wdir = paths.workspace_dir(root)
    record = paths.read_workspace_record(wdir) or {}
    if record.get(MINE_ON_OPEN) is not allowed:
        paths.write_workspace_record(wdir, {**record, MINE_ON_OPEN: allowed})
