// The Python extension's active interpreter, through its public API (as the python-tools template does),
// used only when that interpreter can import forewarn.
import { execFile } from "node:child_process";
import * as vscode from "vscode";

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(env: { path: string } | string): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

const PYTHON_EXTENSION_ID = "ms-python.python";
const IMPORT_CHECK_TIMEOUT_MS = 10_000;

async function pythonApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!extension) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined;
  }
}

export async function pythonExtensionInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await pythonApi();
  const environments = api?.environments;
  if (!environments) {
    return undefined;
  }
  const active = environments.getActiveEnvironmentPath(resource);
  if (!active) {
    return undefined;
  }
  const resolved = await environments.resolveEnvironment(active);
  const executable = resolved?.executable.uri?.fsPath;
  if (!executable) {
    return undefined;
  }
  return (await canImportForewarn(executable)) ? executable : undefined;
}

function canImportForewarn(python: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, ["-c", "import forewarn.cli.main"], { timeout: IMPORT_CHECK_TIMEOUT_MS }, (error) =>
      resolve(!error),
    );
  });
}

/** Fires when the user picks another interpreter in the Python extension. */
export async function onDidChangePythonInterpreter(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await pythonApi();
  return api?.environments?.onDidChangeActiveEnvironmentPath?.(() => listener());
}
