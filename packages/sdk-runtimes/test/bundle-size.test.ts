import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureSdkBundles, type SdkBundleFigures } from '../src/bundle-size.mjs';
import { extractPackedSdk, type PackedSdk, packSdk } from './support/pack.js';

/**
 * What the packed SDK adds to a customer's bundle (esbuild, minified, neutral platform, gzip -9):
 * the client creating one record within 15 KiB, a receiver verifying webhooks within 5 KiB.
 */
const CLIENT_GZIP_BUDGET = 15 * 1024;
const VERIFY_GZIP_BUDGET = 5 * 1024;

let packed: PackedSdk | undefined;
let extracted: Awaited<ReturnType<typeof extractPackedSdk>> | undefined;

beforeAll(async () => {
  packed = await packSdk();
  extracted = await extractPackedSdk(packed.tarball);
}, deadline(120_000));

afterAll(() => {
  extracted?.cleanup();
  packed?.cleanup();
});

function report(figures: SdkBundleFigures): string {
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  return (['client', 'verify'] as const)
    .map((name) => {
      const f = figures[name];
      const top = f.top.map((t) => `    ${String(t.bytes).padStart(7)} B  ${t.path}`).join('\n');
      return `${name}: ${f.minified} B minified (${kib(f.minified)}), ${f.gzip} B gzip (${kib(f.gzip)})\n${top}`;
    })
    .join('\n');
}

describe('bundle size of the packed SDK in a customer bundle', () => {
  it(`client ≤ ${CLIENT_GZIP_BUDGET} B and verify ≤ ${VERIFY_GZIP_BUDGET} B gzipped`, async () => {
    const figures = await measureSdkBundles((extracted as { dir: string }).dir);
    console.log(`\n${report(figures)}\n`);
    expect(figures.client.minified).toBeGreaterThan(0);
    expect(figures.client.gzip, 'client bundle, gzip bytes').toBeLessThanOrEqual(CLIENT_GZIP_BUDGET);
    expect(figures.verify.gzip, 'verify-only bundle, gzip bytes').toBeLessThanOrEqual(VERIFY_GZIP_BUDGET);
  });

  it('the client bundle carries ky, its HTTP client; a bundle that only verifies webhooks carries none of it', async () => {
    const figures = await measureSdkBundles((extracted as { dir: string }).dir, { topCount: Number.POSITIVE_INFINITY });
    const kyIn = (f: SdkBundleFigures['client']) => f.top.filter((t) => /(^|\/)ky[-/]/.test(t.path));
    expect(kyIn(figures.client).length, JSON.stringify(figures.client.top)).toBeGreaterThan(0);
    expect(kyIn(figures.verify)).toEqual([]);
  });
});
