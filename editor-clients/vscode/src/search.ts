// What Search Memories lists, as plain rows: the memories, then the code group (one row per file, opening at its best
// chunk). No `vscode` import here, so the list can be unit-tested; commands.ts turns the rows into QuickPick items.
import type { CodeChunk, CodeFile, Memory, SearchResult } from "./protocol";

export const NO_MEMORIES = "No memories match";
export const CODE_GROUP = "Code";
/** Said in the code group while the server indexes the folder; the picker asks again once it is done. */
export const CODE_INDEXING = "$(sync~spin) indexing the workspace: the code results follow when it is done";
const FILE_ICON = "$(file-code)";
const MODULE_SYMBOL = "<module>"; // the indexer's name for a file's top-level chunk: the file says it better

export type SearchRow =
  | { kind: "memory"; memory: Memory }
  | { kind: "message"; label: string }
  | { kind: "separator"; label: string }
  | { kind: "code"; label: string; description: string; detail?: string; file: CodeFile; chunk?: CodeChunk };

/** A file's row: its best chunk's symbol (or the file), where that chunk starts, a test mark, the signature. */
export function codeRow(file: CodeFile): SearchRow {
  const chunk = file.chunks?.[0];
  const symbol = chunk?.symbol && chunk.symbol !== MODULE_SYMBOL ? chunk.symbol : undefined;
  const line = chunk?.range ? `:${chunk.range.start.line + 1}` : "";
  const signature = chunk?.signature?.split("\n")[0].trim();
  return {
    kind: "code",
    label: `${FILE_ICON} ${symbol ?? file.file}`,
    description: `${file.file}${line}${file.is_test ? " · test" : ""}`,
    detail: signature || undefined,
    file,
    chunk,
  };
}

/**
 * Memories first (or the "no memories" line when code matched instead), then a "Code" separator and the files;
 * while the server is still indexing the folder, the code group says so (its results are missing or partial).
 */
export function searchRows(result: SearchResult): SearchRow[] {
  const files = result.files ?? [];
  const rows: SearchRow[] = result.memories.map((memory) => ({ kind: "memory", memory }));
  if (rows.length === 0) {
    rows.push({ kind: "message", label: NO_MEMORIES });
  }
  if (files.length > 0 || result.indexing) {
    rows.push({ kind: "separator", label: CODE_GROUP });
  }
  if (result.indexing) {
    rows.push({ kind: "message", label: CODE_INDEXING });
  }
  rows.push(...files.map(codeRow));
  return rows;
}

/** The picker's title: the search is by words alone when the server has no embedding model, and says so. */
export function searchTitle(result: SearchResult | undefined): string {
  const base = "Forewarn: Search Memories and Code";
  return result?.mode === "lexical" ? `${base} · lexical (words only)` : base;
}
