import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * What the SDK costs a customer who bundles it: two customer scripts, bundled and minified by
 * esbuild for a neutral (edge/browser-like) platform, then gzipped at level 9.
 * - `client`: construct the client and create one record (the common case);
 * - `verify`: only verifyWebhook (a webhook receiver that never calls the API).
 *
 * Used by this package's test (budgets) and importable by bench/run.mjs to print the figures:
 *   import { measureSdkBundles } from '../packages/sdk-runtimes/src/bundle-size.mjs';
 */

/** @typedef {{ path: string, bytes: number }} Contributor */
/** @typedef {{ minified: number, gzip: number, top: Contributor[] }} BundleFigures */
/** @typedef {{ client: BundleFigures, verify: BundleFigures }} SdkBundleFigures */

export const CUSTOMER_SCRIPTS = {
  client: `import { Merma } from '@merma/sdk';
const m = new Merma({ apiKey: 'svc_test_x', baseUrl: 'http://x' });
m.records.create({ food_category: 'meat', weight_kg: 1, destino_id: '00000000-0000-4000-8000-000000000000' }).then(console.log);
`,
  verify: `import { verifyWebhook } from '@merma/sdk';
export const v = (p, h, s) => verifyWebhook({ payload: p, headers: h, secret: s });
`,
};

/**
 * A metafile input path, readable: files of the SDK as "@merma/sdk/dist/index.js", files under a
 * node_modules as "ky/distribution/core/Ky.js", anything else relative to the bundle's directory.
 * @param {string} path relative to workDir, as esbuild reports it
 * @param {string} workDir
 * @param {string} sdkRoot the SDK's real path
 */
function shortPath(path, workDir, sdkRoot) {
  const inSdk = relative(sdkRoot, resolve(workDir, path));
  if (!inSdk.startsWith('..') && !isAbsolute(inSdk)) return `@merma/sdk/${inSdk.split(sep).join('/')}`;
  const at = path.lastIndexOf('node_modules/');
  return at === -1 ? path : path.slice(at + 'node_modules/'.length);
}

/**
 * @param {string} entry absolute path of the customer script
 * @param {string} workDir where node_modules/@merma/sdk is linked
 * @param {string} sdkRoot the SDK's real path
 * @param {number} [topCount] how many of the largest inputs to list
 * @returns {Promise<BundleFigures>}
 */
async function measure(entry, workDir, sdkRoot, topCount = 5) {
  const result = await build({
    absWorkingDir: workDir,
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    write: false,
    metafile: true,
    outfile: join(workDir, 'out.js'),
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild wrote nothing for ${entry}`);
  const meta = Object.values(result.metafile.outputs)[0];
  const top = Object.entries(meta?.inputs ?? {})
    .map(([path, input]) => ({ path: shortPath(path, workDir, sdkRoot), bytes: input.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, topCount);
  return { minified: output.contents.byteLength, gzip: gzipSync(output.contents, { level: 9 }).byteLength, top };
}

/**
 * Bundles both customer scripts against the package in `sdkDir` (a built packages/sdk, or the
 * packed package extracted into a node_modules), resolved as `@merma/sdk` through its package.json
 * `exports` exactly as a customer's bundler resolves it; its own dependencies resolve from where
 * the package really is.
 *
 * @param {string} sdkDir
 * @param {{ topCount?: number }} [options] how many of the largest inputs to list (default 5)
 * @returns {Promise<SdkBundleFigures>}
 */
export async function measureSdkBundles(sdkDir, options = {}) {
  const workDir = mkdtempSync(join(tmpdir(), 'merma-sdk-size-'));
  try {
    mkdirSync(join(workDir, 'node_modules/@merma'), { recursive: true });
    const sdkRoot = realpathSync(resolve(sdkDir));
    symlinkSync(sdkRoot, join(workDir, 'node_modules/@merma/sdk'), 'dir');
    writeFileSync(join(workDir, 'package.json'), '{"type":"module"}\n');
    /** @type {Partial<SdkBundleFigures>} */
    const figures = {};
    for (const name of /** @type {const} */ (['client', 'verify'])) {
      const entry = join(workDir, `${name}.mjs`);
      writeFileSync(entry, CUSTOMER_SCRIPTS[name]);
      figures[name] = await measure(entry, workDir, sdkRoot, options.topCount);
    }
    return /** @type {SdkBundleFigures} */ (figures);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
