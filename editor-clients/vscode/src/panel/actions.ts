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
    const memory = await target(node, this.current, "confirm which memory (still true)?", "no memories on this file");
    if (memory) {
      await this.send(ServerCommand.confirm, { id: memory.id }, "confirmed: still true");
    }
  }

  async markOutdated(node?: unknown): Promise<void> {
    const memory = await target(node, this.current, "mark which memory outdated?", "no memories on this file");
    if (memory) {
      await this.send(ServerCommand.markOutdated, { id: memory.id }, "marked outdated");
    }
  }

  async supersede(node?: unknown): Promise<void> {
    const memory = await target(node, this.current, "supersede which memory?", "no memories on this file");
    const text = memory && (await askText("supersede: what is true now (the old memory is kept as history)", memory.text));
    if (memory && text) {
      await this.send(ServerCommand.supersede, { id: memory.id, text }, "superseded");
    }
  }

  async forget(node?: unknown): Promise<void> {
    const memory = await target(node, this.current, "forget which memory (archived, restorable)?", "no memories on this file");
    if (memory) {
      await this.send(ServerCommand.forget, { id: memory.id }, "forgotten (archived; forewarn memory restore brings it back)");
    }
  }

  async accept(node?: unknown): Promise<void> {
    const memory = await target(node, this.waiting, "accept which suggestion?", "no suggestions to review");
    if (memory) {
      await this.send(ServerCommand.acceptSuggestion, { id: memory.id }, "suggestion accepted");
    }
  }

  async editAndAccept(node?: unknown): Promise<void> {
    const memory = await target(node, this.waiting, "edit and accept which suggestion?", "no suggestions to review");
    const text = memory && (await askText("edit and accept this suggestion", memory.text));
    if (memory && text) {
      await this.send(ServerCommand.acceptSuggestion, { id: memory.id, text }, "suggestion accepted");
    }
  }

  async dismiss(node?: unknown): Promise<void> {
    const memory = await target(node, this.waiting, "dismiss which suggestion?", "no suggestions to review");
    if (memory) {
      await this.send(ServerCommand.dismissSuggestion, { id: memory.id }, "suggestion dismissed (never proposed again)");
    }
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
