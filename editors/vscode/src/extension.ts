import * as vscode from 'vscode';
import { CoverageView } from './coverage';
import { Coverage, LedgerResult, StatsResult, coveragePercent, displayPath, formatStats, ledgerLine } from './pure';
import { ServerManager, serverSettings } from './server';
import { ToolHost, registerTools, timings } from './tools';

const VIEW_SCHEME = 'sightline-view';

/** What the extension exports (used by the end-to-end test and by other extensions). */
export interface SightlineApi {
  server: ServerManager;
  coverage: CoverageView;
  tools: Record<string, vscode.LanguageModelTool<unknown>>;
  timings: typeof timings;
  statusText(): string;
}

class Views implements vscode.TextDocumentContentProvider {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly texts = new Map<string, string>();
  set(uri: vscode.Uri, text: string) {
    this.texts.set(uri.toString(), text);
    this.emitter.fire(uri);
  }
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<SightlineApi> {
  const coverage = new CoverageView(context);
  const server = new ServerManager(context, (client) => {
    client.onNotification('sightline/coverage', (c: Coverage) => coverage.update(c));
  });
  const host = new ToolHost(server);
  const { tools, disposables } = registerTools(host);
  const views = new Views();

  const status = vscode.window.createStatusBarItem('sightline.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'sightline';
  status.command = 'sightline.pickSession';
  const session = () => vscode.workspace.getConfiguration('sightline').get<string>('session') || 'default';
  const statusText = (): string => {
    if (server.state === 'missing') return '$(error) sightline: no server';
    if (server.state === 'failed') return '$(error) sightline: stopped';
    if (server.state === 'restarting' || server.state === 'starting') return `$(sync~spin) sightline: ${session()}`;
    const ed = vscode.window.activeTextEditor;
    const c = ed ? coverage.get(ed.document.uri) : undefined;
    return c ? `$(eye) ${session()} · ${coveragePercent(c)}% read` : `$(eye) ${session()}`;
  };
  const updateStatus = () => {
    status.text = statusText();
    const ed = vscode.window.activeTextEditor;
    const c = ed ? coverage.get(ed.document.uri) : undefined;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**sightline** — session \`${session()}\` (click to pick another)\n\n`);
    if (c) md.appendMarkdown(`This file: ${coveragePercent(c)}% read by the agent, state \`${c.state}\`\n\n`);
    md.appendMarkdown(`Server: ${server.state}${server.detail ? ` — ${server.detail}` : ''}`);
    status.tooltip = md;
    status.show();
  };

  const serverSettingKeys = ['sightline.guard', 'sightline.autoExpand', 'sightline.readBudget', 'sightline.applyVia', 'sightline.applyTimeoutMs', 'sightline.session'];
  context.subscriptions.push(
    coverage,
    server,
    status,
    ...disposables,
    vscode.workspace.registerTextDocumentContentProvider(VIEW_SCHEME, views),
    server.onDidChangeState((s) => {
      if (s === 'starting' || s === 'restarting') coverage.clear();
      updateStatus();
    }),
    coverage.onDidChange(updateStatus),
    vscode.window.onDidChangeActiveTextEditor(updateStatus),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('sightline.path')) {
        void server.restart();
        return;
      }
      if (serverSettingKeys.some((k) => e.affectsConfiguration(k))) {
        if (e.affectsConfiguration('sightline.session')) coverage.clear();
        void server.client?.sendNotification('workspace/didChangeConfiguration', { settings: { sightline: serverSettings() } });
        updateStatus();
      }
    }),
    vscode.commands.registerCommand('sightline.toggleHighlights', async () => {
      const cfg = vscode.workspace.getConfiguration('sightline');
      await cfg.update('highlights', !cfg.get<boolean>('highlights', true), vscode.ConfigurationTarget.Global);
    }),
    vscode.commands.registerCommand('sightline.restart', () => server.restart()),
    vscode.commands.registerCommand('sightline.pickSession', async () => {
      const current = session();
      const recent = context.globalState.get<string[]>('sightline.recentSessions', []);
      const names = [...new Set([current, 'default', ...recent])];
      const items: vscode.QuickPickItem[] = names.map((n) => ({ label: n, description: n === current ? 'current' : undefined }));
      items.push({ label: '$(add) Another session…', alwaysShow: true });
      const pick = await vscode.window.showQuickPick(items, { title: 'sightline: the session whose reads the editor shows' });
      if (!pick) return;
      let name: string | undefined = pick.label;
      if (pick.label.startsWith('$(add)')) {
        name = await vscode.window.showInputBox({ prompt: 'Session name', validateInput: (v) => (v.trim() ? undefined : 'A session name is not empty') });
        if (!name) return;
        name = name.trim();
      }
      await context.globalState.update('sightline.recentSessions', [name, ...recent.filter((r) => r !== name)].slice(0, 10));
      const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
      await vscode.workspace.getConfiguration('sightline').update('session', name, target);
    }),
    vscode.commands.registerCommand('sightline.showLedger', async () => {
      try {
        const r = await host.request<LedgerResult>('sightline/ledger', { session: session() });
        const roots = host.roots();
        let md = `# sightline ledger — session \`${r.session}\`\n\n`;
        if (!r.documents?.length) md += 'Nothing read yet.\n';
        for (const d of r.documents ?? []) {
          if (!d.path && d.uri) d.path = displayPath(vscode.Uri.parse(d.uri).fsPath, roots);
          md += `- ${ledgerLine(d)}\n`;
        }
        const uri = vscode.Uri.from({ scheme: VIEW_SCHEME, path: '/ledger.md' });
        views.set(uri, md);
        const doc = await vscode.workspace.openTextDocument(uri);
        await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
        await vscode.window.showTextDocument(doc, { preview: true });
      } catch (e) {
        void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
      }
    }),
    vscode.commands.registerCommand('sightline.showStats', async () => {
      try {
        const r = await host.request<StatsResult>('sightline/stats', {});
        const uri = vscode.Uri.from({ scheme: VIEW_SCHEME, path: '/stats.md' });
        views.set(uri, formatStats(r));
        const doc = await vscode.workspace.openTextDocument(uri);
        await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
        await vscode.window.showTextDocument(doc, { preview: true });
      } catch (e) {
        void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
      }
    }),
    vscode.commands.registerCommand('sightline.resetSession', async () => {
      const s = session();
      const ok = await vscode.window.showWarningMessage(`Forget everything session "${s}" has read and written?`, { modal: true }, 'Reset');
      if (ok !== 'Reset') return;
      try {
        const r = await host.request<{ ok: boolean; message?: string }>('sightline/session/reset', { session: s });
        coverage.clear();
        void vscode.window.showInformationMessage(r.message ?? `Session "${s}" reset.`);
      } catch (e) {
        void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
      }
    }),
  );
  updateStatus();
  void server.start();
  return { server, coverage, tools, timings, statusText };
}

export function deactivate() {
  // the subscriptions stop the server
}
