// The panel's words and shapes, without VS Code: what a memory, a symbol or a file of suggestions is called, which
// icon marks it, and the review queue grouped by file in the server's order. Unit-tested in src/test/panel.test.ts.
import { type FileMemory, type Memory, MEMORY_STATUSES, MEMORY_TYPES } from "../protocol";

const TEXT_CHARS = 90; // a tree row's label: the start of the memory, the rest is in the tooltip
const SEVERITY_ICONS: Record<number, Icon> = {
  1: { id: "error", color: "list.errorForeground" },
  2: { id: "warning", color: "list.warningForeground" },
  3: { id: "info", color: "editorInfo.foreground" },
  4: { id: "circle-small", color: "descriptionForeground" },
};
// statuses whose icon says the status rather than the severity: what a person should notice first about them
const STATUS_ICONS: Record<string, Icon> = {
  suggested: { id: "lightbulb", color: "editorLightBulb.foreground" },
  stale: { id: "history", color: "descriptionForeground" },
  orphaned: { id: "debug-disconnect", color: "descriptionForeground" },
};

export interface Icon {
  id: string; // a codicon
  color?: string; // a theme colour id
}

/** How the panel words a status ("active" reads "current"); a status newer than this client reads as it is. */
export function statusLabel(status: string | undefined): string {
  return MEMORY_STATUSES.find((s) => s.status === status)?.label ?? status ?? "";
}

/** A memory type as words ("error_pattern" → "error pattern"). */
export function typeLabel(type: string): string {
  return type.replace(/_/g, " ");
}

/** The first line of a text, cut at `max` characters. */
export function firstLine(text: string, max = TEXT_CHARS): string {
  const line = text.split("\n")[0].trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/** "2 contested · 1 suggested": the non-zero counts, in the order the This File view lists statuses. */
export function countsText(counts: Record<string, number>): string {
  const known: string[] = MEMORY_STATUSES.map((s) => s.status);
  const order = [...known, ...Object.keys(counts).filter((status) => !known.includes(status))];
  return order
    .filter((status) => (counts[status] ?? 0) > 0)
    .map((status) => `${counts[status]} ${statusLabel(status)}`)
    .join(" · ");
}

/** The line under a memory's text: type, status (unless current), where it came from, age. */
export function memoryDescription(memory: Memory): string {
  const parts = [typeLabel(memory.type)];
  if (memory.status && memory.status !== "active") {
    parts.push(statusLabel(memory.status));
  }
  if (memory.origin) {
    parts.push(memory.origin);
  }
  if (memory.age) {
    parts.push(memory.age);
  }
  return parts.join(" · ");
}

/** What a screen reader says for a memory row: all of it, in words. */
export function memoryAccessibleLabel(memory: Memory): string {
  return `${memoryDescription(memory)}: ${memory.text.replace(/\s+/g, " ").trim()}`;
}

/** The icon of a memory row: suggested, stale and orphaned say so; the rest show their diagnostic's severity. */
export function memoryIcon(memory: FileMemory): Icon {
  const byStatus = memory.status ? STATUS_ICONS[memory.status] : undefined;
  if (byStatus) {
    return byStatus;
  }
  return SEVERITY_ICONS[memory.severity ?? 3] ?? SEVERITY_ICONS[3];
}

/** A memory type's codicon (the pickers' icons), for rows without a severity. */
export function typeIcon(type: string): string {
  return MEMORY_TYPES.find((t) => t.type === type)?.icon ?? "question";
}

/** The row's `contextValue`: which inline actions it offers (package.json `view/item/context`). */
export function memoryContext(memory: Memory): string {
  return memory.status === "suggested" ? "forewarn.suggestion" : "forewarn.memory";
}

/** Suggestions of one file (`file` null: workspace-wide), in the server's order. */
export interface FileGroup {
  file: string | null;
  uri?: string;
  suggestions: Memory[];
}

/**
 * The review queue grouped by file, keeping the server's order (`forewarn memory review`'s ranking): files come in
 * the order of their best suggestion, suggestions within a file in queue order. Nothing is re-ranked here.
 */
export function groupByFile(suggestions: Memory[]): FileGroup[] {
  const groups = new Map<string, FileGroup>();
  for (const memory of suggestions) {
    const file = memory.anchor?.file ?? null;
    const key = file ?? "";
    let group = groups.get(key);
    if (!group) {
      group = { file, uri: memory.anchor?.uri, suggestions: [] };
      groups.set(key, group);
    }
    group.suggestions.push(memory);
  }
  return [...groups.values()];
}

/** "3 suggestions" / "1 suggestion" ("memory", "memories"). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
