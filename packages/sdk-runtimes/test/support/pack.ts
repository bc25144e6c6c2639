import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PACKAGE_DIR, SDK_DIR } from './paths.js';

const run = promisify(execFile);

export type PackedManifest = {
  name: string;
  version: string;
  type?: string;
  exports?: Record<string, unknown>;
  main?: string;
  module?: string;
  types?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

export type PackedSdk = { tarball: string; dir: string; cleanup(): void };

/** The pnpm that runs this test (pnpm sets npm_execpath), else the one on PATH. */
function pnpmCommand(): [string, string[]] {
  const execPath = process.env.npm_execpath;
  if (execPath && /pnpm/.test(basename(execPath)) && /\.[cm]?js$/.test(execPath)) return [process.execPath, [execPath]];
  return ['pnpm', []];
}

/**
 * `pnpm pack` of packages/sdk as it is built now (turbo builds it before the tests), the way it is
 * published: workspace: protocols rewritten, only the `files` it declares.
 */
export async function packSdk(): Promise<PackedSdk> {
  if (!existsSync(join(SDK_DIR, 'dist')))
    throw new Error('packages/sdk/dist is missing: run `pnpm build` (turbo builds it before `pnpm test`)');
  const dir = mkdtempSync(join(tmpdir(), 'merma-sdk-pack-'));
  const [cmd, pre] = pnpmCommand();
  await run(cmd, [...pre, 'pack', '--pack-destination', dir], { cwd: SDK_DIR, maxBuffer: 16 * 1024 * 1024 });
  const tgz = readdirSync(dir).filter((f) => f.endsWith('.tgz'));
  if (tgz.length !== 1) throw new Error(`pnpm pack left ${tgz.length} tarballs in ${dir}`);
  return { tarball: join(dir, tgz[0] as string), dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A fresh directory for one customer project (removed by the returned cleanup). */
export function tempProject(label: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), `merma-sdk-${label}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function linkInto(projectDir: string, name: string, target: string): void {
  const link = join(projectDir, 'node_modules', name);
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(realpathSync(target), link, 'dir');
}

/**
 * Installs the tarball into `<projectDir>/node_modules/@merma/sdk` as a package manager would
 * (extract, strip the leading `package/`). Dependencies the packed manifest still declares are
 * linked from packages/sdk/node_modules (same versions, from the lockfile) so nothing is
 * downloaded; a dependency the dist imports but the manifest does not declare is NOT provided,
 * exactly as a customer's install would not provide it.
 */
export async function installPackedSdk(
  projectDir: string,
  tarball: string,
  packageJson: Record<string, unknown> = {},
): Promise<PackedManifest> {
  const target = join(projectDir, 'node_modules/@merma/sdk');
  mkdirSync(target, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as PackedManifest;
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    const source = join(SDK_DIR, 'node_modules', dep);
    if (!existsSync(source)) throw new Error(`the packed SDK depends on ${dep}, which packages/sdk/node_modules does not have`);
    linkInto(projectDir, dep, source);
  }
  writeFileSync(
    join(projectDir, 'package.json'),
    `${JSON.stringify({ name: 'merma-customer', private: true, ...packageJson, dependencies: { '@merma/sdk': manifest.version } }, null, 2)}\n`,
  );
  return manifest;
}

/** Links one of this package's dev dependencies (e.g. @types/node) into a customer project. */
export function linkDevDependency(projectDir: string, name: string): void {
  linkInto(projectDir, name, join(PACKAGE_DIR, 'node_modules', name));
}

/** Extracts the tarball once, for tests that read the packed files without running them. */
export async function extractPackedSdk(tarball: string): Promise<{ dir: string; manifest: PackedManifest; cleanup(): void }> {
  const project = tempProject('extracted');
  const manifest = await installPackedSdk(project.dir, tarball);
  return { dir: join(project.dir, 'node_modules/@merma/sdk'), manifest, cleanup: project.cleanup };
}
