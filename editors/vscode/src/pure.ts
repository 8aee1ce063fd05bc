// The parts of the extension that do not need VS Code: the agent tools as
// tools.json declares them, path resolution, the editor's own additions to
// an answer (other language servers' diagnostics). The answers' text is the
// server's. Unit-tested with node:test (test/unit).
import * as path from 'path';

export interface LineRange {
  start: number;
  end: number;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

// ---------------------------------------------------------------- tools

/**
 * An agent tool as tools.json declares it. tools.json is generated from
 * sightline's operation table (`go generate ./ops`): the same names,
 * descriptions, input schemas and annotations as the MCP tools.
 */
export interface ToolSpec {
  name: string;
  /** The sightline/* request the tool calls, with the tool's arguments (`arguments`). */
  method: string;
  title: string;
  description: string;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  inputSchema: { type: string; properties?: Record<string, unknown>; required?: string[] };
  /** The doors that offer the tool; notAt: those that do not, and why. */
  doors: string[];
  notAt?: Record<string, string>;
}

export interface ToolsFile {
  doors: string[];
  tools: ToolSpec[];
}

/** This extension's door in tools.json. */
export const DOOR = 'vscode';

/** The tools this extension offers. */
export function offeredTools(file: ToolsFile): ToolSpec[] {
  return file.tools.filter((t) => t.doors.includes(DOOR));
}

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * package.json's contributes.languageModelTools, which VS Code wants declared
 * statically: derived from tools.json (`npm run tools` writes them; the unit
 * tests fail while they disagree).
 */
export function contributedTools(file: ToolsFile): Record<string, unknown>[] {
  return offeredTools(file).map((t) => ({
    name: t.name,
    displayName: `sightline: ${t.title}`,
    toolReferenceName: camel(t.name),
    modelDescription: t.description,
    userDescription: t.title,
    inputSchema: t.inputSchema,
    canBeReferencedInPrompt: true,
    tags: ['sightline'],
  }));
}

/** A tool's input as an object: as it came, or parsed from a JSON string; undefined otherwise. */
export function inputObject(input: unknown): Record<string, unknown> | undefined {
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

/** Whether a tool writes and can show what it would write first (a dry run) for the user to confirm. */
export function previews(spec: ToolSpec): boolean {
  return !spec.annotations.readOnlyHint && 'dry_run' in (spec.inputSchema.properties ?? {});
}

/** The dry run of a call: its input with dry_run; undefined when the input is not an object, or is a dry run already. */
export function dryRunOf(input: unknown): Record<string, unknown> | undefined {
  const o = inputObject(input);
  if (!o || o.dry_run === true || o.dry_run === 'true') return undefined;
  return { ...o, dry_run: true };
}

/** What the editor shows of a call while it runs: the tool's title and the file it names. */
export function describeCall(spec: ToolSpec, input: unknown): string {
  const o = inputObject(input) ?? {};
  let what = typeof o.path === 'string' ? o.path : '';
  if (what && (o.start !== undefined || o.end !== undefined)) what += `:${o.start ?? 1}-${o.end ?? ''}`;
  return what ? `${spec.title}: ${what}` : spec.title;
}

/**
 * The files an answer says were written, with their diffs: the answer's own
 * (an edit, a write) and its parts' that were applied (edit blocks, a
 * patch's files). Read from the answer's shape, for any operation.
 */
export function writtenDiffs(answer: unknown): { path: string; diff: string }[] {
  const out: { path: string; diff: string }[] = [];
  const obj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (!obj(answer) || answer.ok !== true || answer.dryRun === true) return out;
  if (answer.applied === true && typeof answer.path === 'string' && typeof answer.diff === 'string') out.push({ path: answer.path, diff: answer.diff });
  for (const v of Object.values(answer)) {
    if (!Array.isArray(v)) continue;
    for (const x of v) {
      if (obj(x) && x.status === 'applied' && typeof x.path === 'string' && typeof x.diff === 'string') out.push({ path: x.path, diff: x.diff });
    }
  }
  return out;
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

// ---------------------------------------------------------------- results

interface Outcome {
  ok: boolean;
  message?: string;
  error?: string;
  warnings?: string[] | null;
  /** The answer rendered for an agent (asked for with render: true). */
  text?: string;
}

/** Any answer asked for with render: true: text is what the agent reads, and what the editor shows. */
export type Rendered = Outcome;

/** One diagnostic another language server reports, as the tools show it. */
export interface EditorDiagnostic {
  line: number; // 1-based
  severity: 'error' | 'warning';
  source?: string;
  message: string;
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

/** The text shown in a confirmation before a write: what it will do, as the dry run's answer says it. */
export function confirmationText(summary: string, dryRun: string, refused = false): string {
  if (!dryRun.trim()) return `${summary}\n\nA dry run shows no change.`;
  const max = 6000;
  const d = dryRun.length > max ? dryRun.slice(0, max) + '\n… (cut)\n' : dryRun;
  const head = refused ? 'A dry run says this write will be refused:' : 'A dry run says:';
  return `${summary}\n\n${head}\n\n\`\`\`diff\n${withNewline(d)}\`\`\``;
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
