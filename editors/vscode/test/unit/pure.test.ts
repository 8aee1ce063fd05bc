import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import {
  applyCoverage,
  checkBlocks,
  checkEdit,
  checkLedger,
  checkPatch,
  checkRead,
  checkWrite,
  confirmationText,
  coveragePercent,
  diffNewRanges,
  displayPath,
  formatDiagnostics,
  resolveToolPath,
  sessionLabel,
  sessionPicks,
  type Coverage,
  type SessionPick,
} from '../../src/pure';

test('read input: path required, lines positive, end after start', () => {
  assert.deepEqual(checkRead({ path: 'a.ts', start: 3, end: 9 }), { ok: true, value: { path: 'a.ts', start: 3, end: 9, session: undefined } });
  assert.equal(checkRead({ path: 'a.ts', start: '4' }).ok, true, 'a numeric string is a line');
  for (const bad of [undefined, null, 42, [], 'not json', {}, { path: '' }, { path: 'a', start: 0 }, { path: 'a', start: 1.5 }, { path: 'a', start: 9, end: 3 }, { path: 'a', session: 7 }]) {
    const r = checkRead(bad);
    assert.equal(r.ok, false, JSON.stringify(bad));
    if (!r.ok) assert.match(r.error, /^Invalid input for sightline_read: .+ Nothing was done\. Example input: \{/);
  }
  assert.equal(checkRead('{"path": "a.ts"}').ok, true, 'a JSON string of the object is accepted');
});

test('edit input: ops checked by type and fields; a string array and a single op accepted', () => {
  const op = { type: 'replace_line', ref: '12:a3Kf', new_content: 'x' };
  assert.equal(checkEdit({ path: 'a', edits: [op] }).ok, true);
  assert.equal(checkEdit({ path: 'a', edits: JSON.stringify([op]) }).ok, true);
  const single = checkEdit({ path: 'a', edits: op });
  assert.ok(single.ok && single.value.edits.length === 1);
  const cases: [unknown, RegExp][] = [
    [{ path: 'a' }, /"edits" is required/],
    [{ path: 'a', edits: [] }, /"edits" is empty/],
    [{ path: 'a', edits: 'nope' }, /not JSON/],
    [{ path: 'a', edits: [{ type: 'replace' }] }, /edits\[0\]\.type must be one of replace_line/],
    [{ path: 'a', edits: [{ type: 'delete_range', start_ref: '1:aaaa' }] }, /needs "end_ref"/],
    [{ path: 'a', edits: [op], dry_run: 'yes' }, /"dry_run" must be true or false/],
    [{ edits: [op] }, /"path" is required/],
  ];
  for (const [input, re] of cases) {
    const r = checkEdit(input);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error, re);
  }
});

test('write, blocks and ledger inputs', () => {
  assert.equal(checkWrite({ path: 'a', mode: 'create', content: '' }).ok, true);
  const noOld = checkWrite({ path: 'a', mode: 'edit', content: 'x' });
  assert.ok(!noOld.ok && /needs "old_text"/.test(noOld.error));
  const badMode = checkWrite({ path: 'a', mode: 'replace', content: 'x' });
  assert.ok(!badMode.ok && /"mode" must be one of create, edit, append, overwrite, not "replace"/.test(badMode.error));
  assert.equal(checkBlocks({ text: 'a\n<<<< EDIT\n' }).ok, true);
  assert.equal(checkBlocks({}).ok, false);
  assert.deepEqual(checkLedger(undefined), { ok: true, value: { path: undefined, session: undefined } });
  assert.equal(checkLedger({ path: 'x', session: 's' }).ok, true);
  assert.equal(checkLedger(5).ok, false);
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
  assert.equal(displayPath('/w/proj/src/a.ts', ['/w/proj']), 'src/a.ts');
  assert.equal(displayPath('/elsewhere/a.ts', ['/w/proj']), '/elsewhere/a.ts');
});

// The tools' answers are the server's text (render: true), tested with the
// operation table on the server's side.
test('diagnostics, coverage, confirmation', () => {
  assert.equal(formatDiagnostics([]), '');
  assert.equal(formatDiagnostics([{ line: 4, severity: 'error', source: 'json', message: 'Expected\n comma' }], 2), 'The editor reports these problems at the edited lines (fix them if your edit caused them):\n  line 4: error [json]: Expected comma\nThe editor reports 2 more errors elsewhere in the file.\n');
  assert.deepEqual(diffNewRanges('--- a\n+++ b\n@@ -16,7 +16,7 @@\n x\n@@ -40 +41,0 @@\n'), [{ start: 16, end: 22 }, { start: 41, end: 41 }]);
  assert.equal(coveragePercent({ uri: 'u', version: 1, session: 's', state: 'partial_read', read: [{ start: 1, end: 30 }], authored: [{ start: 30, end: 31 }], stale: [], totalLines: 62 }), 50);
  assert.equal(coveragePercent({ uri: 'u', version: null, session: 's', state: 'fully_read', read: [], authored: [], stale: [], totalLines: 0 }), 100);
  assert.match(confirmationText('Edit a.py', '@@ -1 +1 @@\n-a\n+b'), /^Edit a\.py\n\n```diff\n@@ -1 \+1 @@\n-a\n\+b\n```$/);
  assert.match(confirmationText('Edit a.py', ''), /no change/);
});

test('patch input: the patch is required', () => {
  const bad = checkPatch({});
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? '' : bad.error, /"patch" is required.*Example input/);
  assert.equal(checkPatch({ patch: '--- a/x\n+++ b/x\n' }).ok, true);
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
