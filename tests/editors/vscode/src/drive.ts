// Drives a real VS Code (code-server) in Debian's headless Chromium with playwright-core.
//
//   node out/drive.js <config.json>
//
// The config names the code-server URL, the workspace and what to check; the result (what the
// Problems view and the hover showed, step timings, screenshots) is written as JSON to
// config.resultPath. Every wait is on something VS Code renders, with a deadline; nothing sleeps.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import { panel, type PanelResult } from "./panel";

interface Config {
  url: string;
  workspace: string;
  chromium: string;
  artifactsDir: string;
  resultPath: string;
  timeoutMs: number;
  /**
   * "activate": the workbench loads and the extension's status item appears.
   * "gotcha": the gotcha shows in the Problems view and in the hover.
   * "commands": the palette commands (search, remember, health, repo map) against the real server.
   * "conflict": Remember Gotcha Here with a text contradicting the gotcha, then the prompt that follows.
   * "panel": the Forewarn view container (panel.ts).
   * "restricted": the folder is not trusted: the status item says Forewarn is off in Restricted Mode.
   */
  mode: "activate" | "gotcha" | "commands" | "conflict" | "panel" | "restricted";
  file?: string;
  line?: number;
  column?: number;
  expect?: string;
  query?: string;
  remember?: string;
  /** mode "commands": the text typed into the Quick Fix "remember a gotcha" action's input box */
  quickFixRemember?: string;
  /** mode "commands": the id of the memory to supersede through its Quick Fix, and the new text */
  supersedeId?: string;
  supersedeText?: string;
  /** mode "commands": a query no memory matches but code does, and the file whose row the test opens */
  codeQuery?: string;
  codeFile?: string;
  /** mode "conflict": the contradicting text, and the label of the answer to pick in the prompt */
  conflictText?: string;
  conflictAnswer?: string;
  /** mode "panel": the first lines of the suggestion to accept and of a warning comment's suggestion */
  accept?: string;
  comment?: string;
}

interface Result {
  ok: boolean;
  error?: string;
  steps: { name: string; ms: number }[];
  statusBar?: string;
  statusLabels?: string[];
  problems?: string;
  hover?: string;
  health?: string;
  repoMap?: string;
  reindexed?: string;
  memoryTypes?: string[];
  walkthrough?: string;
  modelInstalled?: string;
  /** Search Memories' rows (label, description, detail, separator) for the memory query */
  searchRows?: string[];
  /** Search Memories for codeQuery: its rows and title, and the line of codeFile's row that Enter opened */
  codeSearch?: { rows: string[]; title: string; line: number };
  /** mode "conflict": the prompt's title and rows, and the notification the answer produced */
  conflictPrompt?: { title: string; rows: string[] };
  conflictDone?: string;
  panel?: PanelResult;
  screenshot?: string;
}

// The flags this machine needs (FACTS.md): no sandbox or GPU in the container, nothing phoning home.
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

async function main(): Promise<number> {
  const config = JSON.parse(readFileSync(process.argv[2], "utf8")) as Config;
  const result: Result = { ok: false, steps: [] };
  const profile = mkdtempSync(join(tmpdir(), "forewarn-chromium-"));
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  const step = async <T>(name: string, action: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    try {
      return await action();
    } finally {
      result.steps.push({ name, ms: Date.now() - started });
    }
  };
  try {
    context = await step("launch chromium", () =>
      chromium.launchPersistentContext(profile, {
        executablePath: config.chromium,
        headless: true,
        args: CHROMIUM_FLAGS,
        viewport: { width: 1280, height: 800 },
      }),
    );
    context.setDefaultTimeout(config.timeoutMs);
    page = context.pages()[0] ?? (await context.newPage());
    await check(page, config, result, step);
    result.ok = true;
  } catch (error) {
    result.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (page) {
      const failure = join(config.artifactsDir, `vscode-${config.mode}-failure.png`);
      await page.screenshot({ path: failure }).catch(() => undefined);
      result.screenshot = failure;
      // the status bar now, not as it read at activation: what the extension believed when the wait ran out
      result.statusBar = await page.locator(".statusbar").innerText().catch(() => result.statusBar);
      result.statusLabels = await page
        .evaluate(() => (window as unknown as StatusWindow).forewarnStatusLabels)
        .catch(() => result.statusLabels);
      result.problems ??= await page.locator(".markers-panel").innerText({ timeout: 1000 }).catch(() => undefined);
    }
  } finally {
    await context?.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
    writeFileSync(config.resultPath, JSON.stringify(result, null, 2));
  }
  return result.ok ? 0 : 1;
}

type Step = <T>(name: string, action: () => Promise<T>) => Promise<T>;

async function check(page: Page, config: Config, result: Result, step: Step): Promise<void> {
  const folder = `${config.url}/?folder=${encodeURIComponent(config.workspace)}`;
  await step("workbench loads", async () => {
    await page.goto(folder);
    await page.locator(".monaco-workbench .part.statusbar").waitFor();
  });
  await recordStatusLabels(page);
  const status = page.locator(".statusbar-item", { hasText: "Forewarn" });
  await step("extension activates (status bar item)", () => status.first().waitFor());
  result.statusBar = await status.first().getAttribute("aria-label").then((label) => label ?? "");
  if (config.mode === "restricted") {
    await step("Restricted Mode: the status item says Forewarn is off", async () => {
      await page.waitForFunction(() =>
        (window as unknown as StatusWindow).forewarnStatusLabels.some((label) => label.includes("Restricted Mode")),
      );
    });
    result.statusBar = (await status.first().getAttribute("aria-label")) ?? "";
    result.statusLabels = await page.evaluate(() => (window as unknown as StatusWindow).forewarnStatusLabels);
    result.screenshot = join(config.artifactsDir, "vscode-restricted.png");
    await page.screenshot({ path: result.screenshot });
    return;
  }
  if (config.mode === "activate") {
    await step("indexing progress, then ready (status bar)", async () => {
      await page.waitForFunction(() => {
        const labels = (window as unknown as StatusWindow).forewarnStatusLabels;
        const indexed = labels.findIndex((label) => /indexing.*\d+%|\d+%.*indexing/.test(label));
        return indexed >= 0 && labels.slice(indexed).some((label) => label.includes("ready"));
      });
    });
    result.statusLabels = await page.evaluate(() => (window as unknown as StatusWindow).forewarnStatusLabels);
    result.screenshot = join(config.artifactsDir, "vscode-activate.png");
    await page.screenshot({ path: result.screenshot });
    return;
  }
  const { file, line, column, expect } = config;
  if (!file || !line || !column || !expect) {
    throw new Error(`mode '${config.mode}' needs file, line, column and expect`);
  }
  await step("server ready (status bar)", () =>
    page.locator(".statusbar-item", { hasText: "Forewarn" }).locator(".codicon-history").first().waitFor(),
  );
  if (config.mode === "commands") {
    await commands(page, config, result, step);
    result.statusLabels = await page.evaluate(() => (window as unknown as StatusWindow).forewarnStatusLabels);
    return;
  }
  if (config.mode === "conflict") {
    await conflict(page, config, result, step);
    return;
  }
  if (config.mode === "panel") {
    if (!config.accept || !config.comment) {
      throw new Error("mode 'panel' needs accept and comment");
    }
    result.panel = await panel(page, { ...config, file, accept: config.accept, comment: config.comment }, step);
    return;
  }
  await step("open the file (Quick Open)", async () => {
    await page.locator(".monaco-workbench").click({ position: { x: 640, y: 400 } });
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor();
    await input.fill(file);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: basename(file) }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".tab.active", { hasText: basename(file) }).waitFor();
    await page.locator(".monaco-editor .view-lines").first().waitFor();
  });
  await step("gotcha in the Problems view", async () => {
    await page.keyboard.press("Control+Shift+M");
    const row = page.locator(".markers-panel .monaco-list-row", { hasText: expect });
    await row.first().waitFor();
    result.problems = await page.locator(".markers-panel").innerText();
  });
  await step("gotcha in the hover", async () => {
    await page.locator(".monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+G");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor();
    await input.fill(`:${line}:${column}`); // Ctrl+G opens Quick Open in its ":" (go to line) mode
    await page.keyboard.press("Enter");
    await page.locator(".quick-input-widget").waitFor({ state: "hidden" });
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    // the language server's own hover, not just the diagnostic's marker hover
    const hover = page.locator(".monaco-hover .markdown-hover", { hasText: expect });
    await hover.first().waitFor();
    result.hover = await hover
      .first()
      .evaluate((element) => (element.closest(".monaco-hover") as HTMLElement | null)?.innerText ?? "");
  });
  result.screenshot = join(config.artifactsDir, "vscode-gotcha.png");
  await page.screenshot({ path: result.screenshot });
}

interface StatusWindow {
  forewarnStatusLabels: string[];
}

/** Records every label the Forewarn status item shows, as VS Code renders it (a MutationObserver, no polling). */
async function recordStatusLabels(page: Page): Promise<void> {
  await page.evaluate(() => {
    const labels: string[] = [];
    (window as unknown as StatusWindow).forewarnStatusLabels = labels;
    const statusbar = document.querySelector(".part.statusbar");
    if (!statusbar) {
      throw new Error("no status bar");
    }
    const record = (): void => {
      for (const item of Array.from(statusbar.querySelectorAll(".statusbar-item"))) {
        const label = item.querySelector("a")?.getAttribute("aria-label") ?? item.getAttribute("aria-label") ?? "";
        if (label.includes("Forewarn") && labels[labels.length - 1] !== label) {
          labels.push(label);
        }
      }
    };
    new MutationObserver(record).observe(statusbar, { subtree: true, childList: true, attributes: true, characterData: true });
    record();
  });
}

function basename(path: string): string {
  return path.split("/").pop() ?? path;
}

/** Runs a command by its palette title, as a user would (F1, type, Enter). */
async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor();
  await input.fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor();
  await page.keyboard.press("Enter");
}

/** Puts the cursor at line:column (Ctrl+G), opens the Quick Fix menu (Ctrl+.) and picks the action titled `title`. */
async function quickFix(page: Page, line: number, column: number, title: string): Promise<void> {
  await page.locator(".editor-group-container.active .monaco-editor .view-lines").first().click();
  await goToPosition(page, line, column);
  const action = page.locator(".action-widget .monaco-list-row", { hasText: title }).first();
  const none = page.locator(".monaco-editor-overlaymessage", { hasText: "No code actions available" });
  // a diagnostics republish (after every memory command) re-triggers VS Code's code-action model while
  // the menu is on its way, and the manual request then shows "No code actions available": ask again
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("Control+.");
    await action.or(none).first().waitFor();
    if (await action.isVisible()) {
      break;
    }
    if (attempt === 10) {
      throw new Error(`Quick Fix offered no "${title}" in ${attempt} requests`);
    }
    await dismissEditorMessage(page, none);
    await goToPosition(page, line, column);
  }
  // the menu lays a pointer block over the page until the mouse moves, as a user's hand would
  await action.hover({ force: true });
  await action.click();
}

/** Moves the cursor of the focused editor to line:column (Ctrl+G opens Quick Open in its ":" mode). */
async function goToPosition(page: Page, line: number, column: number): Promise<void> {
  await page.keyboard.press("Control+G");
  await page.locator(".quick-input-widget input").fill(`:${line}:${column}`);
  await page.keyboard.press("Enter");
  await page.locator(".quick-input-widget").waitFor({ state: "hidden" });
}

/**
 * Closes the editor's overlay message. Escape closes it only when nothing outranks it: a visible notification
 * toast takes the first Escape (its keybinding weighs more), so press until it is gone; the message stays open
 * while the pointer rests on it, so move the pointer away first.
 */
async function dismissEditorMessage(page: Page, message: Locator): Promise<void> {
  await page.mouse.move(1, 1);
  for (let press = 0; press < 5; press++) {
    await page.keyboard.press("Escape");
    try {
      await message.waitFor({ state: "hidden", timeout: 2000 });
      return;
    } catch {
      // still open: the Escape went to something above it
    }
  }
  // moving the cursor closes it whatever holds the keyboard's Escape (the caller puts the cursor back)
  await page.keyboard.press("End");
  await message.waitFor({ state: "hidden" });
}

/** Dismisses every notification, so that a later wait for a toast cannot match an earlier one. */
async function clearNotifications(page: Page): Promise<void> {
  await runCommand(page, "Notifications: Clear All Notifications");
  await page.locator(".notifications-toasts .notification-list-item").first().waitFor({ state: "hidden" });
}

async function commands(page: Page, config: Config, result: Result, step: Step): Promise<void> {
  const { file, line, column, expect, query, remember, quickFixRemember, supersedeId, supersedeText, codeQuery, codeFile } =
    config;
  if (
    !file || !line || !column || !expect || !query || !remember || !quickFixRemember || !supersedeId || !supersedeText ||
    !codeQuery || !codeFile
  ) {
    throw new Error(
      "mode 'commands' needs file, line, column, expect, query, remember, quickFixRemember, supersedeId, supersedeText, " +
        "codeQuery and codeFile",
    );
  }
  const rows = page.locator(".quick-input-list .monaco-list-row");
  const input = page.locator(".quick-input-widget input");
  await page.locator(".monaco-workbench").click({ position: { x: 640, y: 400 } });
  await step("Search Memories: results as you type, Enter opens the anchor", async () => {
    await runCommand(page, "Forewarn: Search Memories");
    await page.locator(".quick-input-widget", { hasText: "Search Memories" }).waitFor();
    await input.fill(query);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: expect }).first().waitFor();
    // the code group comes in the same answer as the memories, below them
    await rows.filter({ hasText: /\bCode\b/ }).first().waitFor();
    result.searchRows = await rows.allInnerTexts();
    await page.keyboard.press("Enter");
    await page.locator(".tab.active", { hasText: basename(file) }).waitFor();
    await page.locator(".statusbar-item", { hasText: `Ln ${line},` }).waitFor();
  });
  await step("Remember Gotcha Here: type picker, input, stored", async () => {
    await runCommand(page, "Forewarn: Remember Gotcha Here");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "decision" }).first().waitFor();
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "note" }).first().waitFor();
    // rows are reused: a hidden detail line may still hold the search result's text
    const labels = page.locator(".quick-input-list .monaco-list-row .label-name").filter({ visible: true });
    result.memoryTypes = await labels.allInnerTexts();
    await input.fill("decision");
    await page.keyboard.press("Enter");
    await page.locator(".quick-input-widget", { hasText: "remember a decision" }).waitFor();
    await input.fill(remember);
    await page.keyboard.press("Enter");
    await page.locator(".notifications-toasts", { hasText: "Forewarn remembered it" }).waitFor();
  });
  await step("Quick Fix (Ctrl+.): remember a gotcha, type picker, input, stored", async () => {
    await clearNotifications(page);
    await quickFix(page, line, column, "remember a gotcha");
    await page.locator(".quick-input-widget", { hasText: "what kind of memory" }).waitFor();
    // the type the server suggested is first, so Enter takes it
    await page.locator(".quick-input-list .monaco-list-row").first().filter({ hasText: "gotcha" }).waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".quick-input-widget", { hasText: "remember a gotcha" }).waitFor();
    await input.fill(quickFixRemember);
    await page.keyboard.press("Enter");
    await page.locator(".notifications-toasts", { hasText: "Forewarn remembered it" }).waitFor();
  });
  await step("Quick Fix (Ctrl+.): supersede the gotcha, input, stored", async () => {
    await quickFix(page, line, column, `supersede with new text (${supersedeId.slice(-6)})`);
    await page.locator(".quick-input-widget", { hasText: "supersede this memory" }).waitFor();
    await input.fill(supersedeText);
    await page.keyboard.press("Enter");
    await page.locator(".notifications-toasts", { hasText: "Forewarn superseded the memory" }).waitFor();
  });
  await step("Search Memories: no memory matches, Enter opens the Code group's best file at its chunk", async () => {
    await runCommand(page, "Forewarn: Search Memories");
    await page.locator(".quick-input-widget", { hasText: "Search Memories" }).waitFor();
    await input.fill(codeQuery);
    await rows.filter({ hasText: "No memories match" }).first().waitFor();
    const row = rows.filter({ hasText: `${codeFile}:` }).first();
    await row.waitFor();
    const where = new RegExp(`${codeFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:(\\d+)`).exec(await row.innerText());
    if (!where) {
      throw new Error(`the ${codeFile} row names no line: ${await row.innerText()}`);
    }
    const title = await page.locator(".quick-input-widget .quick-input-title").innerText();
    result.codeSearch = { rows: await rows.allInnerTexts(), title, line: Number(where[1]) };
    await page.keyboard.press("Enter"); // the best code hit is the active row: "No memories match" opens nothing
    await page.locator(".tab.active", { hasText: basename(codeFile) }).waitFor();
    await page.locator(".statusbar-item", { hasText: `Ln ${where[1]},` }).waitFor();
  });
  await step("Show Memory Health: a readable panel", async () => {
    await runCommand(page, "Forewarn: Show Memory Health");
    await page.locator(".tab.active", { hasText: "Memory Health" }).waitFor();
    const body = page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame").locator("body");
    await body.getByText("Memories by type").waitFor();
    result.health = await body.innerText();
  });
  await step("Show Repo Map: a read-only document", async () => {
    await runCommand(page, "Forewarn: Show Repo Map");
    await page.locator(".tab.active", { hasText: "repo-map.txt" }).waitFor();
    const text = page.locator(".editor-group-container.active .monaco-editor .view-lines").first();
    await text.getByText(basename(file)).first().waitFor();
    result.repoMap = await text.innerText();
  });
  await step("Reindex Workspace: a report", async () => {
    await runCommand(page, "Forewarn: Reindex Workspace");
    const toast = page.locator(".notifications-toasts .notification-list-item", { hasText: "Forewarn indexed" });
    await toast.first().waitFor();
    result.reindexed = await toast.first().innerText();
  });
  await step("Walkthrough: its steps render, and its first button installs the model and restarts the server", async () => {
    await clearNotifications(page);
    await runCommand(page, "Welcome: Open Walkthrough...");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Get Started with Forewarn" }).first().click();
    const walkthrough = page.locator(".gettingStartedContainer");
    for (const title of ["Install the embedding model", "Index the workspace", "Remember a first gotcha"]) {
      await walkthrough.getByText(title, { exact: true }).first().waitFor();
    }
    result.walkthrough = await walkthrough.innerText();
    await walkthrough.getByRole("button", { name: "Install the Model" }).click();
    const toast = page.locator(".notifications-toasts .notification-list-item", { hasText: "embedding model is installed" });
    await toast.first().waitFor();
    result.modelInstalled = await toast.first().innerText();
    // the step's completionEvents (onCommand:forewarn.installModel) tick it off
    await walkthrough.locator(".codicon-getting-started-step-checked").first().waitFor();
    await page.locator(".statusbar-item", { hasText: "Forewarn" }).locator(".codicon-history").first().waitFor();
  });
  result.screenshot = join(config.artifactsDir, "vscode-commands.png");
  await page.screenshot({ path: result.screenshot });
}

async function conflict(page: Page, config: Config, result: Result, step: Step): Promise<void> {
  const { file, line, column, conflictText, conflictAnswer } = config;
  if (!file || !line || !column || !conflictText || !conflictAnswer) {
    throw new Error("mode 'conflict' needs file, line, column, conflictText and conflictAnswer");
  }
  const input = page.locator(".quick-input-widget input");
  await step("open the file (Quick Open), cursor on the symbol", async () => {
    await page.locator(".monaco-workbench").click({ position: { x: 640, y: 400 } });
    await page.keyboard.press("Control+P");
    await input.waitFor();
    await input.fill(file);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: basename(file) }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".tab.active", { hasText: basename(file) }).waitFor();
    await page.locator(".editor-group-container.active .monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+G");
    await input.fill(`:${line}:${column}`);
    await page.keyboard.press("Enter");
    await page.locator(".quick-input-widget").waitFor({ state: "hidden" });
  });
  await step("Remember Gotcha Here: a text that contradicts the gotcha", async () => {
    await runCommand(page, "Forewarn: Remember Gotcha Here");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "gotcha" }).first().waitFor();
    await input.fill("gotcha");
    await page.keyboard.press("Enter");
    await page.locator(".quick-input-widget", { hasText: "remember a gotcha" }).waitFor();
    await input.fill(conflictText);
    await page.keyboard.press("Enter");
  });
  await step("the prompt after remember: what holds now", async () => {
    const prompt = page.locator(".quick-input-widget", { hasText: "this contradicts" });
    await prompt.waitFor();
    const rows = page.locator(".quick-input-list .monaco-list-row");
    await rows.filter({ hasText: conflictAnswer }).first().waitFor();
    const title = await page.locator(".quick-input-widget .quick-input-title").innerText();
    result.conflictPrompt = { title, rows: await rows.allInnerTexts() };
    await input.fill(conflictAnswer);
    await page.keyboard.press("Enter");
    const toast = page.locator(".notifications-toasts .notification-list-item", { hasText: "Forewarn: " });
    const done = toast.filter({ hasText: /replaces|both hold|contested/ }).first();
    await done.waitFor();
    result.conflictDone = await done.innerText();
  });
  result.screenshot = join(config.artifactsDir, "vscode-conflict.png");
  await page.screenshot({ path: result.screenshot });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
