import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { deadline } from '@merma/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/db/migrate.js';
import { createTestDatabase, TEST_ENCRYPTION_KEY, type TestDatabase } from './helpers.js';

/**
 * merma-admin run for real, as a child process of the build operators run (`node dist/admin.js`),
 * against a fresh test database; database state is checked with plain SQL. The last test starts the
 * built server on an embedded database and has the CLI join it. `pnpm test` builds first; run
 * alone, the file refuses a build older than the sources (`pnpm --filter @merma/server build`). The
 * build, not `tsx` on the sources: each of the forty-odd commands then costs a quarter of the CPU.
 */
const SERVER_DIR = resolve(import.meta.dirname, '..');
const CLI = join(SERVER_DIR, 'dist', 'admin.js');
const SERVER = join(SERVER_DIR, 'dist', 'main.js');
const exec = promisify(execFile);

/** The newest modification time of the files under `dir`. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

type Result = { code: number; stdout: string; stderr: string };
type Env = Record<string, string | undefined>;

function childEnv(env: Env): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete merged[k];
  return merged;
}

async function cli(args: string[], env: Env): Promise<Result> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], {
      cwd: SERVER_DIR,
      // The tests' key unless a test decides (else the CLI would keep a key in ./.data).
      env: childEnv({ MERMA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, ...env }),
      timeout: deadline(60_000),
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(err) };
  }
}

let database: TestDatabase;
let pool: pg.Pool;
let tmp: string;
/** DATA_DIR of its own: a server running from this checkout's ./.data must not lend its address to these links. */
const cliDataDir = () => join(tmp, 'cli-data');
const run = (args: string[]) => cli(args, { DATABASE_URL: database.url, DATA_DIR: cliDataDir() });
const sql = async (text: string, params: unknown[] = []) => (await pool.query(text, params)).rows;

/** Runs a command that must succeed: exit 0, nothing on stderr, one JSON value on stdout. */
async function ok(args: string[]) {
  const res = await run(args);
  expect(res, res.stderr).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(res.stdout);
}

/** Runs a command that must be refused: non-zero exit (`code` if given), one stderr line, no stdout, no row written. */
async function refused(args: string[], code?: number): Promise<string> {
  const before = await counts();
  const res = await run(args);
  if (code === undefined) expect(res.code).toBeGreaterThan(0);
  else expect(res.code).toBe(code);
  expect(res.stdout).toBe('');
  expect(res.stderr).toMatch(/^merma-admin: [^\n]+\n$/);
  expect(await counts()).toEqual(before);
  return res.stderr;
}

async function counts() {
  const tables = ['organizations', 'establishments', 'record_chain_heads', 'api_keys', 'products'];
  const [row] = await sql(`SELECT ${tables.map((t) => `(SELECT count(*)::int FROM ${t}) AS ${t}`).join(', ')}`);
  return row;
}

/** EAN-13 with its check digit computed from the first 12 digits. */
function ean13(first12: string): string {
  const sum = [...first12].reduce((acc, d, i) => acc + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return first12 + ((10 - (sum % 10)) % 10);
}

beforeAll(async () => {
  for (const built of [CLI, SERVER]) {
    if (!existsSync(built) || statSync(built).mtimeMs < newest(join(SERVER_DIR, 'src'))) {
      throw new Error(`${built} is missing or older than src/: pnpm --filter @merma/server build`);
    }
  }
  database = await createTestDatabase();
  await migrate(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  tmp = mkdtempSync(join(tmpdir(), 'merma-cli-'));
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('merma-admin against DATABASE_URL', { timeout: deadline(90_000) }, () => {
  it('org create (every plan) and org set-plan; a bad plan or id writes nothing', async () => {
    for (const plan of ['basic', 'pro', 'enterprise', 'enterprise_multi']) {
      // The admin is invited as the organisation's owner; without SMTP_URL nothing is mailed or
      // logged: the link is printed once, on stdout, for the operator to hand over.
      const res = await run(['org', 'create', '--name', ` Grupo ${plan} `, '--plan', plan, '--admin-email', 'Ops@Example.es']);
      expect(res.code, res.stderr).toBe(0);
      const org = JSON.parse(res.stdout);
      expect(org).toEqual({
        id: expect.any(String),
        name: `Grupo ${plan}`,
        plan,
        admin_email: 'Ops@Example.es',
        invitation: {
          email: 'ops@example.es',
          role: 'owner',
          expires_at: expect.stringMatching(/Z$/),
          sent: 'not sent (no SMTP_URL): hand the link to the owner',
          link: expect.stringMatching(/^http:\/\/localhost:3000\/dashboard\/invitation\?token=[\w-]{43}$/),
        },
      });
      expect(res.stderr).not.toMatch(/token/);
      const token = /\/dashboard\/invitation\?token=([\w-]{43})/.exec(org.invitation.link)?.[1] as string;
      expect(await sql('SELECT name, plan, admin_email FROM organizations WHERE id = $1', [org.id])).toEqual([
        { name: `Grupo ${plan}`, plan, admin_email: 'Ops@Example.es' },
      ]);
      expect(await sql('SELECT email, role, token_hash FROM invitations WHERE organization_id = $1', [org.id])).toEqual([
        { email: 'ops@example.es', role: 'owner', token_hash: createHash('sha256').update(token).digest('hex') },
      ]);
    }
    const org = await ok(['org', 'create', '--name', 'Fogón', '--plan', 'basic']);
    expect(org.admin_email).toBeNull();
    const changed = await ok(['org', 'set-plan', '--id', org.id, '--plan', 'enterprise_multi']);
    expect(changed).toEqual({ id: org.id, name: 'Fogón', plan: 'enterprise_multi', status: 'active' });
    expect(await sql('SELECT plan FROM organizations WHERE id = $1', [org.id])).toEqual([{ plan: 'enterprise_multi' }]);

    expect(await refused(['org', 'create', '--name', 'X', '--plan', 'gold'], 1)).toMatch(/--plan must be one of basic, pro/);
    await refused(['org', 'create', '--name', '  ', '--plan', 'pro'], 1);
    await refused(['org', 'create', '--name', 'X', '--plan', 'pro', '--admin-email', 'not-an-email'], 1);
    await refused(['org', 'set-plan', '--id', org.id, '--plan', 'platinum'], 1);
    await refused(['org', 'set-plan', '--id', UNKNOWN, '--plan', 'pro'], 1);
    expect(await sql('SELECT plan FROM organizations WHERE id = $1', [org.id])).toEqual([{ plan: 'enterprise_multi' }]);

    const canceled = await ok(['org', 'cancel', '--id', org.id]);
    expect(canceled).toMatchObject({ id: org.id, status: 'canceled', canceled_at: expect.any(String) });
    expect(await refused(['org', 'cancel', '--id', org.id], 1)).toMatch(/already canceled/);
    await refused(['org', 'cancel', '--id', UNKNOWN], 1);
    expect(await sql('SELECT canceled_at IS NOT NULL AS canceled FROM organizations WHERE id = $1', [org.id])).toEqual([
      { canceled: true },
    ]);
  });

  it('webhook reactivate: returns a deactivated subscription to active', async () => {
    const org = await ok(['org', 'create', '--name', 'Hooks', '--plan', 'enterprise']);
    const est = await ok(['establishment', 'create', '--org', org.id, '--name', 'H', '--cif', 'B87654321', '--sector', 'horeca']);
    const id = '7d0c6f8e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
    await sql(
      `INSERT INTO webhook_subscriptions (id, establishment_id, livemode, url, events, secret, status, consecutive_failures, deactivated_at)
       VALUES ($1, $2, false, 'https://erp.example.es/hook', '{record.created}', 'whsec_x', 'deactivated', 5, now())`,
      [id, est.id],
    );
    expect(await ok(['webhook', 'reactivate', '--id', id])).toEqual({
      id,
      url: 'https://erp.example.es/hook',
      status: 'active',
      consecutive_failures: 0,
    });
    await refused(['webhook', 'reactivate', '--id', UNKNOWN], 1);
  });

  it('establishment create: default and custom time zone, two chain heads; bad input writes nothing', async () => {
    const org = await ok(['org', 'create', '--name', 'Cadena', '--plan', 'enterprise']);
    const base = ['establishment', 'create', '--org', org.id, '--name', 'Centro', '--cif', 'b12345678'];
    const est = await ok([...base, '--sector', 'retail']);
    expect(est).toMatchObject({ organization_id: org.id, name: 'Centro', cif: 'B12345678', sector: 'retail', timezone: 'Europe/Madrid' });
    expect(await sql('SELECT organization_id, sector, timezone FROM establishments WHERE id = $1', [est.id])).toEqual([
      { organization_id: org.id, sector: 'retail', timezone: 'Europe/Madrid' },
    ]);
    const heads = await sql(
      'SELECT livemode, seq::int AS seq, last_hash FROM record_chain_heads WHERE establishment_id = $1 ORDER BY livemode',
      [est.id],
    );
    expect(heads).toEqual([false, true].map((livemode) => ({ livemode, seq: 0, last_hash: '0'.repeat(64) })));

    const canary = await ok([...base, '--sector', 'horeca', '--timezone', 'Atlantic/Canary']);
    expect(canary.timezone).toBe('Atlantic/Canary');
    expect(await sql('SELECT timezone FROM establishments WHERE id = $1', [canary.id])).toEqual([{ timezone: 'Atlantic/Canary' }]);
    expect((await ok([...base, '--sector', 'horeca', '--timezone', 'europe/madrid'])).timezone).toBe('Europe/Madrid');

    expect(await refused([...base, '--sector', 'bar'], 1)).toMatch(/--sector must be one of horeca/);
    expect(await refused([...base, '--sector', 'horeca', '--timezone', 'Mars/Olympus'], 1)).toMatch(/--timezone/);
    await refused([...base, '--sector', 'horeca', '--timezone', '+01:00'], 1);
    await refused([...base, '--sector', 'horeca', '--timezone', 'Madrid'], 1);
    await refused(['establishment', 'create', '--org', UNKNOWN, '--name', 'X', '--cif', 'B12345678', '--sector', 'horeca'], 1);
    await refused(['establishment', 'create', '--org', 'not-a-uuid', '--name', 'X', '--cif', 'B12345678', '--sector', 'horeca'], 1);
    await refused(['establishment', 'create', '--org', org.id, '--name', 'X', '--cif', 'B1', '--sector', 'horeca'], 1);
  });

  it('key create/list/revoke: svc_ keys stored only as their SHA-256, never listed in full', async () => {
    const org = await ok(['org', 'create', '--name', 'Llaves', '--plan', 'enterprise']);
    const est = await ok(['establishment', 'create', '--org', org.id, '--name', 'E', '--cif', 'B11111111', '--sector', 'horeca']);
    const create = (...flags: string[]) => ['key', 'create', '--establishment', est.id, ...flags];
    const test = await ok(create('--mode', 'test'));
    const star = await ok(create('--mode', 'test', '--permissions', '*', '--name', 'Caja 1'));
    expect(star.name).toBe('Caja 1');
    const live = await ok(create('--mode', 'live', '--permissions', 'records:write,catalog:read,records:write'));
    expect(test).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^svc_test_[0-9A-Za-z]{32}$/),
      name: 'test key (merma-admin)',
      mode: 'test',
      establishment_id: est.id,
      permissions: ['*'],
    });
    expect(star.permissions).toEqual(['*']);
    expect(live).toMatchObject({
      key: expect.stringMatching(/^svc_live_[0-9A-Za-z]{32}$/),
      mode: 'live',
      permissions: ['records:write', 'catalog:read'],
    });
    for (const k of [test, star, live]) {
      expect(k.key).toHaveLength(41);
      const [row] = await sql('SELECT k.*, row_to_json(k)::text AS whole FROM api_keys k WHERE id = $1', [k.id]);
      expect(row).toMatchObject({ establishment_id: est.id, livemode: k.mode === 'live', permissions: k.permissions, revoked_at: null });
      expect(row.key_hash).toBe(createHash('sha256').update(k.key).digest('hex'));
      expect(row.whole).not.toContain(k.key.slice(9)); // no column holds the key (or its secret part)
    }

    await refused(create('--mode', 'test', '--permissions', 'records:read,everything'), 1);
    await refused(create('--mode', 'test', '--permissions', ''), 1);
    await refused(create('--mode', 'prod'), 1);
    await refused(['key', 'create', '--establishment', UNKNOWN, '--mode', 'test'], 1);

    const listRes = await run(['key', 'list', '--establishment', est.id]);
    for (const k of [test, star, live]) expect(listRes.stdout).not.toContain(k.key.slice(9));
    const list = JSON.parse(listRes.stdout);
    expect(list).toHaveLength(3);
    expect(list.find((k: { id: string }) => k.id === live.id)).toEqual({
      id: live.id,
      name: 'live key (merma-admin)',
      mode: 'live',
      redacted: `svc_live_…${live.key.slice(-4)}`,
      prefix: 'svc_live_',
      last4: live.key.slice(-4),
      permissions: ['records:write', 'catalog:read'],
      created_by: null,
      created_at: expect.stringMatching(/Z$/),
      last_used_at: null,
      revoked_at: null,
    });
    expect(list.find((k: { id: string }) => k.id === test.id)).toMatchObject({ prefix: 'svc_test_', last4: test.key.slice(-4) });
    await refused(['key', 'list', '--establishment', UNKNOWN], 1);

    const revoked = await ok(['key', 'revoke', '--id', live.id]);
    expect(revoked).toEqual({ id: live.id, revoked_at: expect.stringMatching(/Z$/) });
    const [row] = await sql('SELECT revoked_at FROM api_keys WHERE id = $1', [live.id]);
    expect(row.revoked_at.toISOString()).toBe(revoked.revoked_at);
    expect((await ok(['key', 'revoke', '--id', live.id])).revoked_at).toBe(revoked.revoked_at); // idempotent
    expect(await sql('SELECT id FROM api_keys WHERE revoked_at IS NOT NULL AND establishment_id = $1', [est.id])).toEqual([
      { id: live.id },
    ]);
    await refused(['key', 'revoke', '--id', UNKNOWN], 1);
  });

  it('product import: comma or semicolon CSV, re-import updates by EAN, a bad row aborts naming its line', async () => {
    const [a, b, c] = ['841000081000', '400638133393', '544900000099'].map(ean13) as [string, string, string];
    expect([a, b, c]).toEqual(['8410000810004', '4006381333931', '5449000000996']);
    const org = await ok(['org', 'create', '--name', 'Super', '--plan', 'enterprise']);
    const products = () => sql('SELECT name, food_category, ean FROM products WHERE organization_id = $1 ORDER BY ean', [org.id]);
    const file = (name: string, text: string) => {
      writeFileSync(join(tmp, name), text);
      return join(tmp, name);
    };
    const imp = (path: string) => ['product', 'import', '--org', org.id, '--file', path];

    const comma = file('comma.csv', `name,food_category,ean\nPan de barra,bakery,${b}\n"Yogur, natural",dairy,${a}\n`);
    expect(await ok(imp(comma))).toEqual({ organization_id: org.id, created: 2, updated: 0 });
    const semi = file('semi.csv', `\uFEFFName;Food_Category;EAN\r\nYogur griego, 4 uds;dairy;${a}\r\n\r\nRefresco;beverages;${c}\r\n`);
    expect(await ok(imp(semi))).toEqual({ organization_id: org.id, created: 1, updated: 1 });
    const expected = [
      { name: 'Pan de barra', food_category: 'bakery', ean: b },
      { name: 'Refresco', food_category: 'beverages', ean: c },
      { name: 'Yogur griego, 4 uds', food_category: 'dairy', ean: a },
    ];
    expect(await products()).toEqual(expected);

    const bad = file('bad.csv', `name,food_category,ean\nPan integral,bakery,${b}\n\nLeche,dairy,${c.slice(0, 12)}1\n`);
    const message = await refused(imp(bad), 1);
    expect(message).toMatch(/line 4: ean "5449000000991" is not a valid/);
    expect(message).not.toMatch(/line [235]/);
    expect(await refused(imp(file('cat.csv', `name;food_category;ean\nChuches;candy;${ean13('123456789012')}\n`)), 1)).toMatch(
      /line 2: food_category "candy"/,
    );
    expect(await refused(imp(file('dup.csv', `name,food_category,ean\nA,fish,${a}\nB,fish,${a}\n`)), 1)).toMatch(
      /line 3: ean \d+ repeats line 2/,
    );
    // Prices: a decimal comma is read; a cost above the price, or a leftover worth more than its cost, stops the import.
    const priced = file('priced.csv', `name;food_category;ean;price;unit_cost;salvage_value\nPan de barra;bakery;${b};1,10;0,35;0,05\n`);
    expect(await ok(imp(priced))).toEqual({ organization_id: org.id, created: 0, updated: 1 });
    expect(await sql('SELECT price::text, unit_cost::text, salvage_value::text FROM products WHERE ean = $1', [b])).toEqual([
      { price: '1.1000', unit_cost: '0.3500', salvage_value: '0.0500' },
    ]);
    const losing = file(
      'losing.csv',
      `name,food_category,ean,price,unit_cost,salvage_value\nPan de barra,bakery,${b},1,2,\nRefresco,beverages,${c},-1,,\nPan,bakery,${a},2,1,1.5\n`,
    );
    const why = await refused(imp(losing), 1);
    expect(why).toMatch(/line 2: unit_cost 2 is above price 1/);
    expect(why).toMatch(/line 3: price "-1" is not an amount/);
    expect(why).toMatch(/line 4: salvage_value 1.5 is above unit_cost 1/);
    expect(await sql('SELECT price::text FROM products WHERE ean = $1', [b])).toEqual([{ price: '1.1000' }]);
    await ok(imp(semi)); // back to the rows `expected` lists (and no prices)
    await refused(imp(file('empty.csv', 'name,food_category,ean\n')), 1);
    await refused(imp(join(tmp, 'missing.csv')), 1);
    await refused(['product', 'import', '--org', UNKNOWN, '--file', comma], 1);
    expect(await products()).toEqual(expected);
  });

  it("DEFAULT_TIMEZONE is the zone of establishments created without --timezone, and of quickstart's", async () => {
    const org = await ok(['org', 'create', '--name', 'Canarias', '--plan', 'enterprise']);
    const env = { DATABASE_URL: database.url, DATA_DIR: cliDataDir(), DEFAULT_TIMEZONE: 'Atlantic/Canary' };
    const created = await cli(
      ['establishment', 'create', '--org', org.id, '--name', 'Las Palmas', '--cif', 'B76543210', '--sector', 'retail'],
      env,
    );
    expect(created, created.stderr).toMatchObject({ code: 0, stderr: '' });
    const est = JSON.parse(created.stdout);
    expect(est.timezone).toBe('Atlantic/Canary');
    expect(await sql('SELECT timezone FROM establishments WHERE id = $1', [est.id])).toEqual([{ timezone: 'Atlantic/Canary' }]);
    // A demo that another test's quickstart made is reused, zone and all: canceled, the next one is new.
    await ok(['org', 'cancel', '--id', (await ok(['quickstart'])).organization.id]);
    const quick = await cli(['quickstart'], env);
    const demo = JSON.parse(quick.stdout);
    expect(demo.reused).toBe(false);
    expect(demo.establishment.timezone).toBe('Atlantic/Canary');
    // Canceled, that demo is not reused: the next quickstart makes one whose key works.
    await ok(['org', 'cancel', '--id', demo.organization.id]);
    // --timezone still wins over the default.
    const madrid = await cli(
      [
        'establishment',
        'create',
        '--org',
        org.id,
        '--name',
        'Madrid',
        '--cif',
        'B76543211',
        '--sector',
        'retail',
        '--timezone',
        'Europe/Madrid',
      ],
      env,
    );
    expect(JSON.parse(madrid.stdout).timezone).toBe('Europe/Madrid');
  });

  it("`pnpm admin` at the repository root prints merma-admin's JSON alone (it pipes into jq)", async () => {
    const { stdout } = await exec('pnpm', ['admin', 'quickstart'], {
      cwd: resolve(SERVER_DIR, '../..'),
      env: childEnv({ MERMA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, DATABASE_URL: database.url, DATA_DIR: cliDataDir() }),
      timeout: deadline(60_000),
    });
    const out = JSON.parse(stdout) as { key: { key: string } };
    expect(out.key.key).toMatch(/^svc_test_/);
  });

  it('quickstart: an Enterprise organisation, an establishment and a test key with every permission', async () => {
    const q = await ok(['quickstart']);
    expect(q.organization).toMatchObject({ plan: 'enterprise' });
    expect(q.establishment).toMatchObject({ organization_id: q.organization.id, timezone: 'Europe/Madrid' });
    expect(q.key).toMatchObject({
      key: expect.stringMatching(/^svc_test_/),
      mode: 'test',
      establishment_id: q.establishment.id,
      permissions: ['*'],
    });
    const [row] = await sql(
      `SELECT o.plan, e.organization_id, k.livemode, k.permissions, k.key_hash FROM api_keys k
       JOIN establishments e ON e.id = k.establishment_id JOIN organizations o ON o.id = e.organization_id WHERE k.id = $1`,
      [q.key.id],
    );
    expect(row).toEqual({
      plan: 'enterprise',
      organization_id: q.organization.id,
      livemode: false,
      permissions: ['*'],
      key_hash: createHash('sha256').update(q.key.key).digest('hex'),
    });
    expect(await sql('SELECT count(*)::int AS n FROM record_chain_heads WHERE establishment_id = $1', [q.establishment.id])).toEqual([
      { n: 2 },
    ]);
    // and a one-time sign-in link to the dashboard for the demo owner
    expect(q.dashboard).toEqual({
      email: 'owner@demo.merma.local',
      sign_in_link: expect.stringMatching(/^http:\/\/localhost:3000\/dashboard\/link\?token=[\w-]{43}$/),
      expires_at: expect.stringMatching(/Z$/),
    });
    expect(
      await sql('SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1', [q.organization.id]),
    ).toEqual([{ role: 'owner' }]);
  });

  it('quickstart again: the same demo organisation and establishment, a new key and a new sign-in link', async () => {
    const first = await ok(['quickstart']);
    const second = await ok(['quickstart']);
    expect(second.reused).toBe(true);
    expect(second.organization).toEqual(first.organization);
    expect(second.establishment).toEqual(first.establishment);
    expect(second.key.id).not.toBe(first.key.id);
    expect(second.key.key).toMatch(/^svc_test_/);
    expect(second.dashboard.sign_in_link).not.toBe(first.dashboard.sign_in_link);
    const demos = await sql(
      `SELECT o.id FROM organizations o JOIN memberships m ON m.organization_id = o.id JOIN users u ON u.id = m.user_id
       WHERE o.name = 'Demo kitchen group' AND o.canceled_at IS NULL AND u.email = 'owner@demo.merma.local'`,
    );
    expect(demos).toEqual([{ id: first.organization.id }]);
    expect(await sql('SELECT count(*)::int AS n FROM establishments WHERE organization_id = $1', [first.organization.id])).toEqual([
      { n: 1 },
    ]);
    const keys = await sql('SELECT id, revoked_at FROM api_keys WHERE establishment_id = $1 AND id = ANY($2::uuid[]) ORDER BY id', [
      first.establishment.id,
      [first.key.id, second.key.id],
    ]);
    // Both keys stay valid: the first may be in use already.
    expect(keys).toHaveLength(2);
    expect(keys.every((k: { revoked_at: Date | null }) => k.revoked_at === null)).toBe(true);
  });

  it("quickstart's link: PUBLIC_URL when set, else localhost:PORT when no server recorded its address (or it died)", async () => {
    const dataDir = join(tmp, 'stale');
    mkdirSync(dataDir, { recursive: true });
    // A server that was killed (no shutdown) leaves its file behind: its pid no longer runs.
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(join(dataDir, 'server.json'), JSON.stringify({ pid: dead, url: 'http://127.0.0.1:1' }));
    const stale = await cli(['quickstart'], { DATABASE_URL: database.url, DATA_DIR: dataDir, PORT: '4123' });
    expect(JSON.parse(stale.stdout).dashboard.sign_in_link).toMatch(/^http:\/\/localhost:4123\/dashboard\/link\?token=/);
    const given = await cli(['quickstart'], { DATABASE_URL: database.url, DATA_DIR: dataDir, PUBLIC_URL: 'https://merma.example.com/' });
    expect(JSON.parse(given.stdout).dashboard.sign_in_link).toMatch(/^https:\/\/merma\.example\.com\/dashboard\/link\?token=/);
  });

  it.each([
    [['nonsense'], /unknown command "nonsense"/],
    [['org', 'frobnicate', '--id', UNKNOWN], /unknown command/],
    [['org', 'create'], /missing --name, --plan/],
    [['org', 'create', '--name', 'X'], /missing --plan/],
    [['key', 'create', '--establishment', UNKNOWN], /missing --mode/],
    [['product', 'import', '--org', UNKNOWN], /missing --file/],
    [['org', 'create', '--name', 'X', '--plan', 'pro', '--colour', 'red'], /colour/],
    [['quickstart', 'now'], /argument/],
  ])('usage error %j: exit 2, one stderr line, nothing written', async (args, message) => {
    expect(await refused(args as string[], 2)).toMatch(message);
  });

  it('--help prints the usage', async () => {
    const res = await run(['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^usage: merma-admin/);
  });
});

describe('merma-admin with the embedded database', () => {
  it(
    'joins the database of a running server (no DATABASE_URL), whose API accepts the printed key',
    async () => {
      const dataDir = join(tmp, 'embedded');
      const port = await new Promise<number>((done) => {
        const s = createServer().listen(0, '127.0.0.1', () => {
          const p = (s.address() as { port: number }).port;
          s.close(() => done(p));
        });
      });
      // No key configured: the server generates one under DATA_DIR, and the CLI uses the same.
      const env = { DATABASE_URL: undefined, DATA_DIR: dataDir, MERMA_ENCRYPTION_KEY: undefined };
      const server: ChildProcess = spawn(process.execPath, [SERVER], {
        cwd: SERVER_DIR,
        env: childEnv({ ...env, PORT: String(port), LOG_LEVEL: 'warn', HOST: '127.0.0.1' }),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let log = '';
      server.stderr?.on('data', (d) => (log += d));
      const exited = new Promise<number | null>((done) => server.once('exit', (code) => done(code)));
      try {
        let up = false;
        for (let i = 0; i < 300 && !up && server.exitCode === null; i++) {
          up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
            (r) => r.ok,
            () => false,
          );
          if (!up) await sleep(100);
        }
        expect(up, log).toBe(true);
        const keyFile = join(dataDir, 'encryption.key');
        expect(statSync(keyFile).mode & 0o777).toBe(0o600);
        const generated = readFileSync(keyFile, 'utf8');

        // The server's PORT was given to the server only: the link still names the port it listens on.
        expect(JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'))).toEqual({
          pid: server.pid,
          url: `http://127.0.0.1:${port}`,
        });
        const quick = await cli(['quickstart'], env);
        expect(quick.code, quick.stderr).toBe(0);
        const { key, establishment, organization, dashboard } = JSON.parse(quick.stdout);
        expect(dashboard.sign_in_link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/dashboard/link\\?token=[\\w-]{43}$`));
        const page = await fetch(dashboard.sign_in_link);
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toMatch(/^text\/html/);

        const again = await cli(['quickstart'], env);
        expect(again.code, again.stderr).toBe(0);
        const second = JSON.parse(again.stdout);
        expect(second).toMatchObject({ reused: true, organization: { id: organization.id }, establishment: { id: establishment.id } });
        expect(second.key.id).not.toBe(key.id);
        expect(second.dashboard.sign_in_link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/dashboard/link\\?token=`));
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/destinos`, { headers: { authorization: `Bearer ${key.key}` } });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);

        server.kill('SIGTERM');
        const code = await Promise.race([exited, sleep(30_000).then(() => 'timeout')]);
        expect(code, log).toBe(0);
        expect(existsSync(join(dataDir, 'embedded.json'))).toBe(false);
        expect(existsSync(join(dataDir, 'server.json'))).toBe(false);

        // With the server gone the CLI opens the files itself, and finds what quickstart wrote.
        const list = await cli(['key', 'list', '--establishment', establishment.id], env);
        expect(list.code, list.stderr).toBe(0);
        expect(JSON.parse(list.stdout)).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ id: key.id, last4: key.key.slice(-4) }),
            expect.objectContaining({ id: second.key.id }),
          ]),
        );
        expect(JSON.parse(list.stdout)).toHaveLength(2);
        expect(readFileSync(keyFile, 'utf8')).toBe(generated); // kept, not generated again
      } finally {
        if (server.exitCode === null && server.signalCode === null) {
          server.kill('SIGKILL');
          await exited;
        }
      }
    },
    deadline(120_000),
  );
});
