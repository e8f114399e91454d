// The Forewarn view container: This File and Review (trees) and Health (a webview). They follow the active editor and
// ask the server again whenever it says memories changed ($/forewarn/memoriesChanged) or it (re)starts.
import * as vscode from "vscode";
import { MEMORIES_CHANGED_NOTIFICATION, type Memory } from "../protocol";
import type { ForewarnServer } from "../server";
import { COMMIT_SCHEME, CommitDocuments, PanelActions } from "./actions";
import { HealthViews } from "./healthView";
import { type PanelNode, ReviewTree, ThisFileTree } from "./trees";

export const VIEW_IDS = { thisFile: "forewarn.panel.thisFile", review: "forewarn.panel.review", health: "forewarn.panel.health" } as const;
const REFRESH_DEBOUNCE_MS = 250; // a save re-indexes, then republishes: one refresh for the burst

export class Panel implements vscode.Disposable {
  readonly actions: PanelActions;
  private readonly thisFile: ThisFileTree;
  private readonly review: ReviewTree;
  private readonly health: HealthViews;
  private readonly subscriptions: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(context: vscode.ExtensionContext, server: ForewarnServer) {
    this.thisFile = new ThisFileTree(server);
    this.review = new ReviewTree(server);
    this.health = new HealthViews(context.extensionUri, server);
    const fileView = vscode.window.createTreeView<PanelNode>(VIEW_IDS.thisFile, { treeDataProvider: this.thisFile, showCollapseAll: true });
    const reviewView = vscode.window.createTreeView<PanelNode>(VIEW_IDS.review, { treeDataProvider: this.review, showCollapseAll: true });
    this.thisFile.view = fileView;
    this.review.view = reviewView;
    const commits = new CommitDocuments();
    this.actions = new PanelActions(
      server,
      {
        fileMemories: (): Memory[] => this.thisFile.memories(),
        suggestions: (): Memory[] => this.review.suggestions(),
        refresh: () => this.refresh(),
      },
      commits,
    );
    this.subscriptions.push(
      fileView,
      reviewView,
      this.thisFile,
      this.review,
      this.health,
      vscode.window.registerWebviewViewProvider(VIEW_IDS.health, this.health),
      vscode.workspace.registerTextDocumentContentProvider(COMMIT_SCHEME, commits),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor?.document.uri.scheme === "file") {
          void this.thisFile.refresh(editor.document.uri);
        }
      }),
      fileView.onDidChangeVisibility(({ visible }) => {
        if (visible) {
          void this.thisFile.refresh(vscode.window.activeTextEditor?.document.uri);
        }
      }),
      server.onNotification(MEMORIES_CHANGED_NOTIFICATION, () => this.soon()),
      server.onDidChangeState((state) => {
        if (state.kind === "running") {
          this.soon();
        }
      }),
    );
    void this.thisFile.refresh(vscode.window.activeTextEditor?.document.uri);
  }

  /** Every view asks the server again (a hidden Health view waits until it shows). */
  async refresh(): Promise<void> {
    await Promise.all([this.thisFile.refresh(vscode.window.activeTextEditor?.document.uri), this.review.refresh(), this.health.refresh()]);
  }

  private soon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), REFRESH_DEBOUNCE_MS);
  }

  showHealth(): Promise<void> {
    return this.health.showTab();
  }

  async show(): Promise<void> {
    await vscode.commands.executeCommand(`${VIEW_IDS.thisFile}.focus`);
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}
