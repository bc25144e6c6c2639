#!/usr/bin/env node
/**
 * `pnpm release:check`: what `npm publish` would upload, checked before a release. For every
 * publishable package of the workspace (not `private`), as it is built now:
 *
 * 1. `pnpm pack` (workspace: protocols rewritten, only the `files` it declares);
 * 2. every file or folder its `files` names is in the tarball (a CHANGELOG.md listed but never
 *    written ships a broken link), and so is every file its `exports`, `main`, `module` and
 *    `types` point to;
 * 3. `attw` (@arethetypeswrong/cli) on the tarball: the types resolve, ESM and CommonJS, under
 *    every module resolution (the default `strict` profile), without fetching `@types` packages;
 * 4. `publint --strict` on the tarball.
 *
 * Each package is built first (its `build` script; `--no-build` packs what is built). Both tools
 * are pinned devDependencies of the root and need no network (`--no-definitely-typed`: attw
 * fetches nothing). Exits 1 when any check fails; prints one line per check.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'node_modules', '.bin');

/** The workspace's packages that would be published (pnpm's own listing, not a guess from folders). */
function publishable() {
  const listed = JSON.parse(execFileSync('pnpm', ['ls', '-r', '--depth', '-1', '--json'], { cwd: ROOT, encoding: 'utf8' }));
  return listed.filter((p) => p.private !== true && p.path !== ROOT).map((p) => ({ name: p.name, dir: p.path }));
}

/** The files a manifest's entry points name (`exports` conditions, `main`, `module`, `types`). */
function entryFiles(manifest) {
  const found = new Set();
  const walk = (value) => {
    if (typeof value === 'string') {
      if (value.startsWith('./') && !value.includes('*')) found.add(value.slice(2));
    } else if (value && typeof value === 'object') for (const v of Object.values(value)) walk(v);
  };
  walk(manifest.exports);
  for (const field of ['main', 'module', 'types']) if (typeof manifest[field] === 'string') found.add(manifest[field].replace(/^\.\//, ''));
  return [...found];
}

const results = [];
const check = (pkg, name, ok, detail = '') => {
  results.push(ok);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${pkg} ${name}${detail ? `: ${detail}` : ''}`);
};

/** Runs a pinned tool; its output is shown only when it fails. */
function tool(bin, args) {
  const run = spawnSync(join(BIN, bin), args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  return { ok: run.status === 0, output: `${run.stdout ?? ''}${run.stderr ?? ''}`.trim() };
}

const packages = publishable();
if (packages.length === 0) {
  console.error('no publishable package in the workspace');
  process.exit(1);
}
for (const { name, dir } of packages) {
  const out = mkdtempSync(join(tmpdir(), 'merma-release-check-'));
  try {
    if (!process.argv.includes('--no-build')) execFileSync('pnpm', ['run', 'build'], { cwd: dir, stdio: 'pipe' });
    execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: dir, stdio: 'pipe' });
    const tarball = join(
      out,
      readdirSync(out).find((f) => f.endsWith('.tgz')),
    );
    const listed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
    const has = (path) => listed.some((f) => f === path || f.startsWith(`${path.replace(/\/$/, '')}/`));
    const named = (manifest.files ?? []).filter((f) => !/[*?[{!]/.test(f));
    const missing = [...named, ...entryFiles(manifest)].filter((f) => !has(f.replace(/^\.\//, '')));
    check(name, `${manifest.version} packed`, true, `${listed.length} files`);
    check(name, 'files and entry points are in the tarball', missing.length === 0, missing.length ? `missing ${missing.join(', ')}` : '');
    const attw = tool('attw', [tarball, '--no-definitely-typed', '--format', 'ascii', '--no-emoji', '--no-color']);
    check(name, 'attw', attw.ok, attw.ok ? '' : `\n${attw.output}`);
    const publint = tool('publint', ['run', tarball, '--strict']);
    check(name, 'publint --strict', publint.ok, publint.ok ? '' : `\n${publint.output}`);
    const changelog = readFileSync(join(dir, 'README.md'), 'utf8').includes('CHANGELOG.md') ? has('CHANGELOG.md') : true;
    check(name, 'the changelog the README links to is packed', changelog);
  } catch (err) {
    check(name, 'pack', false, String(err?.message ?? err));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
process.exitCode = results.every(Boolean) ? 0 : 1;
