import * as vscode from 'vscode';
import { CoverageView } from './coverage';
import { Coverage, Rendered, SessionRow, coveragePercent, sessionLabel, sessionPicks } from './pure';
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
  /** The session the server shows (followSession), as it last said. */
  shownSession(): string | undefined;
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
  // The session the server follows (followSession): it names it in a
  // sightline/session notification each time it changes.
  let followed: string | undefined;
  const shownChanged = new vscode.EventEmitter<void>();
  const server = new ServerManager(context, (client) => {
    client.onNotification('sightline/coverage', (c: Coverage) => coverage.update(c));
    client.onNotification('sightline/session', (p: { session?: string }) => {
      followed = typeof p?.session === 'string' ? p.session : undefined;
      shownChanged.fire();
    });
  });
  const host = new ToolHost(server);
  const { tools, disposables } = registerTools(host);
  const views = new Views();

  const status = vscode.window.createStatusBarItem('sightline.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'sightline';
  status.command = 'sightline.pickSession';
  const session = () => vscode.workspace.getConfiguration('sightline').get<string>('session') || 'default';
  const following = () => vscode.workspace.getConfiguration('sightline').get<boolean>('followSession', false);
  const shown = () => sessionLabel(session(), following(), followed);
  // The session whose ledger the editor shows: the followed one, else the setting's.
  const viewed = () => (following() && followed) || session();
  const statusText = (): string => {
    if (server.state === 'missing') return '$(error) sightline: no server';
    if (server.state === 'failed') return '$(error) sightline: stopped';
    if (server.state === 'restarting' || server.state === 'starting') return `$(sync~spin) sightline: ${shown()}`;
    const ed = vscode.window.activeTextEditor;
    const c = ed ? coverage.get(ed.document.uri) : undefined;
    return c ? `$(eye) ${shown()} · ${coveragePercent(c)}% read` : `$(eye) ${shown()}`;
  };
  const updateStatus = () => {
    status.text = statusText();
    const ed = vscode.window.activeTextEditor;
    const c = ed ? coverage.get(ed.document.uri) : undefined;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**sightline** — session \`${shown()}\` (click to pick another)\n\n`);
    if (c) md.appendMarkdown(`This file: ${coveragePercent(c)}% read by the agent, state \`${c.state}\`\n\n`);
    md.appendMarkdown(`Server: ${server.state}${server.detail ? ` — ${server.detail}` : ''}`);
    status.tooltip = md;
    status.show();
  };

  const serverSettingKeys = ['sightline.guard', 'sightline.autoExpand', 'sightline.readBudget', 'sightline.applyVia', 'sightline.applyTimeoutMs', 'sightline.session', 'sightline.followSession'];
  context.subscriptions.push(
    coverage,
    server,
    status,
    shownChanged,
    shownChanged.event(updateStatus),
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
        if (e.affectsConfiguration('sightline.session') || e.affectsConfiguration('sightline.followSession')) {
          coverage.clear();
          if (!following()) followed = undefined;
        }
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
      // The sessions the server knows (an agent's hook sessions among them),
      // the most recently active first; none when it does not answer.
      let known: SessionRow[] = [];
      try {
        known = (await host.request<{ sessions?: SessionRow[] }>('sightline/sessions', {})).sessions ?? [];
      } catch {
        // the names picked before still offer themselves
      }
      const items: (vscode.QuickPickItem & { session?: string; follow?: boolean })[] = sessionPicks({ current, follow: following(), shown: followed, known, recent: ['default', ...recent], now: new Date() });
      items.push({ label: '$(add) Another session…', alwaysShow: true });
      const pick = await vscode.window.showQuickPick(items, { title: 'sightline: the session whose reads the editor shows' });
      if (!pick) return;
      const cfg = vscode.workspace.getConfiguration('sightline');
      const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
      if (pick.follow) {
        await cfg.update('followSession', true, target);
        return;
      }
      let name: string | undefined = pick.session ?? pick.label;
      if (pick.label.startsWith('$(add)')) {
        name = await vscode.window.showInputBox({ prompt: 'Session name', validateInput: (v) => (v.trim() ? undefined : 'A session name is not empty') });
        if (!name) return;
        name = name.trim();
      }
      await context.globalState.update('sightline.recentSessions', [name, ...recent.filter((r) => r !== name)].slice(0, 10));
      if (following()) await cfg.update('followSession', false, target);
      await cfg.update('session', name, target);
    }),
    vscode.commands.registerCommand('sightline.showLedger', async () => {
      try {
        // The ledger as every door words it (the server's text, as `sightline ledger` prints it).
        const r = await host.request<Rendered>('sightline/ledger', { session: viewed() });
        const md = `# sightline ledger — session \`${viewed()}\`\n\n\`\`\`text\n${r.text ?? r.message ?? ''}\`\`\`\n`;
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
        // The stats as every door words them (the server's text, as `sightline stats` prints it).
        const r = await host.request<Rendered>('sightline/stats', {});
        const uri = vscode.Uri.from({ scheme: VIEW_SCHEME, path: '/stats.md' });
        views.set(uri, `# sightline stats\n\n\`\`\`text\n${r.text ?? r.message ?? ''}\`\`\`\n`);
        const doc = await vscode.workspace.openTextDocument(uri);
        await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
        await vscode.window.showTextDocument(doc, { preview: true });
      } catch (e) {
        void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
      }
    }),
    vscode.commands.registerCommand('sightline.resetSession', async () => {
      const s = viewed();
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
  return { server, coverage, tools, timings, statusText, shownSession: () => followed };
}

export function deactivate() {
  // the subscriptions stop the server
}
