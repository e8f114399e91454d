// The command-palette commands. Each is a few lines over ForewarnServer.command and the VS Code UI.
import { spawn } from "node:child_process";
import * as vscode from "vscode";
import { describeAnchor, openAnchor, symbolAt, toLspRange } from "./anchors";
import {
  type Anchor,
  type OpenListResult,
  isRecord,
  MEMORY_TYPES,
  type Memory,
  type ReindexResult,
  type RememberResult,
  type RepoMapResult,
  type Resolution,
  type ReviewResult,
  type SearchResult,
  type SuggestionDiffResult,
  ServerCommand,
} from "./protocol";
import { type SearchRow, searchRows, searchTitle } from "./search";
import { errorText, type ForewarnServer, userSettingReader, workspaceFolder } from "./server";
import { modelInstallLaunch, serverEnv } from "./settings";

const SEARCH_DEBOUNCE_MS = 150; // long enough to skip most keystrokes, short enough to feel live
const SEARCH_RESULTS = 20;
const REPO_MAP_BUDGET_TOKENS = 2048;
export const REPO_MAP_SCHEME = "forewarn-map";

/** `{uri}` of the active file: in a multi-root workspace, the server answers for that file's folder. */
function activeFile(): { uri?: string } {
  const uri = vscode.window.activeTextEditor?.document.uri;
  return uri?.scheme === "file" ? { uri: uri.toString() } : {};
}

interface MemoryItem extends vscode.QuickPickItem {
  memory: Memory;
}

function memoryItem(memory: Memory): MemoryItem {
  const icon = MEMORY_TYPES.find((t) => t.type === memory.type)?.icon ?? "question"; // a type newer than this client
  const status = memory.status && memory.status !== "active" ? ` · ${memory.status}` : "";
  return {
    label: `$(${icon}) ${memory.text.split("\n")[0]}`,
    description: `${memory.type}${memory.age ? ` · ${memory.age}` : ""}${status}`,
    detail: describeAnchor(memory.anchor),
    memory,
    alwaysShow: true, // the server ranked these; the QuickPick's own fuzzy filter must not hide them
  };
}

/** A Search Memories row: a memory (opens its anchor), a code hit (opens at its best chunk), or a line to read. */
interface SearchItem extends vscode.QuickPickItem {
  memory?: Memory;
  code?: Anchor;
}

function searchItem(row: SearchRow): SearchItem {
  switch (row.kind) {
    case "memory":
      return memoryItem(row.memory);
    case "separator":
      return { label: row.label, kind: vscode.QuickPickItemKind.Separator };
    case "message":
      return { label: row.label, alwaysShow: true };
    case "code":
      return {
        label: row.label,
        description: row.description,
        detail: row.detail,
        code: row.chunk ?? { uri: row.file.uri, file: row.file.file },
        alwaysShow: true,
      };
  }
}

/**
 * Keeps the server's order and the Code separator while a query is typed: by default a QuickPick re-sorts what
 * matches its filter by label and drops separators. `sortByLabel` is outside the stable API's typings (VS Code's
 * quickPickSortByLabel proposal) but the extension host honours it; where it is refused, the list just sorts.
 */
function keepServerOrder(pick: vscode.QuickPick<SearchItem>): void {
  try {
    (pick as { sortByLabel?: boolean }).sortByLabel = false;
  } catch {
    // a VS Code that guards the proposal: the rows still come, in VS Code's order
  }
}

export async function searchMemories(server: ForewarnServer): Promise<void> {
  const pick = vscode.window.createQuickPick<SearchItem>();
  keepServerOrder(pick);
  pick.title = searchTitle(undefined);
  pick.placeholder = "What did we learn about…";
  pick.matchOnDescription = false;
  pick.matchOnDetail = false;
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;
  // the last answer came while the server was indexing (its code part missing): asked again once it is done
  let waitingForIndex = false;
  const run = async (query: string): Promise<void> => {
    const mine = ++generation;
    if (!query.trim()) {
      pick.items = [];
      pick.busy = false;
      return;
    }
    pick.busy = true;
    try {
      const result = await server.command<SearchResult>(ServerCommand.search, { query, k: SEARCH_RESULTS });
      if (mine !== generation) {
        return; // a newer query is on its way; do not flash stale results
      }
      waitingForIndex = result.indexing === true;
      if (waitingForIndex && server.state.kind !== "indexing") {
        // the index has not begun yet, or ended while this answer travelled: ask again (the server waits for it)
        queueMicrotask(() => void run(pick.value));
      }
      const items = searchRows(result).map(searchItem);
      if (result.memories.length === 0 && result.message && items.length > 0) {
        items[0] = { ...items[0], detail: result.message }; // the relevance floor's answer: which memory came closest
      }
      pick.title = searchTitle(result);
      pick.items = items;
      // "No memories match" leads the list but opens nothing: then Enter goes to the best code hit
      const code = items.find((item) => item.code);
      if (result.memories.length === 0 && code) {
        pick.activeItems = [code];
      }
    } catch (error) {
      if (mine === generation) {
        pick.items = [{ label: `$(error) ${errorText(error)}`, alwaysShow: true }];
      }
    } finally {
      if (mine === generation) {
        pick.busy = false;
      }
    }
  };
  pick.onDidChangeValue((value) => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(value), SEARCH_DEBOUNCE_MS);
  });
  const indexed = server.onDidChangeState((state) => {
    if (waitingForIndex && state.kind === "running") {
      void run(pick.value);
    }
  });
  pick.onDidAccept(async () => {
    const chosen = pick.selectedItems[0];
    const memory = chosen?.memory;
    if (chosen?.code) {
      pick.hide();
      if (!(await openAnchor(chosen.code))) {
        await vscode.window.showInformationMessage(`Forewarn: ${chosen.description ?? chosen.label}`);
      }
      return;
    }
    if (!memory) {
      return;
    }
    pick.hide();
    // the user acted on this memory: the server reinforces it (a failure here must not block opening it)
    void server.command(ServerCommand.accept, { id: memory.id }).catch(() => undefined);
    if (!(await openAnchor(memory.anchor))) {
      await vscode.window.showInformationMessage(`${memory.type}: ${memory.text}`);
    }
  });
  pick.onDidHide(() => {
    clearTimeout(timer);
    indexed.dispose();
    pick.dispose();
  });
  pick.show();
}

/**
 * Where a suggestion came from, in the server's words when it sends them ("suggested by an agent (Claude Code
 * 2.1.0)", "suggested from commit abc1234 by Ann, 2024-03-02"); from an older server, the newest commit or the source.
 */
export function suggestionOrigin(memory: Memory): string {
  if (typeof memory.origin === "string" && memory.origin) {
    return memory.origin;
  }
  const commits = (memory.provenance?.commits ?? []).filter((c) => c.sha);
  if (commits.length === 0) {
    return memory.source === "comment" ? "a warning comment" : (memory.source ?? "");
  }
  const newest = commits.reduce((a, b) => ((b.date ?? "") > (a.date ?? "") ? b : a));
  const who = newest.author ? ` by ${newest.author}` : "";
  const when = newest.date ? `, ${newest.date.slice(0, 10)}` : "";
  const more = commits.length > 1 ? ` (+${commits.length - 1} more)` : "";
  return `commit ${(newest.sha ?? "").slice(0, 7)}${who}${when}${more}`;
}

/**
 * Forewarn: Review Suggestions — the memories mined from the history, best first: pick one (its commit's
 * diff opens beside, its commit and anchor show), then Accept, Edit and accept, Dismiss or Open. Each answer goes to the server, which
 * republishes the file (an accepted gotcha turns from hint to warning); the list comes back for the next one.
 */
export async function reviewSuggestions(server: ForewarnServer): Promise<void> {
  for (;;) {
    let result: ReviewResult;
    try {
      result = await server.command<ReviewResult>(ServerCommand.review, {});
    } catch (error) {
      await vscode.window.showErrorMessage(`Forewarn: ${errorText(error)}`);
      return;
    }
    if (result.suggestions.length === 0) {
      await vscode.window.showInformationMessage("Forewarn: no suggestions to review.");
      return;
    }
    const items = result.suggestions.map((memory) => ({
      ...memoryItem(memory),
      description: `${memory.type} · ${suggestionOrigin(memory)}`,
      detail: suggestionDetail(memory),
    }));
    const total = result.total ?? items.length;
    const chosen = await vscode.window.showQuickPick(items, {
      title: `Forewarn: Review Suggestions (${total})`,
      placeHolder: "Pick a suggestion mined from the history",
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!chosen) {
      return;
    }
    if (!(await reviewOne(server, chosen.memory))) {
      return;
    }
  }
}

/** A review item's second line: where it sits, then what accepting it changes (a proposal) or its commit's subject. */
function suggestionDetail(memory: Memory): string {
  const why = memory.proposedChange?.summary ?? memory.provenance?.commits?.[0]?.subject;
  return `${describeAnchor(memory.anchor)}${why ? ` — ${why}` : ""}`;
}

/**
 * The diff a suggestion was mined from (`forewarn.suggestionDiff`), in an untitled diff document beside the
 * editor, focus kept on the picker; a server error is shown in that document rather than ending the review.
 */
async function showSuggestionDiff(server: ForewarnServer, memory: Memory): Promise<void> {
  let content: string;
  try {
    content = (await server.command<SuggestionDiffResult>(ServerCommand.suggestionDiff, { id: memory.id })).diff;
  } catch (error) {
    content = `Forewarn: no diff for this suggestion: ${errorText(error)}`;
  }
  const document = await vscode.workspace.openTextDocument({ content, language: "diff" });
  await vscode.window.showTextDocument(document, {
    viewColumn: vscode.ViewColumn.Beside,
    preview: true,
    preserveFocus: true,
  });
}

/** One suggestion's verdict (its diff shown beside first); false when the user walked away. */
async function reviewOne(server: ForewarnServer, memory: Memory): Promise<boolean> {
  await showSuggestionDiff(server, memory);
  const verdict = await vscode.window.showQuickPick(["Accept", "Edit and accept", "Dismiss", "Open"], {
    title: `${memory.type}: ${memory.text.split("\n")[0]}`,
    placeHolder: suggestionOrigin(memory),
  });
  try {
    if (verdict === "Accept") {
      await server.command(ServerCommand.acceptSuggestion, { id: memory.id });
    } else if (verdict === "Edit and accept") {
      const text = await vscode.window.showInputBox({
        title: "Forewarn: edit and accept",
        value: memory.text,
        validateInput: (value) => (value.trim() ? undefined : "A memory needs some text"),
      });
      if (!text) {
        return true;
      }
      await server.command(ServerCommand.acceptSuggestion, { id: memory.id, text });
    } else if (verdict === "Dismiss") {
      await server.command(ServerCommand.dismissSuggestion, { id: memory.id });
    } else if (verdict === "Open") {
      await openAnchor(memory.anchor);
      return false;
    } else {
      return false;
    }
  } catch (error) {
    await vscode.window.showErrorMessage(`Forewarn: ${errorText(error)}`);
  }
  return true;
}

/** The memory types for a QuickPick, `suggested` first so that Enter takes it. */
function typeItems(suggested: string | undefined): vscode.QuickPickItem[] {
  const items = MEMORY_TYPES.map((t) => ({ label: t.type as string, description: t.description }));
  const first = items.findIndex((item) => item.label === suggested);
  return first > 0 ? [items[first], ...items.slice(0, first), ...items.slice(first + 1)] : items;
}

/** An InputBox for a memory's text; undefined when cancelled (empty text cannot be accepted). */
async function askText(title: string, prompt: string): Promise<string | undefined> {
  const text = await vscode.window.showInputBox({
    title,
    prompt,
    placeHolder: "e.g. retries here must be idempotent: the payment API double-charges on timeout",
    validateInput: (value) => (value.trim() ? undefined : "Say what was learned"),
  });
  return text?.trim() || undefined;
}

/** The last entry of the type QuickPick: a private memory is the writer's alone, never exported. */
const PRIVATE_ITEM: vscode.QuickPickItem = {
  label: "$(lock) private…",
  description: "only you see it: never exported to the team's file",
  alwaysShow: true,
};

/**
 * The type QuickPick (its last entry, "private…", asks the type again for a private memory), then the text
 * InputBox; undefined when the user cancels any of them.
 */
async function askMemory(
  where: string,
  suggestedType?: string,
): Promise<{ type: string; text: string; private: boolean } | undefined> {
  const options = { title: "Forewarn: what kind of memory?", placeHolder: suggestedType ?? MEMORY_TYPES[0].type };
  let type = await vscode.window.showQuickPick([...typeItems(suggestedType), PRIVATE_ITEM], options);
  const isPrivate = type === PRIVATE_ITEM;
  if (isPrivate) {
    type = await vscode.window.showQuickPick(typeItems(suggestedType), {
      ...options,
      title: "Forewarn: what kind of private memory? (only you; never exported)",
    });
  }
  if (!type) {
    return undefined;
  }
  const text = await askText(`Forewarn: remember a ${isPrivate ? "private " : ""}${type.label}`, where);
  return text ? { type: type.label, text, private: isPrivate } : undefined;
}

/** Sends `forewarn.resolveConflict` with its one argument object (the server, or the code action's client). */
export type ResolveConflict = (argument: { id: string; other: string; resolution: Resolution }) => Promise<unknown>;

interface ResolutionItem extends vscode.QuickPickItem {
  resolution: Resolution;
}

const RESOLUTION_ITEMS: ResolutionItem[] = [
  { label: "$(replace) Replace the old one", description: "the old memory is superseded (kept as history)", resolution: "replace" },
  { label: "$(check-all) Both hold", description: "not asked again for this pair", resolution: "both" },
  { label: "$(warning) Mark contested", description: "both show as warnings until someone resolves them", resolution: "contested" },
];

const RESOLVED: Record<Resolution, string> = {
  replace: "Forewarn: the new memory replaces the old one.",
  both: "Forewarn: both hold; this pair will not be flagged again.",
  contested: "Forewarn: both are marked contested until someone resolves them.",
};

/**
 * After remember: the memories the new one seems to contradict, one at a time, each asked as a QuickPick
 * (replace the old one / both hold / mark contested). Escape leaves that pair as it is (the CLI's
 * `forewarn memory resolve` settles it later).
 */
export async function askConflicts(result: RememberResult, resolve: ResolveConflict): Promise<void> {
  for (const other of result.conflicts ?? []) {
    const cues = other.cues?.length ? ` (${other.cues.join(", ")})` : "";
    const choice = await vscode.window.showQuickPick(RESOLUTION_ITEMS, {
      title: `Forewarn: this contradicts “${other.text.split("\n")[0]}”${cues}`,
      placeHolder: "What holds now?",
      ignoreFocusOut: true,
    });
    if (!choice) {
      continue;
    }
    try {
      await resolve({ id: String(result.id), other: String(other.id), resolution: choice.resolution });
      void vscode.window.showInformationMessage(RESOLVED[choice.resolution]);
    } catch (error) {
      await vscode.window.showErrorMessage(`Forewarn could not resolve it: ${errorText(error)}`);
    }
  }
}

async function reportRemembered(
  send: () => Promise<RememberResult>,
  resolve?: ResolveConflict,
): Promise<RememberResult | undefined> {
  let result: RememberResult;
  try {
    result = await send();
  } catch (error) {
    await vscode.window.showErrorMessage(`Forewarn could not remember it: ${errorText(error)}`);
    return undefined;
  }
  const merged = result.merged ? " (merged with a similar memory)" : "";
  const conflicts = result.conflicts?.length ?? 0;
  if (conflicts === 0 || !resolve) {
    await vscode.window.showInformationMessage(`Forewarn remembered it${merged}.`);
    return result;
  }
  const which = conflicts === 1 ? "an existing memory" : `${conflicts} existing memories`;
  void vscode.window.showInformationMessage(`Forewarn remembered it${merged}; it contradicts ${which}.`);
  await askConflicts(result, resolve);
  return result;
}

export async function rememberHere(server: ForewarnServer): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const answer = await askMemory(
    editor ? `Anchored to ${vscode.workspace.asRelativePath(editor.document.uri)}` : "Not anchored to a file",
  );
  if (!answer) {
    return;
  }
  const argument: Record<string, unknown> = { ...answer };
  if (editor) {
    argument.uri = editor.document.uri.toString();
    const selection = editor.selection;
    if (!selection.isEmpty) {
      argument.range = toLspRange(selection);
    } else {
      const symbol = await symbolAt(editor.document, selection.active);
      if (symbol) {
        argument.symbol = symbol.name;
        argument.range = toLspRange(symbol.range);
      } else {
        argument.range = toLspRange(editor.document.lineAt(selection.active.line).range);
      }
    }
  }
  await reportRemembered(
    () => server.command<RememberResult>(ServerCommand.remember, argument),
    (resolution) => server.command(ServerCommand.resolveConflict, resolution),
  );
}

/**
 * The server's code actions "remember a gotcha" and "supersede" carry `text: null`: the editor asks for
 * the text (and, to remember, the type) and then sends the command. Cancelling sends nothing. Every
 * other command goes to the server as it is. Used as vscode-languageclient's `executeCommand` middleware.
 */
export async function executeCodeActionCommand(
  command: string,
  args: unknown[],
  send: (args: unknown[]) => Promise<unknown>,
  resolve?: ResolveConflict,
): Promise<unknown> {
  const [argument, ...rest] = args;
  if (command === ServerCommand.openList) {
    return pickOpenList((await send(args)) as OpenListResult);
  }
  if (!isRecord(argument) || argument.text !== null) {
    return send(args);
  }
  if (command === ServerCommand.remember) {
    const uri = typeof argument.uri === "string" ? vscode.Uri.parse(argument.uri) : undefined;
    const symbol = typeof argument.symbol === "string" ? ` · ${argument.symbol}` : "";
    const where = uri ? `Anchored to ${vscode.workspace.asRelativePath(uri)}${symbol}` : "Not anchored to a file";
    const answer = await askMemory(where, typeof argument.type === "string" ? argument.type : undefined);
    if (!answer) {
      return undefined;
    }
    return reportRemembered(() => send([{ ...argument, ...answer }, ...rest]) as Promise<RememberResult>, resolve);
  }
  if (command === ServerCommand.acceptSuggestion) {
    const text = await askText("Forewarn: edit and accept this suggestion", "The memory as it should read");
    return text ? send([{ ...argument, text }, ...rest]) : undefined;
  }
  if (command === ServerCommand.supersede) {
    const text = await askText("Forewarn: supersede this memory", "What is true now (the old memory is kept as superseded)");
    if (!text) {
      return undefined;
    }
    try {
      const result = await send([{ ...argument, text }, ...rest]);
      await vscode.window.showInformationMessage("Forewarn superseded the memory.");
      return result;
    } catch (error) {
      await vscode.window.showErrorMessage(`Forewarn could not supersede it: ${errorText(error)}`);
      return undefined;
    }
  }
  return send(args);
}

/** The "N more" diagnostic's list: the file's memories, then those on the code it uses; picking one opens it. */
async function pickOpenList(result: OpenListResult): Promise<OpenListResult> {
  const items = result.memories.map((memory) => {
    const item = memoryItem(memory);
    return memory.usedAt ? { ...item, detail: `${item.detail} · used at line ${memory.usedAt}` } : item;
  });
  const chosen = await vscode.window.showQuickPick(items, {
    title: `Forewarn: ${result.total} memories on ${result.file} and the code it uses`,
    placeHolder: "Pick a memory to open where it is anchored",
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (chosen && !(await openAnchor(chosen.memory.anchor))) {
    await vscode.window.showInformationMessage(`${chosen.memory.type}: ${chosen.memory.text}`);
  }
  return result;
}

/** Read-only documents for the repo map: content lives here, VS Code asks for it by URI. */
export class RepoMapDocuments implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? "";
  }

  set(uri: vscode.Uri, text: string): void {
    this.contents.set(uri.toString(), text);
    this.changed.fire(uri);
  }
}

export async function showRepoMap(server: ForewarnServer, documents: RepoMapDocuments): Promise<void> {
  const active = vscode.window.activeTextEditor?.document.uri;
  const focus = active?.scheme === "file" ? [active.toString()] : [];
  let result: RepoMapResult;
  try {
    result = await server.command<RepoMapResult>(ServerCommand.repoMap, { budget: REPO_MAP_BUDGET_TOKENS, focus });
  } catch (error) {
    await vscode.window.showErrorMessage(`Forewarn: ${errorText(error)}`);
    return;
  }
  const uri = vscode.Uri.from({ scheme: REPO_MAP_SCHEME, path: "/repo-map.txt" });
  documents.set(uri, result.text);
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(document, { preview: false });
}

export async function reindexWorkspace(server: ForewarnServer): Promise<void> {
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "Forewarn: reindexing the workspace" },
      () => server.command<ReindexResult>(ServerCommand.reindex, activeFile()),
    );
    const seconds = result.duration_ms === undefined ? "" : ` in ${(result.duration_ms / 1000).toFixed(1)} s`;
    await vscode.window.showInformationMessage(
      `Forewarn indexed ${result.files ?? "?"} files (${result.changed ?? 0} changed, ${result.deleted ?? 0} deleted)${seconds}.`,
    );
  } catch (error) {
    await vscode.window.showErrorMessage(`Forewarn: ${errorText(error)}`);
  }
}

/**
 * `forewarn model install` with the server's own program or interpreter, its output in the Forewarn
 * channel; once it succeeds the server restarts so that it loads the model (search turns semantic).
 */
export async function installModel(
  server: ForewarnServer,
  output: vscode.OutputChannel,
  restart: () => Promise<void>,
): Promise<void> {
  const launch = modelInstallLaunch(await server.launch());
  if (!launch) {
    await vscode.window.showErrorMessage(
      "Forewarn: forewarn.server.command does not run `serve`, so the extension cannot tell where the forewarn command is. Run `forewarn model install` in a terminal.",
    );
    return;
  }
  output.appendLine(`Running ${[launch.command, ...launch.args].join(" ")} (from ${launch.origin})`);
  const exit = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "Forewarn: installing the embedding model", cancellable: true },
    (_progress, token) =>
      new Promise<string | undefined>((resolve) => {
        const child = spawn(launch.command, launch.args, {
          env: serverEnv(userSettingReader(), process.env),
          cwd: workspaceFolder()?.fsPath,
        });
        child.stdout.on("data", (chunk: Buffer) => output.append(chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => output.append(chunk.toString()));
        token.onCancellationRequested(() => child.kill());
        child.on("error", (error) => resolve(errorText(error)));
        child.on("close", (code, signal) => resolve(code === 0 ? undefined : `exit ${code ?? signal}`));
      }),
  );
  if (exit !== undefined) {
    output.appendLine(`forewarn model install failed: ${exit}`);
    const show = await vscode.window.showErrorMessage(`Forewarn could not install the model (${exit}).`, "Show Output");
    if (show) {
      output.show(true);
    }
    return;
  }
  void vscode.window.showInformationMessage("Forewarn: the embedding model is installed; restarting the server to load it.");
  await restart();
}
