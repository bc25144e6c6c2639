import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.js';
import { createTestDatabase, TEST_ENCRYPTION_KEY, type TestDatabase } from './helpers.js';

/**
 * Docker cannot build images on our CI machines, so this suite runs what the image would run:
 * it reads apps/server/Dockerfile, starts its CMD from the package directory with its ENV, and runs
 * its HEALTHCHECK command against it. A Dockerfile that drifts from the built server fails here.
 */
const SERVER_DIR = resolve(import.meta.dirname, '..');
/** An --import hook that makes @electric-sql/* unresolvable, as it is in the image. */
const WITHOUT_PGLITE = join(import.meta.dirname, 'fixtures/without-pglite.mjs');
const dockerfile = readFileSync(join(SERVER_DIR, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

function instruction(name: string): string {
  const match = new RegExp(`^${name}\\s+(.+)$`, 'm').exec(runtimeStage);
  if (!match?.[1]) throw new Error(`Dockerfile runtime stage has no ${name}`);
  return match[1].trim();
}

function dockerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of runtimeStage.matchAll(/^ENV\s+(.+)$/gm)) {
    for (const pair of (m[1] as string).trim().split(/\s+/)) {
      const [k, v] = pair.split('=');
      if (k && v !== undefined) env[k] = v;
    }
  }
  return env;
}

let database: TestDatabase;
let child: ChildProcess | undefined;
let port: number;
let dataDir: string;
let output = '';

beforeAll(async () => {
  expect(existsSync(join(SERVER_DIR, 'dist/main.js')), 'run `pnpm build` first (turbo does)').toBe(true);
  database = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'merma-container-'));
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** What production needs from the platform besides the key (config.ts): a database, the public address and a mail setting. */
const PLATFORM_SETTINGS = {
  PUBLIC_URL: 'https://merma.example.com',
  MAIL_TO_LOG: 'true',
  DATABASE_URL: 'postgresql://db.example.com/merma',
  // The platform's load balancer (TEST-NET-1): required in production; this test's plain HTTP does not come from it.
  TRUST_PROXY: '192.0.2.1',
};

// One scenario, in its order: the image's command is started, probed, then stopped.
describe('the container image', { shuffle: false }, () => {
  it('exposes the ports its server listens on by default: the API and the metrics', () => {
    const production = loadConfig({ ...dockerEnv(), ...PLATFORM_SETTINGS, MERMA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY });
    expect(instruction('EXPOSE').split(/\s+/)).toEqual([dockerEnv().PORT, String(production.metrics.port)]);
    expect(production.metrics.port).toBe(9464);
    expect(dockerEnv().NODE_ENV).toBe('production');
    expect(runtimeStage).toMatch(/^USER\s+node$/m);
  });

  it('does not start without MERMA_ENCRYPTION_KEY, and says why', async () => {
    const [bin, ...args] = JSON.parse(instruction('CMD')) as [string, ...string[]];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...dockerEnv(),
      ...PLATFORM_SETTINGS,
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
    };
    delete env.MERMA_ENCRYPTION_KEY;
    const refused = await promisify(execFile)(bin === 'node' ? process.execPath : bin, args, {
      cwd: SERVER_DIR,
      env,
      timeout: deadline(30_000),
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code?: number; stderr?: string }) => ({ code: err.code, stderr: err.stderr ?? '' }),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('MERMA_ENCRYPTION_KEY: required when NODE_ENV=production');
  });

  it('gives every build argument a default, so a build without a registry or a proxy warns about none', () => {
    // podman warns `missing "X" build argument` for each ARG left without a value.
    const args = [...dockerfile.matchAll(/^ARG\s+(\S+)/gm)].map((m) => m[1] as string);
    expect(args.map((a) => a.split('=')[0])).toEqual(expect.arrayContaining(['NPM_CONFIG_REGISTRY', 'NODE_EXTRA_CA_CERTS']));
    expect(args.filter((a) => !a.includes('='))).toEqual([]);
    // The defaults change nothing: the public registry, no extra CA.
    expect(args).toContain('NPM_CONFIG_REGISTRY=https://registry.npmjs.org/');
    expect(args).toContain('NODE_EXTRA_CA_CERTS=');
  });

  it("installs no PGlite: the embedded database is not among the server's production dependencies (what `pnpm deploy --prod` copies)", () => {
    const lock = parse(readFileSync(join(SERVER_DIR, '../../pnpm-lock.yaml'), 'utf8')) as {
      importers: Record<string, { dependencies?: Record<string, { version: string }> }>;
      snapshots: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> } | null>;
    };
    const seen = new Set<string>();
    const visit = (name: string, version: string) => {
      if (version.startsWith('link:')) return;
      const key = `${name}@${version}`;
      if (seen.has(key)) return;
      seen.add(key);
      const snapshot = lock.snapshots[key];
      for (const [n, v] of Object.entries({ ...snapshot?.dependencies, ...snapshot?.optionalDependencies })) visit(n, v);
    };
    for (const [n, { version }] of Object.entries(lock.importers['apps/server']?.dependencies ?? {})) visit(n, version);
    expect(seen.size).toBeGreaterThan(100); // the walk reached the tree
    expect([...seen].filter((p) => p.startsWith('fastify@'))).toHaveLength(1);
    expect([...seen].filter((p) => p.startsWith('@electric-sql/'))).toEqual([]);
  });

  it('without DATABASE_URL and without PGlite (a development run of the image), says to set DATABASE_URL', async () => {
    const [bin, ...args] = JSON.parse(instruction('CMD')) as [string, ...string[]];
    const { DATABASE_URL: _, ...platform } = PLATFORM_SETTINGS;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...dockerEnv(),
      ...platform,
      NODE_ENV: 'development',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${WITHOUT_PGLITE}`.trim(),
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: '0',
      DATA_DIR: dataDir,
      MERMA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    };
    delete env.DATABASE_URL;
    const refused = await promisify(execFile)(bin === 'node' ? process.execPath : bin, args, {
      cwd: SERVER_DIR,
      env,
      timeout: deadline(30_000),
    }).then(
      () => ({ code: 0, output: '' }),
      (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code, output: `${err.stdout}${err.stderr}` }),
    );
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('this installation has no embedded database');
    expect(refused.output).toContain('set DATABASE_URL=postgresql://');
  });

  it('starts with its CMD, applies migrations, and passes its HEALTHCHECK', async () => {
    const cmd = JSON.parse(instruction('CMD')) as string[];
    expect(cmd).toEqual(['node', 'dist/main.js']);
    const [bin, ...args] = cmd as [string, ...string[]];
    child = spawn(bin === 'node' ? process.execPath : bin, args, {
      cwd: SERVER_DIR,
      env: {
        ...process.env,
        ...dockerEnv(),
        ...PLATFORM_SETTINGS,
        HOST: '127.0.0.1',
        // Ports the kernel chooses (read back from the log), so no port is picked here and raced for.
        PORT: '0',
        METRICS_PORT: '0',
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        // Production requires it, and the image holds none: it comes from the platform's secrets.
        MERMA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        // The image has no PGlite: a server on DATABASE_URL starts without it.
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${WITHOUT_PGLITE}`.trim(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));

    const readyBy = Date.now() + deadline(30_000);
    while (!/"msg":"Server listening at http:\/\/127\.0\.0\.1:\d+"/.test(output) && Date.now() < readyBy && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 100));
    }
    port = Number(/"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/.exec(output)?.[1]);
    expect(port, output).toBeGreaterThan(0);
    let ready = false;
    while (!ready && Date.now() < readyBy && child.exitCode === null) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!ready) await new Promise((r) => setTimeout(r, 200));
    }
    expect(ready, output).toBe(true);

    const healthcheck = /^HEALTHCHECK\s+.*?CMD\s+(\[.+\])$/m.exec(runtimeStage)?.[1];
    expect(healthcheck).toBeTruthy();
    const [hcBin, ...hcArgs] = JSON.parse(healthcheck as string) as [string, ...string[]];
    const run = promisify(execFile);
    await expect(
      run(hcBin === 'node' ? process.execPath : hcBin, hcArgs, { env: { ...process.env, PORT: String(port) }, timeout: deadline(5_000) }),
    ).resolves.toBeDefined();
    // Production mode: plain HTTP to the API is refused, probes are not.
    const api = await fetch(`http://127.0.0.1:${port}/api/v1/causas`);
    expect(api.status).toBe(403);
  });

  it('drains and exits cleanly on SIGTERM (STOPSIGNAL)', async () => {
    expect(instruction('STOPSIGNAL')).toBe('SIGTERM');
    const exited = new Promise<number | null>((done) => child?.once('exit', (code) => done(code)));
    child?.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
