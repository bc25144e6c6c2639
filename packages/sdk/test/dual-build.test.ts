import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The package ships an ESM and a CommonJS build, each with its own copy of the error classes; an
 * application whose dependencies load both gets two `APIError`s, and `instanceof` across them is
 * false. The guards (`isMermaError`, `APIError.is`, `RateLimitError.is`, …) must recognise an error
 * of either build. Both builds are made with the package's own tsup config, then loaded into one
 * Node process.
 */
const packageDir = fileURLToPath(new URL('..', import.meta.url));
let outDir: string;

beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'merma-sdk-dual-'));
  execFileSync(join(packageDir, 'node_modules', '.bin', 'tsup'), ['--no-dts', '--no-sourcemap', '--out-dir', outDir], {
    cwd: packageDir,
    stdio: 'pipe',
  });
});
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** Runs an ES module in a fresh Node process with `esm` and `cjs` (the two builds) in scope; returns what it prints. */
function run(body: string): unknown {
  const script = join(outDir, 'check.mjs');
  writeFileSync(
    script,
    `import { createRequire } from 'node:module';
import * as esm from './index.js';
const cjs = createRequire(import.meta.url)('./index.cjs');
${body}`,
  );
  return JSON.parse(execFileSync(process.execPath, [script], { encoding: 'utf8' }));
}

describe('one process loading the ESM and the CommonJS build', () => {
  it('recognises an error of either build with isMermaError and the classes’ is()', () => {
    const result = run(`
const fake = (status, code) => async () => new Response(JSON.stringify({ error: 'nope', status, code }), { status, headers: { 'content-type': 'application/json' } });
const client = (mod, status, code) => new mod.Merma({ apiKey: 'svc_test_${'A'.repeat(32)}', baseUrl: 'https://api.test.merma', maxRetries: 0, fetch: fake(status, code) });
const fromCjs = await client(cjs, 404, 'not_found').causas.list().catch((e) => e);
const fromEsm = await client(esm, 429, 'rate_limited').causas.list().catch((e) => e);
const timeout = new cjs.APIConnectionTimeoutError();
console.log(JSON.stringify({
  twoCopies: esm.APIError !== cjs.APIError,
  instanceofAcross: fromCjs instanceof esm.APIError,
  cjsSeenByEsm: [esm.isMermaError(fromCjs), esm.MermaError.is(fromCjs), esm.APIError.is(fromCjs), esm.NotFoundError.is(fromCjs), esm.RateLimitError.is(fromCjs)],
  esmSeenByCjs: [cjs.isMermaError(fromEsm), cjs.APIError.is(fromEsm), cjs.RateLimitError.is(fromEsm), cjs.NotFoundError.is(fromEsm)],
  sameBuild: [esm.APIError.is(fromEsm), esm.RateLimitError.is(fromEsm), fromEsm instanceof esm.RateLimitError],
  connection: [esm.APIConnectionError.is(timeout), esm.APIConnectionTimeoutError.is(timeout), esm.APIError.is(timeout), esm.isMermaError(timeout)],
  others: [esm.isMermaError(new Error('x')), esm.APIError.is({ name: 'APIError', status: 404 }), esm.isMermaError(null), esm.isMermaError('APIError')],
  fields: { status: fromCjs.status, code: fromCjs.code, name: fromCjs.name },
}));
`);
    expect(result).toEqual({
      twoCopies: true,
      instanceofAcross: false,
      cjsSeenByEsm: [true, true, true, true, false],
      esmSeenByCjs: [true, true, true, false],
      sameBuild: [true, true, true],
      connection: [true, true, false, true],
      others: [false, false, false, false],
      fields: { status: 404, code: 'not_found', name: 'NotFoundError' },
    });
  });

  it('names every error class as it is exported, in both builds, so console.log shows NotFoundError and not _class6', () => {
    const result = run(`
import { inspect } from 'node:util';
const names = (mod) => Object.keys(mod).filter((k) => /Error$/.test(k) && typeof mod[k] === 'function').sort();
const report = (mod) => ({
  mismatched: names(mod).filter((k) => mod[k].name !== k).map((k) => k + ' is named ' + mod[k].name),
  count: names(mod).length,
  printed: inspect(new mod.NotFoundError(404, { error: 'No record', status: 404, code: 'not_found' }, new Headers())).split('\\n')[0],
  thrown: String(new mod.RateLimitError(429, { error: 'Slow down', status: 429 }, new Headers())),
});
console.log(JSON.stringify({ cjs: report(cjs), esm: report(esm) }));
`);
    const expected = { mismatched: [], count: 15, printed: 'NotFoundError: No record', thrown: 'RateLimitError: Slow down' };
    expect(result).toEqual({ cjs: expected, esm: expected });
  });
});
