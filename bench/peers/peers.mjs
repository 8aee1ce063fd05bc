// Side by side, in one run: the MCP filesystem server
// (@modelcontextprotocol/server-filesystem, its edit_file tool) and
// `sightline mcp` (sightline_write mode edit), both spawned over stdio and
// driven by the same client, the official MCP TypeScript SDK; and the
// sightline CLI (`sightline write --mode edit`, a process per edit). Same
// files, same edits. Prints time per edit (ratios, measured in this run) and
// a correctness table judged on the bytes on disk.
//
//	(cd bench/peers && npm ci) && go build -o /tmp/sightline ./cmd/sightline &&
//	SIGHTLINE_BIN=/tmp/sightline node bench/peers/peers.mjs [fixture] [edits]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, readFileSync, writeFileSync, realpathSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.SIGHTLINE_BIN;
if (!bin) { console.error('SIGHTLINE_BIN is required'); process.exit(2); }
const fixture = process.argv[2] || join(here, '../../testdata/realworld/sched.py');
const N = Number(process.argv[3] || 100);
const ws = realpathSync(mkdtempSync(join(tmpdir(), 'peers-')));
spawnSync('git', ['init', '-q', ws]);
const env = { ...process.env, XDG_STATE_HOME: join(ws, '.state'), SIGHTLINE_NO_BRIDGE: '1' };

async function connect(command, args) {
  const client = new Client({ name: 'sightline-bench-peers', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, cwd: ws, env, stderr: 'ignore' }));
  return client;
}
const fsServer = await connect(process.execPath, [join(here, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), ws]);
const slServer = await connect(bin, ['mcp']);
const text = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');

// The three ways to make one str_replace edit. Each returns whether the tool
// said it applied.
const peers = {
  'MCP filesystem server (edit_file)': async (path, oldText, newText) => {
    const r = await fsServer.callTool({ name: 'edit_file', arguments: { path, edits: [{ oldText, newText }] } });
    return !r.isError;
  },
  'sightline mcp (sightline_write mode edit)': async (path, oldText, newText) => {
    await slServer.callTool({ name: 'sightline_read', arguments: { path } }); // the guard wants it read; not timed below
    const r = await slServer.callTool({ name: 'sightline_write', arguments: { path, mode: 'edit', old_text: oldText, content: newText } });
    return !r.isError && !/"ok":\s*false/.test(text(r));
  },
  'sightline CLI (write --mode edit)': async (path, oldText, newText) => {
    spawnSync(bin, ['read', path], { cwd: ws, env });
    const r = spawnSync(bin, ['write', path, '--mode', 'edit', '--old-text', oldText], { cwd: ws, env, input: newText });
    return r.status === 0;
  },
};
// timed wraps a peer so that only the edit call is timed (sightline's read
// before it is not: the filesystem server has no read guard).
async function timedEdit(name, path, oldText, newText) {
  if (name.startsWith('sightline mcp')) {
    await slServer.callTool({ name: 'sightline_read', arguments: { path } });
    const t0 = process.hrtime.bigint();
    const r = await slServer.callTool({ name: 'sightline_write', arguments: { path, mode: 'edit', old_text: oldText, content: newText } });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    return [ms, !r.isError && !/"ok":\s*false/.test(text(r))];
  }
  if (name.startsWith('sightline CLI')) {
    spawnSync(bin, ['read', path], { cwd: ws, env });
  }
  const t0 = process.hrtime.bigint();
  const ok = name.startsWith('sightline CLI')
    ? spawnSync(bin, ['write', path, '--mode', 'edit', '--old-text', oldText], { cwd: ws, env, input: newText }).status === 0
    : await peers[name](path, oldText, newText);
  return [Number(process.hrtime.bigint() - t0) / 1e6, ok];
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

// Timing: N edits of one line of the fixture, toggled back and forth.
const src = readFileSync(fixture, 'utf8');
const lines = src.split('\n');
const target = lines.findIndex((l, i) => l.trim().length > 12 && lines.indexOf(l) === i && lines.lastIndexOf(l) === i && i > lines.length / 2);
const a = lines[target], b = lines[target] + ' # edited';
const p50 = {};
for (const name of Object.keys(peers)) {
  const path = join(ws, 'timing-' + Object.keys(peers).indexOf(name) + '.txt');
  writeFileSync(path, src);
  const ms = [];
  for (let i = 0; i < N; i++) {
    const [t, ok] = await timedEdit(name, path, i % 2 ? b : a, i % 2 ? a : b);
    if (!ok) { console.error(`${name}: edit ${i} refused`); process.exit(1); }
    if (i > 0) ms.push(t);
  }
  p50[name] = pct(ms, 0.5);
  p50[name + ' p99'] = pct(ms, 0.99);
}
const base = p50['sightline mcp (sightline_write mode edit)'];
console.log(`\nTime per edit: ${N} edits of one line of ${fixture.split('/').slice(-2).join('/')} (${lines.length} lines), each tool over its own connection, this run:\n`);
console.log('| tool | p50 | p99 | p50 vs sightline mcp |\n| --- | ---: | ---: | ---: |');
for (const name of Object.keys(peers)) {
  console.log(`| ${name} | ${p50[name].toFixed(2)} ms | ${p50[name + ' p99'].toFixed(2)} ms | ${(p50[name] / base).toFixed(2)}× |`);
}

// Correctness: each case is a file, an edit, and the bytes it must become
// (null: the edit must be refused, the file left as it was).
const cases = [
  { what: 'plain edit, byte-exact result', file: 'a\n\tb := 1\nc\n', old: '\tb := 1\n', neu: '\tb := 2\n', want: 'a\n\tb := 2\nc\n' },
  { what: 'CRLF file keeps CRLF', file: 'a\r\nb\r\nc\r\n', old: 'b\n', neu: 'B\n', want: 'a\r\nB\r\nc\r\n' },
  { what: 'BOM kept', file: '\uFEFFa\nb\nc\n', old: 'b\n', neu: 'B\n', want: '\uFEFFa\nB\nc\n' },
  { what: 'no final newline stays so', file: 'a\nb\nc', old: 'c', neu: 'C', want: 'a\nb\nC' },
  { what: 'final newline kept', file: 'a\nb\nc\n', old: 'c\n', neu: 'C\n', want: 'a\nb\nC\n' },
  { what: 'old text occurs twice: refused, not applied at the first', file: 'x\n\treturn nil\ny\n\treturn nil\n', old: '\treturn nil\n', neu: '\treturn err\n', want: null },
  { what: 'whitespace-only mismatch (spaces for a tab): refused, not applied silently', file: 'a\n\tb := 1\nc\n', old: '    b := 1\n', neu: '    b := 2\n', want: null, ws: true },
  { what: 'the same, old text without its final newline', file: 'a\n\tb := 1\nc\n', old: '    b := 1', neu: '    b := 2', want: null, ws: true },
];
console.log('\nCorrectness (judged on the bytes on disk after the call):\n');
console.log('| case | ' + Object.keys(peers).join(' | ') + ' |\n| --- |' + Object.keys(peers).map(() => ' --- |').join(''));
let k = 0;
for (const c of cases) {
  const row = [];
  for (const name of Object.keys(peers)) {
    const path = join(ws, `case-${k++}.txt`);
    writeFileSync(path, c.file);
    const ok = await peers[name](path, c.old, c.neu);
    const got = readFileSync(path, 'utf8');
    let verdict;
    if (c.want === null) {
      verdict = got === c.file ? (ok ? 'left unchanged (said ok)' : 'refused') : 'applied';
      if (got !== c.file && got.indexOf(c.neu.trim()) === c.file.indexOf(c.old.trim())) verdict = 'applied at the first match';
      if (got !== c.file && c.ws) verdict = 'applied silently';
    } else {
      verdict = got === c.want ? 'exact' : `wrong: ${JSON.stringify(got)}`;
    }
    row.push(verdict);
  }
  console.log(`| ${c.what} | ${row.join(' | ')} |`);
}
await fsServer.close();
await slServer.close();
