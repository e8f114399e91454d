// The status bar item: server state and indexing progress; a click shows the server output.
import * as vscode from "vscode";
import type { ServerState } from "./server";

export function createStatusItem(): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem("hindsight.status", vscode.StatusBarAlignment.Left, 10);
  item.name = "Hindsight";
  item.command = "hindsight.showOutput";
  return item;
}

export function renderStatus(item: vscode.StatusBarItem, state: ServerState): void {
  item.backgroundColor = undefined;
  switch (state.kind) {
    case "starting":
      item.text = "$(loading~spin) Hindsight";
      item.tooltip = "Hindsight: starting the server";
      break;
    case "running":
      item.text = "$(history) Hindsight";
      item.tooltip = "Hindsight: ready";
      break;
    case "indexing": {
      const percent = state.percentage === undefined ? "" : ` ${Math.round(state.percentage)}%`;
      item.text = `$(sync~spin) Hindsight${percent}`;
      const title = state.title.startsWith("Hindsight") ? state.title : `Hindsight: ${state.title}`;
      item.tooltip = `${title}${state.message ? ` — ${state.message}` : ""}`;
      break;
    }
    case "stopped":
      item.text = "$(circle-slash) Hindsight";
      item.tooltip = "Hindsight: server stopped";
      break;
    case "failed":
      item.text = "$(error) Hindsight";
      item.tooltip = `Hindsight: the server did not start — ${state.reason}`;
      item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
      break;
  }
  item.show();
}
