// The Health page in a webview: the panel's Health view and the "Show Memory Health" editor tab. Scripts run only
// with a fresh nonce, every resource comes from the extension's media/panel folder (localResourceRoots), and the
// page's messages can only open a file of the workspace, pick a window or ask for a refresh.
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { type HealthStats, isRecord, ServerCommand } from "../protocol";
import { errorText, type ForewarnServer } from "../server";
import { type PageAssets, renderHealthMessage, renderHealthPage, SINCE_CHOICES } from "./healthPage";

const MEDIA = ["media", "panel"];

/** One webview showing the Health page: it renders, re-renders on request, and answers the page's messages. */
class HealthPage implements vscode.Disposable {
  private since = "";
  private generation = 0;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly webview: vscode.Webview,
    private readonly extensionUri: vscode.Uri,
    private readonly server: ForewarnServer,
  ) {
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, ...MEDIA)] };
    this.subscriptions.push(webview.onDidReceiveMessage((message: unknown) => this.receive(message)));
  }

  private assets(): PageAssets {
    const media = (file: string): string => this.webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...MEDIA, file)).toString();
    return {
      cspSource: this.webview.cspSource,
      scriptUri: media("health.js"),
      styleUri: media("health.css"),
      nonce: randomBytes(18).toString("base64"), // a new one for every page: a script of an old page cannot run
    };
  }

  async render(): Promise<void> {
    const mine = ++this.generation;
    let html: string;
    try {
      const argument: Record<string, unknown> = this.since ? { since: this.since } : {};
      const active = vscode.window.activeTextEditor?.document.uri;
      if (active?.scheme === "file") {
        argument.uri = active.toString(); // a multi-root workspace: the active file's folder
      }
      const stats = await this.server.command<HealthStats>(ServerCommand.stats, argument);
      html = renderHealthPage(stats, this.assets(), vscode.workspace.name ?? "workspace", this.since);
    } catch (error) {
      html = renderHealthMessage(`Forewarn: ${errorText(error)}`, this.assets());
    }
    if (mine === this.generation) {
      this.webview.html = html;
    }
  }

  private async receive(message: unknown): Promise<void> {
    if (!isRecord(message)) {
      return;
    }
    if (message.command === "refresh") {
      await this.render();
    } else if (message.command === "since" && SINCE_CHOICES.some((c) => c.value === message.value)) {
      this.since = String(message.value);
      await this.render();
    } else if (message.command === "open" && typeof message.uri === "string") {
      const uri = vscode.Uri.parse(message.uri, true);
      if (uri.scheme === "file" && vscode.workspace.getWorkspaceFolder(uri)) {
        await vscode.window.showTextDocument(uri, { preview: true });
      }
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}

/** The panel's Health view (a webview view) and the editor tab "Show Memory Health" opens; both refresh together. */
export class HealthViews implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: { host: vscode.WebviewView; page: HealthPage } | undefined;
  private tab: { host: vscode.WebviewPanel; page: HealthPage } | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly server: ForewarnServer,
  ) {}

  resolveWebviewView(host: vscode.WebviewView): void {
    this.view?.page.dispose();
    const page = new HealthPage(host.webview, this.extensionUri, this.server);
    this.view = { host, page };
    host.onDidChangeVisibility(() => {
      if (host.visible) {
        void page.render();
      }
    });
    host.onDidDispose(() => {
      page.dispose();
      if (this.view?.host === host) {
        this.view = undefined;
      }
    });
    void page.render();
  }

  /** "Show Memory Health": the same page in an editor tab (one; shown again if open). */
  async showTab(): Promise<void> {
    if (this.tab) {
      this.tab.host.reveal();
      await this.tab.page.render();
      return;
    }
    const host = vscode.window.createWebviewPanel("forewarn.health", "Forewarn: Memory Health", vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, ...MEDIA)],
    });
    const page = new HealthPage(host.webview, this.extensionUri, this.server);
    this.tab = { host, page };
    host.onDidDispose(() => {
      page.dispose();
      this.tab = undefined;
    });
    await page.render();
  }

  /** Re-renders what is on screen (a hidden view renders when it shows again). */
  async refresh(): Promise<void> {
    const pages = [];
    if (this.view?.host.visible) {
      pages.push(this.view.page.render());
    }
    if (this.tab?.host.visible) {
      pages.push(this.tab.page.render());
    }
    await Promise.all(pages);
  }

  dispose(): void {
    this.view?.page.dispose();
    this.tab?.host.dispose();
  }
}
