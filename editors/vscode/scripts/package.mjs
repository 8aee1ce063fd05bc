// npm run package: builds the server binary for one target into bin/, bundles
// the extension and writes a platform .vsix.
//   npm run package                      -> linux-x64 (the default)
//   VSCE_TARGET=darwin-arm64 npm run package   (GOOS/GOARCH derived from the target)
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(here, '..', '..');
const target = process.env.VSCE_TARGET || 'linux-x64';
const [plat, arch] = target.split('-');
const goos = { linux: 'linux', darwin: 'darwin', win32: 'windows', alpine: 'linux' }[plat];
const goarch = { x64: 'amd64', arm64: 'arm64', armhf: 'arm' }[arch];
if (!goos || !goarch) throw new Error(`unknown target ${target}`);
const exe = goos === 'windows' ? 'sightline.exe' : 'sightline';
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', ...opts });

rmSync(join(here, 'bin'), { recursive: true, force: true });
mkdirSync(join(here, 'bin'));
console.log(`go build ${goos}/${goarch} -> bin/${exe}`);
run('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', join(here, 'bin', exe), './cmd/sightline'], {
  cwd: repo,
  env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' },
});
run('node', [join(here, 'esbuild.mjs')], { cwd: here });
copyFileSync(join(repo, 'LICENSE'), join(here, 'LICENSE'));
const { version } = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const out = `sightline-${target}-${version}.vsix`;
run(process.execPath, [join(here, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--target', target, '--no-dependencies', '-o', out], { cwd: here });
console.log(`built ${out}`);
