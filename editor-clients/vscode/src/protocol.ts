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
}

export interface CodeChunk {
  uri?: string;
  file?: string;
  symbol?: string | null;
  range?: LspRange | null;
  text?: string;
  score?: number;
}

export interface SearchResult {
  memories: Memory[];
  chunks?: CodeChunk[];
  mode?: string;
}

export interface RememberResult {
  id: string | number;
  merged?: boolean;
  candidates?: Memory[];
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

export const MEMORY_TYPES = [
  { type: "gotcha", description: "Something that bites: a trap in this code" },
  { type: "decision", description: "Why it is this way, and what was decided against" },
  { type: "error_pattern", description: "An error message and what actually causes it" },
  { type: "dead_end", description: "An approach that was tried and does not work" },
  { type: "convention", description: "How things are done here" },
  { type: "todo", description: "Something that must happen later" },
] as const;

/** The server-side commands, named once. */
export const ServerCommand = {
  search: "forewarn.search",
  accept: "forewarn.accept",
  remember: "forewarn.remember",
  supersede: "forewarn.supersede",
  repoMap: "forewarn.repoMap",
  stats: "forewarn.stats",
  reindex: "forewarn.reindex",
} as const;
