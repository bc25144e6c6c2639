import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredValueExports, importedSpecifiers, packageName } from './support/declarations.js';
import { installPackedSdk, type PackedManifest, type PackedSdk, packSdk, tempProject } from './support/pack.js';

/**
 * What the packed package promises (its .d.ts and .d.cts) against what it delivers (its ESM and
 * CommonJS entries as `import()` and `require()` resolve them through `exports`), and whether it
 * imports anything its manifest does not declare. A type that says `import { X }` works while
 * the module has no X compiles and then crashes in the customer's production.
 */
const run = promisify(execFile);

let packed: PackedSdk | undefined;
let project: { dir: string; cleanup(): void } | undefined;
let manifest: PackedManifest;
let sdkDir: string;

beforeAll(async () => {
  packed = await packSdk();
  project = tempProject('exports');
  manifest = await installPackedSdk(project.dir, packed.tarball, { type: 'module' });
  sdkDir = join(project.dir, 'node_modules/@merma/sdk');
}, deadline(120_000));

afterAll(() => {
  project?.cleanup();
  packed?.cleanup();
});

type Conditions = { import?: { types?: string; default?: string }; require?: { types?: string; default?: string } };

function entry(condition: 'import' | 'require', kind: 'types' | 'default'): string {
  const root = (manifest.exports?.['.'] ?? {}) as Conditions;
  const path = root[condition]?.[kind];
  if (!path) throw new Error(`the packed package.json has no exports["."].${condition}.${kind}`);
  const file = join(sdkDir, path);
  if (!existsSync(file)) throw new Error(`exports["."].${condition}.${kind} points to ${path}, which the tarball does not contain`);
  return file;
}

/** Object.keys of the module as the customer's runtime loads it, in a clean Node process. */
async function runtimeKeys(kind: 'esm' | 'cjs'): Promise<string[]> {
  const script =
    kind === 'esm'
      ? "const m = await import('@merma/sdk'); console.log(JSON.stringify(Object.keys(m)));"
      : "const m = require('@merma/sdk'); console.log(JSON.stringify(Object.keys(m)));";
  const args = kind === 'esm' ? ['--input-type=module', '-e', script] : ['--input-type=commonjs', '-e', script];
  try {
    const { stdout } = await run(process.execPath, args, { cwd: project?.dir, env: { PATH: process.env.PATH ?? '' } });
    return (JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as string[]).sort();
  } catch (err) {
    throw new Error(
      `loading the packed SDK with ${kind === 'esm' ? 'import()' : 'require()'} failed: ${(err as { stderr?: string }).stderr ?? err}`,
    );
  }
}

// `default` is left out of every set (the CommonJS build exposes it as a plain `default` key, ESM
// as the default export, the declarations as `Merma as default`), and so is `__esModule` (an
// interop marker, not an API); whether each side has a default is compared on its own.
const INTEROP = new Set(['default', '__esModule']);
const named = (keys: string[]) => keys.filter((k) => !INTEROP.has(k));

describe('the packed package: declarations match the modules', () => {
  it('the value exports of index.d.ts and index.d.cts equal Object.keys of the ESM and CommonJS entries', async () => {
    const declared = { esm: declaredValueExports(entry('import', 'types')), cjs: declaredValueExports(entry('require', 'types')) };
    const dts = declared.esm.values;
    const dcts = declared.cjs.values;
    const esm = await runtimeKeys('esm');
    const cjs = await runtimeKeys('cjs');

    const sets = { 'index.d.ts': named(dts), 'index.d.cts': named(dcts), 'import()': named(esm), 'require()': named(cjs) };
    const all = [...new Set(Object.values(sets).flat())].sort();
    const missing = Object.fromEntries(Object.entries(sets).map(([where, names]) => [where, all.filter((n) => !names.includes(n))]));
    const counts = Object.fromEntries(Object.entries(sets).map(([where, names]) => [where, names.length]));
    console.log(`named value exports per side: ${JSON.stringify(counts)}; missing per side: ${JSON.stringify(missing)}`);
    expect(missing).toEqual({ 'index.d.ts': [], 'index.d.cts': [], 'import()': [], 'require()': [] });
    expect(all.length).toBeGreaterThan(5);
    expect(declared.esm.unresolved, 'exports of index.d.ts that TypeScript cannot resolve').toEqual([]);
    expect(declared.cjs.unresolved, 'exports of index.d.cts that TypeScript cannot resolve').toEqual([]);

    const hasDefault = {
      'index.d.ts': dts.includes('default'),
      'index.d.cts': dcts.includes('default'),
      'import()': esm.includes('default'),
      'require()': cjs.includes('default'),
    };
    expect(new Set(Object.values(hasDefault)).size, `default export per side: ${JSON.stringify(hasDefault)}`).toBe(1);
  });

  it('imports nothing but what its package.json declares, and no Node built-ins', () => {
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
    const problems: string[] = [];
    const dist = join(sdkDir, 'dist');
    for (const file of readdirSync(dist).filter((f) => /\.(c?js|d\.c?ts)$/.test(f))) {
      for (const specifier of importedSpecifiers(readFileSync(join(dist, file), 'utf8'))) {
        const name = packageName(specifier);
        // The SDK claims every runtime where fetch runs: a node: import breaks edge runtimes and browsers.
        if (specifier.startsWith('node:') && !file.includes('.d.')) problems.push(`dist/${file} imports ${specifier}`);
        else if (name && !declared.has(name)) problems.push(`dist/${file} imports ${specifier}, which is not in dependencies`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the packed package: what npm shows and what the licence says', () => {
  it('ships LICENSE (the licence the manifest names), says where the repository and issues are, and its README has no link that breaks on npm', () => {
    const packedManifest = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8')) as {
      license?: string;
      repository?: { url?: string; directory?: string };
      homepage?: string;
      bugs?: { url?: string };
    };
    expect(packedManifest.license).toBe('MIT');
    const licence = readFileSync(join(sdkDir, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^MIT License/);
    expect(licence).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
    expect(packedManifest.repository).toEqual({
      type: 'git',
      url: expect.stringMatching(/^git\+https:\/\/github\.com\//),
      directory: 'packages/sdk',
    });
    expect(packedManifest.homepage).toMatch(/^https:\/\//);
    expect(packedManifest.bugs?.url).toMatch(/^https:\/\/.*\/issues$/);

    // npm renders the README alone: a relative link (../../README.md, CHANGELOG.md) leads nowhere.
    const readme = readFileSync(join(sdkDir, 'README.md'), 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((t) => !/^(https?:\/\/|#|mailto:)/.test(t))).toEqual([]);
    expect(readme).not.toMatch(/See `CHANGELOG\.md`/);
  });

  it("ships every file its `files` names, the changelog the README links to included (changesets' format)", () => {
    const source = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8')) as { files?: string[] };
    const missing = (source.files ?? []).filter((f) => !existsSync(join(sdkDir, f)));
    expect(missing).toEqual([]);
    expect(readFileSync(join(sdkDir, 'README.md'), 'utf8')).toContain('/packages/sdk/CHANGELOG.md');
    // `pnpm changeset version` writes each release under this title, newest first.
    expect(readFileSync(join(sdkDir, 'CHANGELOG.md'), 'utf8')).toMatch(/^# @merma\/sdk\n/);
  });
});
