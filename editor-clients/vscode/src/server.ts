// Owns the LanguageClient: starting `forewarn serve`, restarting it, and sending it commands.
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
  type StaticFeature,
  TransportKind,
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
  type WorkDoneProgressBegin,
  type WorkDoneProgressReport,
  type WorkDoneProgressEnd,
} from "vscode-languageclient/node";
import { EXPERIMENTAL_CAPABILITIES } from "./protocol";
import { pythonExtensionInterpreter } from "./python";
import {
  daemonSettings,
  initializationOptions,
  resolveServerLaunch,
  type ServerLaunch,
  serverEnv,
  type SettingReader,
} from "./settings";

export type ServerState =
  | { kind: "restricted" }
  | { kind: "starting" }
  | { kind: "running" }
  | { kind: "indexing"; title: string; percentage?: number; message?: string }
  | { kind: "stopped" }
  | { kind: "failed"; reason: string };

type ProgressValue = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

export const SETTINGS_SECTION = "forewarn";

export function workspaceFolder(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

export function settingReader(): SettingReader {
  const configuration = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return (key) => configuration.get(key);
}

/**
 * The user's own value of a setting, never a workspace's: what starts a program, loads a model, spends the machine
 * or says whom to trust is read only through this (their package.json scope is "machine" too), so a repository's
 * .vscode/settings.json cannot choose it.
 */
export function userSettingReader(): SettingReader {
  const configuration = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return (key) => configuration.inspect(key)?.globalValue;
}

/** Why nothing is started in a folder VS Code does not trust, for the output and the status bar. */
export const RESTRICTED_REASON =
  "Forewarn is off in Restricted Mode: its server would read this folder's code, history and shared memories. " +
  "Trust the folder to see what the team learned about it.";

/**
 * Runs a server command that VS Code invokes (a code action's command) and may first complete its
 * arguments in the UI; `send` forwards them to the server. Resolves to undefined when nothing was sent.
 */
export type CommandInterceptor = (
  command: string,
  args: unknown[],
  send: (args: unknown[]) => Promise<unknown>,
) => Promise<unknown>;

export class ForewarnServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  readonly onDidChangeState = this.stateEmitter.event;
  private current: ServerState = { kind: "stopped" };
  private readonly progressTitles = new Map<string | number, string>();
  private readonly notificationHandlers = new Set<{ method: string; handler: () => void }>();

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly interceptCommand: CommandInterceptor = (_command, args, send) => send(args),
  ) {}

  get state(): ServerState {
    return this.current;
  }

  private setState(state: ServerState): void {
    this.current = state;
    this.stateEmitter.fire(state);
  }

  /** How the server is started now: from the user's settings, else the Python extension, else PATH. */
  async launch(): Promise<ServerLaunch> {
    return resolveServerLaunch(userSettingReader(), await pythonExtensionInterpreter(workspaceFolder()));
  }

  /** Everything a start hands the server (program, environment, options): a settings change restarts it only when
   * this changed, so an event that changes nothing (VS Code fires some while it loads) never interrupts it. */
  async startKey(): Promise<string> {
    const launch = await this.launch();
    const options = initializationOptions(settingReader(), userSettingReader());
    return JSON.stringify([launch.command, launch.args, serverEnv(userSettingReader(), {}), options]);
  }

  /** Whether the server runs with other settings than the current ones (or does not run). */
  async settingsChanged(): Promise<boolean> {
    return !vscode.workspace.isTrusted || this.startedWith !== (await this.startKey());
  }

  private startedWith: string | undefined;

  async start(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      this.output.appendLine(RESTRICTED_REASON);
      this.setState({ kind: "restricted" });
      return;
    }
    const read = settingReader();
    const readUser = userSettingReader();
    const folder = workspaceFolder();
    const launch = await this.launch();
    this.startedWith = await this.startKey();
    this.output.appendLine(`Starting ${[launch.command, ...launch.args].join(" ")} (from ${launch.origin})`);
    const serverOptions: ServerOptions = {
      command: launch.command,
      args: launch.args,
      transport: TransportKind.stdio,
      options: { env: serverEnv(readUser, process.env), cwd: folder?.fsPath },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }],
      initializationOptions: initializationOptions(read, readUser),
      // settings changes restart the server (extension.ts); when it asks for its section, it gets only its own keys
      middleware: {
        // code actions whose argument says `text: null` need the user's text before they reach the server
        executeCommand: (command, args, next) =>
          this.interceptCommand(command, args, async (filled) => next(command, filled)),
        workspace: {
          configuration: async (params, token, next) => {
            const values = await next(params, token);
            if (!Array.isArray(values)) {
              return values;
            }
            return values.map((value, index) =>
              params.items[index]?.section === SETTINGS_SECTION ? daemonSettings(value, userSettingReader()) : value,
            );
          },
        },
      },
      outputChannel: this.output,
      // the status bar says when the server is down; a modal on every crash would be noise
      revealOutputChannelOn: 4 /* RevealOutputChannelOn.Never */,
    };
    const client = new LanguageClient("forewarn", "Forewarn", serverOptions, clientOptions);
    client.registerFeature(declarePrompts);
    for (const { method, handler } of this.notificationHandlers) {
      client.onNotification(method, handler);
    }
    this.client = client;
    client.onDidChangeState((event) => {
      if (event.newState === State.Starting) {
        this.setState({ kind: "starting" });
      } else if (event.newState === State.Running) {
        this.setState({ kind: "running" });
      } else if (this.current.kind !== "failed") {
        this.setState({ kind: "stopped" });
      }
    });
    this.setState({ kind: "starting" });
    try {
      await client.start();
    } catch (error) {
      const reason = `${launch.origin}: ${errorText(error)}`;
      this.output.appendLine(`Forewarn server did not start: ${reason}`);
      this.setState({ kind: "failed", reason });
      return;
    }
    this.trackProgress(client);
  }

  /** Indexing progress goes to the status bar instead of a notification toast. */
  private trackProgress(client: LanguageClient): void {
    client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      client.onProgress(WorkDoneProgress.type, token, (value: ProgressValue) => this.onProgress(token, value));
      return null;
    });
  }

  private onProgress(token: string | number, value: ProgressValue): void {
    if (value.kind === "begin") {
      this.progressTitles.set(token, value.title);
      this.setState({ kind: "indexing", title: value.title, percentage: value.percentage, message: value.message });
    } else if (value.kind === "report") {
      const title = this.progressTitles.get(token) ?? "Indexing";
      this.setState({ kind: "indexing", title, percentage: value.percentage, message: value.message });
    } else {
      this.progressTitles.delete(token);
      if (this.progressTitles.size === 0 && this.client?.state === State.Running) {
        this.setState({ kind: "running" });
      }
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.startedWith = undefined;
    this.progressTitles.clear();
    if (client) {
      try {
        await client.stop();
      } catch (error) {
        this.output.appendLine(`Stopping the server: ${errorText(error)}`);
      }
      await client.dispose();
    }
    this.setState({ kind: "stopped" });
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Calls `handler` on every `method` notification from the server, this one and each one after a restart. */
  onNotification(method: string, handler: () => void): vscode.Disposable {
    const entry = { method, handler };
    this.notificationHandlers.add(entry);
    const disposable = this.client?.onNotification(method, handler);
    return new vscode.Disposable(() => {
      this.notificationHandlers.delete(entry);
      disposable?.dispose();
    });
  }

  /** Runs one of the daemon's workspace/executeCommand commands with its single object argument. */
  async command<T>(command: string, argument: object): Promise<T> {
    const client = this.client;
    if (!client || client.state !== State.Running) {
      throw new Error("the Forewarn server is not running (see Forewarn: Show Server Output)");
    }
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] })) as T;
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.stateEmitter.dispose();
  }
}

/** Tells the server this client prompts for a code action's `text: null` (interceptCommand does the asking). */
const declarePrompts: StaticFeature = {
  fillClientCapabilities: (capabilities) => {
    capabilities.experimental = { ...(capabilities.experimental ?? {}), ...EXPERIMENTAL_CAPABILITIES };
  },
  initialize: () => undefined,
  getState: () => ({ kind: "static" }),
  clear: () => undefined,
};

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
