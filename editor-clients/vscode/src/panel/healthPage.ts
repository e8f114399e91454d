// The Health page (the panel's Health view and "Show Memory Health"), drawn from one `forewarn.stats` answer — the
// same numbers `forewarn stats --json` prints. Pure HTML: a strict CSP (nothing remote, no inline script or style),
// one script and one stylesheet from the extension, every chart an SVG from charts.ts.
import { type BriefMemory, type HealthStats, MEMORY_STATUSES, type Trajectory } from "../protocol";
import { barChart, columnCharts, escapeHtml, lineChart, type Series, shortDate } from "./charts";
import { firstLine, plural, statusLabel, typeLabel } from "./model";

/** Where the page's own files come from, and the nonce its one script carries. */
export interface PageAssets {
  cspSource: string; // the webview's resource origin (webview.cspSource)
  scriptUri: string;
  styleUri: string;
  nonce: string;
}

/** The windows the page offers (`forewarn.stats`' `since`); "" is the server's default: the first memory, a year at most. */
export const SINCE_CHOICES: { value: string; label: string }[] = [
  { value: "", label: "all (a year at most)" },
  { value: "30d", label: "the last 30 days" },
  { value: "90d", label: "the last 90 days" },
  { value: "1y", label: "the last year" },
];

// how the trajectory's source groups read (forewarn/memory/vocabulary.py SourceGroup); a newer one reads as it is
const SOURCE_LABELS: Record<string, string> = {
  typed: "typed here",
  mined: "mined from history",
  imported: "imported from the team",
  agent: "written by agents",
};
// the statuses drawn over time: the present (what shows on files) and the queue; history is in "what happened"
const DRAWN_STATUSES: string[] = MEMORY_STATUSES.filter((s) => s.inFile).map((s) => s.status);

export function contentSecurityPolicy(assets: PageAssets): string {
  const source = assets.cspSource;
  return `default-src 'none'; img-src ${source}; style-src ${source}; font-src ${source}; script-src 'nonce-${assets.nonce}';`;
}

function series(values: Record<string, number[]> | undefined, keys: string[] | undefined, label: (key: string) => string): Series[] {
  const data = values ?? {};
  return (keys ?? Object.keys(data)).filter((key) => key in data).map((key) => ({ key, label: label(key), values: data[key] }));
}

function openButton(item: { uri?: string; file?: string | null; symbol?: string | null }): string {
  if (!item.file) {
    return `<span class="where">(workspace)</span>`;
  }
  const where = `${item.file}${item.symbol ? `::${item.symbol.replace(/#\d+$/, "")}` : ""}`; // no server-side #2
  if (!item.uri) {
    return `<span class="where">${escapeHtml(where)}</span>`;
  }
  return `<button type="button" class="open" data-uri="${escapeHtml(item.uri)}" title="Open ${escapeHtml(item.file)}">${escapeHtml(where)}</button>`;
}

function memoryList(id: string, items: BriefMemory[], what: (m: BriefMemory) => string, empty: string): string {
  if (items.length === 0) {
    return `<p class="muted" data-list="${id}">${escapeHtml(empty)}</p>`;
  }
  const rows = items
    .map(
      (m) =>
        `<li data-id="${escapeHtml(m.id)}">${openButton(m)} <span class="type">${escapeHtml(typeLabel(m.type))}</span> ` +
        `<span class="text">${escapeHtml(firstLine(m.text, 120))}</span> <span class="muted">${escapeHtml(what(m))}</span></li>`,
    )
    .join("");
  return `<ol class="memories" data-list="${id}">${rows}</ol>`;
}

function section(id: string, title: string, body: string, note?: string): string {
  const aside = note ? `<p class="note">${escapeHtml(note)}</p>` : "";
  return `<section aria-labelledby="${id}"><h2 id="${id}">${escapeHtml(title)}</h2>${aside}${body}</section>`;
}

function trajectorySections(t: Trajectory): string {
  const window = `${shortDate(t.since)} to ${shortDate(t.until)}, by ${t.bucket}`;
  const bySource = series(t.by_source, undefined, (key) => SOURCE_LABELS[key] ?? key);
  const byStatus = series(t.by_status, DRAWN_STATUSES, statusLabel);
  const events = series(t.events, undefined, (key) => key);
  return (
    section(
      "h-source",
      "Memories over time, by source",
      lineChart("by_source", "Current memories by source", t.buckets, bySource),
      `Current memories (active, stale, contested, orphaned) at the end of each ${t.bucket}, ${window}.`,
    ) +
    section(
      "h-status",
      "Memories over time, by status",
      lineChart("by_status", "Memories by status", t.buckets, byStatus),
      "Suggestions wait for a person; stale and orphaned ones need one.",
    ) +
    section("h-events", "What happened", columnCharts("events", "What happened", t.buckets, events), `Per ${t.bucket}.`)
  );
}

/** The whole page for `stats`; `since` is the window chosen ("" the default), `title` names the workspace. */
export function renderHealthPage(stats: HealthStats, assets: PageAssets, title: string, since: string): string {
  const byStatus = stats.by_status ?? {};
  const waiting = byStatus.suggested ?? 0;
  const overview =
    `<p class="overview"><strong>${stats.total ?? 0}</strong> memories · <strong>${stats.stale ?? 0}</strong> stale · ` +
    `<strong>${waiting}</strong> ${waiting === 1 ? "suggestion" : "suggestions"} waiting · search ${escapeHtml(stats.mode ?? "?")}` +
    `${stats.reason ? ` (${escapeHtml(stats.reason)})` : ""}</p>`;
  const options = SINCE_CHOICES.map(
    (c) => `<option value="${escapeHtml(c.value)}"${c.value === since ? " selected" : ""}>${escapeHtml(c.label)}</option>`,
  ).join("");
  const types = Object.entries(stats.by_type ?? {}).map(([type, n]) => ({ key: type, label: typeLabel(type), value: n }));
  const files = stats.important_files ?? [];
  const fileBars = files.map((f) => ({
    key: f.file,
    label: `${f.rank}. ${f.file}`,
    title: f.file,
    value: f.score,
    valueText: f.memories ? plural(f.memories, "memory", "memories") : "no memories",
    muted: f.memories === 0,
  }));
  const without = files.filter((f) => f.memories === 0);
  const withoutList = without.length
    ? `<p>Nobody wrote anything about: ${without.map((f) => openButton(f)).join(", ")}</p>`
    : `<p class="muted">Every one of them holds memories.</p>`;
  const shown = stats.shown_most?.length ? stats.shown_most : (stats.most_surfaced ?? []);
  const shownWhat = stats.shown_most?.length ? (m: BriefMemory) => `shown ${m.shown ?? 0}×` : (m: BriefMemory) => `shown ${m.surfaced ?? 0}× (all time)`;
  const pushed = (m: BriefMemory): string =>
    `${m.times ?? 1}× turned away, last ${(m.last ?? "").replace(/_/g, " ")}; shown ${m.surfaced ?? 0}×`;
  const body =
    (stats.trajectory ? trajectorySections(stats.trajectory) : "") +
    section("h-types", "Memories by type", types.length ? barChart("by_type", "Current memories, counted by type", types) : `<p class="muted">No memories yet.</p>`) +
    section(
      "h-files",
      "Most important files (PageRank)",
      (fileBars.length ? barChart("important_files", "The most important files and their memories", fileBars) : "") + withoutList,
      "The files the rest of the code depends on most, and how many memories each holds.",
    ) +
    section("h-shown", "Shown most", memoryList("shown_most", shown, shownWhat, "Nothing shown yet.")) +
    section(
      "h-dismissed",
      "Turned away most",
      memoryList("dismissed_most", stats.dismissed_most ?? [], pushed, "Nothing dismissed, marked outdated or forgotten."),
      "Dismissed suggestions, memories marked outdated or forgotten: where the noise is.",
    ) +
    section(
      "h-stale",
      `Stale (${stats.stale ?? 0})`,
      memoryList("stale_memories", stats.stale_memories ?? [], (m) => m.why ?? "", "Nothing is stale: every memory still matches its code."),
    );
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(assets))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${escapeHtml(assets.styleUri)}">
<title>Forewarn: memory health</title>
</head>
<body>
<header>
<h1>Memory health <span class="muted">— ${escapeHtml(title)}</span></h1>
<div class="controls"><label for="since">Since</label> <select id="since">${options}</select> <button type="button" id="refresh">Refresh</button></div>
${overview}
</header>
<main>
${body}
</main>
<script nonce="${escapeHtml(assets.nonce)}" src="${escapeHtml(assets.scriptUri)}"></script>
</body>
</html>`;
}

/** The page while the server is not answering: why, and a way to try again. */
export function renderHealthMessage(message: string, assets: PageAssets): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(assets))}">
<link rel="stylesheet" href="${escapeHtml(assets.styleUri)}">
<title>Forewarn: memory health</title>
</head>
<body>
<p class="muted">${escapeHtml(message)}</p>
<button type="button" id="refresh">Try again</button>
<script nonce="${escapeHtml(assets.nonce)}" src="${escapeHtml(assets.scriptUri)}"></script>
</body>
</html>`;
}
