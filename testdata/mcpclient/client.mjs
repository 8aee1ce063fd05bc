// A real MCP client (the official TypeScript SDK, @modelcontextprotocol/sdk)
// spawning `sightline mcp` over stdio. Driven by TestMCPClient in the Go
// tests: SIGHTLINE_BIN is the binary, WORKSPACE a folder holding demo.py
// (CPython's sched.py). Exits non-zero with a message on the first failed
// check.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

const bin = process.env.SIGHTLINE_BIN;
const ws = process.env.WORKSPACE;
const fail = (msg) => { console.error('FAIL: ' + msg); process.exit(1); };
const check = (cond, msg) => { if (!cond) fail(msg); else console.log('ok  ' + msg); };
setTimeout(() => fail('timed out'), 20000).unref();

const transport = new StdioClientTransport({ command: bin, args: ['mcp'], cwd: ws, env: process.env, stderr: 'inherit' });
const client = new Client({ name: 'sightline-mcpclient-test', version: '1.0.0' });
await client.connect(transport);

const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
const call = (name, args) => client.callTool({ name, arguments: args });
const refOf = (out, line) => {
  const m = out.match(new RegExp('^' + line + ':([0-9A-Za-z]{4})\\|', 'm'));
  return m ? `${line}:${m[1]}` : null;
};
// hashline's hash (PROTOCOL section 2), computed here independently, so the
// test can name a line the model never read: base62 of
// (crc32(line) & 0xFFFFFF) % 62^4, four digits.
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const hashOf = (line) => {
  let v = (crc32(Buffer.from(line, 'utf8')) & 0xffffff) % 62 ** 4;
  let s = '';
  for (let i = 0; i < 4; i++) { s = B62[v % 62] + s; v = Math.floor(v / 62); }
  return s;
};
const disk = () => readFileSync(join(ws, 'demo.py'), 'utf8');

// The tools, their schemas and annotations.
const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
for (const n of ['sightline_read', 'sightline_edit', 'sightline_apply_blocks', 'sightline_write', 'sightline_ledger', 'sightline_summary']) {
  check(byName[n] && byName[n].inputSchema.type === 'object' && byName[n].description.length > 40, `tool ${n} listed with a schema and a description`);
}
check(byName.sightline_read.annotations.readOnlyHint === true, 'sightline_read is read-only');
check(byName.sightline_edit.annotations.readOnlyHint === false && byName.sightline_edit.annotations.destructiveHint === true, 'sightline_edit is destructive');
check(JSON.stringify(byName.sightline_edit.inputSchema.required) === '["path","edits"]', 'sightline_edit requires path and edits');

// A read of a range: hashline lines.
let res = await call('sightline_read', { path: 'demo.py', start: 1, end: 10 });
let out = text(res);
check(!res.isError && /^1:[0-9A-Za-z]{4}\|/m.test(out) && /^10:/m.test(out) && !/^11:/m.test(out), 'read 1-10 answers hashline lines 1-10');
const before = disk();
const line3 = before.split('\n')[2];

// A dry run changes nothing.
const r3 = refOf(out, 3);
res = await call('sightline_edit', { path: 'demo.py', edits: [{ type: 'replace_line', ref: r3, new_content: line3 + '  # dry' }], dry_run: true });
check(!res.isError && text(res).includes('+' + line3 + '  # dry') && disk() === before, 'a dry run shows the diff and changes nothing');

// An edit by ref.
res = await call('sightline_edit', { path: 'demo.py', edits: [{ type: 'replace_line', ref: r3, new_content: line3 + '  # edited' }] });
out = text(res);
check(!res.isError && disk().split('\n')[2] === line3 + '  # edited', 'an edit by ref applies');
check(/now \(fresh refs/.test(out) && refOf(out, 3) !== r3, 'the edit answers the window with fresh refs');

// A refusal is a tool error carrying the model-ready message and fresh refs.
res = await call('sightline_edit', { path: 'demo.py', edits: [{ type: 'replace_line', ref: r3, new_content: 'x' }] });
out = text(res);
check(res.isError === true && out.startsWith('stale_ref: ') && /fresh refs/.test(out) && refOf(out, 3), 'a stale ref is isError with fresh refs');

// The guard trips on unread lines and returns them; the retry succeeds.
const lines = disk().split('\n');
const target = 60;
const exact = `${target}:${hashOf(lines[target - 1])}`; // right, but never shown to this session
check(refOf(out, 1) === `1:${hashOf(lines[0])}`, 'the hash computed here agrees with the server');
res = await call('sightline_edit', { path: 'demo.py', edits: [{ type: 'replace_line', ref: exact, new_content: lines[target - 1] + '  # guarded' }] });
out = text(res);
let fresh = refOf(out, target);
check(res.isError === true && out.startsWith('unread_range: Line 60 ') && /expanded \(60/.test(out) && fresh, 'an edit of an unread line trips the guard, which returns the line expanded');
res = await call('sightline_edit', { path: 'demo.py', edits: [{ type: 'replace_line', ref: fresh, new_content: lines[target - 1] + '  # guarded' }] });
check(!res.isError && disk().split('\n')[target - 1].endsWith('  # guarded'), 'the retry with the expanded ref succeeds');

// A write-mode guard trip: old_text in unread lines, auto-expanded, retried.
const far = lines[120];
res = await call('sightline_write', { path: 'demo.py', mode: 'edit', old_text: far, content: far + '  # written' });
out = text(res);
check(res.isError === true && out.startsWith('unread_range: ') && /expanded \(/.test(out), 'a write to unread lines trips the guard and expands them');
res = await call('sightline_write', { path: 'demo.py', mode: 'edit', old_text: far, content: far + '  # written' });
check(!res.isError && disk().includes(far + '  # written'), 'the retried write succeeds');

// The ledger reports what was read.
res = await call('sightline_ledger', { path: 'demo.py' });
check(!res.isError && /demo\.py\s+partial_read/.test(text(res)), 'the ledger reports a partial read');

// A patch: the lines around line 60 were read (expanded); a unified diff of
// one of them applies, the same diff again is refused and changes nothing.
const l59 = disk().split('\n')[58], l60 = disk().split('\n')[59], l61 = disk().split('\n')[60];
const diff = `--- a/demo.py\n+++ b/demo.py\n@@ -59,3 +59,3 @@\n ${l59}\n-${l60}\n+${l60}  # patched\n ${l61}\n`;
check(byName.sightline_apply_patch && byName.sightline_apply_patch.annotations.destructiveHint === true, 'tool sightline_apply_patch listed, destructive');
res = await call('sightline_apply_patch', { patch: diff });
check(!res.isError && disk().split('\n')[59] === l60 + '  # patched', 'a unified diff applies through sightline_apply_patch');
const afterPatch = disk();
res = await call('sightline_apply_patch', { patch: diff });
check(res.isError === true && disk() === afterPatch, 'the same patch again is refused and changes nothing');

// The registry and history tools.
res = await call('sightline_files', { globs: ['*.py'] });
check(!res.isError && /demo\.py\s+\d+ bytes\s+code\s+partial_read/.test(text(res)), 'sightline_files lists demo.py with its ledger state');
res = await call('sightline_history', { path: 'demo.py' });
check(!res.isError && /sightline\/applyPatch/.test(text(res)), 'sightline_history lists the versions the writes recorded');

// Outside the workspace: refused.
res = await call('sightline_read', { path: '../../etc/passwd' });
check(res.isError === true && text(res).startsWith('denied: '), 'a path outside the workspace is denied');

await client.close();
console.log('ok  mcp client done');
process.exit(0);
