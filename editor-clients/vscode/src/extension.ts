// Entry point: wires the server, the status bar and the commands together; restarts on setting changes.
import * as vscode from "vscode";
import {
  executeCodeActionCommand,
  RepoMapDocuments,
  REPO_MAP_SCHEME,
  reindexWorkspace,
  rememberHere,
  searchMemories,
  showHealth,
  showRepoMap,
} from "./commands";
import { onDidChangePythonInterpreter } from "./python";
import { HindsightServer, SETTINGS_SECTION } from "./server";
import { CLIENT_ONLY_SETTINGS } from "./settings";
import { createStatusItem, renderStatus } from "./status";

let server: HindsightServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("Hindsight");
  const hindsight = new HindsightServer(output, executeCodeActionCommand);
  server = hindsight;
  const status = createStatusItem();
  const repoMaps = new RepoMapDocuments();
  renderStatus(status, hindsight.state);

  let restarting: Promise<void> = Promise.resolve();
  const restart = (): Promise<void> => (restarting = restarting.then(() => hindsight.restart()));

  context.subscriptions.push(
    output,
    status,
    hindsight.onDidChangeState((state) => renderStatus(status, state)),
    vscode.workspace.registerTextDocumentContentProvider(REPO_MAP_SCHEME, repoMaps),
    vscode.commands.registerCommand("hindsight.searchMemories", () => searchMemories(hindsight)),
    vscode.commands.registerCommand("hindsight.rememberHere", () => rememberHere(hindsight)),
    vscode.commands.registerCommand("hindsight.showHealth", () => showHealth(hindsight)),
    vscode.commands.registerCommand("hindsight.showRepoMap", () => showRepoMap(hindsight, repoMaps)),
    vscode.commands.registerCommand("hindsight.reindexWorkspace", () => reindexWorkspace(hindsight)),
    vscode.commands.registerCommand("hindsight.restartServer", restart),
    vscode.commands.registerCommand("hindsight.showOutput", () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      const relevant =
        event.affectsConfiguration(SETTINGS_SECTION) &&
        !CLIENT_ONLY_SETTINGS.some((section) => event.affectsConfiguration(section));
      if (relevant) {
        output.appendLine("Hindsight settings changed: restarting the server");
        void restart();
      }
    }),
    { dispose: () => void hindsight.dispose() },
  );
  const pythonChanges = await onDidChangePythonInterpreter(() => {
    const configured = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    // only the fallback path uses the Python extension's interpreter
    if (!configured.get<string[]>("server.command")?.length && !configured.get<string>("server.pythonPath")) {
      void restart();
    }
  });
  if (pythonChanges) {
    context.subscriptions.push(pythonChanges);
  }
  void restart(); // activation must not wait for the model to load
}

export async function deactivate(): Promise<void> {
  await server?.dispose();
  server = undefined;
}
