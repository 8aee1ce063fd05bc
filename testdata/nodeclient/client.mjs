// A real LSP client (vscode-languageserver-protocol, the library VS Code's
// client is built on) spawning `sightline serve` over stdio. Driven by
// TestNodeClient in the Go tests: SIGHTLINE_BIN is the binary, WORKSPACE a
// folder holding demo.py. Exits non-zero with a message on the first failed
// check.
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter,
  InitializeRequest, InitializedNotification, DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification, PublishDiagnosticsNotification, ShutdownRequest,
  ExitNotification, CodeLensRequest, HoverRequest, ApplyWorkspaceEditRequest,
} from 'vscode-languageserver-protocol/node.js';

const bin = process.env.SIGHTLINE_BIN;
const ws = process.env.WORKSPACE;
const fail = (msg) => { console.error('FAIL: ' + msg); process.exit(1); };
const check = (cond, msg) => { if (!cond) fail(msg); else console.log('ok  ' + msg); };
const timeout = setTimeout(() => fail('timed out'), 20000);

const child = spawn(bin, ['serve', '--log-level', 'debug', '--state-dir', join(ws, '.state')], { cwd: ws, stdio: ['pipe', 'pipe', 'inherit'] });
const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
const diagnostics = new Map();
const waiters = [];
conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
  diagnostics.set(p.uri, p.diagnostics);
  for (const w of waiters.splice(0)) w();
});
const coverage = [];
conn.onNotification('sightline/coverage', (p) => { coverage.push(p); for (const w of waiters.splice(0)) w(); });
conn.onRequest(ApplyWorkspaceEditRequest.type, () => ({ applied: false, failureReason: 'not in this test' }));
conn.listen();
const until = async (cond) => { while (!cond()) await new Promise((r) => waiters.push(r)); };

const root = pathToFileURL(ws).href;
const uri = pathToFileURL(join(ws, 'demo.py')).href;
const text = readFileSync(join(ws, 'demo.py'), 'utf8');

const init = await conn.sendRequest(InitializeRequest.type, {
  processId: process.pid, rootUri: root, workspaceFolders: [{ uri: root, name: 'ws' }],
  capabilities: { general: { positionEncodings: ['utf-16'] }, workspace: { applyEdit: true } },
  clientInfo: { name: 'node-vscode-languageserver-protocol' },
});
check(init.capabilities.positionEncoding === 'utf-16', 'position encoding negotiated: utf-16');
check(init.capabilities.textDocumentSync.change === 2, 'incremental sync advertised');
conn.sendNotification(InitializedNotification.type, {});
conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'python', version: 1, text } });

const res = await conn.sendRequest('sightline/read', { textDocument: { uri }, range: { start: 1, end: 5 }, agent: 'node' });
check(res.ok === true && res.range.start === 1 && res.range.end === 5, 'sightline/read returned lines 1-5');
check(/^1:[0-9A-Za-z]{4}\|/.test(res.content), 'content is hashline-annotated');
check(res.ledger.state === 'partial_read', 'ledger state partial_read');
check(res.version === 1 && res.fileHash.startsWith('sha256:'), 'version and fileHash');

await until(() => (diagnostics.get(uri) || []).some((d) => d.code === 'unread'));
const unread = diagnostics.get(uri).find((d) => d.code === 'unread');
check(unread.range.start.line === 5 && /contains: .*class scheduler/.test(unread.message), 'unread diagnostic names what lines 6.. contain: ' + unread.message);

// The user types é on line 3 (0-based 2): that line goes stale.
conn.sendNotification(DidChangeTextDocumentNotification.type, {
  textDocument: { uri, version: 2 },
  contentChanges: [{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: 'é' }],
});
const led = await conn.sendRequest('sightline/ledger', { textDocument: { uri } });
const doc = led.documents[0];
check(doc.state === 'stale' && doc.stale.length === 1 && doc.stale[0].start === 3 && doc.stale[0].end === 3, 'typed line 3 is stale');
await until(() => (diagnostics.get(uri) || []).some((d) => d.code === 'stale'));
check(diagnostics.get(uri).find((d) => d.code === 'stale').severity === 2, 'stale diagnostic is a warning');
await until(() => coverage.some((c) => c.uri === uri && c.state === 'stale'));
check(true, 'sightline/coverage notification received');

const lens = await conn.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
check(lens.length === 1 && /^Agent read 4\/\d+ lines · 1 stale range$/.test(lens[0].command.title), 'code lens: ' + (lens[0] && lens[0].command.title));
const hover = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 0 } });
check(hover && /node read lines 1-5/.test(hover.contents.value), 'hover names the reader');

// This client refuses workspace edits: the edit is a version_conflict and
// nothing changes.
const first = await conn.sendRequest('sightline/read', { textDocument: { uri }, range: { start: 1, end: 1 } });
const ref1 = first.content.match(/^(\d+:[0-9A-Za-z]{4})\|/)[1];
const refusedEdit = await conn.sendRequest('sightline/edit', { textDocument: { uri }, edits: [{ type: 'delete_line', ref: ref1 }] });
check(refusedEdit.ok === false && refusedEdit.error === 'version_conflict', 'edit refused by the client is version_conflict: ' + refusedEdit.message);

let unknown = null;
try { await conn.sendRequest('sightline/nope', {}); } catch (e) { unknown = e.code; }
check(unknown === -32601, 'unknown method is -32601');
let bad = null;
try { await conn.sendRequest('sightline/read', { textDocument: 5 }); } catch (e) { bad = e.code; }
check(bad === -32602, 'bad params are -32602');

await conn.sendRequest(ShutdownRequest.type);
conn.sendNotification(ExitNotification.type);
const code = await exited;
check(code === 0, 'exit code 0 after shutdown');
clearTimeout(timeout);
conn.dispose();
