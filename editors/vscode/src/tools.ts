// The agent tools (language model tools): every tool of tools.json, which is
// generated from sightline's operation table, registered by one generic
// class. A call sends the model's arguments as they are to the tool's
// sightline/* request (`arguments`, with render: true) and passes on the
// answer's text, rendered by the server in the words every sightline door
// shows (the MCP tools' answers, word for word). The editor adds only what
// it alone can: a confirmation showing the dry run of a write, and other
// language servers' diagnostics of the lines written. They never throw.
import * as vscode from 'vscode';
import toolsFile from '../tools.json';
import {
  EditorDiagnostic,
  LineRange,
  Rendered,
  ToolSpec,
  ToolsFile,
  confirmationText,
  describeCall,
  diffNewRanges,
  dryRunOf,
  formatDiagnostics,
  inRanges,
  inputObject,
  offeredTools,
  previews,
  resolveToolPath,
  writtenDiffs,
} from './pure';
import { ServerManager } from './server';

export const SETTLE_MS = 300; // how long other language servers get to report on an edit
const SETTLE_MAX_MS = 2000;

export interface ToolTimings {
  /** When the last invoke of each tool started (performance.timeOrigin + performance.now(), ms). */
  invokeStart: Record<string, number>;
  /** When its request to the server answered. */
  answered: Record<string, number>;
}

export const timings: ToolTimings = { invokeStart: {}, answered: {} };

function now(): number {
  return performance.timeOrigin + performance.now();
}

class CallError extends Error {}

export class ToolHost {
  constructor(private readonly server: ServerManager) {}

  roots(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  session(input?: string): string {
    return input || vscode.workspace.getConfiguration('sightline').get<string>('session') || 'default';
  }

  uri(p: string): vscode.Uri {
    const r = resolveToolPath(p, this.roots());
    if (!r.ok) throw new CallError(r.error);
    return vscode.Uri.file(r.value);
  }

  /** Sends a request; a server that is down, refuses the params or does not answer becomes a CallError. */
  async request<T>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<T> {
    if (this.server.state === 'starting' || this.server.state === 'restarting') await this.server.waitReady(5000);
    const client = this.server.client;
    if (!client || this.server.state !== 'running') {
      throw new CallError(
        `The sightline language server is not running (${this.server.state}${this.server.detail ? ': ' + this.server.detail : ''}). Nothing was done; tell the user, or retry later.`,
      );
    }
    const timeoutMs = (vscode.workspace.getConfiguration('sightline').get<number>('applyTimeoutMs') ?? 10000) + 20000;
    const cts = new vscode.CancellationTokenSource();
    const sub = token?.onCancellationRequested(() => cts.cancel());
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        client.sendRequest<T>(method, { ...(params as object), render: true }, cts.token),
        new Promise<T>((_, reject) => {
          timer = setTimeout(() => {
            cts.cancel();
            reject(new CallError(`The sightline server did not answer ${method} within ${timeoutMs / 1000} s. It is not known whether anything was applied: read the lines again before retrying.`));
          }, timeoutMs);
        }),
      ]);
    } catch (e) {
      if (e instanceof CallError) throw e;
      const msg = e instanceof Error ? e.message : String(e);
      // Arguments the server cannot read: as the MCP door says it.
      if ((e as { code?: number }).code === -32602) throw new CallError(`invalid_params: ${msg}\n`);
      throw new CallError(`sightline refused the call: ${msg}`);
    } finally {
      clearTimeout(timer);
      sub?.dispose();
      cts.dispose();
    }
  }

  /** Errors and warnings other language servers report on the given lines, after a short settle. */
  async diagnosticsFor(uri: vscode.Uri, ranges: LineRange[]): Promise<string> {
    if (!ranges.length || !vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) return '';
    await settle(uri);
    const all = vscode.languages
      .getDiagnostics(uri)
      .filter((d) => d.source !== 'sightline' && d.severity <= vscode.DiagnosticSeverity.Warning);
    const near: EditorDiagnostic[] = [];
    let elsewhere = 0;
    for (const d of all) {
      const line = d.range.start.line + 1;
      if (inRanges(line, ranges)) {
        near.push({
          line,
          severity: d.severity === vscode.DiagnosticSeverity.Error ? 'error' : 'warning',
          source: d.source,
          message: d.message,
        });
      } else if (d.severity === vscode.DiagnosticSeverity.Error) elsewhere++;
    }
    near.sort((a, b) => a.line - b.line);
    return formatDiagnostics(near, elsewhere);
  }
}

/** Waits SETTLE_MS, then until the document's diagnostics have been quiet for SETTLE_MS (at most SETTLE_MAX_MS). */
function settle(uri: vscode.Uri): Promise<void> {
  return new Promise((resolve) => {
    const start = Date.now();
    let last = start;
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (e.uris.some((u) => u.toString() === uri.toString())) last = Date.now();
    });
    const tick = () => {
      const t = Date.now();
      if (t - start >= SETTLE_MAX_MS || (t - start >= SETTLE_MS && t - last >= SETTLE_MS)) {
        sub.dispose();
        resolve();
      } else setTimeout(tick, 50);
    };
    setTimeout(tick, SETTLE_MS);
  });
}

function text(s: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s)]);
}

/** One tool of tools.json. */
export class SightlineTool implements vscode.LanguageModelTool<unknown> {
  /**
   * Refusals of the confirmation's dry run, by input. A refusal is an answer the
   * agent gets: its auto-expanded lines and fresh refs count as read once the
   * server has sent them, even in a dry run. So the call that follows returns
   * that same refusal instead of writing: a dry run must never turn a refusal
   * into a write the agent has not seen the lines of.
   */
  private readonly refusals = new Map<string, { text: string; at: number }>();

  constructor(
    readonly spec: ToolSpec,
    private readonly host: ToolHost,
  ) {}

  get name() {
    return this.spec.name;
  }

  private call(input: unknown, token: vscode.CancellationToken) {
    let args = inputObject(input);
    // A path is resolved here, against the workspace's folders as the editor
    // knows them (a multi-root workspace, a file:// URI); the server reads the
    // absolute path as the model meant it.
    if (args && typeof args.path === 'string' && args.path.trim()) args = { ...args, path: this.host.uri(args.path.trim()).fsPath };
    return this.host.request<Rendered & Record<string, unknown>>(
      this.spec.method,
      { arguments: args ?? input ?? {}, session: this.host.session(), agent: 'vscode-agent' },
      token,
    );
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>, token: vscode.CancellationToken) {
    const k = JSON.stringify(options.input);
    const r = this.refusals.get(k);
    this.refusals.delete(k);
    timings.invokeStart[this.name] = now();
    if (r && Date.now() - r.at < 120000) return text(r.text);
    try {
      const res = await this.call(options.input, token);
      timings.answered[this.name] = now();
      let diags = '';
      if (!this.spec.annotations.readOnlyHint) {
        for (const w of writtenDiffs(res)) {
          try {
            const d = await this.host.diagnosticsFor(this.host.uri(w.path), diffNewRanges(w.diff));
            if (d) diags += `${w.path}: ${d}`;
          } catch {
            // a path we cannot resolve has no diagnostics to add
          }
        }
      }
      return text((res.text ?? '') + diags);
    } catch (e) {
      return text(e instanceof CallError ? e.message : `${this.name} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>, token: vscode.CancellationToken) {
    const what = describeCall(this.spec, options.input);
    const dry = previews(this.spec) ? dryRunOf(options.input) : undefined;
    if (!dry || !vscode.workspace.getConfiguration('sightline').get<boolean>('confirmWrites', true)) {
      return { invocationMessage: what };
    }
    let preview: string;
    let refused = false;
    try {
      const res = await this.call(dry, token);
      preview = res.text ?? '';
      refused = !res.ok;
    } catch (e) {
      // Not an answer (the server is down, the arguments unreadable): the call itself will say so.
      return { invocationMessage: `${what} (${e instanceof Error ? e.message.trim() : String(e)})` };
    }
    // A write the dry run refuses writes nothing: no need to ask; the model gets that refusal.
    if (refused) {
      this.refusals.set(JSON.stringify(options.input), {
        text: preview + 'Nothing was written: this is the answer of the dry run the editor made to show the change to the user.\n',
        at: Date.now(),
      });
      return { invocationMessage: `${what} (refused)` };
    }
    return {
      invocationMessage: what,
      confirmationMessages: { title: what + '?', message: new vscode.MarkdownString(confirmationText(what, preview)) },
    };
  }
}

/** The tools of tools.json this extension offers (all of them, unless tools.json says why not). */
export const toolSpecs: ToolSpec[] = offeredTools(toolsFile as ToolsFile);

export function registerTools(host: ToolHost): { tools: Record<string, SightlineTool>; disposables: vscode.Disposable[] } {
  const tools: Record<string, SightlineTool> = {};
  for (const spec of toolSpecs) tools[spec.name] = new SightlineTool(spec, host);
  const disposables: vscode.Disposable[] = [];
  if (vscode.lm && typeof vscode.lm.registerTool === 'function') {
    for (const [name, tool] of Object.entries(tools)) disposables.push(vscode.lm.registerTool(name, tool));
  }
  return { tools, disposables };
}
