// "Show Memory Health": renders forewarn.stats as a static, escaped HTML page (no scripts).
import { isRecord, type Stats } from "./protocol";

export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const SECTIONS: { key: string; title: string; empty: string }[] = [
  { key: "by_type", title: "Memories by type", empty: "No memories yet." },
  { key: "by_status", title: "Memories by status", empty: "No memories yet." },
  { key: "stale", title: "Stale memories (the anchored code changed since)", empty: "None — every memory still matches its code." },
  { key: "most_surfaced", title: "Most surfaced", empty: "Nothing surfaced yet." },
  {
    key: "important_without_memories",
    title: "Important modules without memories",
    empty: "Every important module has at least one memory.",
  },
];

function renderCounts(counts: Record<string, unknown>): string {
  const rows = Object.entries(counts)
    .map(([name, count]) => `<tr><td>${escapeHtml(name)}</td><td class="num">${escapeHtml(count)}</td></tr>`)
    .join("");
  return `<table>${rows}</table>`;
}

function renderItem(item: unknown): string {
  if (!isRecord(item)) {
    return `<li>${escapeHtml(item)}</li>`;
  }
  const anchor = isRecord(item.anchor) ? item.anchor : undefined;
  const where = item.file ?? anchor?.file ?? "";
  const parts: string[] = [];
  if (item.type !== undefined) {
    parts.push(`<span class="tag">${escapeHtml(item.type)}</span>`);
  }
  if (item.text !== undefined) {
    parts.push(escapeHtml(item.text));
  }
  if (where) {
    parts.push(`<code>${escapeHtml(where)}</code>`);
  }
  for (const key of ["score", "rank", "dependents", "age", "count", "surfaced"]) {
    if (item[key] !== undefined) {
      const value = typeof item[key] === "number" && !Number.isInteger(item[key]) ? (item[key] as number).toFixed(3) : item[key];
      parts.push(`<span class="muted">${escapeHtml(key)} ${escapeHtml(value)}</span>`);
    }
  }
  if (parts.length === 0) {
    parts.push(`<code>${escapeHtml(JSON.stringify(item))}</code>`);
  }
  return `<li>${parts.join(" ")}</li>`;
}

function renderSection(value: unknown, empty: string): string {
  if (Array.isArray(value)) {
    return value.length ? `<ul>${value.map(renderItem).join("")}</ul>` : `<p class="muted">${escapeHtml(empty)}</p>`;
  }
  if (isRecord(value)) {
    return Object.keys(value).length ? renderCounts(value) : `<p class="muted">${escapeHtml(empty)}</p>`;
  }
  if (value === undefined || value === null) {
    return `<p class="muted">${escapeHtml(empty)}</p>`;
  }
  return `<p>${escapeHtml(value)}</p>`;
}

// scalar facts shown together at the top, with readable names
const OVERVIEW: { key: string; label: string }[] = [
  { key: "total", label: "Memories" },
  { key: "stale", label: "Stale" },
  { key: "mode", label: "Search mode" },
  { key: "reason", label: "Why" },
  { key: "vectors", label: "Vectors indexed" },
];

function renderOverview(stats: Stats): string {
  const rows = OVERVIEW.filter(({ key }) => stats[key] !== undefined && stats[key] !== null && typeof stats[key] !== "object")
    .map(({ key, label }) => `<tr><td>${escapeHtml(label)}</td><td>${escapeHtml(stats[key])}</td></tr>`)
    .join("");
  return rows ? `<table class="overview">${rows}</table>` : "";
}

export function renderHealthHtml(stats: Stats, workspaceName: string): string {
  const overview = new Set(
    OVERVIEW.map((o) => o.key).filter((key) => stats[key] === undefined || stats[key] === null || typeof stats[key] !== "object"),
  );
  const known = new Set([...SECTIONS.map((s) => s.key), ...overview]);
  // a count of stale memories belongs to the overview; a list of them gets its own section
  const sections = SECTIONS.filter(({ key }) => !overview.has(key)).map(
    ({ key, title, empty }) => `<section><h2>${escapeHtml(title)}</h2>${renderSection(stats[key], empty)}</section>`,
  );
  // anything a newer server adds still shows up, under its own name
  for (const [key, value] of Object.entries(stats)) {
    if (!known.has(key)) {
      sections.push(`<section><h2>${escapeHtml(key.replace(/_/g, " "))}</h2>${renderSection(value, "—")}</section>`);
    }
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<title>Forewarn: memory health</title>
<style>
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1.5em; }
  h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
  table { border-collapse: collapse; } td { padding: 2px 12px 2px 0; } td.num { text-align: right; }
  li { margin: 4px 0; } .muted { opacity: 0.7; }
  .tag { border: 1px solid var(--vscode-editorWidget-border, #888); border-radius: 3px; padding: 0 4px; font-size: 0.9em; }
</style>
</head>
<body>
<h1>Memory health — ${escapeHtml(workspaceName)}</h1>
${renderOverview(stats)}
${sections.join("\n")}
</body>
</html>`;
}
