// Unit tests of the panel's pure parts (no VS Code): the words and icons of rows, the review queue by file, the SVG
// charts and the Health page (its CSP, its escaping, its series).
import assert from "node:assert/strict";
import { test } from "node:test";
import { barChart, columnCharts, lineChart, niceMax, shortDate } from "../panel/charts";
import { contentSecurityPolicy, type PageAssets, renderHealthPage } from "../panel/healthPage";
import { countsText, firstLine, groupByFile, memoryDescription, memoryIcon, statusLabel } from "../panel/model";
import type { HealthStats, Memory } from "../protocol";

const assets: PageAssets = {
  cspSource: "https://file+.vscode-resource.vscode-cdn.net",
  scriptUri: "https://file+.vscode-resource.vscode-cdn.net/ext/media/panel/health.js",
  styleUri: "https://file+.vscode-resource.vscode-cdn.net/ext/media/panel/health.css",
  nonce: "n0nce+/=",
};

function memory(id: string, file: string | null, extra: Partial<Memory> = {}): Memory {
  return { id, type: "gotcha", text: `memory ${id}`, anchor: file ? { file, uri: `file:///shop/${file}` } : null, ...extra };
}

test("rows say status, origin and age in words, and mark what warns", () => {
  const mined: Memory = { ...memory("1", "a.py"), status: "suggested", origin: "suggested from commit abc1234 by Ann", age: "3 days ago" };
  assert.equal(memoryDescription(mined), "gotcha · suggested · suggested from commit abc1234 by Ann · 3 days ago");
  assert.equal(memoryDescription({ ...memory("2", "a.py"), type: "error_pattern", status: "active" }), "error pattern");
  assert.equal(statusLabel("active"), "current");
  assert.equal(statusLabel("from-the-future"), "from-the-future");
  assert.equal(memoryIcon({ ...mined, severity: 4 }).id, "lightbulb");
  assert.equal(memoryIcon({ ...memory("3", "a.py"), status: "active", severity: 2 }).id, "warning");
  assert.equal(memoryIcon({ ...memory("4", "a.py"), status: "contested", severity: 2 }).id, "warning");
  assert.equal(memoryIcon({ ...memory("5", "a.py"), status: "active", severity: 3 }).id, "info");
  assert.equal(memoryIcon({ ...memory("6", "a.py"), status: "stale", severity: 4 }).id, "history");
  assert.equal(countsText({ active: 1, suggested: 2, stale: 0, contested: 1, orphaned: 0 }), "1 contested · 1 current · 2 suggested");
  assert.equal(firstLine("Fix the retry\n\nbody", 90), "Fix the retry");
  assert.equal(firstLine("x".repeat(100), 10), `${"x".repeat(9)}…`);
});

test("the review queue is grouped by file in the server's order, never re-ranked", () => {
  const queue = [memory("1", "b.py"), memory("2", "a.py"), memory("3", "b.py"), memory("4", null), memory("5", "a.py")];
  const groups = groupByFile(queue);
  assert.deepEqual(
    groups.map((g) => [g.file, g.suggestions.map((m) => m.id)]),
    [
      ["b.py", ["1", "3"]],
      ["a.py", ["2", "5"]],
      [null, ["4"]],
    ],
  );
  assert.equal(groups[0].uri, "file:///shop/b.py");
});

test("line charts carry each series' values, a title, a summary and the numbers", () => {
  const svg = lineChart("by_source", "Memories by source", ["2026-11-01", "2026-11-02", "2026-11-03"], [
    { key: "typed", label: "typed here", values: [1, 2, 5] },
    { key: "mined", label: "mined", values: [0, 0, 1] },
  ]);
  assert.match(svg, /<g class="series s-0" data-series="typed" data-values="1,2,5">/);
  assert.match(svg, /<g class="series s-1" data-series="mined" data-values="0,0,1">/);
  assert.match(svg, /role="img" aria-labelledby="by_source-title by_source-desc"/);
  assert.match(svg, /<desc id="by_source-desc">typed here: 1 then 5; mined: 0 then 1<\/desc>/);
  assert.match(svg, /<th scope="row">2026-11-02<\/th><td>2<\/td><td>0<\/td>/);
  assert.equal((svg.match(/<polyline /g) ?? []).length, 2);
  assert.ok(!svg.includes("style="), "no inline style: the CSP allows none");
  // one bucket: points, not lines
  const one = lineChart("x", "X", ["2026-11-03"], [{ key: "typed", label: "typed", values: [4] }]);
  assert.match(one, /<circle /);
  assert.equal(niceMax(7), 10);
  assert.equal(niceMax(0), 1);
  assert.equal(niceMax(130), 200);
  assert.equal(shortDate("2026-11-03"), "3 Nov");
});

test("bars and columns carry their values; text is escaped", () => {
  const bars = barChart("files", "Files", [
    { key: "a<b>.py", label: "1. a<b>.py", value: 0.5, valueText: "no memories", muted: true },
    { key: "c.py", label: "2. c.py", value: 0.25, valueText: "3 memories" },
  ]);
  assert.match(bars, /<g class="bar muted" data-key="a&lt;b&gt;.py" data-value="0.5">/);
  assert.match(bars, />no memories<\/text>/);
  assert.ok(!bars.includes("<b>"));
  const columns = columnCharts("events", "What happened", ["2026-11-01", "2026-11-02"], [{ key: "created", label: "created", values: [3, 0] }]);
  assert.match(columns, /data-series="created" data-values="3,0"/);
  assert.match(columns, /created <strong>3<\/strong>/);
});

const stats: HealthStats = {
  total: 4,
  stale: 1,
  by_type: { "<b>gotcha</b>": 3 },
  by_status: { active: 2, stale: 1, suggested: 1 },
  mode: "<lexical>",
  reason: "no model",
  trajectory: {
    bucket: "day",
    since: "2026-11-01",
    until: "2026-11-02",
    buckets: ["2026-11-01", "2026-11-02"],
    by_source: { typed: [1, 2], mined: [0, 1], imported: [0, 0], agent: [0, 0] },
    by_status: { active: [1, 2], stale: [0, 1], contested: [0, 0], orphaned: [0, 0], suggested: [2, 1], superseded: [0, 0] },
    events: { created: [1, 1], shown: [0, 5] },
  },
  important_files: [
    { file: "core/<script>.py", uri: "file:///shop/core/%3Cscript%3E.py", score: 0.5, rank: 1, memories: 0 },
    { file: "pay.py", uri: "file:///shop/pay.py", score: 0.2, rank: 2, memories: 3 },
  ],
  shown_most: [{ id: "M1", type: "gotcha", text: "<img src=x onerror=alert(1)>", file: "a&b.py", uri: "file:///shop/a&b.py", shown: 4 }],
  dismissed_most: [{ id: "M2", type: "decision", text: "old", file: null, times: 1, last: "marked_stale", surfaced: 9 }],
  stale_memories: [{ id: "M3", type: "note", text: "n", file: "pay.py", symbol: "f", uri: "file:///shop/pay.py", why: "its code changed" }],
};

test("the Health page: a strict CSP, one nonce script, nothing remote, everything escaped", () => {
  const html = renderHealthPage(stats, assets, "shop <dev>", "30d");
  const csp = contentSecurityPolicy(assets);
  assert.equal(
    csp,
    `default-src 'none'; img-src ${assets.cspSource}; style-src ${assets.cspSource}; font-src ${assets.cspSource}; script-src 'nonce-${assets.nonce}';`,
  );
  assert.ok(!csp.includes("unsafe"), csp);
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  assert.deepEqual(scripts, [`<script nonce="${assets.nonce}" src="${assets.scriptUri}">`]);
  assert.ok(!/<script[^>]*>[^<]/.test(html), "no inline script body");
  assert.ok(!/<[^>]*\son[a-z]+\s*=/i.test(html), "no event handler attributes");
  assert.ok(!/<[^>]*\sstyle\s*=/i.test(html), "no inline style");
  for (const url of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
    assert.ok(url[1].startsWith(assets.cspSource), `a resource outside the extension: ${url[1]}`);
  }
  assert.ok(!html.includes("<img") && !html.includes("<b>gotcha") && !html.includes("core/<script>"));
  assert.ok(html.includes("&lt;img src=x onerror=alert(1)&gt;") && html.includes("shop &lt;dev&gt;"));
  assert.ok(html.includes("Memories by type"));
  assert.match(html, /data-chart="by_source"/);
  assert.match(html, /data-series="typed" data-values="1,2"/);
  assert.match(html, /data-series="suggested" data-values="2,1"/);
  assert.ok(!html.includes('data-series="superseded"'), "history is in what happened, not over the present");
  assert.match(html, /data-series="shown" data-values="0,5"/);
  assert.match(html, /<g class="bar muted" data-key="core\/&lt;script&gt;.py"/);
  assert.match(html, /<option value="30d" selected>/);
  assert.match(html, /button type="button" class="open" data-uri="file:\/\/\/shop\/a&amp;b.py"/);
  assert.match(html, /1× turned away, last marked stale; shown 9×/);
});
