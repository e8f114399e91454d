// What the panel's rows do, each a command (inline on a row, or from the palette: then a QuickPick asks which
// memory). Every action is one of the server's existing commands; the server republishes, the panel refreshes.
import * as vscode from "vscode";
import { describeAnchor, openAnchor } from "../anchors";
import { type Memory, ServerCommand, type SuggestionDiffResult } from "../protocol";
import { errorText, type ForewarnServer } from "../server";
import { firstLine, memoryDescription, typeIcon } from "./model";
import type { PanelNode } from "./trees";

/** Where the palette's actions find their memories: This File's and Review's rows as they are now. */
export interface MemorySource {
  fileMemories(): Memory[];
  suggestions(): Memory[];
  refresh(): Promise<void>;
}

async function pick(memories: Memory[], title: string, empty: string): Promise<Memory | undefined> {
  if (memories.length === 0) {
    await vscode.window.showInformationMessage(`Forewarn: ${empty}`);
    return undefined;
  }
  const chosen = await vscode.window.showQuickPick(
    memories.map((memory) => ({
      label: `$(${typeIcon(memory.type)}) ${firstLine(memory.text)}`,
      description: memoryDescription(memory),
      detail: describeAnchor(memory.anchor),
      memory,
    })),
    { title: `Forewarn: ${title}`, matchOnDescription: true, matchOnDetail: true },
  );
  return chosen?.memory;
}

/** The memory a command was run on: the row it was run from, else the one picked among `candidates`. */
async function target(node: unknown, candidates: () => Memory[], title: string, empty: string): Promise<Memory | undefined> {
  const row = node as PanelNode | undefined;
  if (row && typeof row === "object" && row.kind === "memory") {
    return row.memory;
  }
  return pick(candidates(), title, empty);
}

async function askText(title: string, value?: string): Promise<string | undefined> {
  const text = await vscode.window.showInputBox({
    title: `Forewarn: ${title}`,
    value,
    validateInput: (input) => (input.trim() ? undefined : "A memory needs some text"),
  });
  return text?.trim() || undefined;
}

export const COMMIT_SCHEME = "forewarn-commit";

/** Read-only documents for a suggestion's commit: closing one asks nothing (an untitled document would ask to save). */
export class CommitDocuments implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? "";
  }

  /** A document `name` holding `text`. */
  put(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: COMMIT_SCHEME, path: `/${name}.diff` });
    this.contents.set(uri.toString(), text);
    return uri;
  }
}

export class PanelActions {
  constructor(
    private readonly server: ForewarnServer,
    private readonly source: MemorySource,
    private readonly commits: CommitDocuments,
  ) {}

  private current = (): Memory[] => this.source.fileMemories().filter((m) => m.status !== "suggested");
  private waiting = (): Memory[] => [...this.source.suggestions(), ...this.source.fileMemories().filter((m) => m.status === "suggested")];

  /** The memory the row (or a picker over ``pool``) names, then ``command`` on its id — after asking for a text
   *  (its current one to edit) when ``askFor`` is given; nothing is sent when the person picks or writes nothing. */
  private async act(node: unknown, pool: () => Memory[], question: string, command: string, done: string, askFor?: string): Promise<void> {
    const empty = pool === this.waiting ? "no suggestions to review" : "no memories on this file";
    const memory = await target(node, pool, question, empty);
    const text = memory && askFor !== undefined ? await askText(askFor, memory.text) : undefined;
    if (memory && (askFor === undefined || text)) {
      await this.send(command, text ? { id: memory.id, text } : { id: memory.id }, done);
    }
  }

  private async send(command: string, argument: object, done: string): Promise<void> {
    try {
      await this.server.command(command, argument);
      void vscode.window.setStatusBarMessage(`Forewarn: ${done}`, 4000);
    } catch (error) {
      await vscode.window.showErrorMessage(`Forewarn: ${errorText(error)}`);
    }
    await this.source.refresh(); // the server announces the change too; this answers the one who acted at once
  }

  async open(node?: unknown): Promise<void> {
    const memory = await target(node, () => [...this.source.fileMemories(), ...this.source.suggestions()], "open which memory?", "no memories here");
    if (memory && !(await openAnchor(memory.anchor))) {
      await vscode.window.showInformationMessage(`${memory.type}: ${memory.text}`);
    }
  }

  async confirm(node?: unknown): Promise<void> {
    await this.act(node, this.current, "confirm which memory (still true)?", ServerCommand.confirm, "confirmed: still true");
  }

  async markOutdated(node?: unknown): Promise<void> {
    await this.act(node, this.current, "mark which memory outdated?", ServerCommand.markOutdated, "marked outdated");
  }

  async supersede(node?: unknown): Promise<void> {
    await this.act(node, this.current, "supersede which memory?", ServerCommand.supersede, "superseded",
      "supersede: what is true now (the old memory is kept as history)");
  }

  async forget(node?: unknown): Promise<void> {
    await this.act(node, this.current, "forget which memory (archived, restorable)?", ServerCommand.forget,
      "forgotten (archived; forewarn memory restore brings it back)");
  }

  async accept(node?: unknown): Promise<void> {
    await this.act(node, this.waiting, "accept which suggestion?", ServerCommand.acceptSuggestion, "suggestion accepted");
  }

  async editAndAccept(node?: unknown): Promise<void> {
    await this.act(node, this.waiting, "edit and accept which suggestion?", ServerCommand.acceptSuggestion,
      "suggestion accepted", "edit and accept this suggestion");
  }

  async dismiss(node?: unknown): Promise<void> {
    await this.act(node, this.waiting, "dismiss which suggestion?", ServerCommand.dismissSuggestion,
      "suggestion dismissed (never proposed again)");
  }

  /** The commit a suggestion was mined from (or a warning comment's place), beside the editor. */
  async showCommit(node?: unknown): Promise<void> {
    const memory = await target(node, this.waiting, "show the commit of which suggestion?", "no suggestions to review");
    if (!memory) {
      return;
    }
    let content: string;
    try {
      content = (await this.server.command<SuggestionDiffResult>(ServerCommand.suggestionDiff, { id: memory.id })).diff;
    } catch (error) {
      content = `Forewarn: no commit for this suggestion: ${errorText(error)}`;
    }
    const name = `${String(memory.id).slice(-6)} ${firstLine(memory.text, 40).replace(/[/\\]/g, " ")}`;
    const document = await vscode.workspace.openTextDocument(this.commits.put(name, content));
    await vscode.languages.setTextDocumentLanguage(document, "diff");
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  }
}
