// Coverage highlights from `sightline/coverage` notifications: read, stale
// and authored lines, as a gutter mark and a faint background.
import * as vscode from 'vscode';
import { Coverage, LineRange, applyCoverage } from './pure';

type Kind = 'read' | 'stale' | 'authored';
const KINDS: Kind[] = ['read', 'stale', 'authored'];

export class CoverageView implements vscode.Disposable {
  private readonly byUri = new Map<string, Coverage>();
  private readonly types: Record<Kind, vscode.TextEditorDecorationType>;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<string>();
  readonly onDidChange = this.changed.event;
  /** What was last drawn per document (line counts per kind), for the status bar and tests. */
  readonly drawn = new Map<string, Record<Kind, number>>();

  constructor(context: vscode.ExtensionContext) {
    const make = (kind: Kind, overview: string) =>
      vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: new vscode.ThemeColor(`sightline.${kind}Background`),
        overviewRulerColor: new vscode.ThemeColor(overview),
        overviewRulerLane: vscode.OverviewRulerLane.Left,
        light: { gutterIconPath: vscode.Uri.joinPath(context.extensionUri, 'media', `${kind}-light.svg`) },
        dark: { gutterIconPath: vscode.Uri.joinPath(context.extensionUri, 'media', `${kind}-dark.svg`) },
        gutterIconSize: 'contain',
      });
    this.types = {
      read: make('read', 'sightline.readRuler'),
      stale: make('stale', 'sightline.staleRuler'),
      authored: make('authored', 'sightline.authoredRuler'),
    };
    this.disposables.push(
      vscode.window.onDidChangeVisibleTextEditors(() => this.redrawAll()),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('sightline.highlights') && this.redrawAll()),
    );
  }

  get enabled(): boolean {
    return vscode.workspace.getConfiguration('sightline').get<boolean>('highlights', true);
  }

  get(uri: vscode.Uri | string): Coverage | undefined {
    return this.byUri.get(key(uri));
  }

  /** A notification: a whole coverage, or a change of the one held (applyCoverage). */
  update(c: Coverage) {
    const k = key(c.uri);
    this.byUri.set(k, applyCoverage(this.byUri.get(k), c));
    for (const ed of vscode.window.visibleTextEditors) if (key(ed.document.uri) === k) this.draw(ed);
    this.changed.fire(k);
  }

  /** Forget everything (a new server, another session). */
  clear() {
    this.byUri.clear();
    this.redrawAll();
  }

  redrawAll() {
    for (const ed of vscode.window.visibleTextEditors) this.draw(ed);
    this.changed.fire('');
  }

  private draw(ed: vscode.TextEditor) {
    const k = key(ed.document.uri);
    const c = this.enabled ? this.byUri.get(k) : undefined;
    const counts: Record<Kind, number> = { read: 0, stale: 0, authored: 0 };
    for (const kind of KINDS) {
      const ranges = c ? toRanges(c[kind], ed.document.lineCount) : [];
      for (const r of ranges) counts[kind] += r.end.line - r.start.line + 1;
      ed.setDecorations(this.types[kind], ranges);
    }
    if (c) this.drawn.set(k, counts);
    else this.drawn.delete(k);
  }

  dispose() {
    for (const t of Object.values(this.types)) t.dispose();
    for (const d of this.disposables) d.dispose();
    this.changed.dispose();
  }
}

function key(uri: vscode.Uri | string): string {
  return (typeof uri === 'string' ? vscode.Uri.parse(uri) : uri).toString();
}

function toRanges(rs: LineRange[] | undefined, lineCount: number): vscode.Range[] {
  const out: vscode.Range[] = [];
  for (const r of rs ?? []) {
    const s = Math.max(0, r.start - 1);
    const e = Math.min(lineCount - 1, r.end - 1);
    if (e >= s) out.push(new vscode.Range(s, 0, e, 0));
  }
  return out;
}
