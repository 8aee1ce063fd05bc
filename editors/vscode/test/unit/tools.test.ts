// The generic agent tool (src/tools.ts) against a stand-in for VS Code and a
// scripted server: which request a tool sends, with which params, and what
// the model reads back.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Module from 'node:module';
import { resolve } from 'node:path';
import { test } from 'node:test';

const registered: string[] = [];
const settings: Record<string, unknown> = {};
const vscodeStub = {
  LanguageModelTextPart: class {
    constructor(readonly value: string) {}
  },
  LanguageModelToolResult: class {
    constructor(readonly content: { value: string }[]) {}
  },
  MarkdownString: class {
    constructor(readonly value: string) {}
  },
  workspace: { getConfiguration: () => ({ get: (k: string, d?: unknown) => (k in settings ? settings[k] : d) }) },
  lm: {
    registerTool: (name: string) => {
      registered.push(name);
      return { dispose() {} };
    },
  },
};
const load = (Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown })._load;
(Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown })._load = (req: string, ...rest: unknown[]) =>
  req === 'vscode' ? vscodeStub : load(req, ...rest);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { registerTools } = require('../../src/tools') as typeof import('../../src/tools');

interface Sent {
  method: string;
  params: Record<string, unknown>;
}

/** A ToolHost whose server answers from a script, by call. */
function host(answers: ((s: Sent) => Record<string, unknown>)[]) {
  const sent: Sent[] = [];
  const h = {
    sent,
    session: () => 'default',
    uri: (p: string) => ({ fsPath: p.startsWith('/') ? p : `/w/${p}` }),
    request: async (method: string, params: Record<string, unknown>) => {
      const s = { method, params };
      sent.push(s);
      const next = answers.shift();
      if (!next) throw new Error('no answer scripted');
      return next(s);
    },
    diagnosticsFor: async (uri: { fsPath: string }, ranges: unknown) => `diagnostics of ${uri.fsPath} ${JSON.stringify(ranges)}\n`,
  };
  return h;
}

const token = {} as never;
const textOf = (r: unknown) => (r as { content: { value: string }[] }).content.map((p) => p.value).join('');
const toolsFile = JSON.parse(readFileSync(resolve('tools.json'), 'utf8')) as { tools: { name: string; method: string }[] };

test('every tool of tools.json is registered, calling its method with the model\'s arguments', async () => {
  const h = host([() => ({ ok: true, text: 'a.ts lines 3-4 of 9 (on disk, file_hash sha256:x)\n3:abcd|x\n' })]);
  const { tools } = registerTools(h as never);
  assert.deepEqual(registered, toolsFile.tools.map((t) => t.name));
  assert.deepEqual(Object.keys(tools), registered);
  const out = await tools.sightline_read.invoke({ input: { path: 'a.ts', start: 3, end: '4' } } as never, token);
  assert.deepEqual(h.sent, [
    { method: 'sightline/read', params: { arguments: { path: '/w/a.ts', start: 3, end: '4' }, session: 'default', agent: 'vscode-agent' } },
  ]);
  assert.equal(textOf(out), 'a.ts lines 3-4 of 9 (on disk, file_hash sha256:x)\n3:abcd|x\n', 'the server\'s text, as it is');
  for (const t of toolsFile.tools) assert.equal(tools[t.name].spec.method, t.method);
});

test('a write: confirmed on its dry run\'s text, then run; the diagnostics of the lines written follow', async () => {
  const diff = '--- a/a.ts\n+++ b/a.ts\n@@ -2 +2 @@\n-b\n+B\n';
  const h = host([
    () => ({ ok: true, dryRun: true, applied: false, path: 'a.ts', diff, text: 'Dry run: 1 edit.\n' + diff }),
    () => ({ ok: true, applied: true, path: 'a.ts', diff, text: 'Applied 1 edit to a.ts.\n' + diff }),
  ]);
  const { tools } = registerTools(h as never);
  const input = { path: 'a.ts', edits: [{ type: 'replace_line', ref: '2:abcd', new_content: 'B' }] };
  const prep = await tools.sightline_edit.prepareInvocation({ input } as never, token);
  assert.deepEqual(h.sent[0].params.arguments, { ...input, path: '/w/a.ts', dry_run: true });
  assert.match((prep as { confirmationMessages: { message: { value: string } } }).confirmationMessages.message.value, /A dry run says:\n\n```diff\nDry run: 1 edit\.\n--- a\/a\.ts/);
  const out = await tools.sightline_edit.invoke({ input } as never, token);
  assert.deepEqual(h.sent[1].params.arguments, { ...input, path: '/w/a.ts' });
  assert.equal(textOf(out), 'Applied 1 edit to a.ts.\n' + diff + 'a.ts: diagnostics of /w/a.ts [{"start":2,"end":2}]\n');
});

test('a dry run refused is the answer of the call that follows: it writes nothing', async () => {
  const h = host([() => ({ ok: false, error: 'unread_range', text: 'unread_range: Line 9 was not read.\n' })]);
  const { tools } = registerTools(h as never);
  const input = { text: 'a.ts\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END\n' };
  const prep = await tools.sightline_apply_blocks.prepareInvocation({ input } as never, token);
  assert.match((prep as { invocationMessage: string }).invocationMessage, /\(refused\)$/);
  const out = await tools.sightline_apply_blocks.invoke({ input } as never, token);
  assert.equal(h.sent.length, 1, 'no second request');
  assert.match(textOf(out), /^unread_range: Line 9 was not read\.\nNothing was written/);
});

test('no confirmation when the user turned it off, or for a dry run the model asked for', async () => {
  const h = host([]);
  const { tools } = registerTools(h as never);
  const prep = await tools.sightline_write.prepareInvocation({ input: { path: 'a', mode: 'append', content: 'x', dry_run: true } } as never, token);
  assert.equal((prep as { confirmationMessages?: unknown }).confirmationMessages, undefined);
  settings.confirmWrites = false;
  const prep2 = await tools.sightline_write.prepareInvocation({ input: { path: 'a', mode: 'append', content: 'x' } } as never, token);
  assert.equal((prep2 as { confirmationMessages?: unknown }).confirmationMessages, undefined);
  delete settings.confirmWrites;
  assert.equal(h.sent.length, 0);
});
