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

/** `forewarn.fileMemories`: everything an open counts on a file (its "N more" entry opens this list). */
export interface FileMemoriesResult {
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
} as const;

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
  "agents.trust",
  "logLevel",
] as const;
