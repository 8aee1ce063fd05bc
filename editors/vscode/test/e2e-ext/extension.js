// The end-to-end test's agent: on startup it calls the sightline tools the way
// an in-editor agent panel does (vscode.lm.invokeTool without a chat token),
// checks what reaches the editor, and writes its findings to the JSON file
// named by $SIGHTLINE_E2E_RESULTS. The driver (../e2e/run.mjs) clicks the
// confirmation dialogs and takes the screenshot.
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, fn, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

// hashline: base62 of (crc32(line) & 0xFFFFFF) % 62^4, 4 characters
const CRC = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function lineHash(s) {
  let c = 0xffffffff;
  for (const b of Buffer.from(s, 'utf8')) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  let v = (((c ^ 0xffffffff) >>> 0) & 0xffffff) % 62 ** 4;
  const A = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = '';
  for (let i = 0; i < 4; i++) {
    out = A[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

async function invoke(name, input) {
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token);
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : p.value ?? JSON.stringify(p))).join('');
}

function refOf(text, line) {
  const m = new RegExp(`^(${line}:[0-9A-Za-z]{4})\\|`, 'm').exec(text);
  return m && m[1];
}

exports.activate = async function activate() {
  const out = process.env.SIGHTLINE_E2E_RESULTS;
  if (!out) return;
  const results = { checks: [], timings: {}, transcript: [] };
  const check = (name, ok, detail) => {
    results.checks.push({ name, ok: !!ok, detail: detail === undefined ? undefined : String(detail).slice(0, 4000) });
  };
  const call = async (name, input) => {
    const t0 = now();
    const text = await invoke(name, input);
    results.transcript.push({ tool: name, input, ms: Math.round(now() - t0), text });
    return text;
  };
  try {
    const ext = vscode.extensions.getExtension('sightline.sightline');
    check('sightline extension installed', ext);
    const api = await ext.activate();
    const ready = await api.server.waitReady(20000);
    check('server running', ready, `${api.server.state} ${api.server.detail}`);
    const names = vscode.lm.tools.map((t) => t.name);
    const declared = ext.packageJSON.contributes.languageModelTools.map((t) => t.name);
    check('the tools registered: every one package.json declares (tools.json\'s)', declared.length >= 9 && declared.every((n) => names.includes(n) && api.tools[n]), names.join(','));

    const root = vscode.workspace.workspaceFolders[0].uri.fsPath;
    const schedPath = path.join(root, 'src', 'sched.py');
    const schedUri = vscode.Uri.file(schedPath);
    const diskBefore = fs.readFileSync(schedPath, 'utf8');
    const doc = await vscode.workspace.openTextDocument(schedUri);
    await vscode.window.showTextDocument(doc);

    // 1. a read shows hashline refs; unread diagnostics and read highlights appear
    const read = await call('sightline_read', { path: 'src/sched.py', start: 1, end: 30 });
    check('read shows hashline refs', /^1:[0-9A-Za-z]{4}\|"""A small event scheduler/m.test(read) && /^30:[0-9A-Za-z]{4}\|/m.test(read), read);
    const unread = await waitFor('unread diagnostics', () => {
      const ds = vscode.languages.getDiagnostics(schedUri).filter((d) => d.source === 'sightline');
      return ds.length ? ds : undefined;
    }).catch((e) => e);
    check('unread diagnostics appear', Array.isArray(unread) && unread.some((d) => d.range.start.line === 30), Array.isArray(unread) ? unread.map((d) => `${d.range.start.line + 1}-${d.range.end.line + 1} ${d.message}`).join(' | ') : unread);
    const drawn = await waitFor('read decorations', () => (api.coverage.drawn.get(schedUri.toString())?.read >= 30 ? api.coverage.drawn.get(schedUri.toString()) : undefined)).catch((e) => e);
    check('read lines decorated', drawn && drawn.read === 30, JSON.stringify(drawn));
    check('status bar shows session and %', /default · 50% read/.test(api.statusText()), api.statusText());

    // 2. an edit lands in the editor buffer (dirty; disk unchanged); time the round trip
    const ref = refOf(read, 19);
    let changedAt = 0;
    const sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.toString() === schedUri.toString() && e.contentChanges.length && !changedAt) changedAt = now();
    });
    const t0 = now();
    const edit = await call('sightline_edit', { path: 'src/sched.py', edits: [{ type: 'replace_line', ref, new_content: '        self._queue = []  # heap of Event' }] });
    const answered = now();
    sub.dispose();
    check('edit applied', /Lines \d+-\d+ now \(fresh refs for your next edit\):/.test(edit) && edit.includes('self._queue = []  # heap of Event'), edit);
    check('edit is in the buffer', doc.lineAt(18).text === '        self._queue = []  # heap of Event', doc.lineAt(18).text);
    check('buffer is dirty', doc.isDirty);
    check('disk unchanged until save', fs.readFileSync(schedPath, 'utf8') === diskBefore);
    const invokeStart = api.timings.invokeStart.sightline_edit;
    results.timings.editRoundTripMs = changedAt && invokeStart ? Math.round(changedAt - invokeStart) : null;
    results.timings.editAnswerMs = invokeStart ? Math.round(answered - invokeStart) : null;
    results.timings.editWithConfirmationMs = changedAt ? Math.round(changedAt - t0) : null;
    check('buffer changed before the tool answered', changedAt && changedAt <= answered, `changed ${changedAt}, answered ${answered}`);
    const authored = await waitFor('authored decoration', () => (api.coverage.drawn.get(schedUri.toString())?.authored >= 1 ? api.coverage.drawn.get(schedUri.toString()) : undefined)).catch((e) => e);
    check('authored line decorated', authored && authored.authored >= 1, JSON.stringify(authored));

    // 3. the guard's refusal reaches the tool result (line 45 was never read)
    const l45 = doc.lineAt(44).text;
    const n0 = doc.lineCount;
    const refused = await call('sightline_edit', { path: 'src/sched.py', edits: [{ type: 'delete_line', ref: `45:${lineHash(l45)}` }] });
    check('guard refusal in the result', refused.includes('unread_range: ') && /Lines? 45/.test(refused) && new RegExp(`^45:${lineHash(l45)}\\|`, 'm').test(refused), refused);
    check('refused edit changed nothing', doc.lineAt(44).text === l45 && doc.lineCount === n0, `${doc.lineCount} lines`);
    // the refusal showed line 45, so it now counts as read: the same edit goes through
    const retry = await call('sightline_edit', { path: 'src/sched.py', edits: [{ type: 'delete_line', ref: `45:${lineHash(l45)}` }] });
    check('retry after the refusal applies', retry.startsWith('Applied 1 edit') && doc.lineCount === n0 - 1, retry);

    // 4. malformed input: a model-readable error, not an exception
    const bad1 = await call('sightline_edit', { path: 42, edits: 'not json' });
    check('malformed edit input -> readable error', bad1.startsWith('invalid_params: invalid arguments for sightline_edit') && bad1.includes('path'), bad1);
    const bad2 = await call('sightline_read', { path: 'src/sched.py', start: 'ten' });
    check('malformed read input -> readable error', bad2.startsWith('invalid_params: invalid arguments for sightline_read') && bad2.includes('start'), bad2);
    const bad3 = await call('sightline_write', { path: 'x.txt', mode: 'replace', content: 'x' });
    check('malformed write input -> readable error', bad3.startsWith('invalid_params: ') && bad3.includes('mode "replace"'), bad3);

    // 4b. by symbol: an outline (signature lines read), a workspace symbol
    // query, a read of one declaration alone
    const outline = await call('sightline_outline', { path: 'src/sched.py' });
    check('outline lists declarations with signature lines', /^  method Scheduler\.step_3  lines 35-\d+  35:[0-9A-Za-z]{4}\|    def step_3\(self, delay, action\):$/m.test(outline), outline);
    const found = await call('sightline_symbols', { query: 'step_4' });
    check('symbols finds a method across the workspace', found.includes('src/sched.py#Scheduler.step_4  method'), found);
    const bySymbol = await call('sightline_read', { path: 'src/sched.py', symbol: 'Scheduler.step_5' });
    check('read by symbol shows the declaration alone', /^\d+:[0-9A-Za-z]{4}\|    def step_5/m.test(bySymbol) && !bySymbol.includes('step_4'), bySymbol);

    // 5. prepareInvocation shows what a write will do: the dry run's diff
    const prep = await api.tools.sightline_edit.prepareInvocation({ input: { path: 'src/sched.py', edits: [{ type: 'replace_line', ref: refOf(read, 20), new_content: '        self.timefunc = timefunc  # clock' }] } }, new vscode.CancellationTokenSource().token);
    const prepText = prep && prep.confirmationMessages ? prep.confirmationMessages.message.value || String(prep.confirmationMessages.message) : '';
    check('confirmation shows the diff', prepText.includes('+        self.timefunc = timefunc  # clock') && prepText.includes('-        self.timefunc = timefunc'), prepText);
    check('dry run changed nothing', doc.lineAt(19).text === '        self.timefunc = timefunc');

    // 6. an edit that breaks a JSON file returns the JSON language server's error
    const cfgUri = vscode.Uri.file(path.join(root, 'config.json'));
    const cfg = await vscode.workspace.openTextDocument(cfgUri);
    await vscode.window.showTextDocument(cfg, { preview: false });
    const cfgRead = await call('sightline_read', { path: 'config.json' });
    const broke = await call('sightline_edit', { path: 'config.json', edits: [{ type: 'replace_line', ref: refOf(cfgRead, 3), new_content: '  "version": "1.0.0"' }] });
    check('edit result carries the new JSON error', /The editor reports these problems at the edited lines/.test(broke) && /line 4: error \[json\]/i.test(broke), broke);
    const jsonDiags = vscode.languages.getDiagnostics(cfgUri).filter((d) => d.source !== 'sightline');
    results.jsonDiagnostics = jsonDiags.map((d) => `${d.range.start.line + 1}: [${d.source}] ${d.message}`);

    // 7. the user changes a line the agent read: it turns stale, and is drawn so
    await vscode.window.showTextDocument(doc, { preview: false });
    const we = new vscode.WorkspaceEdit();
    we.replace(schedUri, new vscode.Range(9, 0, 9, doc.lineAt(9).text.length), '        self.priority = int(priority)');
    await vscode.workspace.applyEdit(we);
    const stale = await waitFor('stale decoration', () => (api.coverage.drawn.get(schedUri.toString())?.stale >= 1 ? api.coverage.drawn.get(schedUri.toString()) : undefined)).catch((e) => e);
    check('stale line decorated', stale && stale.stale >= 1, JSON.stringify(stale));

    // 8. the ledger tool and apply_blocks (dry run)
    const ledger = await call('sightline_ledger', {});
    check('ledger lists both files', ledger.includes('src/sched.py') && ledger.includes('config.json') && ledger.includes('stale 10'), ledger);
    const blocks = await call('sightline_apply_blocks', { text: 'src/sched.py\n<<<< EDIT\n        self.delayfunc = delayfunc\n==== REPLACE\n        self.delayfunc = delayfunc  # sleeps\n>>>> EDIT END\n', dry_run: true });
    check('apply_blocks dry run validates', blocks.includes('[validated] src/sched.py'), blocks);

    // leave the screen for the screenshot: sched.py with read, authored and stale lines
    await vscode.window.showTextDocument(doc, { preview: false, selection: new vscode.Range(0, 0, 0, 0) });
    await sleep(500);
  } catch (e) {
    check('no exception', false, e && e.stack ? e.stack : e);
  }
  results.ok = results.checks.every((c) => c.ok);
  fs.writeFileSync(out + '.tmp', JSON.stringify(results, null, 2));
  fs.renameSync(out + '.tmp', out);

  // Phase 2, after the driver's screenshot: a crashing, a missing and a hanging server.
  const faults = { checks: [] };
  const fcheck = (name, ok, detail) => faults.checks.push({ name, ok: !!ok, detail: detail === undefined ? undefined : String(detail).slice(0, 2000) });
  try {
    await waitFor('the screenshot', () => fs.existsSync(out + '.screenshot-done'), 60000);
    const api = vscode.extensions.getExtension('sightline.sightline').exports;
    const cfg = () => vscode.workspace.getConfiguration('sightline');
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'sightline-fake-'));
    const crash = path.join(dir, 'crash.sh');
    fs.writeFileSync(crash, '#!/bin/sh\necho "fake sightline: crashing" >&2\nexit 3\n', { mode: 0o755 });
    const hang = path.join(dir, 'hang.sh');
    fs.writeFileSync(hang, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
    const shownBefore = api.server.shown.length;

    await cfg().update('path', crash, vscode.ConfigurationTarget.Global);
    await waitFor('three failed restarts', () => api.server.failureCount() >= 3, 20000).catch((e) => e);
    const crashMsgs = api.server.shown.slice(shownBefore);
    fcheck('crash loop: restarted with backoff', api.server.failureCount() >= 3 && api.server.state === 'restarting', `${api.server.failureCount()} failures, ${api.server.state}: ${api.server.detail}`);
    fcheck('crash loop: one message', crashMsgs.length === 1 && /Restarting it/.test(crashMsgs[0]), JSON.stringify(crashMsgs));
    const down = await invoke('sightline_read', { path: 'src/sched.py' });
    fcheck('tool call while the server is down -> readable text', /language server is not running/.test(down), down);

    const shownMissing = api.server.shown.length;
    await cfg().update('path', path.join(dir, 'no-such-sightline'), vscode.ConfigurationTarget.Global);
    await waitFor('missing state', () => api.server.state === 'missing', 10000).catch((e) => e);
    const missingMsgs = api.server.shown.slice(shownMissing);
    fcheck('missing binary: one clear message', api.server.state === 'missing' && missingMsgs.length === 1 && /not found/.test(missingMsgs[0]) && /go install/.test(missingMsgs[0]), JSON.stringify(missingMsgs));
    const t0 = Date.now();
    const missing = await invoke('sightline_edit', { path: 'src/sched.py', edits: [{ type: 'delete_line', ref: '1:aaaa' }] });
    fcheck('tool call with no server -> readable text at once', /not running \(missing/.test(missing) && Date.now() - t0 < 3000, `${Date.now() - t0} ms: ${missing}`);

    const shownHang = api.server.shown.length;
    await cfg().update('path', hang, vscode.ConfigurationTarget.Global);
    await waitFor('a hung start detected', () => api.server.failureCount() >= 1 && api.server.state === 'restarting', 15000).catch((e) => e);
    const hangMsgs = api.server.shown.slice(shownHang);
    fcheck('hanging server: detected, one message', hangMsgs.length === 1 && /did not answer initialize/.test(hangMsgs[0]), JSON.stringify(hangMsgs) + ' ' + api.server.detail);

    await cfg().update('path', undefined, vscode.ConfigurationTarget.Global);
    const back = await api.server.waitReady(20000);
    fcheck('back to the bundled server', back, `${api.server.state} ${api.server.detail}`);
    const again = await invoke('sightline_read', { path: 'src/sched.py', start: 1, end: 2 });
    fcheck('tools work again', /^1:[0-9A-Za-z]{4}\|/m.test(again), again);
  } catch (e) {
    fcheck('no exception', false, e && e.stack ? e.stack : e);
  }
  faults.ok = faults.checks.every((c) => c.ok);
  fs.writeFileSync(out + '.faults.tmp', JSON.stringify(faults, null, 2));
  fs.renameSync(out + '.faults.tmp', out + '.faults');
};
