// Contributes `forewarn mcp` to VS Code's agent mode (Copilot): one MCP server per workspace folder, started with
// the same program or interpreter as the language server. The MCP API arrived in VS Code 1.101; this extension
// still runs on older versions (and in code-server), so it is looked up at run time and typed here narrowly.
import * as vscode from "vscode";
import type { ForewarnServer } from "./server";
import { userSettingReader } from "./server";
import { mcpLaunch, serverEnv } from "./settings";

/** package.json `contributes.mcpServerDefinitionProviders[].id`: the two must match. */
export const MCP_PROVIDER_ID = "forewarn.mcpServers";

/** The part of VS Code 1.101's `McpStdioServerDefinition` this extension sets. */
interface McpStdioServerDefinition {
  readonly label: string;
  cwd?: vscode.Uri;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
}

/** The part of VS Code 1.101's `vscode.lm` MCP API this extension uses. */
interface McpApi {
  McpStdioServerDefinition: new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string | number | null>,
  ) => McpStdioServerDefinition;
  lm: {
    registerMcpServerDefinitionProvider(
      id: string,
      provider: {
        onDidChangeMcpServerDefinitions?: vscode.Event<void>;
        provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioServerDefinition[]>;
      },
    ): vscode.Disposable;
  };
}

function mcpApi(): McpApi | undefined {
  const api = vscode as unknown as Partial<McpApi>;
  return typeof api.lm?.registerMcpServerDefinitionProvider === "function" && api.McpStdioServerDefinition
    ? (api as McpApi)
    : undefined;
}

/** Only the variables `forewarn.server.env` sets: VS Code passes them on top of its own environment. */
function extraEnv(): Record<string, string> {
  const extra: Record<string, string> = {};
  for (const [key, value] of Object.entries(serverEnv(userSettingReader(), {}))) {
    if (typeof value === "string") {
      extra[key] = value;
    }
  }
  return extra;
}

/**
 * Registers the provider (a no-op before VS Code 1.101). `changed` fires when what it provides may differ:
 * settings, folders, workspace trust or the Python interpreter changed. `forewarn.agents.trust` (the user's own
 * setting) adds `--trust-agents`.
 */
export function registerMcpServers(server: ForewarnServer, changed: vscode.Event<void>): vscode.Disposable | undefined {
  const api = mcpApi();
  if (!api) {
    return undefined;
  }
  try {
    return register(api, server, changed);
  } catch {
    return undefined; // VS Code 1.99-1.100 had this API as a proposal, which throws for extensions not enabling it
  }
}

function register(api: McpApi, server: ForewarnServer, changed: vscode.Event<void>): vscode.Disposable {
  return api.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
    onDidChangeMcpServerDefinitions: changed,
    provideMcpServerDefinitions: async () => {
      if (!vscode.workspace.isTrusted) {
        return []; // Restricted Mode: no server reads this folder (extension.ts says why)
      }
      const launch = await server.launch();
      const trust = userSettingReader()("agents.trust") === true; // the user's own choice, never a workspace's
      const folders = vscode.workspace.workspaceFolders ?? [];
      return folders.flatMap((folder) => {
        const mcp = folder.uri.scheme === "file" ? mcpLaunch(launch, folder.uri.fsPath, trust) : undefined;
        if (!mcp) {
          return []; // a custom server.command without `serve`, or a remote folder: nothing to start
        }
        const label = folders.length > 1 ? `Forewarn (${folder.name})` : "Forewarn";
        const definition = new api.McpStdioServerDefinition(label, mcp.command, mcp.args, extraEnv());
        definition.cwd = folder.uri;
        return [definition];
      });
    },
  });
}
