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
  showRepoMap,
} from "./commands";
import { registerMcpServers } from "./mcp";
import { Panel } from "./panel";
import { ClientCommand, ServerCommand } from "./protocol";
import { onDidChangePythonInterpreter } from "./python";
import { ForewarnServer, SETTINGS_SECTION } from "./server";
import { CLIENT_ONLY_SETTINGS } from "./settings";
import { createStatusItem, renderStatus } from "./status";

let server: ForewarnServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("Forewarn");
  // a code action's remember may contradict a memory: the answer is asked and sent through this same server
  const forewarn: ForewarnServer = new ForewarnServer(output, (command, args, send) =>
    executeCodeActionCommand(command, args, send, (argument) => forewarn.command(ServerCommand.resolveConflict, argument)),
  );
  server = forewarn;
  const status = createStatusItem();
  const repoMaps = new RepoMapDocuments();
  renderStatus(status, forewarn.state);
  const panel = new Panel(context, forewarn);
  const act = panel.actions;

  let restarting: Promise<void> = Promise.resolve();
  const restart = (): Promise<void> => (restarting = restarting.then(() => forewarn.restart()));
  // agent mode's MCP servers follow the same settings, folders and interpreter as the language server
  const mcpChanged = new vscode.EventEmitter<void>();
  const mcpServers = registerMcpServers(forewarn, mcpChanged.event);
  if (mcpServers) {
    context.subscriptions.push(mcpServers);
  }

  context.subscriptions.push(
    output,
    status,
    forewarn.onDidChangeState((state) => renderStatus(status, state)),
    vscode.workspace.registerTextDocumentContentProvider(REPO_MAP_SCHEME, repoMaps),
    vscode.commands.registerCommand(ClientCommand.searchMemories, () => searchMemories(forewarn)),
    vscode.commands.registerCommand(ClientCommand.rememberHere, () => rememberHere(forewarn)),
    vscode.commands.registerCommand(ClientCommand.showHealth, () => panel.showHealth()),
    vscode.commands.registerCommand(ClientCommand.showRepoMap, () => showRepoMap(forewarn, repoMaps)),
    vscode.commands.registerCommand(ClientCommand.reindexWorkspace, () => reindexWorkspace(forewarn)),
    vscode.commands.registerCommand(ClientCommand.installModel, () => installModel(forewarn, output, restart)),
    vscode.commands.registerCommand(ClientCommand.restartServer, restart),
    vscode.commands.registerCommand(ClientCommand.showOutput, () => output.show(true)),
    vscode.commands.registerCommand(ClientCommand.reviewSuggestions, () => reviewSuggestions(forewarn)),
    panel,
    vscode.commands.registerCommand(ClientCommand.showPanel, () => panel.show()),
    vscode.commands.registerCommand(ClientCommand.refreshPanel, () => panel.refresh()),
    vscode.commands.registerCommand(ClientCommand.openMemory, (node?: unknown) => act.open(node)),
    vscode.commands.registerCommand(ClientCommand.confirmMemory, (node?: unknown) => act.confirm(node)),
    vscode.commands.registerCommand(ClientCommand.markMemoryOutdated, (node?: unknown) => act.markOutdated(node)),
    vscode.commands.registerCommand(ClientCommand.supersedeMemory, (node?: unknown) => act.supersede(node)),
    vscode.commands.registerCommand(ClientCommand.forgetMemory, (node?: unknown) => act.forget(node)),
    vscode.commands.registerCommand(ClientCommand.acceptSuggestion, (node?: unknown) => act.accept(node)),
    vscode.commands.registerCommand(ClientCommand.editAndAcceptSuggestion, (node?: unknown) => act.editAndAccept(node)),
    vscode.commands.registerCommand(ClientCommand.dismissSuggestion, (node?: unknown) => act.dismiss(node)),
    vscode.commands.registerCommand(ClientCommand.showSuggestionCommit, (node?: unknown) => act.showCommit(node)),
    mcpChanged,
    vscode.workspace.onDidChangeWorkspaceFolders(() => mcpChanged.fire()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(SETTINGS_SECTION)) {
        mcpChanged.fire();
      }
      const relevant =
        event.affectsConfiguration(SETTINGS_SECTION) &&
        !CLIENT_ONLY_SETTINGS.some((section) => event.affectsConfiguration(section));
      if (relevant) {
        // restarted only when what the server gets differs: VS Code also fires this while it loads settings
        restarting = restarting.then(async () => {
          if (await forewarn.settingsChanged()) {
            output.appendLine("Forewarn settings changed: restarting the server");
            await forewarn.restart();
          }
        });
      }
    }),
    // Restricted Mode: nothing was started (server.ts says why); trusting the folder starts the server and agents'
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      mcpChanged.fire();
      void restart();
    }),
    { dispose: () => void forewarn.dispose() },
  );
  const pythonChanges = await onDidChangePythonInterpreter(() => {
    const configured = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    // only the fallback path uses the Python extension's interpreter
    if (!configured.get<string[]>("server.command")?.length && !configured.get<string>("server.pythonPath")) {
      void restart();
      mcpChanged.fire();
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
