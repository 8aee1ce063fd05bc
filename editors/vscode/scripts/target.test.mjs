import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeTooOld, targetOf } from './target.mjs';

test('npm run package builds this machine\'s platform unless told another', () => {
  assert.equal(targetOf([], {}, 'linux', 'x64'), 'linux-x64');
  assert.equal(targetOf([], {}, 'darwin', 'arm64'), 'darwin-arm64');
  assert.equal(targetOf([], {}, 'win32', 'x64'), 'win32-x64');
  assert.equal(targetOf(['--target', 'win32-arm64'], {}, 'linux', 'x64'), 'win32-arm64');
  assert.equal(targetOf([], { VSCE_TARGET: 'all' }, 'linux', 'x64'), 'all');
  assert.throws(() => targetOf([], {}, 'linux', 'ia32'), /pass --target/);
  assert.throws(() => targetOf(['--target'], {}, 'linux', 'x64'), /needs a value/);
});

test('the Node the packaging tools need', () => {
  assert.equal(nodeTooOld('v18.19.0'), true);
  assert.equal(nodeTooOld('v20.18.0'), true);
  assert.equal(nodeTooOld('v20.18.1'), false);
  assert.equal(nodeTooOld('v22.1.0'), false);
});
