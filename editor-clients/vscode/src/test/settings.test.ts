// Unit tests of the pure parts (no VS Code needed): node --test on the tsc output.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DAEMON_SETTINGS, USER_LEVEL_SETTINGS } from "../protocol";
import {
  daemonSettings,
  initializationOptions,
  MODULE_ARGS,
  mcpLaunch,
  modelInstallLaunch,
  resolveServerLaunch,
  type SettingReader,
} from "../settings";

function reader(values: Record<string, unknown>): SettingReader {
  return (key) => values[key];
}

test("an explicit command wins over every other way of finding the server", () => {
  const read = reader({ "server.command": ["/opt/forewarn/bin/forewarn", "serve", "-v"], "server.pythonPath": "/usr/bin/python3" });
  assert.deepEqual(resolveServerLaunch(read, "/venv/bin/python"), {
    command: "/opt/forewarn/bin/forewarn",
    args: ["serve", "-v"],
    origin: "setting forewarn.server.command",
  });
});

test("then the configured interpreter, then the Python extension's, then forewarn on PATH", () => {
  assert.deepEqual(resolveServerLaunch(reader({ "server.pythonPath": " /usr/bin/python3 " }), "/venv/bin/python").args, MODULE_ARGS);
  assert.equal(resolveServerLaunch(reader({ "server.pythonPath": " /usr/bin/python3 " }), undefined).command, "/usr/bin/python3");
  assert.equal(resolveServerLaunch(reader({ "server.command": [] }), "/venv/bin/python").command, "/venv/bin/python");
  assert.deepEqual(resolveServerLaunch(reader({}), undefined), { command: "forewarn", args: ["serve"], origin: "`forewarn` on PATH" });
});

test("initializationOptions carry every daemon section and nothing client-only", () => {
  const options = initializationOptions(
    reader({ "embedder.enabled": false, "diagnostics.maxWarnings": 2, logLevel: "DEBUG", "server.pythonPath": "/x" }),
    reader({ "embedder.model": "/models/nomic.gguf" }),
  );
  assert.deepEqual(options, {
    index: {},
    embedder: { enabled: false },
    diagnostics: { maxWarnings: 2 },
    mining: {},
    logLevel: "DEBUG",
    user: { index: {}, embedder: { model: "/models/nomic.gguf" }, agents: {}, mining: {} },
  });
});

test("what loads code, spends the machine or says whom to trust comes only from the user's own settings", () => {
  // a repository's .vscode/settings.json (kit2/probe_editor_settings.py): its values are the effective ones
  const workspace = reader({
    "embedder.model": ".vscode/model.gguf", "embedder.nThreads": 256, "index.workers": 64, "agents.trust": true,
    "mining.onOpen": true, "diagnostics.maxWarnings": 1,
  });
  const options = initializationOptions(workspace, reader({ "embedder.nThreads": 2 }));
  assert.deepEqual(options.embedder, {});
  assert.deepEqual(options.index, {});
  assert.equal(options.agents, undefined);
  assert.deepEqual(options.mining, {});
  assert.deepEqual(options.diagnostics, { maxWarnings: 1 }); // what a team may say about its own code still applies
  assert.deepEqual(options.user, { index: {}, embedder: { nThreads: 2 }, agents: {}, mining: {} });
  for (const key of USER_LEVEL_SETTINGS) {
    assert.ok((DAEMON_SETTINGS as readonly string[]).includes(key), key);
  }
});

test("workspace/configuration answers drop server.* and trace, and take user-level keys from the user alone", () => {
  const section = { server: { command: ["x"] }, trace: { server: "verbose" }, index: { workers: 2 }, logLevel: "INFO" };
  assert.deepEqual(daemonSettings(section, reader({})), {
    index: {}, embedder: {}, diagnostics: {}, mining: {}, logLevel: "INFO",
    user: { index: {}, embedder: {}, agents: {}, mining: {} },
  });
});

test("every daemon setting that is set reaches the server, nested by its dotted key", () => {
  const options = initializationOptions((key) => `value of ${key}`, (key) => `user's ${key}`);
  assert.equal((options.embedder as Record<string, unknown>).queryPrefix, undefined);
  assert.equal(((options.user as Record<string, unknown>).embedder as Record<string, unknown>).documentPrefix, "user's embedder.documentPrefix");
  assert.equal((options.diagnostics as Record<string, unknown>).includeNeighbours, "value of diagnostics.includeNeighbours");
  assert.equal(options.logLevel, "value of logLevel");
});

test("the model is installed by the program or interpreter that runs the server", () => {
  const origin = "test";
  assert.deepEqual(modelInstallLaunch({ command: "/venv/bin/python", args: [...MODULE_ARGS], origin }), {
    command: "/venv/bin/python",
    args: ["-m", "forewarn.cli.main", "model", "install"],
    origin,
  });
  assert.deepEqual(modelInstallLaunch({ command: "forewarn", args: ["serve"], origin })?.args, ["model", "install"]);
  assert.deepEqual(modelInstallLaunch({ command: "/opt/fw", args: ["--quiet", "serve", "-v"], origin })?.args, [
    "--quiet",
    "model",
    "install",
  ]);
  assert.equal(modelInstallLaunch({ command: "/usr/local/bin/my-wrapper", args: [], origin }), undefined);
});

test("agent mode's MCP server runs the language server's program with mcp for one folder", () => {
  const origin = "test";
  assert.deepEqual(mcpLaunch({ command: "/venv/bin/python", args: [...MODULE_ARGS], origin }, "/w/shop", false), {
    command: "/venv/bin/python",
    args: ["-m", "forewarn.cli.main", "mcp", "-w", "/w/shop"],
    origin,
  });
  assert.deepEqual(mcpLaunch({ command: "forewarn", args: ["serve", "-v"], origin }, "/w", true)?.args, [
    "mcp",
    "-w",
    "/w",
    "--trust-agents",
  ]);
  assert.equal(mcpLaunch({ command: "/usr/local/bin/my-wrapper", args: [], origin }, "/w", false), undefined);
});
