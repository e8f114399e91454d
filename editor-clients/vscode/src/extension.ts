// Entry point: wires the server, the status bar and the commands together; restarts on setting changes.
import * as vscode from "vscode";
import {
  executeCodeActionCommand,
  installModel,
  RepoMapDocuments,
  REPO_MAP_SCHEME,
  reindexWorkspace,
  rememberHere,
  reviewSuggestions,
  searchMemories,
  showHealth,
  showRepoMap,
} from "./commands";
import { ClientCommand } from "./protocol";
import { onDidChangePythonInterpreter } from "./python";
import { ForewarnServer, SETTINGS_SECTION } from "./server";
import { CLIENT_ONLY_SETTINGS } from "./settings";
import { createStatusItem, renderStatus } from "./status";

let server: ForewarnServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("Forewarn");
  const forewarn = new ForewarnServer(output, executeCodeActionCommand);
  server = forewarn;
  const status = createStatusItem();
  const repoMaps = new RepoMapDocuments();
  renderStatus(status, forewarn.state);

  let restarting: Promise<void> = Promise.resolve();
  const restart = (): Promise<void> => (restarting = restarting.then(() => forewarn.restart()));

  context.subscriptions.push(
    output,
    status,
    forewarn.onDidChangeState((state) => renderStatus(status, state)),
    vscode.workspace.registerTextDocumentContentProvider(REPO_MAP_SCHEME, repoMaps),
    vscode.commands.registerCommand(ClientCommand.searchMemories, () => searchMemories(forewarn)),
    vscode.commands.registerCommand(ClientCommand.rememberHere, () => rememberHere(forewarn)),
    vscode.commands.registerCommand(ClientCommand.showHealth, () => showHealth(forewarn)),
    vscode.commands.registerCommand(ClientCommand.showRepoMap, () => showRepoMap(forewarn, repoMaps)),
    vscode.commands.registerCommand(ClientCommand.reindexWorkspace, () => reindexWorkspace(forewarn)),
    vscode.commands.registerCommand(ClientCommand.installModel, () => installModel(forewarn, output, restart)),
    vscode.commands.registerCommand(ClientCommand.restartServer, restart),
    vscode.commands.registerCommand(ClientCommand.showOutput, () => output.show(true)),
    vscode.commands.registerCommand(ClientCommand.reviewSuggestions, () => reviewSuggestions(forewarn)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      const relevant =
        event.affectsConfiguration(SETTINGS_SECTION) &&
        !CLIENT_ONLY_SETTINGS.some((section) => event.affectsConfiguration(section));
      if (relevant) {
        output.appendLine("Forewarn settings changed: restarting the server");
        void restart();
      }
    }),
    { dispose: () => void forewarn.dispose() },
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
