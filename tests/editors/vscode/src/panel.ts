// Mode "panel" of drive.ts: the Forewarn view container in a real VS Code. Reads what This File, Review and Health
// render (rows, labels, icons, the badge, the SVG's series), accepts a suggestion from Review and waits for it to
// turn into a warning in This File, checks the Health webview for anything remote or any script outside its nonce,
// and saves a screenshot of each view.
import { join } from "node:path";
import type { FrameLocator, Locator, Page } from "playwright-core";

export interface PanelConfig {
  url: string;
  artifactsDir: string;
  file: string;
  /** the first line of the suggestion to look at (its commit) and accept from Review */
  accept: string;
  /** the first line of a warning comment's suggestion (its "commit" is the comment's place) */
  comment: string;
}

export interface TreeRow {
  level: number;
  label: string;
  description: string;
  ariaLabel: string;
  icon: string; // the codicon, e.g. "warning"
}

export interface WebviewCheck {
  csp: string;
  /** every script of the document; `beforeCsp`: placed ahead of the CSP by the webview host (VS Code's own shim) */
  scripts: { src: string; nonce: string; inline: boolean; beforeCsp: boolean; head: string }[];
  handlers: string[]; // elements with on* attributes
  styled: number; // elements with a style attribute
  resources: string[]; // src/href of every element that loads something
}

export interface PanelResult {
  thisFile: { description: string; message: string; rows: TreeRow[] };
  review: { badge: string; message: string; rows: TreeRow[] };
  commit: string;
  comment: string;
  accepted: { thisFile: TreeRow[]; badge: string; reviewRows: TreeRow[] };
  health: {
    series: Record<string, Record<string, string>>; // chart → series → data-values
    bars: Record<string, Record<string, string>>; // chart → key → data-value
    text: string;
    webview: WebviewCheck;
  };
  /** every request the browser made while the panel was open: its URL, and whether VS Code's webview service worker
   * answered it (webview resources: the extension's files, read through the local server) */
  requests: { url: string; serviceWorker: boolean; failed: boolean }[];
  screenshots: string[];
}

type Step = <T>(name: string, action: () => Promise<T>) => Promise<T>;

/** The view pane titled `title` in the side bar. */
function pane(page: Page, title: string): Locator {
  return page.locator(".pane").filter({ has: page.locator(".pane-header .title", { hasText: new RegExp(`^${title}$`, "i") }) });
}

async function rows(view: Locator): Promise<TreeRow[]> {
  return view.locator(".monaco-list-row").evaluateAll((elements) =>
    elements.map((row) => {
      const icon = row.querySelector(".custom-view-tree-node-item-icon, .codicon");
      const codicon = Array.from(icon?.classList ?? []).find((c) => c.startsWith("codicon-") && c !== "codicon") ?? "";
      return {
        level: Number(row.getAttribute("aria-level") ?? 0),
        label: row.querySelector(".label-name")?.textContent ?? "",
        description: row.querySelector(".label-description")?.textContent ?? "",
        ariaLabel: row.getAttribute("aria-label") ?? "",
        icon: codicon.replace(/^codicon-/, ""),
      };
    }),
  );
}

const PANES = ["This File", "Review", "Health"];

/** Expands the panes named in `open` and collapses the others: a tree draws only the rows its pane has room for. */
async function panes(page: Page, ...open: string[]): Promise<void> {
  for (const title of PANES) {
    const header = pane(page, title).locator(".pane-header");
    const isOpen = (await header.getAttribute("aria-expanded")) === "true";
    if (isOpen !== open.includes(title)) {
      await header.click();
      await page.waitForFunction(
        ([name, want]) => {
          const header = Array.from(document.querySelectorAll(".pane-header")).find(
            (h) => h.querySelector(".title")?.textContent?.trim().toLowerCase() === String(name).toLowerCase(),
          );
          return header?.getAttribute("aria-expanded") === String(want);
        },
        [title, !isOpen] as const,
      );
    }
  }
}

/** Drags the side bar's edge to `width` pixels, as a user widens it to read whole memories. */
async function widenSideBar(page: Page, width: number): Promise<void> {
  const side = await page.locator(".part.sidebar").boundingBox();
  if (!side || side.width >= width) {
    return;
  }
  const edge = side.x + side.width;
  const sashes = page.locator(".monaco-sash.vertical");
  for (let i = 0; i < (await sashes.count()); i++) {
    const box = await sashes.nth(i).boundingBox();
    if (box && Math.abs(box.x + box.width / 2 - edge) < 6 && box.height > side.height / 2) {
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(side.x + width, box.y + box.height / 2, { steps: 8 });
      await page.mouse.up();
      await page.waitForFunction((want) => (document.querySelector(".part.sidebar")?.getBoundingClientRect().width ?? 0) >= want - 4, width);
      return;
    }
  }
}

async function message(view: Locator): Promise<string> {
  const text = view.locator(".message");
  return (await text.count()) ? ((await text.first().textContent()) ?? "") : "";
}

/** The badge on the Forewarn container's activity bar icon. */
function badgeOf(page: Page): Locator {
  return page.locator(".activitybar .action-item", { has: page.locator('[aria-label^="Forewarn"]') }).locator(".badge-content");
}

/** The badge's text ("" when none). */
async function badge(page: Page): Promise<string> {
  const content = badgeOf(page);
  return (await content.count()) ? ((await content.first().textContent()) ?? "").trim() : "";
}

/** Runs a command by its palette title (F1, type, Enter). */
async function palette(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor();
  await input.fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor();
  await page.keyboard.press("Enter");
}

/**
 * The document of the webview drawn over the side bar ("side") or the editor area ("editor"). VS Code draws webviews
 * in overlay iframes outside the view or tab that shows them; where each lies on the page says whose it is.
 */
async function webview(page: Page, where: "side" | "editor"): Promise<FrameLocator> {
  const frames = page.locator("iframe.webview.ready");
  await frames.first().waitFor();
  const editorLeft = (await page.locator(".part.editor").boundingBox())?.x ?? 0;
  const wanted = async (): Promise<number> => {
    for (let i = 0; i < (await frames.count()); i++) {
      const box = await frames.nth(i).boundingBox();
      if (box && box.width > 0 && (where === "editor") === box.x >= editorLeft) {
        return i;
      }
    }
    return -1;
  };
  // the overlay is placed once the webview has content: wait for VS Code to lay it out where it belongs
  await page.waitForFunction(
    ([left, editor]) =>
      Array.from(document.querySelectorAll("iframe.webview.ready")).some((frame) => {
        const box = frame.getBoundingClientRect();
        return box.width > 0 && (editor ? box.x >= left : box.x < left);
      }),
    [editorLeft, where === "editor"] as const,
  );
  return page.frameLocator("iframe.webview.ready").nth(await wanted()).frameLocator("iframe#active-frame");
}

async function readHealth(frame: FrameLocator): Promise<PanelResult["health"]> {
  const body = frame.locator("body");
  return body.evaluate((element) => {
    const doc = element.ownerDocument;
    const series: Record<string, Record<string, string>> = {};
    const bars: Record<string, Record<string, string>> = {};
    for (const chart of Array.from(doc.querySelectorAll("[data-chart]"))) {
      const name = chart.getAttribute("data-chart") ?? "";
      for (const g of Array.from(chart.querySelectorAll("[data-series]"))) {
        (series[name] ??= {})[g.getAttribute("data-series") ?? ""] = g.getAttribute("data-values") ?? "";
      }
      for (const g of Array.from(chart.querySelectorAll("[data-key]"))) {
        (bars[name] ??= {})[g.getAttribute("data-key") ?? ""] = g.getAttribute("data-value") ?? "";
      }
    }
    const all = Array.from(doc.querySelectorAll("*"));
    return {
      series,
      bars,
      text: (element as HTMLElement).innerText,
      webview: {
        csp: doc.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content") ?? "",
        // the nonce property: Chromium hides the attribute's value once the page has loaded
        scripts: Array.from(doc.scripts).map((s) => {
          const meta = doc.querySelector('meta[http-equiv="Content-Security-Policy"]');
          const beforeCsp = !!meta && !!(s.compareDocumentPosition(meta) & Node.DOCUMENT_POSITION_FOLLOWING);
          const head = (s.textContent ?? "").trim().slice(0, 200);
          return { src: s.src, nonce: s.nonce ?? "", inline: !s.src && !!head, beforeCsp, head };
        }),
        handlers: all.filter((e) => Array.from(e.attributes).some((a) => /^on/i.test(a.name))).map((e) => e.outerHTML.slice(0, 120)),
        styled: all.filter((e) => e.hasAttribute("style") && e !== doc.documentElement).length,
        resources: all.flatMap((e) => ["src", "href"].map((a) => e.getAttribute(a) ?? "").filter(Boolean)),
      },
    };
  });
}

export async function panel(page: Page, config: PanelConfig, step: Step): Promise<PanelResult> {
  const requests: PanelResult["requests"] = [];
  page.context().on("requestfinished", async (request) => {
    const response = await request.response().catch(() => null);
    requests.push({ url: request.url(), serviceWorker: response?.fromServiceWorker() ?? false, failed: false });
  });
  page.context().on("requestfailed", (request) => requests.push({ url: request.url(), serviceWorker: false, failed: true }));
  const screenshots: string[] = [];
  const shot = async (name: string, clip?: { x: number; y: number; width: number; height: number }): Promise<void> => {
    const path = join(config.artifactsDir, name);
    await page.mouse.move(1, 400); // no hover, no tooltip on the picture
    await page.screenshot({ path, clip });
    screenshots.push(path);
  };
  const sideBar = { x: 0, y: 0, width: 820, height: 800 }; // the panel and the start of the editor beside it
  const input = page.locator(".quick-input-widget input");
  await step("open the file (Quick Open)", async () => {
    await page.locator(".monaco-workbench").click({ position: { x: 640, y: 400 } });
    await page.keyboard.press("Control+P");
    await input.waitFor();
    await input.fill(config.file);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: config.file }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".tab.active", { hasText: config.file }).waitFor();
  });
  const out: Partial<PanelResult> = { requests, screenshots };
  const thisFile = pane(page, "This File");
  const review = pane(page, "Review");
  await step("Forewarn: Show Panel opens This File on the active file", async () => {
    await palette(page, "Forewarn: Show Panel");
    await thisFile.locator(".monaco-list-row").first().waitFor();
    await widenSideBar(page, 520);
    await panes(page, "This File");
    await thisFile.locator(".monaco-list-row", { hasText: "legacy_refund" }).first().waitFor();
    await thisFile.locator(".monaco-list-row", { hasText: config.accept }).first().waitFor();
    out.thisFile = {
      description: (await thisFile.locator(".pane-header .description").textContent()) ?? "",
      message: await message(thisFile),
      rows: await rows(thisFile),
    };
    await shot("vscode-panel-this-file.png", sideBar);
  });
  await step("Review: the queue by file, a badge with its count", async () => {
    await panes(page, "Review");
    await review.locator(".monaco-list-row", { hasText: config.accept }).first().waitFor();
    await badgeOf(page).filter({ hasText: /\d/ }).first().waitFor();
    out.review = { badge: await badge(page), message: await message(review), rows: await rows(review) };
    await shot("vscode-panel-review.png", sideBar);
  });
  await step("Review: show the commit of a mined suggestion, and a warning comment's place", async () => {
    await panes(page, "Review");
    for (const [text, key] of [
      [config.accept, "commit"],
      [config.comment, "comment"],
    ] as const) {
      const row = review.locator(".monaco-list-row", { hasText: text }).first();
      await row.hover();
      await row.locator('.action-label[aria-label="Show the Suggestion\'s Commit"]').click();
      const shown = page.locator(".monaco-editor .view-lines", { hasText: key === "commit" ? "Fix double charge" : "warning comment" });
      await shown.first().waitFor();
      out[key] = await shown.first().innerText();
    }
    await palette(page, "View: Close All Editor Groups");
    await page.locator(".quick-input-widget").waitFor({ state: "hidden" });
    await page.keyboard.press("Control+P");
    await input.fill(config.file);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: config.file }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".tab.active", { hasText: config.file }).waitFor();
  });
  await step("Review: accept; the memory moves to This File as a warning, the badge counts one less", async () => {
    const before = out.review?.badge ?? "";
    await panes(page, "Review");
    const row = review.locator(".monaco-list-row", { hasText: config.accept }).first();
    await row.hover();
    await row.locator('.action-label[aria-label="Accept Suggestion"]').click();
    await review.locator(".monaco-list-row", { hasText: config.accept }).waitFor({ state: "detached" });
    await badgeOf(page).filter({ hasNotText: before }).first().waitFor();
    const reviewRows = await rows(review);
    await panes(page, "This File");
    const accepted = thisFile.locator(".monaco-list-row", { hasText: config.accept }).filter({
      has: page.locator(".codicon-warning"),
    });
    await accepted.first().waitFor();
    await thisFile.locator(".monaco-list-row", { hasText: "legacy_refund" }).first().waitFor();
    out.accepted = { thisFile: await rows(thisFile), badge: await badge(page), reviewRows };
  });
  await step("Health: the view renders its charts from the server's numbers", async () => {
    await panes(page, "Health");
    const frame = await webview(page, "side");
    await frame.locator('[data-chart="by_source"]').waitFor();
    await frame.locator('[data-chart="important_files"]').waitFor();
    out.health = await readHealth(frame);
    await shot("vscode-panel-health.png", sideBar);
  });
  await step("Show Memory Health: the same page in an editor tab", async () => {
    await palette(page, "Forewarn: Show Memory Health");
    await page.locator(".tab.active", { hasText: "Memory Health" }).waitFor();
    const tab = await webview(page, "editor");
    await tab.locator('[data-chart="by_status"]').waitFor();
    await tab.locator('[data-chart="important_files"]').waitFor();
    await shot("vscode-health.png");
    await tab.locator('[data-list="stale_memories"]').scrollIntoViewIfNeeded();
    await shot("vscode-health-lists.png");
  });
  return out as PanelResult;
}
