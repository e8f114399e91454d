// The status bar item: server state and indexing progress; a click shows the server output.
import * as vscode from "vscode";
import { ClientCommand } from "./protocol";
import type { ServerState } from "./server";

/** VS Code's own command that manages workspace trust (the Restricted Mode banner's). */
const TRUST_COMMAND = "workbench.trust.manage";

export function createStatusItem(): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem("forewarn.status", vscode.StatusBarAlignment.Left, 10);
  item.name = "Forewarn";
  item.command = ClientCommand.showOutput;
  return item;
}

export function renderStatus(item: vscode.StatusBarItem, state: ServerState): void {
  item.backgroundColor = undefined;
  item.command = ClientCommand.showOutput;
  switch (state.kind) {
    case "restricted":
      item.text = "$(workspace-untrusted) Forewarn";
      item.tooltip = "Forewarn is off in Restricted Mode: trust this folder to see what the team learned about it";
      item.command = TRUST_COMMAND;
      break;
    case "starting":
      item.text = "$(loading~spin) Forewarn";
      item.tooltip = "Forewarn: starting the server";
      break;
    case "running":
      item.text = "$(history) Forewarn";
      item.tooltip = "Forewarn: ready";
      break;
    case "indexing": {
      const percent = state.percentage === undefined ? "" : ` ${Math.round(state.percentage)}%`;
      item.text = `$(sync~spin) Forewarn${percent}`;
      const title = state.title.startsWith("Forewarn") ? state.title : `Forewarn: ${state.title}`;
      item.tooltip = `${title}${state.message ? ` — ${state.message}` : ""}`;
      break;
    }
    case "stopped":
      item.text = "$(circle-slash) Forewarn";
      item.tooltip = "Forewarn: server stopped";
      break;
    case "failed":
      item.text = "$(error) Forewarn";
      item.tooltip = `Forewarn: the server did not start — ${state.reason}`;
      item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
      break;
  }
  item.show();
}
