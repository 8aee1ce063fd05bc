// The six agent tools (language model tools): each validates its input,
// calls the matching sightline/* request through the language client with
// render: true, and passes on the answer's text, rendered by the server in
// the words every sightline door shows (plus what only the editor knows:
// other language servers' diagnostics of the edited lines). They never
// throw.
import * as vscode from 'vscode';
import {
  BlocksResult,
  Checked,
  EditResult,
  EditorDiagnostic,
  LineRange,
  PatchResult,
  Rendered,
  WriteResult,
  checkBlocks,
  checkEdit,
  checkLedger,
  checkPatch,
  checkRead,
  checkWrite,
  confirmationText,
  diffNewRanges,
  formatDiagnostics,
  inRanges,
  resolveToolPath,
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

abstract class Tool<T> implements vscode.LanguageModelTool<unknown> {
  constructor(
    readonly name: string,
    protected readonly host: ToolHost,
  ) {}
  abstract check(input: unknown): Checked<T>;
  abstract run(input: T, token: vscode.CancellationToken): Promise<string>;

  async invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>, token: vscode.CancellationToken) {
    timings.invokeStart[this.name] = now();
    try {
      const c = this.check(options.input);
      if (!c.ok) return text(c.error);
      return text(await this.run(c.value, token));
    } catch (e) {
      const msg = e instanceof CallError ? e.message : `${this.name} failed: ${e instanceof Error ? e.message : String(e)}`;
      return text(msg);
    }
  }
}

/** A tool that writes: prepareInvocation runs the same call as a dry run and shows the diff. */
abstract class WriteTool<T extends { dry_run?: boolean }> extends Tool<T> {
  abstract describe(input: T): string;
  abstract dryRun(input: T, token: vscode.CancellationToken): Promise<{ diff?: string; refusal?: string; answered?: boolean }>;
  /**
   * Refusals of the confirmation's dry run, by input. A refusal is an answer the
   * agent gets: its auto-expanded lines and fresh refs count as read once the
   * server has sent them, even in a dry run. So the call that follows returns
   * that same refusal instead of writing: a dry run must never turn a refusal
   * into a write the agent has not seen the lines of.
   */
  private readonly refusals = new Map<string, { text: string; at: number }>();

  async invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>, token: vscode.CancellationToken) {
    const c = this.check(options.input);
    if (c.ok) {
      const k = JSON.stringify(c.value);
      const r = this.refusals.get(k);
      this.refusals.delete(k);
      if (r && Date.now() - r.at < 120000) {
        timings.invokeStart[this.name] = now();
        return text(r.text);
      }
    }
    return super.invoke(options, token);
  }

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>, token: vscode.CancellationToken) {
    const c = this.check(options.input);
    if (!c.ok) return { invocationMessage: `${this.name}: invalid input` };
    const what = this.describe(c.value);
    if (c.value.dry_run || !vscode.workspace.getConfiguration('sightline').get<boolean>('confirmWrites', true)) {
      return { invocationMessage: what };
    }
    let preview: { diff?: string; refusal?: string; answered?: boolean };
    try {
      preview = await this.dryRun(c.value, token);
    } catch (e) {
      preview = { refusal: e instanceof Error ? e.message : String(e) };
    }
    // A write the dry run refuses writes nothing: no need to ask; the model gets that refusal.
    if (preview.refusal && !preview.diff) {
      if (preview.answered) this.refusals.set(JSON.stringify(c.value), { text: preview.refusal, at: Date.now() });
      return { invocationMessage: `${what} (refused)` };
    }
    return {
      invocationMessage: what,
      confirmationMessages: { title: what + '?', message: new vscode.MarkdownString(confirmationText(what, preview.diff, preview.refusal)) },
    };
  }
}

export class ReadTool extends Tool<import('./pure').ReadInput> {
  check = checkRead;
  async run(i: import('./pure').ReadInput, token: vscode.CancellationToken) {
    const uri = this.host.uri(i.path);
    const params: Record<string, unknown> = { textDocument: { uri: uri.toString() }, session: this.host.session(i.session), agent: 'vscode-agent' };
    if (i.start !== undefined || i.end !== undefined) params.range = { start: i.start ?? 1, end: i.end ?? 1_000_000_000 };
    const r = await this.host.request<Rendered>('sightline/read', params, token);
    timings.answered[this.name] = now();
    return r.text ?? '';
  }
  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>) {
    const c = checkRead(options.input);
    if (!c.ok) return { invocationMessage: 'sightline_read: invalid input' };
    const range = c.value.start || c.value.end ? `:${c.value.start ?? 1}-${c.value.end ?? ''}` : '';
    return { invocationMessage: `Reading ${c.value.path}${range}` };
  }
}

type EditIn = import('./pure').EditInput;
export class EditTool extends WriteTool<EditIn> {
  check = checkEdit;
  describe(i: EditIn) {
    return `Edit ${i.path} (${i.edits.length} op${i.edits.length === 1 ? '' : 's'})`;
  }
  private params(i: EditIn, dryRun: boolean) {
    const p: Record<string, unknown> = {
      textDocument: { uri: this.host.uri(i.path).toString() },
      edits: i.edits,
      session: this.host.session(i.session),
      agent: 'vscode-agent',
    };
    if (i.file_hash) p.fileHash = i.file_hash;
    if (dryRun) p.dryRun = true;
    return p;
  }
  async dryRun(i: EditIn, token: vscode.CancellationToken) {
    const r = await this.host.request<EditResult>('sightline/edit', this.params(i, true), token);
    return r.ok ? { diff: r.diff ?? '' } : { refusal: r.text ?? '', answered: true };
  }
  async run(i: EditIn, token: vscode.CancellationToken) {
    const uri = this.host.uri(i.path);
    const r = await this.host.request<EditResult>('sightline/edit', this.params(i, !!i.dry_run), token);
    timings.answered[this.name] = now();
    const diags = r.ok && r.applied && !r.dryRun ? await this.host.diagnosticsFor(uri, diffNewRanges(r.diff)) : '';
    return (r.text ?? '') + diags;
  }
}

type BlocksIn = import('./pure').BlocksInput;
export class ApplyBlocksTool extends WriteTool<BlocksIn> {
  check = checkBlocks;
  describe(i: BlocksIn) {
    const n = (i.text.match(/^<<<< EDIT/gm) ?? []).length;
    return `Apply ${n} edit block${n === 1 ? '' : 's'}`;
  }
  private params(i: BlocksIn, dryRun: boolean) {
    return { text: i.text, dryRun, session: this.host.session(i.session), agent: 'vscode-agent' };
  }
  async dryRun(i: BlocksIn, token: vscode.CancellationToken) {
    const r = await this.host.request<BlocksResult>('sightline/applyBlocks', this.params(i, true), token);
    const diff = (r.blocks ?? []).map((b) => b.diff ?? '').join('');
    // Any failed block: nothing is written and the model gets the whole dry-run report.
    return r.ok
      ? { diff }
      : { refusal: (r.text ?? '') + 'Nothing was written, because a block did not validate (the dry run above): fix it and send all blocks again.\n', answered: true };
  }
  async run(i: BlocksIn, token: vscode.CancellationToken) {
    const r = await this.host.request<BlocksResult>('sightline/applyBlocks', this.params(i, !!i.dry_run), token);
    timings.answered[this.name] = now();
    let diags = '';
    if (!i.dry_run) {
      for (const b of r.blocks ?? []) {
        if (b.status !== 'applied' || !b.path) continue;
        try {
          const d = await this.host.diagnosticsFor(this.host.uri(b.path), diffNewRanges(b.diff));
          if (d) diags += `${b.path}: ${d}`;
        } catch {
          // a path we cannot resolve has no diagnostics to add
        }
      }
    }
    return (r.text ?? '') + diags;
  }
}

type WriteIn = import('./pure').WriteInput;
export class WriteFileTool extends WriteTool<WriteIn & { dry_run?: boolean }> {
  check = checkWrite;
  describe(i: WriteIn) {
    return `${i.mode[0].toUpperCase()}${i.mode.slice(1)} ${i.path}`.replace(/^Edit /, 'Edit (write) ').replace(/^Create /, 'Create ');
  }
  private params(i: WriteIn, dryRun: boolean) {
    const p: Record<string, unknown> = {
      textDocument: { uri: this.host.uri(i.path).toString() },
      mode: i.mode,
      content: i.content,
      session: this.host.session(i.session),
      agent: 'vscode-agent',
    };
    if (i.old_text !== undefined) p.old_text = i.old_text;
    if (i.expected_version) p.expectedVersion = i.expected_version;
    if (dryRun) p.dryRun = true;
    return p;
  }
  async dryRun(i: WriteIn, token: vscode.CancellationToken) {
    const r = await this.host.request<WriteResult>('sightline/write', this.params(i, true), token);
    return r.ok ? { diff: r.diff } : { refusal: r.text ?? '', answered: true };
  }
  async run(i: WriteIn, token: vscode.CancellationToken) {
    const uri = this.host.uri(i.path);
    const r = await this.host.request<WriteResult>('sightline/write', this.params(i, false), token);
    timings.answered[this.name] = now();
    const diags = r.ok && r.applied ? await this.host.diagnosticsFor(uri, diffNewRanges(r.diff)) : '';
    return (r.text ?? '') + diags;
  }
}

type PatchIn = import('./pure').PatchInput;
export class ApplyPatchTool extends WriteTool<PatchIn> {
  check = checkPatch;
  describe(i: PatchIn) {
    const n = (i.patch.match(/^(\+\+\+ |\*\*\* (Update|Add|Delete) File: )/gm) ?? []).length;
    return `Apply a patch to ${n || 'its'} file${n === 1 ? '' : 's'}`;
  }
  private params(i: PatchIn, dryRun: boolean) {
    return { text: i.patch, dryRun, session: this.host.session(i.session), agent: 'vscode-agent' };
  }
  async dryRun(i: PatchIn, token: vscode.CancellationToken) {
    const r = await this.host.request<PatchResult>('sightline/applyPatch', this.params(i, true), token);
    const diff = (r.files ?? []).map((f) => f.diff ?? '').join('');
    return r.ok ? { diff } : { refusal: r.text ?? '', answered: true };
  }
  async run(i: PatchIn, token: vscode.CancellationToken) {
    const r = await this.host.request<PatchResult>('sightline/applyPatch', this.params(i, !!i.dry_run), token);
    timings.answered[this.name] = now();
    return r.text ?? '';
  }
}

type LedgerIn = import('./pure').LedgerInput;
export class LedgerTool extends Tool<LedgerIn> {
  check = checkLedger;
  async run(i: LedgerIn, token: vscode.CancellationToken) {
    const params: Record<string, unknown> = { session: this.host.session(i.session) };
    if (i.path) params.textDocument = { uri: this.host.uri(i.path).toString() };
    const r = await this.host.request<Rendered>('sightline/ledger', params, token);
    return r.text ?? '';
  }
  prepareInvocation() {
    return { invocationMessage: 'Checking what the agent has read' };
  }
}

export function registerTools(host: ToolHost): { tools: Record<string, Tool<unknown>>; disposables: vscode.Disposable[] } {
  const tools: Record<string, Tool<any>> = {
    sightline_read: new ReadTool('sightline_read', host),
    sightline_edit: new EditTool('sightline_edit', host),
    sightline_apply_blocks: new ApplyBlocksTool('sightline_apply_blocks', host),
    sightline_write: new WriteFileTool('sightline_write', host),
    sightline_ledger: new LedgerTool('sightline_ledger', host),
    sightline_apply_patch: new ApplyPatchTool('sightline_apply_patch', host),
  };
  const disposables: vscode.Disposable[] = [];
  if (vscode.lm && typeof vscode.lm.registerTool === 'function') {
    for (const [name, tool] of Object.entries(tools)) disposables.push(vscode.lm.registerTool(name, tool));
  }
  return { tools, disposables };
}
