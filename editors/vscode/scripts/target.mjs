// The platform target of `npm run package`: --target T (or VSCE_TARGET),
// else this machine's, as VS Code names platforms (linux-x64, darwin-arm64,
// win32-x64, ...).
export const all = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];

export function targetOf(argv, env, platform, arch) {
  const i = argv.indexOf('--target');
  if (i >= 0 && !argv[i + 1]) throw new Error(`--target needs a value: one of ${all.join(', ')}, universal or all`);
  const asked = i >= 0 ? argv[i + 1] : env.VSCE_TARGET;
  if (asked) return asked;
  const machine = `${platform}-${arch}`;
  if (!all.includes(machine)) {
    throw new Error(`this machine (${machine}) has no VS Code package of its own: pass --target, one of ${all.join(', ')} or universal`);
  }
  return machine;
}

// The Node the packaging tools run on (@vscode/vsce and undici want 20.18.1 or later).
export function nodeTooOld(version) {
  const [major, minor, patch] = version.replace(/^v/, '').split('.').map(Number);
  return major < 20 || (major === 20 && (minor < 18 || (minor === 18 && patch < 1)));
}
