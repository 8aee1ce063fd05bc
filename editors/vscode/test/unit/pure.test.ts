import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
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
  formatBlocks,
  formatDiagnostics,
  formatEdit,
  formatLedger,
  formatPatch,
  formatRead,
  formatWrite,
  resolveToolPath,
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

test('read result: header, hashline lines, notice', () => {
  const t = formatRead({ ok: true, path: 'a.py', content: '1:Vfla|x\n2:0000|\n', range: { start: 1, end: 2 }, totalLines: 9, version: 3, truncated: true, notice: '[Lines 3-9 truncated]' });
  assert.equal(t, 'a.py (lines 1-2 of 9, editor buffer version 3)\n1:Vfla|x\n2:0000|\n[Lines 3-9 truncated]\n');
  assert.equal(formatRead({ ok: false, error: 'not_found', message: 'a.py does not exist.', content: '', range: null, totalLines: 0, version: null, truncated: false }), 'Refused (not_found): a.py does not exist.\n');
});

test('edit refusals carry ranges, expanded lines and fresh refs', () => {
  const guard = formatEdit({ ok: false, error: 'unread_range', message: 'Lines 40-42 were not read.', applied: false, version: null, unread: [{ start: 40, end: 42 }], expanded: '40:aaaa|x\n41:bbbb|y\n42:cccc|z', expandedRanges: [{ start: 40, end: 42 }] });
  assert.match(guard, /^Refused \(unread_range\): Lines 40-42 were not read\.\nUnread target lines: 40-42\nLines 40-42 as they are now \(they now count as read; check them and retry with these refs\):\n40:aaaa\|x\n41:bbbb\|y\n42:cccc\|z\n$/);
  const stale = formatEdit({ ok: false, error: 'stale_ref', message: 'Line 7 changed.', applied: false, version: 4, failing_ref: '7:abcd', failing_edit_index: 0, expected_hash: 'abcd', actual_hash: 'wxyz', fresh_refs: ['6:aaaa|a', '7:wxyz|b'] });
  assert.match(stale, /Failing ref: 7:abcd \(edit #0; expected hash abcd, the line now has wxyz\)\nFresh refs \(they count as read; use them to retry\):\n6:aaaa\|a\n7:wxyz\|b\n/);
  const ok = formatEdit({ ok: true, message: 'Applied 1 edit to a.py.', applied: true, version: 5, window: '3:aaaa|x', windowRange: { start: 3, end: 3 }, warnings: ['Lines 9 changed since read'] }, 'DIAGS\n');
  assert.equal(ok, 'Applied 1 edit to a.py.\nWarning: Lines 9 changed since read\nLines 3-3 now:\n3:aaaa|x\nDIAGS\n');
});

test('write and blocks results', () => {
  assert.match(formatWrite({ ok: false, error: 'ambiguous_match', message: 'old_text occurs 2 times.', applied: false, diff: '', version: null, matches: [3, 9] }), /old_text occurs at lines: 3, 9/);
  assert.match(formatWrite({ ok: false, error: 'no_match', message: 'not found', applied: false, diff: '', version: null, nearest: ['4:aaaa|x'] }), /The nearest lines \(they count as read\):\n4:aaaa\|x\n/);
  const b = formatBlocks({ ok: false, error: 'no_match', message: '2 blocks: 1 applied, 0 validated, 1 failed, 0 skipped.', blocks: [
    { index: 0, path: 'a.py', status: 'applied', message: 'applied', diff: '@@ -1 +1 @@\n-a\n+b\n' },
    { index: 1, path: 'b.py', status: 'failed', message: 'not in the file', diagnostic: { kind: 'near_match', line: 12 } },
  ] });
  assert.match(b, /\[applied\] a\.py: applied\n@@ -1 \+1 @@\n-a\n\+b\n\[failed\] b\.py: not in the file \(near_match near line 12\)\n2 blocks/);
});

test('ledger, diagnostics, coverage, confirmation', () => {
  assert.equal(formatLedger({ ok: true, session: 's', documents: [] }), 'Session "s" has read nothing yet.\n');
  assert.equal(
    formatLedger({ ok: true, session: 'default', documents: [{ path: 'a.py', state: 'stale', totalLines: 60, read: [{ start: 1, end: 9 }], authored: [{ start: 19, end: 19 }], stale: [{ start: 10, end: 10 }], unread: [{ start: 20, end: 60 }] }] }),
    'Session "default":\na.py  stale  60 lines  read 1-9  authored 19  stale 10  unread 20-60\n',
  );
  assert.equal(formatDiagnostics([]), '');
  assert.equal(formatDiagnostics([{ line: 4, severity: 'error', source: 'json', message: 'Expected\n comma' }], 2), 'The editor reports these problems at the edited lines (fix them if your edit caused them):\n  line 4: error [json]: Expected comma\nThe editor reports 2 more errors elsewhere in the file.\n');
  assert.deepEqual(diffNewRanges('--- a\n+++ b\n@@ -16,7 +16,7 @@\n x\n@@ -40 +41,0 @@\n'), [{ start: 16, end: 22 }, { start: 41, end: 41 }]);
  assert.equal(coveragePercent({ uri: 'u', version: 1, session: 's', state: 'partial_read', read: [{ start: 1, end: 30 }], authored: [{ start: 30, end: 31 }], stale: [], totalLines: 62 }), 50);
  assert.equal(coveragePercent({ uri: 'u', version: null, session: 's', state: 'fully_read', read: [], authored: [], stale: [], totalLines: 0 }), 100);
  assert.match(confirmationText('Edit a.py', '@@ -1 +1 @@\n-a\n+b'), /^Edit a\.py\n\n```diff\n@@ -1 \+1 @@\n-a\n\+b\n```$/);
  assert.match(confirmationText('Edit a.py', ''), /no change/);
});

test('patch input and answer: the patch is required; a conflict shows the hunk, fresh refs and the merge', () => {
  const bad = checkPatch({});
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? '' : bad.error, /"patch" is required.*Example input/);
  assert.equal(checkPatch({ patch: '--- a/x\n+++ b/x\n' }).ok, true);
  const text = formatPatch({
    ok: false,
    error: 'no_match',
    message: 'The patch does not apply; nothing was written.',
    files: [{ path: 'a.go', kind: 'modify', status: 'failed', message: 'not found', hunk: 2, line: 14, freshRefs: ['14:abcd|x := 1'], merge: '--- a/a.go\n' }],
  });
  assert.match(text, /^Refused \(no_match\): /);
  assert.match(text, /\[failed\] a\.go: not found \(hunk 2, near line 14\)/);
  assert.match(text, /fresh refs[^\n]*\n14:abcd\|x := 1/);
  assert.match(text, /clean merge is possible/);
});
