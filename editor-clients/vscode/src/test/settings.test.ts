// Unit tests of the pure parts (no VS Code needed): node --test on the tsc output.
import assert from "node:assert/strict";
import { test } from "node:test";
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
    reader({ "embedder.model": "/models/nomic.gguf", "diagnostics.maxWarnings": 2, logLevel: "DEBUG", "server.pythonPath": "/x" }),
  );
  assert.deepEqual(options, {
    index: {},
    embedder: { model: "/models/nomic.gguf" },
    diagnostics: { maxWarnings: 2 },
    mining: {},
    agents: {},
    logLevel: "DEBUG",
  });
});

test("workspace/configuration answers drop server.* and trace", () => {
  const section = { server: { command: ["x"] }, trace: { server: "verbose" }, index: { workers: 2 }, logLevel: "INFO" };
  assert.deepEqual(daemonSettings(section), { index: { workers: 2 }, embedder: {}, diagnostics: {}, mining: {}, agents: {}, logLevel: "INFO" });
});

test("every daemon setting that is set reaches the server, nested by its dotted key", () => {
  const options = initializationOptions((key) => `value of ${key}`);
  assert.equal((options.embedder as Record<string, unknown>).documentPrefix, "value of embedder.documentPrefix");
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
