// The panel's two trees: This File (the active file's memories by symbol) and Review (the suggestion queue by file).
// Thin over the server: each refresh is one command, each row says what it is in words for screen readers.
import * as vscode from "vscode";
import { describeAnchor, symbolName, toVsRange } from "../anchors";
import {
  ClientCommand,
  type FileMemoriesResult,
  type FileMemory,
  type Memory,
  type ReviewResult,
  ServerCommand,
  type SymbolMemories,
} from "../protocol";
import { errorText, type ForewarnServer } from "../server";
import {
  countsText,
  type FileGroup,
  firstLine,
  groupByFile,
  memoryAccessibleLabel,
  memoryContext,
  memoryDescription,
  memoryIcon,
  plural,
} from "./model";

/** A row of either tree: a group (a symbol, a file) or a memory. */
export type PanelNode =
  | { kind: "symbol"; group: SymbolMemories; uri: string }
  | { kind: "file"; group: FileGroup }
  | { kind: "memory"; memory: FileMemory };

function memoryItem(memory: FileMemory): vscode.TreeItem {
  const item = new vscode.TreeItem(firstLine(memory.text), vscode.TreeItemCollapsibleState.None);
  item.id = `memory:${memory.id}`;
  item.description = memoryDescription(memory);
  const tooltip = new vscode.MarkdownString();
  tooltip.appendText(memory.text); // as text: nothing in a memory renders as Markdown
  tooltip.appendMarkdown("\n\n---\n\n");
  tooltip.appendText(`${memoryDescription(memory)} · ${describeAnchor(memory.anchor)}`);
  item.tooltip = tooltip;
  const icon = memoryIcon(memory);
  item.iconPath = new vscode.ThemeIcon(icon.id, icon.color ? new vscode.ThemeColor(icon.color) : undefined);
  item.contextValue = memoryContext(memory);
  item.accessibilityInformation = { label: memoryAccessibleLabel(memory), role: "treeitem" };
  item.command = { command: ClientCommand.openMemory, title: "Open", arguments: [{ kind: "memory", memory }] };
  return item;
}

/** This File: the active editor's file, its symbols (the whole file first), each symbol's memories. */
export class ThisFileTree implements vscode.TreeDataProvider<PanelNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<PanelNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  view: vscode.TreeView<PanelNode> | undefined;
  private result: FileMemoriesResult | undefined;
  private uri: vscode.Uri | undefined;
  private generation = 0;

  constructor(private readonly server: ForewarnServer) {}

  /** The memories the tree shows now (the palette's actions pick from them). */
  memories(): FileMemory[] {
    return this.result?.symbols.flatMap((group) => group.memories) ?? [];
  }

  /** Follows `uri` (the active editor's file; undefined keeps the last one) and asks the server again. */
  async refresh(uri?: vscode.Uri): Promise<void> {
    if (uri && uri.scheme === "file") {
      this.uri = uri;
    }
    const mine = ++this.generation;
    let result: FileMemoriesResult | undefined;
    let message: string;
    const name = this.uri ? vscode.workspace.asRelativePath(this.uri) : undefined;
    if (!this.uri) {
      message = "Open a file to see what Forewarn knows about it.";
    } else {
      try {
        result = await this.server.command<FileMemoriesResult>(ServerCommand.fileMemories, { uri: this.uri.toString() });
        const more = result.more ? ` (${result.more} more not listed)` : "";
        message =
          result.total === 0
            ? `No memories on ${name} yet: Forewarn: Remember Gotcha Here records one.`
            : `${plural(result.total, "memory", "memories")}: ${countsText(result.counts)}${more}`;
      } catch (error) {
        message = `Forewarn: ${errorText(error)}`;
      }
    }
    if (mine !== this.generation) {
      return; // a newer refresh is on its way
    }
    this.result = result;
    if (this.view) {
      this.view.description = name;
      this.view.message = message;
    }
    this.changed.fire(undefined);
  }

  getTreeItem(node: PanelNode): vscode.TreeItem {
    if (node.kind === "memory") {
      return memoryItem(node.memory);
    }
    if (node.kind !== "symbol") {
      return new vscode.TreeItem("");
    }
    const group = node.group;
    const name = group.symbol ? symbolName(group.symbol, group.range ? group.range.start.line + 1 : undefined) : "(whole file)";
    const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `symbol:${node.uri}:${name}`;
    item.description = countsText(group.counts);
    item.iconPath = new vscode.ThemeIcon(group.symbol ? "symbol-method" : "file");
    item.contextValue = "forewarn.symbol";
    item.accessibilityInformation = { label: `${name}: ${countsText(group.counts).replace(/ · /g, ", ")}`, role: "treeitem" };
    const range = toVsRange(group.range);
    item.command = {
      command: "vscode.open",
      title: "Open",
      arguments: [vscode.Uri.parse(node.uri), { selection: range ? new vscode.Range(range.start, range.start) : undefined }],
    };
    return item;
  }

  getChildren(node?: PanelNode): PanelNode[] {
    if (!node) {
      const uri = this.result?.uri ?? "";
      return (this.result?.symbols ?? []).map((group) => ({ kind: "symbol", group, uri }));
    }
    return node.kind === "symbol" ? node.group.memories.map((memory) => ({ kind: "memory", memory })) : [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Review: the suggestion queue in `forewarn memory review`'s order, grouped by file; the view's badge counts it. */
export class ReviewTree implements vscode.TreeDataProvider<PanelNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<PanelNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  view: vscode.TreeView<PanelNode> | undefined;
  private groups: FileGroup[] = [];
  private generation = 0;

  constructor(private readonly server: ForewarnServer) {}

  suggestions(): Memory[] {
    return this.groups.flatMap((group) => group.suggestions);
  }

  async refresh(): Promise<void> {
    const mine = ++this.generation;
    let result: ReviewResult | undefined;
    let problem: string | undefined;
    try {
      result = await this.server.command<ReviewResult>(ServerCommand.review, {});
    } catch (error) {
      problem = errorText(error);
    }
    if (mine !== this.generation) {
      return;
    }
    this.groups = groupByFile(result?.suggestions ?? []);
    const total = result?.total ?? result?.suggestions.length ?? 0;
    if (this.view) {
      this.view.badge = total ? { value: total, tooltip: `${plural(total, "suggestion")} waiting for review` } : undefined;
      this.view.message =
        problem !== undefined
          ? `Forewarn: ${problem}`
          : total === 0
            ? "No suggestions wait for review."
            : `${plural(total, "suggestion")} to review, best first.`;
    }
    this.changed.fire(undefined);
  }

  getTreeItem(node: PanelNode): vscode.TreeItem {
    if (node.kind === "memory") {
      return memoryItem(node.memory);
    }
    if (node.kind !== "file") {
      return new vscode.TreeItem("");
    }
    const group = node.group;
    const name = group.file ?? "(whole workspace)";
    const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `review:${name}`;
    item.description = plural(group.suggestions.length, "suggestion");
    item.iconPath = group.file ? vscode.ThemeIcon.File : new vscode.ThemeIcon("root-folder");
    if (group.uri) {
      item.resourceUri = vscode.Uri.parse(group.uri);
    }
    item.contextValue = "forewarn.reviewFile";
    item.accessibilityInformation = { label: `${name}: ${item.description}`, role: "treeitem" };
    return item;
  }

  getChildren(node?: PanelNode): PanelNode[] {
    if (!node) {
      return this.groups.map((group) => ({ kind: "file", group }));
    }
    return node.kind === "file" ? node.group.suggestions.map((memory) => ({ kind: "memory", memory })) : [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
