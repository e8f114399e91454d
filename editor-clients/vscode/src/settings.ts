// Pure mapping from `forewarn.*` settings to the server's launch command and initializationOptions.
// No `vscode` import here, so the logic can be unit-tested with a plain reader function.
import { DAEMON_SETTINGS, USER_LEVEL_SETTINGS, USER_SECTION } from "./protocol";

/** Reads one setting by its key below `forewarn.` (e.g. "embedder.model"). */
export type SettingReader = (key: string) => unknown;

/** Settings that change only how the client shows things; changing them needs no restart. */
export const CLIENT_ONLY_SETTINGS = ["forewarn.trace"];

const USER_LEVEL: ReadonlySet<string> = new Set(USER_LEVEL_SETTINGS);

/**
 * What the server gets: the settings a workspace may set (their effective values, `read`), and in `user` the
 * ones only the user may set — what loads code, spends the machine or says whom to trust — read by `readUser`,
 * which sees the user's own settings alone (VS Code: each key's user-level value), never a workspace's.
 */
export function initializationOptions(read: SettingReader, readUser: SettingReader): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const user: Record<string, unknown> = {};
  for (const key of DAEMON_SETTINGS) {
    const userLevel = USER_LEVEL.has(key);
    const path = key.split(".");
    let section = userLevel ? user : options;
    for (const part of path.slice(0, -1)) {
      // every section goes out, set or not, so the server sees the whole tree's shape
      section = (section[part] ??= {}) as Record<string, unknown>;
    }
    const value = userLevel ? readUser(key) : read(key);
    if (value !== undefined && value !== null) {
      section[path[path.length - 1]] = value;
    }
  }
  options[USER_SECTION] = user;
  return options;
}

/** The daemon's part of a `forewarn` settings object (drops client-only keys such as server.* and trace). */
export function daemonSettings(section: unknown, readUser: SettingReader): Record<string, unknown> {
  return initializationOptions(sectionReader(section), readUser);
}

/** Reads dotted keys out of a nested settings object. */
export function sectionReader(section: unknown): SettingReader {
  return (key) => {
    let value: unknown = section;
    for (const part of key.split(".")) {
      value = value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
    }
    return value;
  };
}

export interface ServerLaunch {
  command: string;
  args: string[];
  /** Where the command came from, shown in the output channel when the server will not start. */
  origin: string;
}

export const MODULE_ARGS = ["-m", "forewarn.cli.main", "serve"];

/**
 * The launch order: an explicit command, then a configured interpreter, then the Python
 * extension's interpreter (only when it can import forewarn), then `forewarn` on PATH.
 */
export function resolveServerLaunch(read: SettingReader, extensionPython: string | undefined): ServerLaunch {
  const command = read("server.command");
  if (Array.isArray(command) && command.length > 0 && command.every((part) => typeof part === "string")) {
    const [head, ...rest] = command as string[];
    return { command: head, args: rest, origin: "setting forewarn.server.command" };
  }
  const pythonPath = read("server.pythonPath");
  if (typeof pythonPath === "string" && pythonPath.trim()) {
    return { command: pythonPath.trim(), args: [...MODULE_ARGS], origin: "setting forewarn.server.pythonPath" };
  }
  if (extensionPython) {
    return { command: extensionPython, args: [...MODULE_ARGS], origin: "the Python extension's interpreter" };
  }
  return { command: "forewarn", args: ["serve"], origin: "`forewarn` on PATH" };
}

/**
 * `forewarn model install` run the way the server is started (same program, same interpreter), or
 * undefined when `forewarn.server.command` does not say `serve` and so gives no hint where the CLI is.
 */
export function modelInstallLaunch(server: ServerLaunch): ServerLaunch | undefined {
  const serve = server.args.lastIndexOf("serve");
  if (serve < 0) {
    return undefined;
  }
  return { command: server.command, args: [...server.args.slice(0, serve), "model", "install"], origin: server.origin };
}

/**
 * `forewarn mcp -w <folder>` (plus `--trust-agents` when `trust`) run the way the server is started, for agent
 * mode; undefined when `forewarn.server.command` does not say `serve` and so gives no hint where the CLI is.
 */
export function mcpLaunch(server: ServerLaunch, folder: string, trust: boolean): ServerLaunch | undefined {
  const serve = server.args.lastIndexOf("serve");
  if (serve < 0) {
    return undefined;
  }
  const args = [...server.args.slice(0, serve), "mcp", "-w", folder, ...(trust ? ["--trust-agents"] : [])];
  return { command: server.command, args, origin: server.origin };
}

export function serverEnv(read: SettingReader, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const extra = read("server.env");
  const env: NodeJS.ProcessEnv = { ...base };
  if (extra && typeof extra === "object") {
    for (const [key, value] of Object.entries(extra as Record<string, unknown>)) {
      if (typeof value === "string") {
        env[key] = value;
      }
    }
  }
  return env;
}
