// Shapes of what `forewarn serve` answers to workspace/executeCommand (docs/internals.md, "LSP surface").
// Fields are optional where older or newer servers may leave them out: the UI degrades, never throws.

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface Anchor {
  uri?: string;
  file?: string;
  symbol?: string | null;
  range?: LspRange | null;
}

export interface Memory {
  id: string | number;
  type: string;
  text: string;
  status?: string;
  source?: string;
  confidence?: number;
  created_at?: string;
  age?: string;
  score?: number;
  anchor?: Anchor | null;
  /** Mined memories: the commits they came from (newest matters most) and how precisely they are anchored. */
  provenance?: Provenance | null;
  /** The server's words for where it came from ("suggested by an agent (Claude Code 2.1.0)"); pickers show it. */
  origin?: string;
  /** A suggestion that changes another memory when accepted (a teammate's newer copy, an agent's proposal): what. */
  proposedChange?: ProposedChange | null;
}

export interface ProposedChange {
  action: string;
  /** The memory accepting it changes. */
  target: string;
  changes: { field: string; from: string; to: string }[];
  bookkeeping_only: boolean;
  /** Why accepting it would fail now, if it would. */
  blocked: string | null;
  /** One line: "accepting it changes memory 01J…: text 'a' → 'b'". */
  summary: string;
}

export interface ProvenanceCommit {
  sha?: string;
  author?: string;
  date?: string;
  subject?: string;
}

export interface Provenance {
  commits?: ProvenanceCommit[];
  anchor?: string;
  /** What an agent wrote through Forewarn's MCP server: the agent as its MCP client named itself. */
  agent?: { name?: string; version?: string | null };
}

export interface ReviewResult {
  suggestions: Memory[];
  total?: number;
}

/** `forewarn.openList`: everything an open counts on a file (its "N more" entry opens this list). */
export interface OpenListResult {
  file: string;
  /** The file's own memories, then those on definitions it uses from other files (`usedAt`: where it uses each). */
  memories: (Memory & { usedAt?: number | null })[];
  total: number;
}

/** `forewarn.suggestionDiff`: the commit diff a mined suggestion stands on (or a warning comment's place). */
export interface SuggestionDiffResult {
  id: string;
  diff: string;
}

export interface CodeChunk {
  uri?: string;
  file?: string;
  symbol?: string | null;
  kind?: string;
  signature?: string | null;
  range?: LspRange | null;
  text?: string;
  score?: number;
}

/** A code search hit as a file: its best chunks, best first. */
export interface CodeFile {
  file: string;
  uri?: string;
  score?: number;
  is_test?: boolean;
  chunks?: CodeChunk[];
}

export interface SearchResult {
  memories: Memory[];
  chunks?: CodeChunk[];
  /** Code hits ranked as files, best first (servers from before hybrid code search leave it out). */
  files?: CodeFile[];
  /** "lexical" when the embedding model is missing; `reason` says why. */
  mode?: string;
  reason?: string | null;
  /** No memory reached the relevance floor: says so, naming the one that came closest. */
  message?: string | null;
  /** The folder is being indexed: the code part is missing or may be incomplete until it is done. */
  indexing?: boolean;
}

export interface RememberResult {
  id: string | number;
  merged?: boolean;
  candidates?: Memory[];
  /** Current memories on the same place that this one seems to contradict, and why (cues); the client asks. */
  conflicts?: Conflict[];
}

/** A memory the new one seems to contradict: negation, replacement, a changed value, an antonym. */
export interface Conflict extends Memory {
  cues?: string[];
}

/** What `forewarn.resolveConflict` accepts: the new one replaces the other, both hold, or both are contested. */
export type Resolution = "replace" | "both" | "contested";

export interface ResolveConflictResult {
  id: string;
  other: string;
  resolution: Resolution;
  memory?: Memory;
  otherMemory?: Memory;
}

export interface RepoMapResult {
  text: string;
  files?: { file: string; score: number }[];
}

export interface ReindexResult {
  files?: number;
  changed?: number;
  deleted?: number;
  duration_ms?: number;
}

export type Stats = Record<string, unknown>;

/** A memory in `forewarn.fileMemories`: a `Memory` and the severity its diagnostic has on open (LSP numbers). */
export interface FileMemory extends Memory {
  severity?: number;
}

/** One symbol of a file (`symbol` null: the whole file) with its memories and how many of each status. */
export interface SymbolMemories {
  symbol: string | null;
  range?: LspRange | null;
  counts: Record<string, number>;
  memories: FileMemory[];
}

/** `forewarn.fileMemories`: every memory of one file, grouped by symbol (the whole file first, then by line). */
export interface FileMemoriesResult {
  file: string;
  uri: string;
  symbols: SymbolMemories[];
  counts: Record<string, number>;
  total: number;
  more: number;
}

/** `forewarn.stats`' trajectory: one number per bucket (`buckets` are their first days). */
export interface Trajectory {
  bucket: string;
  since: string;
  until: string;
  buckets: string[];
  by_source: Record<string, number[]>;
  by_status: Record<string, number[]>;
  events: Record<string, number[]>;
}

/** A memory as the health report lists it, with what it is listed for (shown, times turned away, why stale). */
export interface BriefMemory {
  id: string;
  type: string;
  text: string;
  status?: string;
  source?: string;
  file?: string | null;
  symbol?: string | null;
  uri?: string;
  shown?: number;
  surfaced?: number;
  times?: number;
  last?: string;
  at?: string;
  why?: string;
}

export interface ImportantFile {
  file: string;
  uri?: string;
  score: number;
  rank: number;
  memories: number;
}

/** `forewarn.stats` (also `forewarn stats --json`): counts, the trajectory and the lists beside it. */
export interface HealthStats {
  total?: number;
  by_type?: Record<string, number>;
  by_status?: Record<string, number>;
  stale?: number;
  mode?: string;
  reason?: string | null;
  trajectory?: Trajectory;
  important_files?: ImportantFile[];
  shown_most?: BriefMemory[];
  most_surfaced?: BriefMemory[];
  dismissed_most?: BriefMemory[];
  stale_memories?: BriefMemory[];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// The vocabulary shared with the server (forewarn/memory/store.py, forewarn/lsp/commands.py, forewarn/config.py)
// is spelled out here and nowhere else in this extension; tests/editors/test_parity.py keeps it identical.

/** Every memory type the server accepts, in its order; `icon` is a codicon for pickers. */
export const MEMORY_TYPES = [
  { type: "gotcha", icon: "warning", description: "Something that bites: a trap in this code" },
  { type: "decision", icon: "law", description: "Why it is this way, and what was decided against" },
  { type: "error_pattern", icon: "bug", description: "An error message and what actually causes it" },
  { type: "dead_end", icon: "circle-slash", description: "An approach that was tried and does not work" },
  { type: "convention", icon: "book", description: "How things are done here" },
  { type: "preference", icon: "heart", description: "How the team likes it done, where either way works" },
  { type: "todo", icon: "checklist", description: "Something that must happen later" },
  { type: "note", icon: "note", description: "Anything else worth knowing here" },
] as const;

export type MemoryType = (typeof MEMORY_TYPES)[number]["type"];

/** The server's workspace/executeCommand commands, named once. */
export const ServerCommand = {
  search: "forewarn.search",
  remember: "forewarn.remember",
  supersede: "forewarn.supersede",
  forget: "forewarn.forget",
  confirm: "forewarn.confirm",
  markOutdated: "forewarn.markOutdated",
  repoMap: "forewarn.repoMap",
  stats: "forewarn.stats",
  reindex: "forewarn.reindex",
  accept: "forewarn.accept",
  acceptSuggestion: "forewarn.acceptSuggestion",
  dismissSuggestion: "forewarn.dismissSuggestion",
  review: "forewarn.review",
  suggestionDiff: "forewarn.suggestionDiff",
  restore: "forewarn.restore",
  reanchor: "forewarn.reanchor",
  resolveConflict: "forewarn.resolveConflict",
  fileMemories: "forewarn.fileMemories",
  openList: "forewarn.openList",
} as const;

/** Sent by the server whenever memories may have changed: the panel's views ask again. */
export const MEMORIES_CHANGED_NOTIFICATION = "$/forewarn/memoriesChanged";

/**
 * Every memory status the server knows (forewarn/memory/vocabulary.py MemoryStatus), as the panel words it; the
 * panel's This File view lists those with `inFile`, in this order.
 */
export const MEMORY_STATUSES = [
  { status: "contested", label: "contested", inFile: true },
  { status: "active", label: "current", inFile: true },
  { status: "stale", label: "stale", inFile: true },
  { status: "orphaned", label: "orphaned (code gone)", inFile: true },
  { status: "suggested", label: "suggested", inFile: true },
  { status: "superseded", label: "superseded", inFile: false },
  { status: "archived", label: "forgotten", inFile: false },
  { status: "dismissed", label: "dismissed", inFile: false },
] as const;

/**
 * What this client declares under `capabilities.experimental` at initialize: it asks the user for the text of a
 * code action whose argument says `text: null` (remember, supersede, edit and accept). Clients that do not
 * declare it (agent hosts, generic editors) are offered only actions whose arguments are complete.
 */
export const EXPERIMENTAL_CAPABILITIES = { forewarn: { promptsForText: true } } as const;

/** The extension's own commands (package.json `contributes.commands`), named once. */
export const ClientCommand = {
  searchMemories: "forewarn.searchMemories",
  rememberHere: "forewarn.rememberHere",
  showHealth: "forewarn.showHealth",
  showRepoMap: "forewarn.showRepoMap",
  reindexWorkspace: "forewarn.reindexWorkspace",
  installModel: "forewarn.installModel",
  restartServer: "forewarn.restartServer",
  showOutput: "forewarn.showOutput",
  reviewSuggestions: "forewarn.reviewSuggestions",
  showPanel: "forewarn.panel.show",
  refreshPanel: "forewarn.panel.refresh",
  openMemory: "forewarn.panel.openMemory",
  confirmMemory: "forewarn.panel.confirm",
  markMemoryOutdated: "forewarn.panel.markOutdated",
  supersedeMemory: "forewarn.panel.supersede",
  forgetMemory: "forewarn.panel.forget",
  acceptSuggestion: "forewarn.panel.accept",
  editAndAcceptSuggestion: "forewarn.panel.editAndAccept",
  dismissSuggestion: "forewarn.panel.dismiss",
  showSuggestionCommit: "forewarn.panel.showCommit",
} as const;

/** Every daemon setting (forewarn/config.py's tree), as the dotted camelCase keys the client sends. */
export const DAEMON_SETTINGS = [
  "index.maxFileBytes",
  "index.maxLineLength",
  "index.exclude",
  "index.workers",
  "embedder.enabled",
  "embedder.model",
  "embedder.nCtx",
  "embedder.pooling",
  "embedder.dimensions",
  "embedder.nGpuLayers",
  "embedder.nThreads",
  "embedder.nBatch",
  "embedder.queryPrefix",
  "embedder.documentPrefix",
  "diagnostics.enabled",
  "diagnostics.maxWarnings",
  "diagnostics.maxDiagnostics",
  "diagnostics.includeNeighbours",
  "mining.enabled",
  "mining.onOpen",
  "mining.holdBack",
  "agents.trust",
  "logLevel",
] as const;

/**
 * The daemon settings that load code (a model file), spend the machine or say whom to trust (forewarn/config.py
 * USER_LEVEL_KEYS): only the user's own value of each is sent, in initializationOptions.user, so a repository's
 * .vscode/settings.json can never choose them (their package.json scope is "machine" as well).
 */
export const USER_LEVEL_SETTINGS = [
  "index.workers",
  "embedder.model",
  "embedder.nCtx",
  "embedder.pooling",
  "embedder.dimensions",
  "embedder.nGpuLayers",
  "embedder.nThreads",
  "embedder.nBatch",
  "embedder.queryPrefix",
  "embedder.documentPrefix",
  "agents.trust",
  "mining.onOpen",
] as const;

/** initializationOptions' section for the user's own settings (forewarn/lsp/settings.py USER_SECTION). */
export const USER_SECTION = "user";
