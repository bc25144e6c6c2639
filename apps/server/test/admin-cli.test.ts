import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/auth/keys.js';
import { createPrisma, type Db } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './helpers.js';

/** merma-admin run for real, as a child process, against a test database. */
const SERVER_DIR = resolve(import.meta.dirname, '..');
const TSX = ['--conditions=@merma/source', '--import', 'tsx'];

type Result = { code: number; stdout: string; stderr: string };
function cli(args: string[], env: Record<string, string | undefined>): Promise<Result> {
  return new Promise((done) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k];
    execFile(
      process.execPath,
      [...TSX, 'src/admin.ts', ...args],
      { cwd: SERVER_DIR, env: childEnv, timeout: 60_000 },
      (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let database: TestDatabase;
let db: Db;
let run: (args: string[]) => Promise<Result>;
let tmp: string;

beforeAll(async () => {
  database = await createTestDatabase();
  await migrate(database.url);
  db = createPrisma(database.url, 2);
  run = (args) => cli(args, { DATABASE_URL: database.url });
  tmp = mkdtempSync(join(tmpdir(), 'merma-cli-'));
});
afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
  rmSync(tmp, { recursive: true, force: true });
});

const json = (r: Result) => JSON.parse(r.stdout);

describe('merma-admin', () => {
  it('creates organisations, establishments and keys, printing JSON', async () => {
    const org = json(await run(['org', 'create', '--name', 'Grupo Fogón', '--plan', 'enterprise']));
    expect(org).toMatchObject({ name: 'Grupo Fogón', plan: 'enterprise' });
    expect(json(await run(['org', 'set-plan', '--id', org.id, '--plan', 'enterprise_multi'])).plan).toBe('enterprise_multi');

    const est = json(
      await run(['establishment', 'create', '--org', org.id, '--name', 'Centro', '--cif', 'B12345678', '--sector', 'retail']),
    );
    expect(est).toMatchObject({ organization_id: org.id, sector: 'retail', timezone: 'Europe/Madrid' });
    const canary = json(
      await run([
        'establishment',
        'create',
        '--org',
        org.id,
        '--name',
        'Canarias',
        '--cif',
        'B87654321',
        '--sector',
        'horeca',
        '--timezone',
        'Atlantic/Canary',
      ]),
    );
    expect(canary.timezone).toBe('Atlantic/Canary');

    const live = json(
      await run(['key', 'create', '--establishment', est.id, '--mode', 'live', '--permissions', 'records:write,catalog:read']),
    );
    expect(live.key).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(live.permissions).toEqual(['records:write', 'catalog:read']);
    const stored = await db.apiKey.findUniqueOrThrow({ where: { id: live.id } });
    expect(stored.key_hash).toBe(hashApiKey(live.key));
    expect(JSON.stringify(stored)).not.toContain(live.key);

    const list = json(await run(['key', 'list', '--establishment', est.id]));
    expect(list).toEqual([
      expect.objectContaining({ id: live.id, mode: 'live', prefix: 'svc_live_', last4: live.key.slice(-4), revoked_at: null }),
    ]);
    expect(JSON.stringify(list)).not.toContain(live.key);
    const revoked = json(await run(['key', 'revoke', '--id', live.id]));
    expect(revoked.revoked_at).toMatch(/Z$/);
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: live.id } })).revoked_at).not.toBeNull();
  });

  it('imports a product CSV (comma or semicolon), updating known EANs, all or nothing', async () => {
    const org = json(await run(['org', 'create', '--name', 'Super', '--plan', 'enterprise']));
    const good = join(tmp, 'good.csv');
    writeFileSync(good, 'name;food_category;ean\nYogur natural;dairy;8410000810004\nPan de barra;bakery;4006381333931\n');
    expect(json(await run(['product', 'import', '--org', org.id, '--file', good]))).toEqual({
      organization_id: org.id,
      created: 2,
      updated: 0,
    });
    writeFileSync(good, 'name,food_category,ean\nYogur griego,dairy,8410000810004\n');
    expect(json(await run(['product', 'import', '--org', org.id, '--file', good]))).toMatchObject({ created: 0, updated: 1 });

    const bad = join(tmp, 'bad.csv');
    writeFileSync(bad, 'name,food_category,ean\nLeche,dairy,5449000000996\nX,candy,123\n');
    const res = await run(['product', 'import', '--org', org.id, '--file', bad]);
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/line 3/);
    expect(await db.product.count({ where: { organization_id: org.id } })).toBe(2);
  });

  it.each([
    [['org', 'create', '--name', 'X', '--plan', 'gold']],
    [['org', 'create', '--plan', 'enterprise']],
    [
      [
        'establishment',
        'create',
        '--org',
        '00000000-0000-4000-8000-000000000000',
        '--name',
        'X',
        '--cif',
        'B12345678',
        '--sector',
        'horeca',
      ],
    ],
    [['establishment', 'create', '--org', 'not-a-uuid', '--name', 'X', '--cif', 'B12345678', '--sector', 'horeca']],
    [['key', 'create', '--establishment', '00000000-0000-4000-8000-000000000000', '--mode', 'prod']],
    [['key', 'create', '--establishment', '00000000-0000-4000-8000-000000000000', '--mode', 'test', '--permissions', 'everything']],
    [['nonsense']],
    [['org', 'create', '--name', 'X', '--plan', 'enterprise', '--colour', 'red']],
  ])('refuses %j with one line on stderr, a non-zero exit, and writes nothing', async (args) => {
    const before = await db.organization.count();
    const res = await run(args);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(await db.organization.count()).toBe(before);
  });

  it('joins the embedded database of a running server', async () => {
    const dataDir = join(tmp, 'embedded');
    const port = await new Promise<number>((done) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => done(p));
      });
    });
    const env = { ...process.env, DATABASE_URL: undefined, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    const server = spawn(process.execPath, [...TSX, 'src/main.ts'], { cwd: SERVER_DIR, env, stdio: 'ignore' });
    try {
      let up = false;
      for (let i = 0; i < 150 && !up; i++) {
        up = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (!up) await new Promise((r) => setTimeout(r, 200));
      }
      expect(up).toBe(true);
      const quick = await cli(['quickstart'], { DATABASE_URL: undefined, DATA_DIR: dataDir });
      expect(quick.code, quick.stderr).toBe(0);
      const { key } = json(quick).key;
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/destinos`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
    } finally {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
  });
});
