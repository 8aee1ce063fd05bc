// Launching and supervising `sightline serve`: finding the binary, restarting
// a crashed or hung server with backoff, and saying so once.
import * as cp from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from 'vscode-languageclient/node';

export type ServerState = 'starting' | 'running' | 'restarting' | 'missing' | 'failed' | 'stopped';

const START_TIMEOUT_MS = Number(process.env.SIGHTLINE_START_TIMEOUT_MS) || 15000;
const BACKOFF_MS = [1000, 2000, 4000, 8000, 16000, 30000];
const GIVE_UP_AFTER = 8; // consecutive failed starts
const STABLE_MS = 60000; // a server that ran this long resets the backoff

const INSTALL_HINT =
  'Install it with `go install github.com/sightline-lsp/sightline/cmd/sightline@latest` (then make sure `$(go env GOPATH)/bin` is on PATH), install the platform .vsix that bundles it, or set `sightline.path` to the binary.';

/** The server settings the extension passes through (initializationOptions, workspace/configuration). */
export function serverSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('sightline');
  const out: Record<string, unknown> = {};
  for (const k of ['guard', 'autoExpand', 'readBudget', 'applyVia', 'applyTimeoutMs']) {
    const v = c.get(k);
    if (v !== null && v !== undefined && v !== '') out[k] = v;
  }
  const session = c.get<string>('session');
  if (session) out.session = session;
  out.followSession = c.get<boolean>('followSession', false);
  return out;
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  const exts = process.platform === 'win32' ? ['.exe', ''] : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const e of exts) {
      const p = path.join(dir, name + e);
      if (isExecutable(p)) return p;
    }
  }
  return undefined;
}

/** Where the server binary is: the setting, else the bundled one, else PATH. `looked` says where it looked. */
export function findServer(extensionPath: string): { path?: string; looked: string[] } {
  const looked: string[] = [];
  const setting = vscode.workspace.getConfiguration('sightline').get<string>('path')?.trim();
  if (setting) {
    let p = setting.replace(/^~(?=$|\/)/, process.env.HOME ?? '~');
    if (!p.includes('/') && !p.includes('\\')) {
      looked.push(`"${p}" on PATH (setting sightline.path)`);
      return { path: onPath(p), looked };
    }
    if (!path.isAbsolute(p) && vscode.workspace.workspaceFolders?.length) {
      p = path.join(vscode.workspace.workspaceFolders[0].uri.fsPath, p);
    }
    looked.push(`${p} (setting sightline.path)`);
    return { path: isExecutable(p) ? p : undefined, looked };
  }
  const bundled = path.join(extensionPath, 'bin', process.platform === 'win32' ? 'sightline.exe' : 'sightline');
  looked.push(`${bundled} (bundled)`);
  if (isExecutable(bundled)) return { path: bundled, looked };
  looked.push('"sightline" on PATH');
  return { path: onPath('sightline'), looked };
}

/** A client whose own failure notifications go to the output only: the manager tells the user, once. */
class QuietClient extends LanguageClient {
  override error(message: string, data?: unknown, _show?: boolean | 'force'): void {
    super.error(message, data, false);
  }
}

export class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  state: ServerState = 'stopped';
  detail = '';
  readonly output: vscode.OutputChannel;
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  readonly onDidChangeState = this.stateEmitter.event;
  private failures = 0;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private announced = false; // the crash message of this streak was shown
  private missingShown = false;
  private generation = 0;
  private readyWaiters: (() => void)[] = [];
  private disposed = false;
  private child: cp.ChildProcess | undefined;
  /** Every message shown to the user (for tests: a crash loop must show one). */
  readonly shown: string[] = [];
  failureCount(): number {
    return this.failures;
  }

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly setup: (client: LanguageClient) => void,
  ) {
    this.output = vscode.window.createOutputChannel('sightline');
  }

  private setState(s: ServerState, detail = '') {
    this.state = s;
    this.detail = detail;
    this.output.appendLine(`[${new Date().toISOString()}] ${s}${detail ? ': ' + detail : ''}`);
    if (s === 'running') for (const w of this.readyWaiters.splice(0)) w();
    this.stateEmitter.fire(s);
  }

  /** Resolves when the server runs, or after ms. */
  waitReady(ms: number): Promise<boolean> {
    if (this.state === 'running') return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(this.state === 'running'), ms);
      this.readyWaiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  /** (Re)starts from scratch: a new binary lookup, the backoff and the messages reset. */
  async restart(): Promise<void> {
    this.failures = 0;
    this.announced = false;
    this.missingShown = false;
    await this.start();
  }

  async start(): Promise<void> {
    if (this.disposed) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const gen = ++this.generation;
    await this.stopClient();
    const found = findServer(this.context.extensionPath);
    if (!found.path) {
      this.setState('missing', `looked at ${found.looked.join(', ')}`);
      if (!this.missingShown) {
        this.missingShown = true;
        const msg = `sightline: the server binary was not found (looked at ${found.looked.join('; ')}). ${INSTALL_HINT}`;
        this.shown.push(msg);
        void vscode.window
          .showErrorMessage(msg, 'Open Settings')
          .then((a) => a && vscode.commands.executeCommand('workbench.action.openSettings', 'sightline.path'));
      }
      return;
    }
    this.setState(this.failures ? 'restarting' : 'starting', found.path);
    const bin = found.path;
    // Spawned here, not by the client, so that a hung server can be killed.
    const serverOptions: ServerOptions = async () => {
      const child = cp.spawn(bin, ['serve'], { env: { ...process.env }, stdio: 'pipe' });
      this.child = child;
      child.on('error', (e) => this.output.appendLine(`spawn ${bin}: ${e.message}`));
      return child;
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      outputChannel: this.output,
      revealOutputChannelOn: 4, // RevealOutputChannelOn.Never
      initializationOptions: serverSettings(),
      initializationFailedHandler: () => false,
      errorHandler: {
        error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue, handled: true }),
        closed: (): CloseHandlerResult => {
          if (gen === this.generation && !this.disposed) this.crashed('the server process exited');
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      middleware: {
        workspace: {
          configuration: (params) => params.items.map((it) => (it.section === 'sightline' || it.section === undefined ? serverSettings() : null)),
        },
      },
    };
    const client = new QuietClient('sightline', 'sightline', serverOptions, clientOptions);
    // Coverage as changes after the first whole one (applyCoverage), so what
    // the server sends grows with the change, not with the session.
    client.registerFeature({
      fillClientCapabilities: (caps) => {
        caps.experimental = { ...(caps.experimental as object | undefined), sightline: { coverageChanges: true } };
      },
      initialize: () => undefined,
      getState: () => ({ kind: 'static' }),
      clear: () => undefined,
    });
    this.client = client;
    this.setup(client);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.start(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the server did not answer initialize within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
        }),
      ]);
    } catch (e) {
      clearTimeout(timer);
      if (gen !== this.generation) return;
      this.crashed(e instanceof Error ? e.message : String(e));
      return;
    }
    clearTimeout(timer);
    if (gen !== this.generation) return;
    this.startedAt = Date.now();
    this.setState('running', found.path);
    // The server's version as the binary reports it (its build information),
    // for bug reports: the one `sightline --version` prints.
    const info = client.initializeResult?.serverInfo;
    this.output.appendLine(`${info?.name ?? 'sightline'} ${info?.version ?? '(version unknown)'}: ${found.path}`);
    if (this.announced) {
      this.output.appendLine('server restarted');
    }
  }

  /** A crash, a failed start or a hang: restart with backoff; tell the user once per streak. */
  private crashed(reason: string) {
    if (this.disposed || this.timer) return;
    if (this.startedAt && Date.now() - this.startedAt > STABLE_MS) {
      this.failures = 0;
      this.announced = false;
    }
    this.startedAt = 0;
    this.failures++;
    if (this.failures > GIVE_UP_AFTER) {
      this.setState('failed', reason);
      void this.stopClient();
      const msg = `sightline: the server failed ${GIVE_UP_AFTER} times in a row (${reason}); it is not restarted again. See the "sightline" output, then run "sightline: Restart Server".`;
      this.shown.push(msg);
      void vscode.window
        .showErrorMessage(msg, 'Show Output')
        .then((a) => a && this.output.show());
      return;
    }
    const delay = BACKOFF_MS[Math.min(this.failures - 1, BACKOFF_MS.length - 1)];
    this.setState('restarting', `${reason}; restart ${this.failures} in ${delay / 1000} s`);
    if (!this.announced) {
      this.announced = true;
      const msg = `sightline: ${reason}. Restarting it (with backoff); further restarts are logged in the "sightline" output.`;
      this.shown.push(msg);
      void vscode.window.showWarningMessage(msg);
    }
    const gen = ++this.generation; // a late close of the old client is not a new crash
    void this.stopClient();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (gen === this.generation) void this.start();
    }, delay);
  }

  private async stopClient() {
    const c = this.client;
    const child = this.child;
    this.client = undefined;
    this.child = undefined;
    if (c) {
      try {
        if (c.isRunning()) await Promise.race([c.stop(2000), new Promise((r) => setTimeout(r, 3000))]);
        else void c.dispose(100).catch(() => undefined);
      } catch {
        // a dead or hung server cannot be stopped politely
      }
    }
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  async dispose() {
    this.disposed = true;
    clearTimeout(this.timer);
    await this.stopClient();
    this.output.dispose();
  }
}
