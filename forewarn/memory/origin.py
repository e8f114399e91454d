"""Who said it: the one provenance model. Every front end says where a memory came from through this module.

A memory's :class:`Origin` is derived from what its row holds (source, provenance, ``recorded_by``, status), so
hovers, diagnostics, MCP answers, the CLI and review's json/SARIF cannot disagree, and none of them can make a
claim read as a fact:

- ``person``: typed here (CLI, editor) by this machine's user; ``recorded_by`` is this machine's git identity.
- ``imported``: came from a shared file. ``provenance["imported"]``, written by *this* machine's import, says
  which file and which commit last changed its line (``git blame``). What the file says about who wrote it
  (``recorded_by``, an agent's name, mined commits) is only the file's claim and is shown as one.
- ``commit`` / ``comment``: mined from the history (the author is what git records) or a warning comment.
- ``agent``: written by a coding agent (MCP, or an LSP client that did not declare itself an interactive
  editor); the name is the client's own claim about itself.

**Vetted**: a person here typed it or accepted it, or the user chose to accept such writes (trusted agents,
``memory import --accept``, ``[team] accept_imports``) — anything not waiting for review (``suggested``) nor
turned down (``dismissed``). Only what is vetted speaks as fact: it alone reaches agents and ``review --fail-on``.

**Proposals**: a suggestion may propose an action on another memory instead of new text (an agent's
``confirm``/``mark_outdated``/``forget``, a teammate's newer copy of a memory): ``provenance["proposal"]``
names the action and the target; accepting it applies the action (``forewarn.workspace.proposals``).

``provenance["imported"]`` and ``provenance["proposal"]`` are written by this machine only: export leaves them
out, and import drops them from a file (:func:`shared_provenance`), so a file can forge neither.

Pure: imports only the memory records and the text helpers, so every layer may render origins.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from forewarn.memory.records import Memory
from forewarn.memory.vocabulary import MemorySource, MemoryStatus
from forewarn.safe_text import flat_text

IMPORTED_KEY = "imported"  # provenance written by this machine's import: {"from", "line", "commit", "author", …}
PROPOSAL_KEY = "proposal"  # provenance of a suggestion that proposes an action on another memory
LOCAL_KEYS = (IMPORTED_KEY, PROPOSAL_KEY)  # never exported, never taken from a file
HOTSPOT_KIND = "hotspot"  # provenance["kind"] of a mined hot spot (several fixes of one definition)
AGENT_KEY = "agent"  # {"name", "version"}: what the client said it is (MCP clientInfo, LSP clientInfo)
AGENT_NAME_MAX_CHARS = 60  # a client names itself: a name, not a paragraph
CLAIM_MAX_CHARS = 80  # a writer's name a file or a client claims: one short line
COMMIT_SHA_CHARS = 7  # git's short form: unique enough to paste into `git show`
UNVETTED = (MemoryStatus.SUGGESTED, MemoryStatus.DISMISSED)  # waiting for a person, or turned down by one


class OriginKind(StrEnum):
    """Where a memory came from (one word each, for json and SARIF)."""

    PERSON = "person"
    IMPORTED = "imported"
    COMMIT = "commit"
    COMMENT = "comment"
    AGENT = "agent"


class ProposalAction(StrEnum):
    """What a proposal asks a person to do to another memory."""

    CONFIRM = "confirm"  # an agent says it is still true
    MARK_OUTDATED = "mark_outdated"  # an agent says it is outdated, and why
    FORGET = "forget"  # an agent asks to archive it
    UPDATE = "update"  # a shared file holds a newer copy of it


@dataclass(frozen=True, slots=True)
class Proposal:
    action: ProposalAction
    target: str  # the id of the memory it would change
    reason: str | None = None  # mark_outdated: why

    def phrase(self) -> str:
        """``proposes to mark 01J…4F2A9C outdated: the gateway dedupes now`` (one line, the reason quoted)."""
        short = flat_text(self.target)[-6:]
        if self.action == ProposalAction.MARK_OUTDATED:
            why = f": “{_claim(self.reason or '', 200)}”" if self.reason else ""
            return f"proposes to mark memory {short} outdated{why}"
        if self.action == ProposalAction.CONFIRM:
            return f"proposes to confirm memory {short} as still true"
        if self.action == ProposalAction.FORGET:
            return f"proposes to forget memory {short}"
        return f"a newer copy of memory {short} from the shared file, proposed to replace it"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a memory came from and whether a person vetted it; ``phrase()`` says it in one line."""

    kind: OriginKind
    vetted: bool
    writer: str | None = None  # person: this machine's user; agent: its claimed name; commit: the git author
    claim: str | None = None  # imported: what the file says about who wrote it ("it says …")
    commit: str | None = None  # commit: the lesson's own (``lesson_commit``); imported: the commit of its line
    commits: int = 0  # commit: how many commits the lesson stands on
    date: str | None = None  # YYYY-MM-DD of that commit, when known
    place: str | None = None  # imported: the file it came from
    uncommitted: bool = False  # imported: its line was not committed yet when imported
    hot_spot: bool = False  # commit: a hot spot, learned from its fixes together (quoted by the newest)
    proposal: Proposal | None = None

    def phrase(self) -> str:
        """One line for a person or an agent: ``recorded here by Ann Lee``, ``suggested by an agent that calls
        itself “Claude Code 2.1.0”``, ``imported from .forewarn/memories.jsonl, commit abc1234 by Bob, 2025-06-01;
        it says it was written by “Alice Smith”``. Every name another party chose is in quotes."""
        if self.kind == OriginKind.PERSON:
            out = f"recorded here by {self.writer}" if self.writer else "recorded here"
        elif self.kind == OriginKind.AGENT:
            verb = "written" if self.vetted else "suggested"
            out = f"{verb} by an agent that calls itself “{self.writer or 'nothing'}”"
        elif self.kind == OriginKind.COMMENT:
            out = f"{'learned' if self.vetted else 'suggested'} from a warning comment"
        elif self.kind == OriginKind.COMMIT:
            verb = "learned" if self.vetted else "suggested"
            if self.commit is None:
                out = f"{verb} from the history"
            else:
                which = f"commit {self.commit}"
                if self.commits > 1 and self.hot_spot:
                    which = f"{self.commits} commits, latest {which}"
                who = f" by {self.writer}" if self.writer else ""
                out = f"{verb} from {which}{who}" + (f", {self.date}" if self.date else "")
                if self.commits > 1 and not self.hot_spot:  # the fixes of its code folded into it (mine_merge)
                    out += f" and {self.commits - 1} related commit{'s' if self.commits > 2 else ''}"
        else:
            out = f"imported from {self.place or 'a shared file'}"
            if self.commit is not None:
                out += f", commit {self.commit}" + (f" by {self.writer}" if self.writer else "")
                out += f", {self.date}" if self.date else ""
            elif self.uncommitted:
                out += " (its line was not committed)"
            if self.claim:
                out += f"; {self.claim}"
        if self.proposal is not None:
            out += f"; {self.proposal.phrase()}"
        return out

    def to_dict(self) -> dict[str, Any]:
        """For json and SARIF: the kind, whether vetted, and the phrase (what a reader should see)."""
        return {"kind": str(self.kind), "vetted": self.vetted, "text": self.phrase()}


def origin_of(memory: Memory) -> Origin:
    """The origin of ``memory``, from its row alone (no history read: diagnostics derive it per memory)."""
    prov = memory.provenance or {}
    vetted = memory.status not in UNVETTED
    proposal = proposal_of(memory)
    imported = prov.get(IMPORTED_KEY)
    if isinstance(imported, dict):
        return _imported(memory, imported, vetted, proposal)
    agent = agent_name(prov)
    if agent is not None or memory.source == MemorySource.AGENT:
        return Origin(OriginKind.AGENT, vetted, writer=agent or "nothing", proposal=proposal)
    if memory.source == MemorySource.COMMENT:
        return Origin(OriginKind.COMMENT, vetted, proposal=proposal)
    commits = provenance_commits(prov)
    if memory.source == MemorySource.COMMIT or commits:
        own = lesson_commit(prov)
        if own is None:
            return Origin(OriginKind.COMMIT, vetted, proposal=proposal)
        author = _claim(str(own["author"])) if own.get("author") else None
        date = flat_text(str(own["date"]))[:10] if own.get("date") else None
        sha = flat_text(str(own["sha"]))[:COMMIT_SHA_CHARS]
        return Origin(OriginKind.COMMIT, vetted, writer=author, commit=sha, commits=len(commits), date=date,
                      proposal=proposal, hot_spot=is_hot_spot(prov))  # fmt: skip
    writer = _claim(writer_name(memory.recorded_by)) if memory.recorded_by else None
    return Origin(OriginKind.PERSON, vetted, writer=writer, proposal=proposal)


def _imported(memory: Memory, mark: dict[str, Any], vetted: bool, proposal: Proposal | None) -> Origin:
    place = _claim(str(mark.get("from") or ""), 120) or None
    if mark.get("legacy"):
        place = "a shared file (imported before Forewarn recorded the commit)"
    sha = mark.get("commit")
    commit = flat_text(str(sha))[:COMMIT_SHA_CHARS] if isinstance(sha, str) and sha else None
    author = _claim(str(mark["author"])) if commit and mark.get("author") else None
    date = flat_text(str(mark["date"]))[:10] if commit and mark.get("date") else None
    return Origin(
        OriginKind.IMPORTED, vetted, writer=author, claim=file_claim(memory), commit=commit, date=date, place=place,
        uncommitted=bool(mark.get("uncommitted")), proposal=proposal,
    )  # fmt: skip


def file_claim(memory: Memory) -> str | None:
    """What an imported memory says about who wrote it, worded as its claim (None when it says nothing)."""
    prov = memory.provenance or {}
    if memory.recorded_by:
        return f"it says it was written by “{_claim(writer_name(memory.recorded_by))}”"
    if (agent := agent_name(prov)) is not None:
        return f"it says an agent wrote it (“{agent}”)"
    if (own := lesson_commit(prov)) is not None:
        return f"it says it was mined from commit “{flat_text(str(own['sha']))[:COMMIT_SHA_CHARS]}”"
    if memory.source == MemorySource.COMMENT:
        return "it says it was mined from a warning comment"
    return None


def proposal_of(memory: Memory) -> Proposal | None:
    """The action a suggestion proposes on another memory, or None (a plain memory or suggestion)."""
    raw = (memory.provenance or {}).get(PROPOSAL_KEY)
    if not isinstance(raw, dict) or raw.get("action") not in tuple(ProposalAction):
        return None
    target = raw.get("target")
    if not isinstance(target, str) or not target:
        return None
    reason = raw.get("reason")
    return Proposal(ProposalAction(raw["action"]), target, reason if isinstance(reason, str) else None)


def shared_provenance(provenance: dict[str, Any] | None) -> dict[str, Any] | None:
    """``provenance`` without what only this machine writes (what an import, and export, may carry)."""
    if not provenance:
        return None
    kept = {k: v for k, v in provenance.items() if k not in LOCAL_KEYS}
    return kept or None


def with_local(provenance: dict[str, Any] | None, key: str, value: dict[str, Any]) -> dict[str, Any]:
    """``provenance`` (its shared part) with one local key set."""
    return {**(shared_provenance(provenance) or {}), key: value}


def provenance_commits(provenance: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The commits a provenance names (entries with a sha; an imported file may carry anything)."""
    commits = (provenance or {}).get("commits") or []
    return [c for c in commits if isinstance(c, dict) and c.get("sha")] if isinstance(commits, list) else []


def lesson_commit(provenance: dict[str, Any] | None) -> dict[str, Any] | None:
    """The commit a mined memory is quoted by: the one its headline and why come from, which mining puts first (a
    folded lesson's own commit before the fixes folded into it; a hot spot's newest fix). None without commits."""
    commits = provenance_commits(provenance)
    return commits[0] if commits else None


def is_hot_spot(provenance: dict[str, Any] | None) -> bool:
    """A hot spot: a lesson of its several fixes together, none of them its own."""
    return (provenance or {}).get("kind") == HOTSPOT_KIND


def agent_name(provenance: dict[str, Any] | None) -> str | None:
    """``Claude Code 2.1.0``: the name an agent gave itself (``provenance["agent"]``), on one line and cut short,
    since the client chose it; None when no agent is named."""
    agent = (provenance or {}).get(AGENT_KEY)
    if not isinstance(agent, dict):
        return None
    parts = [str(agent[key]) for key in ("name", "version") if agent.get(key) not in (None, "")]
    flat = flat_text(" ".join(parts)).replace("“", '"').replace("”", '"')
    if not flat:
        return "unnamed"  # an agent wrote it without saying who: still an agent's
    return flat if len(flat) <= AGENT_NAME_MAX_CHARS else flat[: AGENT_NAME_MAX_CHARS - 1] + "…"


def writer_name(recorded_by: str) -> str:
    """``Ann Lee`` of ``Ann Lee <ann@example.com>`` (a line names the person; the address is in ``memory show``)."""
    name = recorded_by.split(" <", 1)[0].strip()
    return name or recorded_by.strip().strip("<>")


def _claim(text: str, limit: int = CLAIM_MAX_CHARS) -> str:
    """Someone else's words inside ours: one line, no quote marks of ours, cut short."""
    flat = flat_text(text).replace("“", '"').replace("”", '"')
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
