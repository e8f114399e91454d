// Pure mapping from `forewarn.*` settings to the server's launch command and initializationOptions.
// No `vscode` import here, so the logic can be unit-tested with a plain reader function.

/** Reads one setting by its key below `forewarn.` (e.g. "embedder.model"). */
export type SettingReader = (key: string) => unknown;

/** Every daemon setting (forewarn/config.py), by section, as the keys the client sends (camelCase). */
export const DAEMON_SETTINGS: Record<string, readonly string[]> = {
  index: ["maxFileBytes", "maxLineLength", "exclude", "workers"],
  embedder: [
    "enabled",
    "model",
    "nCtx",
    "pooling",
    "dimensions",
    "nGpuLayers",
    "nThreads",
    "nBatch",
    "queryPrefix",
    "documentPrefix",
  ],
  diagnostics: ["enabled", "maxWarnings", "includeNeighbours"],
};

/** Settings that change only how the client shows things; changing them needs no restart. */
export const CLIENT_ONLY_SETTINGS = ["forewarn.trace"];

export function initializationOptions(read: SettingReader): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [section, keys] of Object.entries(DAEMON_SETTINGS)) {
    const values: Record<string, unknown> = {};
    for (const key of keys) {
      const value = read(`${section}.${key}`);
      if (value !== undefined && value !== null) {
        values[key] = value;
      }
    }
    options[section] = values;
  }
  const logLevel = read("logLevel");
  if (typeof logLevel === "string" && logLevel) {
    options.logLevel = logLevel;
  }
  return options;
}

/** The daemon's part of a `forewarn` settings object (drops client-only keys such as server.* and trace). */
export function daemonSettings(section: unknown): Record<string, unknown> {
  const read: SettingReader = (key) => {
    let value: unknown = section;
    for (const part of key.split(".")) {
      value = value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
    }
    return value;
  };
  return initializationOptions(read);
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
