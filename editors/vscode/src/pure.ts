// The parts of the extension that do not need VS Code: tool input validation,
// path resolution, and turning sightline's results into text a model can act
// on. Unit-tested with node:test (test/unit).
import * as path from 'path';

export interface LineRange {
  start: number;
  end: number;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

// ---------------------------------------------------------------- inputs

export interface ReadInput {
  path: string;
  start?: number;
  end?: number;
  session?: string;
}
export interface EditInput {
  path: string;
  edits: unknown[];
  file_hash?: string;
  dry_run?: boolean;
  session?: string;
}
export interface BlocksInput {
  text: string;
  dry_run?: boolean;
  session?: string;
}
export interface PatchInput {
  patch: string;
  dry_run?: boolean;
  session?: string;
}
export interface WriteInput {
  path: string;
  mode: 'create' | 'edit' | 'append' | 'overwrite';
  content: string;
  old_text?: string;
  expected_version?: string;
  session?: string;
}
export interface LedgerInput {
  path?: string;
  session?: string;
}

export const EDIT_OPS: Record<string, string[]> = {
  replace_line: ['ref', 'new_content'],
  replace_range: ['start_ref', 'end_ref', 'new_content'],
  insert_after: ['ref', 'new_content'],
  insert_before: ['ref', 'new_content'],
  delete_line: ['ref'],
  delete_range: ['start_ref', 'end_ref'],
};
export const WRITE_MODES = ['create', 'edit', 'append', 'overwrite'];

const EXAMPLES: Record<string, string> = {
  sightline_read: '{"path": "src/app.ts", "start": 1, "end": 80}',
  sightline_edit: '{"path": "src/app.ts", "edits": [{"type": "replace_line", "ref": "12:a3Kf", "new_content": "const x = 1;"}]}',
  sightline_apply_blocks: '{"text": "src/app.ts\\n<<<< EDIT\\nold lines\\n==== REPLACE\\nnew lines\\n>>>> EDIT END"}',
  sightline_write: '{"path": "src/new.ts", "mode": "create", "content": "export {};\\n"}',
  sightline_ledger: '{"path": "src/app.ts"}',
  sightline_apply_patch: '{"patch": "--- a/src/app.ts\\n+++ b/src/app.ts\\n@@ -1,3 +1,3 @@\\n context\\n-old\\n+new\\n context\\n"}',
};

/** The text a model gets for input it sent wrong: what was wrong, and an example. */
export function inputErrorText(tool: string, problems: string[]): string {
  return `Invalid input for ${tool}: ${problems.join('; ')}. Nothing was done. Example input: ${EXAMPLES[tool] ?? '{}'}`;
}

function asObject(input: unknown): Record<string, unknown> | undefined {
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input);
    } catch {
      return undefined;
    }
  }
  if (input && typeof input === 'object' && !Array.isArray(input)) return input as Record<string, unknown>;
  return undefined;
}

function optString(o: Record<string, unknown>, key: string, problems: string[]): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    problems.push(`"${key}" must be a string, not ${describe(v)}`);
    return undefined;
  }
  return v;
}

function optBool(o: Record<string, unknown>, key: string, problems: string[]): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (v === 'true' || v === 'false') return v === 'true';
  if (typeof v !== 'boolean') {
    problems.push(`"${key}" must be true or false, not ${describe(v)}`);
    return undefined;
  }
  return v;
}

function optLine(o: Record<string, unknown>, key: string, problems: string[]): number | undefined {
  let v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) v = Number(v);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    problems.push(`"${key}" must be a line number (an integer from 1), not ${describe(v)}`);
    return undefined;
  }
  return v;
}

function requiredPath(o: Record<string, unknown>, problems: string[]): string {
  const v = o.path;
  if (typeof v !== 'string' || v.trim() === '') {
    problems.push(v === undefined ? '"path" is required (a path relative to the workspace folder)' : `"path" must be a non-empty string, not ${describe(v)}`);
    return '';
  }
  return v.trim();
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

const NOT_OBJECT = 'the input must be a JSON object';

export function checkRead(input: unknown): Checked<ReadInput> {
  const o = asObject(input);
  if (!o) return { ok: false, error: inputErrorText('sightline_read', [NOT_OBJECT]) };
  const problems: string[] = [];
  const value: ReadInput = {
    path: requiredPath(o, problems),
    start: optLine(o, 'start', problems),
    end: optLine(o, 'end', problems),
    session: optString(o, 'session', problems),
  };
  if (value.start !== undefined && value.end !== undefined && value.end < value.start) {
    problems.push(`"end" (${value.end}) is before "start" (${value.start})`);
  }
  return problems.length ? { ok: false, error: inputErrorText('sightline_read', problems) } : { ok: true, value };
}

export function checkEdit(input: unknown): Checked<EditInput> {
  const o = asObject(input);
  if (!o) return { ok: false, error: inputErrorText('sightline_edit', [NOT_OBJECT]) };
  const problems: string[] = [];
  const p = requiredPath(o, problems);
  let edits = o.edits;
  if (typeof edits === 'string') {
    try {
      edits = JSON.parse(edits);
    } catch {
      problems.push('"edits" is a string that is not JSON: send an array of edit ops');
    }
  }
  if (edits && typeof edits === 'object' && !Array.isArray(edits)) edits = [edits];
  const list: unknown[] = [];
  if (edits === undefined) {
    problems.push('"edits" is required (an array of edit ops)');
  } else if (Array.isArray(edits)) {
    if (edits.length === 0) problems.push('"edits" is empty');
    edits.forEach((e, i) => {
      if (!e || typeof e !== 'object' || Array.isArray(e)) {
        problems.push(`edits[${i}] must be an object, not ${describe(e)}`);
        return;
      }
      const t = (e as Record<string, unknown>).type;
      if (typeof t !== 'string' || !(t in EDIT_OPS)) {
        problems.push(`edits[${i}].type must be one of ${Object.keys(EDIT_OPS).join(', ')}, not ${describe(t)}`);
        return;
      }
      for (const f of EDIT_OPS[t]) {
        const v = (e as Record<string, unknown>)[f];
        if (typeof v !== 'string') problems.push(`edits[${i}] (${t}) needs "${f}" as a string`);
      }
      list.push(e);
    });
  } else if (!problems.length) {
    problems.push(`"edits" must be an array of edit ops, not ${describe(edits)}`);
  }
  const value: EditInput = {
    path: p,
    edits: list,
    file_hash: optString(o, 'file_hash', problems),
    dry_run: optBool(o, 'dry_run', problems),
    session: optString(o, 'session', problems),
  };
  return problems.length ? { ok: false, error: inputErrorText('sightline_edit', problems) } : { ok: true, value };
}

export function checkBlocks(input: unknown): Checked<BlocksInput> {
  const o = asObject(input);
  if (!o) return { ok: false, error: inputErrorText('sightline_apply_blocks', [NOT_OBJECT]) };
  const problems: string[] = [];
  if (typeof o.text !== 'string' || o.text === '') problems.push('"text" is required: model output holding edit blocks');
  const value: BlocksInput = {
    text: typeof o.text === 'string' ? o.text : '',
    dry_run: optBool(o, 'dry_run', problems),
    session: optString(o, 'session', problems),
  };
  return problems.length ? { ok: false, error: inputErrorText('sightline_apply_blocks', problems) } : { ok: true, value };
}

export function checkPatch(input: unknown): Checked<PatchInput> {
  const o = asObject(input);
  if (!o) return { ok: false, error: inputErrorText('sightline_apply_patch', [NOT_OBJECT]) };
  const problems: string[] = [];
  if (typeof o.patch !== 'string' || o.patch === '') problems.push('"patch" is required: a unified diff or a *** Begin Patch envelope');
  const value: PatchInput = {
    patch: typeof o.patch === 'string' ? o.patch : '',
    dry_run: optBool(o, 'dry_run', problems),
    session: optString(o, 'session', problems),
  };
  return problems.length ? { ok: false, error: inputErrorText('sightline_apply_patch', problems) } : { ok: true, value };
}

export function checkWrite(input: unknown): Checked<WriteInput> {
  const o = asObject(input);
  if (!o) return { ok: false, error: inputErrorText('sightline_write', [NOT_OBJECT]) };
  const problems: string[] = [];
  const p = requiredPath(o, problems);
  const mode = o.mode;
  if (typeof mode !== 'string' || !WRITE_MODES.includes(mode)) {
    problems.push(`"mode" must be one of ${WRITE_MODES.join(', ')}, not ${describe(mode)}`);
  }
  if (typeof o.content !== 'string') problems.push(`"content" is required as a string ("" for an empty file), not ${describe(o.content)}`);
  const oldText = optString(o, 'old_text', problems);
  if (mode === 'edit' && (oldText === undefined || oldText === '')) problems.push('mode "edit" needs "old_text": the exact text to replace');
  const value: WriteInput = {
    path: p,
    mode: mode as WriteInput['mode'],
    content: typeof o.content === 'string' ? o.content : '',
    old_text: oldText,
    expected_version: optString(o, 'expected_version', problems),
    session: optString(o, 'session', problems),
  };
  return problems.length ? { ok: false, error: inputErrorText('sightline_write', problems) } : { ok: true, value };
}

export function checkLedger(input: unknown): Checked<LedgerInput> {
  const o = input === undefined || input === null ? {} : asObject(input);
  if (!o) return { ok: false, error: inputErrorText('sightline_ledger', [NOT_OBJECT]) };
  const problems: string[] = [];
  let p = optString(o, 'path', problems);
  if (p !== undefined && p.trim() === '') p = undefined;
  const value: LedgerInput = { path: p?.trim(), session: optString(o, 'session', problems) };
  return problems.length ? { ok: false, error: inputErrorText('sightline_ledger', problems) } : { ok: true, value };
}

// ---------------------------------------------------------------- paths

/**
 * Resolves a model's path against the workspace folders: relative paths
 * against the first folder (or the folder whose name they start with, in a
 * multi-root workspace), absolute paths and file:// URIs as they are. The
 * server confines paths to the workspace; this only refuses what cannot be a
 * path.
 */
export function resolveToolPath(p: string, roots: string[]): Checked<string> {
  if (p.includes('\0')) return { ok: false, error: `The path ${JSON.stringify(p)} holds a NUL byte.` };
  if (/^file:\/\//i.test(p)) {
    try {
      return { ok: true, value: decodeURIComponent(new URL(p).pathname) };
    } catch {
      return { ok: false, error: `The path ${JSON.stringify(p)} is not a valid file URI.` };
    }
  }
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(p)) return { ok: false, error: `Only workspace files can be used, not ${JSON.stringify(p)}.` };
  if (path.isAbsolute(p)) return { ok: true, value: path.normalize(p) };
  if (roots.length === 0) return { ok: false, error: `No workspace folder is open, so the relative path ${JSON.stringify(p)} cannot be resolved; give an absolute path.` };
  const rel = p.replace(/^\.\//, '');
  if (roots.length > 1) {
    const first = rel.split(/[\\/]/)[0];
    const match = roots.find((r) => path.basename(r) === first);
    if (match) return { ok: true, value: path.join(path.dirname(match), rel) };
  }
  return { ok: true, value: path.join(roots[0], rel) };
}

/** The path of a file relative to the workspace folder holding it, for messages. */
export function displayPath(fsPath: string, roots: string[]): string {
  for (const r of roots) {
    const rel = path.relative(r, fsPath);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return fsPath;
}

// ---------------------------------------------------------------- results

export interface DocLedger {
  uri?: string;
  path?: string;
  state: string;
  read: LineRange[];
  authored: LineRange[];
  stale: LineRange[];
  unread: LineRange[];
  totalLines: number;
}

interface Outcome {
  ok: boolean;
  message?: string;
  error?: string;
  warnings?: string[] | null;
  /** The answer rendered for an agent (asked for with render: true). */
  text?: string;
}

export interface GuardFields {
  unread?: LineRange[];
  stale?: LineRange[];
  expanded?: string;
  expandedRanges?: LineRange[];
}

export interface EditResult extends Outcome, GuardFields {
  path?: string;
  version: number | null;
  fileHash?: string;
  applied: boolean;
  dryRun?: boolean;
  window?: string;
  windowRange?: LineRange;
  diff?: string;
  remapped?: { ref: string; line: number }[];
  ledger?: DocLedger;
  failing_edit_index?: number;
  failing_ref?: string;
  expected_hash?: string;
  actual_hash?: string;
  candidates?: number[];
  fresh_refs?: string[];
}

export interface BlockResult {
  index: number;
  path: string;
  status: string;
  message: string;
  error?: string;
  diagnostic?: { kind: string; line?: number };
  diff?: string;
  expanded?: string;
}
export interface BlocksResult extends Outcome {
  blocks: BlockResult[];
}

export interface PatchFileResult {
  path: string;
  newPath?: string;
  kind: string;
  status: string;
  message: string;
  error?: string;
  hunk?: number;
  line?: number;
  diff?: string;
  expanded?: string;
  freshRefs?: string[];
  merge?: string;
}
export interface PatchResult extends Outcome {
  files: PatchFileResult[];
}

export interface WriteResult extends Outcome, GuardFields {
  path?: string;
  mode?: string;
  applied: boolean;
  dryRun?: boolean;
  diff: string;
  fileHash?: string;
  version: number | null;
  ledger?: DocLedger;
  nearest?: string[];
  matches?: number[];
}

/** Any answer asked for with render: true: text is what the agent reads. */
export type Rendered = Outcome;

export interface LedgerResult {
  ok: boolean;
  session: string;
  documents: DocLedger[];
}

/** One diagnostic another language server reports, as the tools show it. */
export interface EditorDiagnostic {
  line: number; // 1-based
  severity: 'error' | 'warning';
  source?: string;
  message: string;
}

export function fmtRanges(rs: LineRange[] | undefined | null): string {
  if (!rs || rs.length === 0) return 'none';
  return rs.map((r) => (r.start === r.end ? `${r.start}` : `${r.start}-${r.end}`)).join(', ');
}

export function ledgerLine(l: DocLedger | undefined): string {
  if (!l) return '';
  let s = `${l.path ?? l.uri ?? '?'}  ${l.state}  ${l.totalLines} lines  read ${fmtRanges(l.read)}`;
  if (l.authored?.length) s += `  authored ${fmtRanges(l.authored)}`;
  if (l.stale?.length) s += `  stale ${fmtRanges(l.stale)}`;
  s += `  unread ${fmtRanges(l.unread)}`;
  return s;
}

export function formatDiagnostics(diags: EditorDiagnostic[], elsewhere = 0): string {
  if (diags.length === 0 && elsewhere === 0) return '';
  let s = '';
  if (diags.length) {
    s += 'The editor reports these problems at the edited lines (fix them if your edit caused them):\n';
    for (const d of diags) s += `  line ${d.line}: ${d.severity}${d.source ? ` [${d.source}]` : ''}: ${d.message.replace(/\s*\n\s*/g, ' ')}\n`;
  }
  if (elsewhere) s += `The editor reports ${elsewhere} more error${elsewhere === 1 ? '' : 's'} elsewhere in the file.\n`;
  return s;
}

export interface StatsMethod {
  calls: number;
  success: number;
  stale: number;
  refused: number;
  error: number;
  p50Ms: number;
  p99Ms: number;
}
export interface StatsResult {
  ok: boolean;
  source: string;
  calls: number;
  methods: Record<string, StatsMethod>;
  guard: { checks: number; trips: number; tripRate: number; expanded: number; resolved: number; resolutionRate: number };
}

export function formatStats(r: StatsResult): string {
  let s = `# sightline stats\n\n${r.calls} write calls (source: ${r.source})\n\n`;
  s += '| method | calls | success | stale | refused | error | p50 ms | p99 ms |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n';
  for (const [m, v] of Object.entries(r.methods ?? {})) {
    s += `| ${m} | ${v.calls} | ${v.success} | ${v.stale} | ${v.refused} | ${v.error} | ${v.p50Ms} | ${v.p99Ms} |\n`;
  }
  const g = r.guard;
  if (g) {
    const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
    s += `\nGuard: ${g.checks} checks, ${g.trips} trips (${pct(g.tripRate)}), ${g.expanded} auto-expanded, ${g.resolved} resolved on the next call (${pct(g.resolutionRate)})\n`;
  }
  return s;
}

/** The lines of the new text each hunk of a unified diff covers (1-based, inclusive). */
export function diffNewRanges(diff: string | undefined): LineRange[] {
  const out: LineRange[] = [];
  if (!diff) return out;
  for (const m of diff.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    out.push({ start: Math.max(1, start), end: Math.max(1, start + Math.max(count, 1) - 1) });
  }
  return out;
}

export function inRanges(line: number, rs: LineRange[]): boolean {
  return rs.some((r) => line >= r.start && line <= r.end);
}

export interface Coverage {
  uri: string;
  version: number | null;
  session: string;
  state: string;
  read: LineRange[];
  authored: LineRange[];
  stale: LineRange[];
  totalLines: number;
  /** Set on a change of the last coverage sent: the lines it covers take its ranges, the others keep theirs. */
  changed?: LineRange;
}

/**
 * The coverage a `sightline/coverage` notification leaves: a whole one as it
 * is; a change (the extension asks for them, so that what is sent grows with
 * the change, not with the session) applied to the coverage held before.
 */
export function applyCoverage(prev: Coverage | undefined, next: Coverage): Coverage {
  const w = next.changed;
  const { changed: _, ...whole } = next;
  if (!w) return whole;
  const merge = (old: LineRange[] | undefined, within: LineRange[] | undefined): LineRange[] => {
    const out: LineRange[] = [];
    for (const r of old ?? []) {
      if (r.end < w.start || r.start > w.end) {
        out.push(r);
        continue;
      }
      if (r.start < w.start) out.push({ start: r.start, end: w.start - 1 });
      if (r.end > w.end) out.push({ start: w.end + 1, end: r.end });
    }
    out.push(...(within ?? []));
    out.sort((a, b) => a.start - b.start);
    const joined: LineRange[] = [];
    for (const r of out) {
      const last = joined[joined.length - 1];
      if (last && r.start <= last.end + 1) last.end = Math.max(last.end, r.end);
      else joined.push({ start: r.start, end: r.end });
    }
    return joined;
  };
  return { ...whole, read: merge(prev?.read, next.read), authored: merge(prev?.authored, next.authored), stale: merge(prev?.stale, next.stale) };
}

/** Share of a document's lines the agent has seen (read or authored), 0-100. */
export function coveragePercent(c: Coverage): number {
  if (!c.totalLines) return c.state === 'fully_read' || c.state === 'model_authored' ? 100 : 0;
  const seen = new Set<number>();
  for (const r of [...(c.read ?? []), ...(c.authored ?? [])]) {
    for (let l = Math.max(1, r.start); l <= Math.min(r.end, c.totalLines); l++) seen.add(l);
  }
  return Math.round((seen.size / c.totalLines) * 100);
}

function withNewline(s: string): string {
  return s.endsWith('\n') ? s : s + '\n';
}

/** The text shown in a confirmation before a write: what it will do. */
export function confirmationText(summary: string, diff: string | undefined, refusal?: string): string {
  if (refusal) return `${summary}\n\nA dry run says this write will be refused:\n\n${refusal}`;
  if (!diff) return `${summary}\n\nA dry run shows no change.`;
  const max = 6000;
  const d = diff.length > max ? diff.slice(0, max) + '\n… (diff cut)\n' : diff;
  return `${summary}\n\n\`\`\`diff\n${withNewline(d)}\`\`\``;
}

/** One session as `sightline/sessions` lists it. */
export interface SessionRow {
  session: string;
  documents: number;
  approvals: number;
  lastSeen: string;
}

/** An entry of the session picker: a session, or following the latest one. */
export interface SessionPick {
  label: string;
  description?: string;
  session?: string;
  follow?: boolean;
}

/** The agent a hook session belongs to, by its name. */
function agentOf(session: string): string | undefined {
  if (session.startsWith('claude-')) return 'Claude Code';
  if (session.startsWith('codex-')) return 'Codex';
  return undefined;
}

function ago(then: Date, now: Date): string {
  const min = Math.max(0, Math.round((now.getTime() - then.getTime()) / 60000));
  if (min < 1) return 'just now';
  if (min < 60) return `${min} min ago`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} days ago`;
}

/**
 * The session picker's entries: following the most recently active session
 * first, then the sessions the server knows (most recently active first, as
 * it lists them; an agent's hook session named by its agent), then names
 * picked before. The entry in effect says "current".
 */
export function sessionPicks(o: { current: string; follow: boolean; shown?: string; known: SessionRow[]; recent: string[]; now: Date }): SessionPick[] {
  const follow: SessionPick = { label: '$(pulse) Follow the most recently active session', follow: true };
  if (o.follow) follow.description = `current · now ${o.shown ?? 'none yet'}`;
  const out: SessionPick[] = [follow];
  const seen = new Set<string>();
  const add = (name: string, details: string[]) => {
    if (seen.has(name)) return;
    seen.add(name);
    if (!o.follow && name === o.current) details.unshift('current');
    out.push({ label: name, session: name, description: details.join(' · ') || undefined });
  };
  for (const s of o.known) {
    const d: string[] = [];
    const agent = agentOf(s.session);
    if (agent) d.push(agent);
    const t = new Date(s.lastSeen);
    if (!Number.isNaN(t.getTime()) && t.getTime() > 0) d.push(`active ${ago(t, o.now)}`);
    if (s.documents) d.push(`${s.documents} ${s.documents === 1 ? 'file' : 'files'}`);
    add(s.session, d);
  }
  for (const n of [o.current, ...o.recent]) add(n, []);
  return out;
}

/** The session the status bar names. */
export function sessionLabel(current: string, follow: boolean, shown: string | undefined): string {
  if (!follow) return current;
  return shown ? `following ${shown}` : 'following the latest session';
}
