// Side by side, in one run: the MCP filesystem server
// (@modelcontextprotocol/server-filesystem, its edit_file tool) and
// `sightline mcp` (sightline_write mode edit), both spawned over stdio and
// driven by the same client, the official MCP TypeScript SDK; and the
// sightline CLI (`sightline write --mode edit`, a process per edit). Same
// files, same edits. Prints time per edit per file size (ratios, measured in
// this run) and a correctness table judged on the bytes on disk.
//
// The files: a real one (CPython's sched.py, 168 lines) and files of 1,000,
// 10,000 and 100,000 lines of Go from the Go standard library, cut as
// `go run ./bench` cuts them. --quick (what CI runs) leaves out the
// 100,000-line file; fixture paths given as arguments replace the list.
//
//	(cd bench/peers && npm ci) && go build -o /tmp/sightline ./cmd/sightline &&
//	SIGHTLINE_BIN=/tmp/sightline node bench/peers/peers.mjs [--quick] [--edits N] [fixture...]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, readFileSync, writeFileSync, realpathSync, readdirSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, dirname, extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.SIGHTLINE_BIN;
if (!bin) { console.error('SIGHTLINE_BIN is required'); process.exit(2); }
let quick = false, N = 100;
const given = [];
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--quick') quick = true;
  else if (a === '--edits') N = Number(process.argv[++i]);
  else if (/^\d+$/.test(a)) N = Number(a); // the old form: [fixture] [edits]
  else given.push(a);
}
if (!(N >= 2)) { console.error('--edits wants a number of at least 2'); process.exit(2); }
const ws = realpathSync(mkdtempSync(join(tmpdir(), 'peers-')));
process.on('exit', () => rmSync(ws, { recursive: true, force: true }));
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
// timedEdit makes one edit of line `line` (1-based) with a peer and times
// only the edit call: sightline's read of the lines around it, which its
// guard wants, is not timed (the filesystem server has no read guard).
async function timedEdit(name, path, line, oldText, newText) {
  const [start, end] = [Math.max(1, line - 2), line + 2];
  if (name.startsWith('sightline mcp')) {
    await slServer.callTool({ name: 'sightline_read', arguments: { path, start, end } });
    const t0 = process.hrtime.bigint();
    const r = await slServer.callTool({ name: 'sightline_write', arguments: { path, mode: 'edit', old_text: oldText, content: newText } });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    return [ms, !r.isError && !/"ok":\s*false/.test(text(r))];
  }
  if (name.startsWith('sightline CLI')) {
    spawnSync(bin, ['read', `${path}:${start}-${end}`], { cwd: ws, env });
  }
  const t0 = process.hrtime.bigint();
  const ok = name.startsWith('sightline CLI')
    ? spawnSync(bin, ['write', path, '--mode', 'edit', '--old-text', oldText], { cwd: ws, env, input: newText }).status === 0
    : await peers[name](path, oldText, newText);
  return [Number(process.hrtime.bigint() - t0) / 1e6, ok];
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]; };

// goLines returns the first n lines of the Go standard library's non-test
// sources, walked in lexical order as bench/main.go walks them, so that the
// generated files are real code and the same on every run of one Go version.
function goLines(n) {
  const r = spawnSync('go', ['env', 'GOROOT'], { encoding: 'utf8' });
  if (r.status !== 0) { console.error('go env GOROOT failed: the generated sizes need Go'); process.exit(2); }
  const out = [];
  const walk = (dir) => {
    const ents = readdirSync(dir, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    for (const e of ents) {
      if (out.length >= n) return;
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'testdata' && e.name !== 'vendor') walk(p);
      } else if (e.isFile() && e.name.endsWith('.go') && !e.name.endsWith('_test.go')) {
        const ls = readFileSync(p, 'utf8').split('\n');
        if (ls[ls.length - 1] === '') ls.pop();
        out.push(...ls);
      }
    }
  };
  walk(join(r.stdout.trim(), 'src'));
  if (out.length < n) { console.error(`only ${out.length} lines of Go under GOROOT`); process.exit(2); }
  return out.slice(0, n).join('\n') + '\n';
}

// The files: [label, text, extension].
const files = [];
if (given.length) {
  for (const f of given) files.push([f.split('/').slice(-2).join('/'), readFileSync(f, 'utf8'), extname(f)]);
} else {
  files.push(['realworld/sched.py (CPython)', readFileSync(join(here, '../../testdata/realworld/sched.py'), 'utf8'), '.py']);
  const sizes = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const go = goLines(sizes[sizes.length - 1]).split('\n');
  for (const n of sizes) files.push([`${n.toLocaleString('en-US')} lines of Go stdlib`, go.slice(0, n).join('\n') + '\n', '.go']);
}

// Timing: per file, N edits of one line (unique in the file, in its second
// half), toggled back and forth; the first edit of each tool is not counted
// (connection and caches warm up).
const names = Object.keys(peers);
const mcpName = 'sightline mcp (sightline_write mode edit)';
const timing = [];
for (const [fi, [label, src, ext]] of files.entries()) {
  const lines = src.split('\n');
  const count = new Map();
  for (const l of lines) count.set(l, (count.get(l) || 0) + 1);
  const target = lines.findIndex((l, i) => i > lines.length / 2 && l.trim().length > 12 && count.get(l) === 1);
  if (target < 0) { console.error(`${label}: no unique line to edit`); process.exit(1); }
  const a = lines[target], b = lines[target] + ' # edited';
  const res = {};
  for (const [pi, name] of names.entries()) {
    // Fixed names per file and tool: sightline keeps its ledger per path.
    const path = join(ws, `timing-${fi}-${pi}${ext}`);
    writeFileSync(path, src);
    const ms = [];
    for (let i = 0; i < N; i++) {
      const [t, ok] = await timedEdit(name, path, target + 1, i % 2 ? b : a, i % 2 ? a : b);
      if (!ok) { console.error(`${name}: ${label}: edit ${i} refused`); process.exit(1); }
      if (i > 0) ms.push(t);
    }
    // Each tool must have left the bytes it was asked to (N edits toggle).
    const want = N % 2 ? lines.map((l, i) => (i === target ? b : l)).join('\n') : src;
    if (readFileSync(path, 'utf8') !== want) { console.error(`${name}: ${label}: the file is not what the edits make`); process.exit(1); }
    res[name] = { p50: pct(ms, 0.5), p99: pct(ms, 0.99), n: ms.length };
  }
  timing.push([label, lines.length - (src.endsWith('\n') ? 1 : 0), res]);
}
console.log(`\nTime per edit: ${N} edits of one line per file (the first not counted), each tool over its own connection, this run:\n`);
console.log('| file | lines | tool | p50 | p99 | p50 vs sightline mcp |\n| --- | ---: | --- | ---: | ---: | ---: |');
for (const [label, n, res] of timing) {
  for (const name of names) {
    const r = res[name];
    console.log(`| ${label} | ${n} | ${name} | ${r.p50.toFixed(2)} ms | ${r.p99.toFixed(2)} ms | ${(r.p50 / res[mcpName].p50).toFixed(2)}× |`);
  }
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
