import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@merma/test-server';
import { deadline } from '@merma/testing';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_NAMES, type StepLine } from '../src/customer/steps.js';
import {
  browserPage,
  browserScript,
  cjsScript,
  customerTsconfig,
  edgeScript,
  esmScript,
  refusedOriginScript,
  stepsTypeScript,
  typescriptScript,
} from './support/entries.js';
import { type Hub, startHub } from './support/hub.js';
import { installPackedSdk, linkDevDependency, type PackedSdk, packSdk, tempProject } from './support/pack.js';
import { EDGE_RUNNER, PACKAGE_DIR } from './support/paths.js';
import {
  assertChromium,
  bunBinary,
  CHROMIUM,
  customerEnv,
  denoBinary,
  Matrix,
  type RunResult,
  runProcess,
  stepLines,
  tscScript,
} from './support/runtimes.js';

/**
 * The packed SDK (what `npm publish` would upload), installed like a customer installs it, running
 * the same customer script (src/customer/steps.ts) in every runtime it claims, against the real
 * built server on a fresh database. Each runtime gets its own organisation and key, so their
 * counts never mix. A runtime that cannot start here fails; none is skipped.
 */
const RUN_TIMEOUT_MS = 150_000;
const SERVER_STEPS = STEP_NAMES.filter((s) => s !== 'browser-guard');
const COLUMN_ORDER = ['tsc', 'bundle', 'edge-sandbox', ...STEP_NAMES];

let packed: PackedSdk | undefined;
let server: TestServer | undefined;
let hub: Hub | undefined;
/** A second page origin, NOT in the server's CORS_ORIGINS (the hub's origin is). */
let stranger: Hub | undefined;
const cleanups: (() => void)[] = [];
const matrix = new Matrix();

beforeAll(async () => {
  packed = await packSdk();
  // Two page origins (ports): the hub's, which the server lists in CORS_ORIGINS, and a stranger's.
  hub = await startHub();
  stranger = await startHub();
  // The built server with its job worker (each runtime receives a real delivery); the hub's
  // receiver listens on 127.0.0.1, which the SSRF guard refuses unless told.
  server = await startTestServer({ worker: true, env: { WEBHOOKS_ALLOW_PRIVATE: 'true', CORS_ORIGINS: hub.url } });
  hub.setApiUrl(server.url);
}, deadline(180_000));

afterAll(async () => {
  console.log(`\n${matrix.render(COLUMN_ORDER)}\n`);
  await hub?.close();
  await stranger?.close();
  await server?.close();
  packed?.cleanup();
  for (const cleanup of cleanups) cleanup();
}, deadline(60_000));

/** A fresh customer project with the packed SDK in node_modules. */
async function customerProject(label: string, packageJson: Record<string, unknown>): Promise<string> {
  const project = tempProject(label);
  cleanups.push(project.cleanup);
  await installPackedSdk(project.dir, (packed as PackedSdk).tarball, packageJson);
  return project.dir;
}

/**
 * MERMA_API_KEY (a new organisation, establishment and `*` key, made with merma-admin, so runtimes
 * never share data), MERMA_BASE_URL and RECEIVER_URL for one runtime.
 */
async function settingsFor(runtime: string): Promise<Record<string, string>> {
  const s = server as TestServer;
  const { key, organizationId } = await s.createTenant({ permissions: '*' });
  // The product the sales step sells (by its id in the POS).
  const project = tempProject(`${runtime}-products`);
  cleanups.push(project.cleanup);
  const catalogue = join(project.dir, 'products.csv');
  writeFileSync(catalogue, 'name;food_category;ean;pos_ref;unit_weight_kg\nCroissant;bakery;8410000000023;RT-CROISSANT;0,06\n');
  await s.admin(['product', 'import', '--org', organizationId, '--file', catalogue]);
  return { MERMA_API_KEY: key, MERMA_BASE_URL: s.url, RECEIVER_URL: (hub as Hub).receiverUrl(runtime) };
}

type Outcome = Pick<RunResult, 'lines' | 'exitCode' | 'stderr'>;

/**
 * Runs one runtime's case, records its lines in the matrix, then asserts every expected step
 * passed and the process exited 0. A harness error (a binary missing, a launch failing) is
 * recorded as the runtime's failure and fails the test: a runtime is never silently left out.
 */
async function runtimeCase(runtime: string, expected: readonly string[], body: () => Promise<Outcome>): Promise<void> {
  let result: Outcome;
  try {
    result = await body();
  } catch (err) {
    matrix.record(runtime, expected, [{ step: expected[0] as string, ok: false, name: 'harness', error: String(err) }]);
    throw err;
  }
  matrix.record(runtime, expected, result.lines);
  const problems = Matrix.problems(expected, result.lines);
  const context = `${runtime}\nstderr (tail):\n${result.stderr.slice(-3000)}\nserver (tail):\n${server?.output().slice(-1500) ?? ''}`;
  expect(problems, context).toEqual([]);
  expect(result.exitCode, context).toBe(0);
}

/** esbuild as a customer's bundler would run it, from the customer's project. */
async function bundle(dir: string, entry: string, platform: 'neutral' | 'browser'): Promise<StepLine & { code?: string }> {
  try {
    const out = await build({
      absWorkingDir: dir,
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      platform,
      ...(platform === 'neutral' ? { mainFields: ['module', 'main'], conditions: ['worker', 'browser'] } : {}),
      write: false,
      logLevel: 'silent',
    });
    return { step: 'bundle', ok: true, code: out.outputFiles[0]?.text ?? '' };
  } catch (err) {
    return { step: 'bundle', ok: false, name: (err as Error).name, error: (err as Error).message };
  }
}

const run = (command: string, args: string[], cwd: string, env: Record<string, string>) =>
  runProcess(command, args, { cwd, env, timeoutMs: RUN_TIMEOUT_MS });

describe('the packed SDK in every runtime, against the built server', () => {
  it('Node ESM: node script.mjs', () =>
    runtimeCase('node esm', SERVER_STEPS, async () => {
      const dir = await customerProject('node-esm', { type: 'module' });
      writeFileSync(join(dir, 'script.mjs'), esmScript());
      return run(process.execPath, ['script.mjs'], dir, customerEnv(dir, await settingsFor('node-esm')));
    }));

  it("Node CommonJS: node script.cjs (require('@merma/sdk'))", () =>
    runtimeCase('node cjs', SERVER_STEPS, async () => {
      const dir = await customerProject('node-cjs', { type: 'commonjs' });
      writeFileSync(join(dir, 'script.cjs'), cjsScript());
      return run(process.execPath, ['script.cjs'], dir, customerEnv(dir, await settingsFor('node-cjs')));
    }));

  describe('TypeScript: a .ts consumer importing types and values', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await customerProject('typescript', { type: 'module' });
      linkDevDependency(dir, '@types/node');
      writeFileSync(join(dir, 'script.ts'), typescriptScript());
      writeFileSync(join(dir, 'steps.ts'), stepsTypeScript());
      writeFileSync(join(dir, 'tsconfig.nodenext.json'), customerTsconfig('nodenext', 'nodenext'));
      writeFileSync(join(dir, 'tsconfig.bundler.json'), customerTsconfig('esnext', 'bundler'));
    });

    for (const [label, config] of [
      ['tsc nodenext', 'tsconfig.nodenext.json'],
      ['tsc bundler', 'tsconfig.bundler.json'],
    ] as const) {
      it(`type-checks with strict and skipLibCheck: false (${config})`, () =>
        runtimeCase(label, ['tsc'], async () => {
          const result = await run(process.execPath, [tscScript(), '-p', config, '--pretty', 'false'], dir, customerEnv(dir, {}));
          const diagnostics = result.stdout.trim().split('\n').slice(0, 12).join('\n');
          const line: StepLine =
            result.exitCode === 0 ? { step: 'tsc', ok: true } : { step: 'tsc', ok: false, name: 'tsc', error: diagnostics };
          return { ...result, lines: [line] };
        }));
    }

    it("runs with Node's type stripping: node script.ts", () =>
      runtimeCase('node ts (strip)', SERVER_STEPS, async () =>
        run(process.execPath, ['script.ts'], dir, customerEnv(dir, await settingsFor('typescript'))),
      ));
  });

  describe('Bun', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await customerProject('bun', { type: 'module' });
      writeFileSync(join(dir, 'script.mjs'), esmScript());
      writeFileSync(join(dir, 'script.cjs'), cjsScript());
    });

    for (const kind of ['mjs', 'cjs'] as const) {
      it(`bun script.${kind}`, () =>
        runtimeCase(`bun ${kind}`, SERVER_STEPS, async () => {
          const env = customerEnv(dir, { ...(await settingsFor(`bun-${kind}`)), BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' });
          // --no-install: never auto-install a missing package from the registry.
          return run(bunBinary(), ['--no-install', `script.${kind}`], dir, env);
        }));
    }
  });

  it('Deno: deno run script.mjs, the package from package.json + node_modules', () =>
    runtimeCase('deno', SERVER_STEPS, async () => {
      const dir = await customerProject('deno', { type: 'module' });
      writeFileSync(join(dir, 'script.mjs'), esmScript());
      mkdirSync(join(dir, '.deno'));
      const env = customerEnv(dir, {
        ...(await settingsFor('deno')),
        DENO_DIR: join(dir, '.deno'),
        DENO_NO_UPDATE_CHECK: '1',
        DENO_NO_PROMPT: '1',
      });
      // --node-modules-dir=manual: use node_modules as it is, never install; --cached-only: fail
      // instead of fetching anything remote; --no-lock: write no deno.lock.
      const flags = ['--allow-net', '--allow-env', '--allow-read', '--node-modules-dir=manual', '--cached-only', '--no-lock'];
      return run(denoBinary(), ['run', ...flags, 'script.mjs'], dir, env);
    }));

  it("edge runtime: the script bundled by esbuild, run in edge-runtime's EdgeRuntime VM", () =>
    runtimeCase('edge-runtime', ['bundle', 'edge-sandbox', ...SERVER_STEPS], async () => {
      const dir = await customerProject('edge', { type: 'module' });
      writeFileSync(join(dir, 'edge-entry.mjs'), edgeScript());
      const bundled = await bundle(dir, 'edge-entry.mjs', 'neutral');
      if (!bundled.ok) return { lines: [bundled], exitCode: null, stderr: '' };
      writeFileSync(join(dir, 'edge-bundle.js'), bundled.code ?? '');
      // The runner is a Node process of this package (where edge-runtime is installed); the
      // customer's code runs inside its VM, which sees none of Node's globals.
      const result = await run(
        process.execPath,
        [EDGE_RUNNER, join(dir, 'edge-bundle.js')],
        PACKAGE_DIR,
        customerEnv(dir, await settingsFor('edge')),
      );
      return { ...result, lines: [{ step: 'bundle', ok: true }, ...result.lines] };
    }));

  /**
   * Loads `${origin}/browser/` in Chromium and waits for the page's `__mermaResult`; returns it with
   * what the page printed and the errors it met.
   */
  async function inChromium(url: string): Promise<{ result: unknown; output: string[]; errors: string[] }> {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    const output: string[] = [];
    const errors: string[] = [];
    let result: unknown;
    try {
      const page = await browser.newPage();
      page.on('console', (msg) => output.push(msg.text()));
      page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
      await page.goto(url);
      await page.waitForFunction(() => (window as { __mermaResult?: unknown }).__mermaResult !== undefined, undefined, {
        timeout: deadline(30_000),
      });
      result = await page.evaluate(() => (window as unknown as { __mermaResult: Promise<unknown> }).__mermaResult);
    } catch (err) {
      errors.push(String(err));
    } finally {
      await browser.close();
    }
    return { result, output, errors };
  }

  // Same origin: the page, its API (proxied by the hub) and its receiver on one origin. Cross
  // origin: the page on the hub's origin calls the server on its own port, which lists the hub's
  // origin in CORS_ORIGINS; every step runs through real preflights and CORS answers. The page
  // polls its receiver on its own origin either way, so no step is skipped.
  for (const crossOrigin of [false, true]) {
    const label = crossOrigin ? 'browser (cross-origin)' : 'browser';
    it(`${label}: the esbuild browser bundle in chromium, ${crossOrigin ? 'the page on another origin than the API (CORS_ORIGINS)' : 'same-origin through the test server'}`, () =>
      runtimeCase(label, ['bundle', ...STEP_NAMES], async () => {
        assertChromium();
        const dir = await customerProject(crossOrigin ? 'browser-cors' : 'browser', { type: 'module' });
        writeFileSync(join(dir, 'browser-entry.mjs'), browserScript());
        const bundled = await bundle(dir, 'browser-entry.mjs', 'browser');
        if (!bundled.ok) return { lines: [bundled], exitCode: null, stderr: '' };
        const settings = await settingsFor(crossOrigin ? 'browser-cors' : 'browser');
        const apiUrl = (server as TestServer).url;
        expect(new URL(apiUrl).origin === new URL((hub as Hub).url).origin).toBe(false);
        (hub as Hub).setBrowserPage(
          browserPage({
            apiKey: settings.MERMA_API_KEY as string,
            receiverUrl: settings.RECEIVER_URL as string,
            ...(crossOrigin ? { baseUrl: apiUrl } : {}),
          }),
          bundled.code ?? '',
        );
        const { result, output, errors } = await inChromium(`${(hub as Hub).url}/browser/`);
        const lines = [{ step: 'bundle', ok: true }, ...stepLines(output.join('\n'))];
        return { lines, exitCode: result === true ? 0 : 1, stderr: [...errors, ...output].join('\n') };
      }));
  }

  it('browser on an origin NOT in CORS_ORIGINS: chromium refuses the answers, the SDK throws APIConnectionError, nothing is stored', async () => {
    assertChromium();
    const dir = await customerProject('browser-refused', { type: 'module' });
    writeFileSync(join(dir, 'refused-entry.mjs'), refusedOriginScript());
    const bundled = await bundle(dir, 'refused-entry.mjs', 'browser');
    expect(bundled.ok, bundled.error).toBe(true);
    const s = server as TestServer;
    const { key } = await s.createTenant({ permissions: '*' });
    const api = (path: string) => fetch(`${s.url}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json());
    const destinos = (await api('/destinos')) as { data: { id: string }[] };
    const marker = `refused-origin-${Date.now()}`;
    const page = `<!doctype html><meta charset="utf-8"><script>window.__MERMA_SETTINGS__ = ${JSON.stringify({
      apiKey: key,
      baseUrl: s.url,
      marker,
      destinoId: destinos.data[0]?.id,
    })};</script><script type="module" src="/browser/bundle.js"></script>`;
    (stranger as Hub).setBrowserPage(page, bundled.code ?? '');
    const { result, errors } = await inChromium(`${(stranger as Hub).url}/browser/`);
    const refused = { name: 'APIConnectionError', connection: true, message: expect.stringContaining('Failed to fetch') };
    expect(result, errors.join('\n')).toEqual({ list: refused, create: refused });
    // The create's preflight was refused, so its POST never reached the server.
    const stored = (await api('/records?limit=200')) as { data: { notes: string | null }[] };
    expect(stored.data.filter((r) => r.notes === marker)).toEqual([]);
  });
});
