// SVG charts drawn from the server's numbers, without VS Code or any library: lines over time, horizontal bars, and
// small columns. Every mark carries its series and values as data attributes (tests read those, not pixels), every
// chart a title, a summary for screen readers and its numbers in a table. No style attributes: colours come from
// classes in media/panel/health.css (the webview's CSP allows no inline style).

// viewBox units, drawn for a side bar about 300 px wide (text stays readable there) and scaled up to the CSS
// max-width in an editor tab
const LINE_W = 360;
const LINE_H = 140;
const PAD = { left: 26, right: 8, top: 8, bottom: 18 };
const BAR_ROW_H = 18;
const BAR_LABEL_W = 150; // room for a path or a memory's first words
const BAR_LABEL_CHARS = 24;
const BAR_VALUE_W = 76; // "no memories", "12 memories" after the bar
const COLUMN_W = 180;
const COLUMN_H = 36;
export const SERIES_CLASSES = 8; // s-0 … s-7 in health.css

export interface Series {
  key: string; // what the server calls it: data-series
  label: string; // what a person reads
  values: number[];
}

export interface Bar {
  key: string;
  label: string;
  value: number;
  valueText?: string; // shown after the bar; default: the value
  muted?: boolean; // drawn in the muted class (e.g. an important file without memories)
  title?: string; // the full text, as the row's tooltip
}

export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** The smallest 1, 2 or 5 × 10^k at or above `value` (at least 1): a y axis that ends on a round number. */
export function niceMax(value: number): number {
  if (value <= 1) {
    return 1;
  }
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) {
    if (step * power >= value) {
      return step * power;
    }
  }
  return 10 * power;
}

function num(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** "2026-11-03" → "3 Nov" (UTC, the server's buckets). */
export function shortDate(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) {
    return day;
  }
  return `${date.getUTCDate()} ${date.toLocaleString("en", { month: "short", timeZone: "UTC" })}`;
}

/** One sentence per series for a screen reader: where it started, where it is, its peak. */
function lineSummary(series: Series[]): string {
  return series
    .map((s) => {
      const first = s.values[0] ?? 0;
      const last = s.values[s.values.length - 1] ?? 0;
      const peak = Math.max(0, ...s.values);
      return `${s.label}: ${num(first)} then ${num(last)}${peak > Math.max(first, last) ? `, peak ${num(peak)}` : ""}`;
    })
    .join("; ");
}

/** The numbers behind a chart over time, one row per bucket (collapsed until asked for). */
function numbersTable(buckets: string[], series: Series[]): string {
  const head = `<tr><th scope="col">from</th>${series.map((s) => `<th scope="col">${escapeHtml(s.label)}</th>`).join("")}</tr>`;
  const rows = buckets
    .map(
      (day, i) =>
        `<tr><th scope="row">${escapeHtml(day)}</th>${series.map((s) => `<td>${num(s.values[i] ?? 0)}</td>`).join("")}</tr>`,
    )
    .join("");
  return `<details class="numbers"><summary>The numbers</summary><table>${head}${rows}</table></details>`;
}

function legend(series: Series[], valueOf: (s: Series) => number, noun: string): string {
  const items = series
    .map(
      (s, i) =>
        `<li><span class="swatch s-${i % SERIES_CLASSES}" aria-hidden="true"></span>${escapeHtml(s.label)} ` +
        `<strong>${num(valueOf(s))}</strong></li>`,
    )
    .join("");
  return `<ul class="legend" aria-label="${escapeHtml(noun)}">${items}</ul>`;
}

/**
 * Lines over time: one per series, on a y axis from 0 to a round maximum, dated below. A single bucket draws points.
 * `id` names the chart (data-chart) and its title/summary elements.
 */
export function lineChart(id: string, title: string, buckets: string[], series: Series[]): string {
  const n = buckets.length;
  const peak = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const plotW = LINE_W - PAD.left - PAD.right;
  const plotH = LINE_H - PAD.top - PAD.bottom;
  const x = (i: number): number => PAD.left + (n <= 1 ? plotW / 2 : (i * plotW) / (n - 1));
  const y = (v: number): number => PAD.top + plotH - (v / peak) * plotH;
  const ticks = [0, peak / 2, peak]
    .map(
      (v) =>
        `<line class="grid" x1="${PAD.left}" x2="${LINE_W - PAD.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>` +
        `<text class="tick" x="${PAD.left - 4}" y="${(y(v) + 3).toFixed(1)}" text-anchor="end">${num(v)}</text>`,
    )
    .join("");
  const dated = n <= 1 ? [0] : [0, Math.floor((n - 1) / 2), n - 1];
  const dates = dated
    .map((i) => {
      const anchor = n <= 1 ? "middle" : i === 0 ? "start" : i === n - 1 ? "end" : "middle";
      return `<text class="tick" x="${x(i).toFixed(1)}" y="${LINE_H - 4}" text-anchor="${anchor}">${escapeHtml(shortDate(buckets[i] ?? ""))}</text>`;
    })
    .join("");
  const lines = series
    .map((s, k) => {
      const points = s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`);
      const mark =
        n <= 1
          ? `<circle cx="${x(0).toFixed(1)}" cy="${y(s.values[0] ?? 0).toFixed(1)}" r="3"/>`
          : `<polyline points="${points.join(" ")}"/>`;
      return (
        `<g class="series s-${k % SERIES_CLASSES}" data-series="${escapeHtml(s.key)}" data-values="${s.values.join(",")}">` +
        `<title>${escapeHtml(s.label)}</title>${mark}</g>`
      );
    })
    .join("");
  return (
    `<figure class="chart line-chart" data-chart="${escapeHtml(id)}">` +
    `<svg viewBox="0 0 ${LINE_W} ${LINE_H}" role="img" aria-labelledby="${id}-title ${id}-desc" focusable="false">` +
    `<title id="${id}-title">${escapeHtml(title)}</title><desc id="${id}-desc">${escapeHtml(lineSummary(series))}</desc>` +
    `${ticks}${dates}${lines}</svg>` +
    `<figcaption>${legend(series, (s) => s.values[s.values.length - 1] ?? 0, `${title}: now`)}</figcaption>` +
    `${numbersTable(buckets, series)}</figure>`
  );
}

/** Horizontal bars, longest = the largest value; each row labelled, its value written after the bar. */
export function barChart(id: string, title: string, bars: Bar[]): string {
  const peak = Math.max(0, ...bars.map((b) => b.value)) || 1;
  const width = LINE_W;
  const barMax = width - BAR_LABEL_W - BAR_VALUE_W;
  const height = bars.length * BAR_ROW_H + 4;
  const rows = bars
    .map((b, i) => {
      const top = i * BAR_ROW_H + 2;
      const w = Math.max(b.value > 0 ? 2 : 0, (b.value / peak) * barMax);
      const label = b.label.length > BAR_LABEL_CHARS ? `${b.label.slice(0, BAR_LABEL_CHARS - 1)}…` : b.label;
      return (
        `<g class="bar${b.muted ? " muted" : ""}" data-key="${escapeHtml(b.key)}" data-value="${b.value}">` +
        `<title>${escapeHtml(b.title ?? b.label)}: ${escapeHtml(b.valueText ?? num(b.value))}</title>` +
        `<text class="label" x="${BAR_LABEL_W - 5}" y="${top + 12}" text-anchor="end">${escapeHtml(label)}</text>` +
        `<rect x="${BAR_LABEL_W}" y="${top + 3}" width="${w.toFixed(1)}" height="${BAR_ROW_H - 6}" rx="2"/>` +
        `<text class="value" x="${(BAR_LABEL_W + w + 5).toFixed(1)}" y="${top + 12}">${escapeHtml(b.valueText ?? num(b.value))}</text></g>`
      );
    })
    .join("");
  const summary = bars.map((b) => `${b.title ?? b.label}: ${b.valueText ?? num(b.value)}`).join("; ");
  return (
    `<figure class="chart bar-chart" data-chart="${escapeHtml(id)}">` +
    `<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc" focusable="false">` +
    `<title id="${id}-title">${escapeHtml(title)}</title><desc id="${id}-desc">${escapeHtml(summary)}</desc>${rows}</svg></figure>`
  );
}

/** Small column charts side by side, one per series (what happened per bucket), each with its total. */
export function columnCharts(id: string, title: string, buckets: string[], series: Series[]): string {
  const cells = series
    .map((s, k) => {
      const peak = Math.max(0, ...s.values) || 1;
      const n = Math.max(1, s.values.length);
      const step = COLUMN_W / n;
      const total = s.values.reduce((a, b) => a + b, 0);
      const columns = s.values
        .map((v, i) => {
          const h = v > 0 ? Math.max(2, (v / peak) * (COLUMN_H - 2)) : 0;
          return `<rect x="${(i * step).toFixed(2)}" y="${(COLUMN_H - h).toFixed(2)}" width="${Math.max(0.6, step - 0.6).toFixed(2)}" height="${h.toFixed(2)}"/>`;
        })
        .join("");
      return (
        `<div class="small"><div class="small-head">${escapeHtml(s.label)} <strong>${num(total)}</strong></div>` +
        `<svg viewBox="0 0 ${COLUMN_W} ${COLUMN_H}" role="img" aria-label="${escapeHtml(`${s.label}: ${num(total)} in all`)}" focusable="false">` +
        `<g class="series columns s-${k % SERIES_CLASSES}" data-series="${escapeHtml(s.key)}" data-values="${s.values.join(",")}">` +
        `<line class="base" x1="0" x2="${COLUMN_W}" y1="${COLUMN_H - 0.5}" y2="${COLUMN_H - 0.5}"/>${columns}</g></svg></div>`
      );
    })
    .join("");
  return (
    `<figure class="chart columns-chart" data-chart="${escapeHtml(id)}" aria-label="${escapeHtml(title)}">` +
    `<div class="smalls">${cells}</div>${numbersTable(buckets, series)}</figure>`
  );
}
