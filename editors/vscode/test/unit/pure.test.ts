import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import {
  applyCoverage,
  confirmationText,
  contributedTools,
  coveragePercent,
  describeCall,
  diffNewRanges,
  dryRunOf,
  formatDiagnostics,
  offeredTools,
  previews,
  resolveToolPath,
  sessionLabel,
  sessionPicks,
  writtenDiffs,
  type Coverage,
  type SessionPick,
  type ToolsFile,
} from '../../src/pure';

const toolsFile = JSON.parse(readFileSync(resolve('tools.json'), 'utf8')) as ToolsFile;

// package.json's static declarations are tools.json's (generated from the
// operation table), as `npm run tools` writes them.
test('package.json declares the tools of tools.json', () => {
  const pkg = JSON.parse(readFileSync(resolve('package.json'), 'utf8'));
  assert.deepEqual(
    pkg.contributes.languageModelTools,
    contributedTools(toolsFile),
    'package.json is stale: run `npm run tools` (after `go generate ./ops` when the operation table changed)',
  );
  const names = offeredTools(toolsFile).map((t) => t.name);
  assert.ok(names.includes('sightline_read') && names.includes('sightline_apply_patch'), names.join(','));
  // Every tool is offered here, or tools.json says why not.
  for (const t of toolsFile.tools) assert.ok(t.doors.includes('vscode') || t.notAt?.vscode, t.name);
});

test('a write is previewed by its dry run; a read is not', () => {
  const spec = (name: string) => toolsFile.tools.find((t) => t.name === name)!;
  assert.equal(previews(spec('sightline_edit')), true);
  assert.equal(previews(spec('sightline_write')), true);
  assert.equal(previews(spec('sightline_read')), false);
  assert.deepEqual(dryRunOf({ path: 'a', edits: [] }), { path: 'a', edits: [], dry_run: true });
  assert.deepEqual(dryRunOf('{"text": "x"}'), { text: 'x', dry_run: true }, 'an input sent as a JSON string');
  assert.equal(dryRunOf({ text: 'x', dry_run: true }), undefined, 'a dry run already');
  assert.equal(dryRunOf('nope'), undefined);
  assert.equal(describeCall(spec('sightline_read'), { path: 'a.ts', start: 3 }), 'Read lines (hashline-annotated): a.ts:3-');
  assert.equal(describeCall(spec('sightline_apply_patch'), { patch: '' }), spec('sightline_apply_patch').title);
});

test('the files an answer wrote, for their diagnostics', () => {
  assert.deepEqual(writtenDiffs({ ok: true, applied: true, path: 'a.ts', diff: '@@ -1 +1 @@\n' }), [{ path: 'a.ts', diff: '@@ -1 +1 @@\n' }]);
  assert.deepEqual(writtenDiffs({ ok: true, applied: true, dryRun: true, path: 'a.ts', diff: 'd' }), []);
  assert.deepEqual(
    writtenDiffs({ ok: true, blocks: [{ status: 'applied', path: 'a', diff: 'd1' }, { status: 'skipped', path: 'b', diff: 'd2' }] }),
    [{ path: 'a', diff: 'd1' }],
  );
  assert.deepEqual(writtenDiffs({ ok: true, files: [{ status: 'applied', path: 'p', diff: 'd' }] }), [{ path: 'p', diff: 'd' }]);
  assert.deepEqual(writtenDiffs({ ok: false, applied: true, path: 'a', diff: 'd' }), []);
});

test('paths: relative to the workspace folder, absolute and file URIs kept', () => {
  assert.deepEqual(resolveToolPath('src/a.ts', ['/w/proj']), { ok: true, value: '/w/proj/src/a.ts' });
  assert.deepEqual(resolveToolPath('./src/a.ts', ['/w/proj']), { ok: true, value: '/w/proj/src/a.ts' });
  assert.deepEqual(resolveToolPath('/etc/x', ['/w/proj']), { ok: true, value: '/etc/x' });
  assert.deepEqual(resolveToolPath('file:///w/proj/a%20b.ts', ['/w/proj']), { ok: true, value: '/w/proj/a b.ts' });
  assert.deepEqual(resolveToolPath('lib/x.go', ['/w/app', '/w/lib']), { ok: true, value: '/w/lib/x.go' }, 'multi-root: a path starting with a folder name');
  assert.equal(resolveToolPath('a\0b', ['/w']).ok, false);
  assert.equal(resolveToolPath('https://example.com/a', ['/w']).ok, false);
  assert.equal(resolveToolPath('a.ts', []).ok, false);
});

// The tools' answers are the server's text (render: true), tested with the
// operation table on the server's side.
test('diagnostics, coverage, confirmation', () => {
  assert.equal(formatDiagnostics([]), '');
  assert.equal(formatDiagnostics([{ line: 4, severity: 'error', source: 'json', message: 'Expected\n comma' }], 2), 'The editor reports these problems at the edited lines (fix them if your edit caused them):\n  line 4: error [json]: Expected comma\nThe editor reports 2 more errors elsewhere in the file.\n');
  assert.deepEqual(diffNewRanges('--- a\n+++ b\n@@ -16,7 +16,7 @@\n x\n@@ -40 +41,0 @@\n'), [{ start: 16, end: 22 }, { start: 41, end: 41 }]);
  assert.equal(coveragePercent({ uri: 'u', version: 1, session: 's', state: 'partial_read', read: [{ start: 1, end: 30 }], authored: [{ start: 30, end: 31 }], stale: [], totalLines: 62 }), 50);
  assert.equal(coveragePercent({ uri: 'u', version: null, session: 's', state: 'fully_read', read: [], authored: [], stale: [], totalLines: 0 }), 100);
  assert.match(confirmationText('Edit a.py', '@@ -1 +1 @@\n-a\n+b'), /^Edit a\.py\n\nA dry run says:\n\n```diff\n@@ -1 \+1 @@\n-a\n\+b\n```$/);
  assert.match(confirmationText('Edit a.py', ''), /no change/);
});

test('session picker: follow first, then the server\'s sessions most recent first (hook sessions named by agent), then recent names', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const known = [
    { session: 'claude-abc', documents: 3, approvals: 0, lastSeen: '2026-01-01T11:58:00Z' },
    { session: 'default', documents: 1, approvals: 0, lastSeen: '2026-01-01T10:00:00Z' },
    { session: 'codex-xyz', documents: 0, approvals: 0, lastSeen: '2025-12-30T12:00:00Z' },
  ];
  const picks = sessionPicks({ current: 'default', follow: false, known, recent: ['mine', 'claude-abc'], now });
  assert.deepEqual(picks.map((p: SessionPick) => p.session ?? '(follow)'), ['(follow)', 'claude-abc', 'default', 'codex-xyz', 'mine']);
  assert.equal(picks[0].follow, true);
  assert.match(picks[1].description ?? '', /Claude Code · active 2 min ago · 3 files/);
  assert.match(picks[2].description ?? '', /current/);
  assert.match(picks[3].description ?? '', /Codex · active 2 days ago/);
  // Following: the follow entry is current and names whom it follows.
  const f = sessionPicks({ current: 'default', follow: true, shown: 'claude-abc', known, recent: [], now });
  assert.match(f[0].description ?? '', /current · now claude-abc/);
  assert.doesNotMatch(f.find((p: SessionPick) => p.session === 'default')?.description ?? '', /current/);
  assert.equal(sessionLabel('default', true, 'codex-xyz'), 'following codex-xyz');
  assert.equal(sessionLabel('default', true, undefined), 'following the latest session');
  assert.equal(sessionLabel('mine', false, 'codex-xyz'), 'mine');
});

// The server's own coverage changes (testdata/coverage/changes.json, made by
// the engine's tests from what it sends): each applied to the coverage held
// before gives the coverage after.
test('coverage changes from the server apply to what the editor holds', () => {
  const cases = JSON.parse(readFileSync(resolve('../../testdata/coverage/changes.json'), 'utf8')) as { name: string; prev: Coverage; cur: Coverage; sent: Coverage | null }[];
  assert.ok(cases.length > 50 && cases.some((c) => c.sent?.changed), 'the fixture holds changes');
  for (const [i, c] of cases.entries()) {
    const held = applyCoverage(undefined, c.prev);
    const got = c.sent ? applyCoverage(held, c.sent) : held;
    assert.deepEqual(got, c.cur, `case ${i} (${c.name})`);
  }
});
