// Turning a memory's anchor into an editor location, and an editor selection into an anchor.
import * as vscode from "vscode";
import type { Anchor, LspRange } from "./protocol";

export function toVsRange(range: LspRange | null | undefined): vscode.Range | undefined {
  if (!range) {
    return undefined;
  }
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

export function toLspRange(range: vscode.Range): LspRange {
  return {
    start: { line: range.start.line, character: range.start.character },
    end: { line: range.end.line, character: range.end.character },
  };
}

export function anchorUri(anchor: Anchor | null | undefined): vscode.Uri | undefined {
  if (anchor?.uri) {
    return vscode.Uri.parse(anchor.uri);
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (anchor?.file && folder) {
    return vscode.Uri.joinPath(folder, anchor.file);
  }
  return undefined;
}

export async function openAnchor(anchor: Anchor | null | undefined): Promise<boolean> {
  const uri = anchorUri(anchor);
  if (!uri) {
    return false;
  }
  const range = toVsRange(anchor?.range);
  await vscode.window.showTextDocument(uri, { selection: range ? new vscode.Range(range.start, range.start) : undefined });
  return true;
}

export function describeAnchor(anchor: Anchor | null | undefined): string {
  if (!anchor) {
    return "not anchored";
  }
  const where = anchor.file ?? (anchor.uri ? vscode.workspace.asRelativePath(vscode.Uri.parse(anchor.uri)) : "");
  const line = anchor.range ? `:${anchor.range.start.line + 1}` : "";
  const symbol = anchor.symbol ? ` · ${symbolName(anchor.symbol)}` : "";
  return `${where}${line}${symbol}`;
}

/**
 * A symbol path as people read it: `Node.before#2` (the server's id for the second `Node.before` of its file, which
 * commands send back) is shown as `Node.before`, with its line when one is given, which tells the overloads apart.
 */
export function symbolName(symbol: string, line?: number): string {
  const base = symbol.replace(/#\d+$/, "");
  return base !== symbol && line !== undefined ? `${base} (line ${line})` : base;
}

/** The innermost document symbol around the cursor, from whatever symbol providers are installed. */
export async function symbolAt(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.DocumentSymbol | undefined> {
  let symbols: (vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined;
  try {
    symbols = await vscode.commands.executeCommand("vscode.executeDocumentSymbolProvider", document.uri);
  } catch {
    return undefined;
  }
  let found: vscode.DocumentSymbol | undefined;
  let level = (symbols ?? []).filter((s): s is vscode.DocumentSymbol => "children" in s);
  for (;;) {
    const inside: vscode.DocumentSymbol | undefined = level.find((s) => s.range.contains(position));
    if (!inside) {
      return found;
    }
    found = inside;
    level = inside.children;
  }
}
