// The real-editor test: code-server (VS Code 1.100 in a browser) driven by
// headless Chromium through playwright-core. The sightline extension and a
// test extension (../e2e-ext, which plays the agent panel) run in it; this
// script starts everything, clicks the tools' confirmation dialogs, waits for
// the test extension's results, takes a screenshot and exits non-zero on any
// failed check.
//
//   CODE_SERVER_DIR  where install-code-server.sh installed code-server (default: <repo>/.cache/code-server)
//   SIGHTLINE_VSIX   the .vsix to test (default: the unpacked editors/vscode, with dist/ built)
//   SIGHTLINE_BIN    the server binary, when the extension bundles none (sets sightline.path)
//   CHROMIUM         the browser (default /usr/bin/chromium)
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const extRoot = resolve(here, '..', '..');
const repo = resolve(extRoot, '..', '..');
const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const log = (...a) => console.log(`[e2e ${elapsed()}]`, ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const codeServerDir = resolve(process.env.CODE_SERVER_DIR || join(repo, '.cache', 'code-server'));
const codeServer = join(codeServerDir, 'node_modules', '.bin', 'code-server');
if (!existsSync(codeServer)) {
  console.error(`code-server not found at ${codeServer}: run test/install-code-server.sh ${codeServerDir}`);
  process.exit(2);
}
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
const outDir = join(extRoot, 'test', 'out');
mkdirSync(outDir, { recursive: true });

const tmp = mkdtempSync(join(os.tmpdir(), 'sightline-e2e-'));
const ws = join(tmp, 'workspace');
const extDir = join(tmp, 'extensions');
const userDir = join(tmp, 'user');
const resultsFile = join(tmp, 'results.json');
cpSync(join(here, '..', 'fixtures', 'workspace'), ws, { recursive: true });
mkdirSync(extDir, { recursive: true });
mkdirSync(join(userDir, 'User'), { recursive: true });

const pkg = JSON.parse(readFileSync(join(extRoot, 'package.json'), 'utf8'));
const sightlineExt = join(extDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
if (process.env.SIGHTLINE_VSIX) {
  await unzipExtension(resolve(process.env.SIGHTLINE_VSIX), sightlineExt);
  log(`installed ${process.env.SIGHTLINE_VSIX}`);
} else {
  if (!existsSync(join(extRoot, 'dist', 'extension.js'))) {
    console.error('dist/extension.js is missing: run npm run build (or set SIGHTLINE_VSIX)');
    process.exit(2);
  }
  for (const f of ['package.json', 'dist', 'media', 'bin']) {
    if (existsSync(join(extRoot, f))) cpSync(join(extRoot, f), join(sightlineExt, f), { recursive: true });
  }
}
cpSync(join(here, '..', 'e2e-ext'), join(extDir, 'sightline.sightline-e2e-0.0.1'), { recursive: true });

const settings = {
  'workbench.startupEditor': 'none',
  'workbench.colorTheme': 'Default Dark Modern',
  'workbench.tips.enabled': false,
  'security.workspace.trust.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'editor.minimap.enabled': false,
  'chat.commandCenter.enabled': false,
  'window.commandCenter': false,
};
if (process.env.SIGHTLINE_BIN) settings['sightline.path'] = resolve(process.env.SIGHTLINE_BIN);
writeFileSync(join(userDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));

const port = await freePort();
const serverLog = join(outDir, 'code-server.log');
const logStream = createWriteStream(serverLog);
await new Promise((r) => logStream.on('open', r));
const cs = spawn(
  codeServer,
  ['--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--extensions-dir', extDir, '--user-data-dir', userDir, ws],
  {
    detached: true, // its own process group: stopped as a whole below
    stdio: ['ignore', logStream, logStream],
    env: { ...process.env, SIGHTLINE_E2E_RESULTS: resultsFile, SIGHTLINE_START_TIMEOUT_MS: '2000', XDG_STATE_HOME: join(tmp, 'state'), XDG_CONFIG_HOME: join(tmp, 'config') },
  },
);
let browser;
let failed = [];
let results;
const dialogs = [];
try {
  await waitHttp(`http://127.0.0.1:${port}/healthz`, 30000);
  log(`code-server up on port ${port}`);
  browser = await chromium.launch({
    executablePath: browserPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  log('workbench loaded');

  // Play the user: confirm each tool confirmation dialog, keeping its text.
  const deadline = Date.now() + 120000;
  while (!existsSync(resultsFile)) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the test extension results');
    if (cs.exitCode !== null) throw new Error(`code-server exited with ${cs.exitCode}`);
    const box = page.locator('.monaco-dialog-box');
    if (await box.count()) {
      const text = await box.first().innerText().catch(() => '');
      const buttons = box.first().locator('.dialog-buttons .monaco-button');
      const labels = await buttons.allInnerTexts().catch(() => []);
      const i = Math.max(0, labels.findIndex((l) => /^(yes|ok|continue|allow|confirm)/i.test(l.trim())));
      dialogs.push({ text, buttons: labels });
      log(`dialog: ${JSON.stringify(text.split('\n')[0])} -> ${labels[i]}`);
      await buttons.nth(i).click().catch(() => {});
      await sleep(300);
    }
    await sleep(100);
  }
  results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  await sleep(1200); // let the last decorations paint
  await page.screenshot({ path: join(outDir, 'highlights.png') });
  log(`screenshot ${join(outDir, 'highlights.png')}`);

  // phase 2: the test extension breaks the server in three ways
  writeFileSync(resultsFile + '.screenshot-done', '');
  const faultsFile = resultsFile + '.faults';
  const fdeadline = Date.now() + 90000;
  while (!existsSync(faultsFile)) {
    if (Date.now() > fdeadline) throw new Error('timed out waiting for the fault results');
    await sleep(200);
  }
  const faults = JSON.parse(readFileSync(faultsFile, 'utf8'));
  const toasts = await page.locator('.notification-toast').allInnerTexts().catch(() => []);
  results.checks.push(...faults.checks);
  results.checks.push({
    name: 'no error storm: no notification from the client itself',
    ok: !toasts.some((t) => /couldn't create connection|Connection to server got closed|server crashed/i.test(t)),
    detail: toasts.join('\n---\n'),
  });
  log('fault scenarios done');

  // the confirmation dialogs showed what the writes would do
  // (the dialog renders the markdown as plain text and collapses runs of spaces)
  const flat = (s) => s.replace(/\s+/g, ' ');
  const diffShown = dialogs.some((d) => flat(d.text).includes('- self._queue = [] + self._queue = [] # heap of Event'));
  results.checks.push({ name: 'confirmation dialog shows the dry-run diff', ok: diffShown, detail: dialogs.map((d) => d.text).join('\n---\n').slice(0, 2000) });
  results.checks.push({ name: 'refused or invalid calls asked nothing (3 write dialogs)', ok: dialogs.length === 3, detail: `${dialogs.length} dialogs` });
  failed = results.checks.filter((c) => !c.ok);
} catch (e) {
  failed.push({ name: 'driver', ok: false, detail: e.stack || String(e) });
} finally {
  if (browser) await browser.close().catch(() => {});
  try {
    process.kill(-cs.pid, 'SIGTERM');
  } catch {}
  await sleep(500);
  try {
    process.kill(-cs.pid, 'SIGKILL');
  } catch {}
}

if (results) {
  writeFileSync(join(outDir, 'results.json'), JSON.stringify({ ...results, dialogs }, null, 2));
  for (const c of results.checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? '' : `\n      ${String(c.detail).replace(/\n/g, '\n      ')}`}`);
  const t = results.timings || {};
  console.log(`edit round trip (tool invoke -> editor buffer changed): ${t.editRoundTripMs} ms; tool answered after ${t.editAnswerMs} ms (including the ${300} ms diagnostics settle)`);
}
for (const f of failed.filter((f) => f.name === 'driver')) console.log(`FAIL driver: ${f.detail}`);
console.log(`e2e ${failed.length ? 'FAILED' : 'passed'} in ${elapsed()} (logs: ${serverLog})`);
rmSync(tmp, { recursive: true, force: true });
process.exit(failed.length ? 1 : 0);

function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

async function waitHttp(url, ms) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {}
    if (Date.now() > end) throw new Error(`${url} did not answer within ${ms} ms`);
    await sleep(200);
  }
}

// A .vsix is a zip whose extension/ folder is the installed extension.
function unzipExtension(vsix, dest) {
  const yauzl = require('yauzl');
  return new Promise((res, rej) => {
    yauzl.open(vsix, { lazyEntries: true }, (err, zip) => {
      if (err) return rej(err);
      zip.on('error', rej);
      zip.on('end', res);
      zip.on('entry', (entry) => {
        if (!entry.fileName.startsWith('extension/') || entry.fileName.endsWith('/')) return zip.readEntry();
        const file = join(dest, entry.fileName.slice('extension/'.length));
        mkdirSync(dirname(file), { recursive: true });
        zip.openReadStream(entry, (e, stream) => {
          if (e) return rej(e);
          const mode = (entry.externalFileAttributes >>> 16) & 0o777;
          const w = createWriteStream(file, { mode: mode || 0o644 });
          w.on('close', () => zip.readEntry());
          stream.pipe(w);
        });
      });
      zip.readEntry();
    });
  });
}
