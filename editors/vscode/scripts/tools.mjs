// npm run tools: writes package.json's contributes.languageModelTools from
// tools.json (generated from sightline's operation table by `go generate
// ./ops`). VS Code wants the tools declared statically; the unit tests fail
// while package.json and tools.json disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const { contributedTools } = createRequire(import.meta.url)(join(here, 'out-test', 'src', 'pure.js'));
const tools = JSON.parse(readFileSync(join(here, 'tools.json'), 'utf8'));
const file = join(here, 'package.json');
const pkg = JSON.parse(readFileSync(file, 'utf8'));
pkg.contributes.languageModelTools = contributedTools(tools);
writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
console.log(`package.json: ${pkg.contributes.languageModelTools.length} language model tools`);
