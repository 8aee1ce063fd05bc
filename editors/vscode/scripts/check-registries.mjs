// npm run check:registries: checks the .vsix files of npm run package:all
// offline, as Open VSX (ovsx) and the Marketplace (vsce) read them: each
// package's manifest (ovsx's reader and its license rule; vsce validated it
// when it packaged it), its target platform, and that it bundles the binary of its
// platform and no other (the universal one none: it uses sightline on PATH).
import { createRequire } from 'node:module';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { all } from './target.mjs';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(here, 'package.json'));
const { readVSIXPackage, readZip } = require('ovsx/lib/zip');
const { isLicenseOk } = require('ovsx/lib/check-license');

// VSCE_TARGET names the packages built (a comma-separated list), as for
// npm run package; else (or "all") the six platform packages and the
// universal one.
const asked = process.env.VSCE_TARGET;
const want = asked && asked !== 'all' ? asked.split(',') : [...all, 'universal'];
const { version } = require('./package.json');
const problems = [];
const fail = (msg) => problems.push(msg);

for (const target of want) {
  const file = target === 'universal' ? `sightline-${version}.vsix` : `sightline-${target}-${version}.vsix`;
  if (!readdirSync(here).includes(file)) {
    fail(`${file} is missing: run npm run package:all`);
    continue;
  }
  const path = join(here, file);
  const m = await readVSIXPackage(path);
  if (!(await isLicenseOk(here, m))) fail(`${file}: Open VSX refuses a package without a license`);
  for (const field of ['publisher', 'name', 'version', 'displayName', 'description', 'license', 'icon', 'repository', 'categories', 'keywords', 'engines']) {
    if (m[field] === undefined || m[field] === '') fail(`${file}: package.json has no ${field}`);
  }
  const entries = await readZip(path, () => true);
  if (m.icon && !entries.has(`extension/${m.icon}`.toLowerCase())) fail(`${file}: the icon ${m.icon} is not in the package`);
  const vsixManifest = entries.get('extension.vsixmanifest')?.toString('utf8') ?? '';
  const bins = [...entries.keys()].filter((n) => n.startsWith('extension/bin/'));
  if (target === 'universal') {
    if (/TargetPlatform="/.test(vsixManifest)) fail(`${file}: the universal package names a target platform`);
    if (bins.length) fail(`${file}: the universal package bundles ${bins.join(', ')}`);
  } else {
    if (!vsixManifest.includes(`TargetPlatform="${target}"`)) fail(`${file}: extension.vsixmanifest does not name ${target}`);
    const exe = target.startsWith('win32') ? 'extension/bin/sightline.exe' : 'extension/bin/sightline';
    if (bins.length !== 1 || bins[0] !== exe) fail(`${file}: bundles [${bins.join(', ')}], want ${exe}`);
  }
  console.log(`ok  ${file} (${target}, ${bins.length ? bins[0] : 'no binary'})`);
}
if (problems.length) {
  for (const p of problems) console.error(`FAIL ${p}`);
  process.exit(1);
}
console.log(`${want.length} packages ready for Open VSX and the Marketplace`);
