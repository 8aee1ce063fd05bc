// npm run package: builds the server binary for one target into bin/, bundles
// the extension and writes a platform .vsix.
//   npm run package                                -> this machine's platform (linux-x64, darwin-arm64, ...)
//   npm run package -- --target darwin-arm64       (or VSCE_TARGET=darwin-arm64; GOOS/GOARCH derived from it)
//   npm run package:universal                      -> no binary: uses `sightline` on PATH
//   npm run package:all                            -> the six platform packages and the universal one
//   VSCE_TARGET=linux-x64,universal npm run package -> the packages named
// The version stamped into the binaries is SIGHTLINE_VERSION, else the
// extension's version. Node 20.18.1 or later (the packaging tools' own need).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { all, nodeTooOld, targetOf } from './target.mjs';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(here, '..', '..');
if (nodeTooOld(process.version)) {
  console.error(`npm run package: Node ${process.version} is too old for the packaging tools: use Node 20.18.1 or later (22 or later to publish with ovsx)`);
  process.exit(1);
}
let wanted;
try {
  wanted = targetOf(process.argv.slice(2), process.env, process.platform, process.arch);
} catch (e) {
  console.error(`npm run package: ${e.message}`);
  process.exit(2);
}
const targets = wanted === 'all' ? [...all, 'universal'] : wanted.split(',');
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', ...opts });
const { version } = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const stamp = process.env.SIGHTLINE_VERSION || version;

run('node', [join(here, 'esbuild.mjs')], { cwd: here });
copyFileSync(join(repo, 'LICENSE'), join(here, 'LICENSE'));
for (const target of targets) {
  rmSync(join(here, 'bin'), { recursive: true, force: true });
  const args = ['package', '--no-dependencies'];
  let out = `sightline-${version}.vsix`;
  if (target !== 'universal') {
    const [plat, arch] = target.split('-');
    const goos = { linux: 'linux', darwin: 'darwin', win32: 'windows', alpine: 'linux' }[plat];
    const goarch = { x64: 'amd64', arm64: 'arm64', armhf: 'arm' }[arch];
    if (!goos || !goarch) throw new Error(`unknown target ${target}: one of ${all.join(', ')}, universal or all`);
    const exe = goos === 'windows' ? 'sightline.exe' : 'sightline';
    mkdirSync(join(here, 'bin'));
    console.log(`go build ${goos}/${goarch} -> bin/${exe}`);
    run('go', ['build', '-trimpath', `-ldflags=-s -w -X github.com/sightline-lsp/sightline/version.Version=${stamp}`,
      '-o', join(here, 'bin', exe), './cmd/sightline'], {
      cwd: repo,
      // The caller's GOFLAGS kept (CI's build cache options), -buildvcs=false added.
      env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: '0', GOFLAGS: [process.env.GOFLAGS, '-buildvcs=false'].filter(Boolean).join(' ') },
    });
    args.push('--target', target);
    out = `sightline-${target}-${version}.vsix`;
  }
  run(process.execPath, [join(here, 'node_modules', '@vscode', 'vsce', 'vsce'), ...args, '-o', out], { cwd: here });
  console.log(`built ${out}`);
}
if (targets.length > 1) rmSync(join(here, "bin"), { recursive: true, force: true });
