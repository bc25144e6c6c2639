import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { verifyDelivery } from '@merma/signing';
import { deadline } from '@merma/testing';
import { Webhook as StandardWebhooks } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { keyIdOf, type SecretBox } from '../src/secrets/cipher.js';
import { loadSecretBox, parseEncryptionKeys } from '../src/secrets/keys.js';
import { openSecret, secretContext } from '../src/secrets/stored.js';
import { api, createTenant, drain, startTestApp, subscribe, type Tenant, type TestContext } from './helpers.js';
import { startReceiver, waitFor } from './receiver.js';

/**
 * Webhook signing secrets are stored encrypted (AES-256-GCM, MERMA_ENCRYPTION_KEY), on the real
 * database: what the API writes, what the delivery signs with, the boot step that seals secrets
 * stored in clear, key rotation with `merma-admin secrets reencrypt`, and production refusing to
 * start without a key. The cipher itself is in secrets.test.ts.
 */
const SERVER_DIR = resolve(import.meta.dirname, '..');
const exec = promisify(execFile);
const newKey = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
type StoredRow = Record<string, unknown> & { id: string; secret: string; previous_secret: string | null };

/** `node src/<entry>.ts` as the package scripts run it, with `env` on top of this process's (undefined removes). */
async function run(entry: 'admin' | 'main', args: string[], env: Record<string, string | undefined>) {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete merged[k];
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--conditions=@merma/source', '--import', 'tsx', `src/${entry}.ts`, ...args], {
      cwd: SERVER_DIR,
      env: merged,
      timeout: deadline(60_000),
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(err) };
  }
}

/** Every column of a subscription's row, as stored. */
async function storedRow(t: TestContext, id: string): Promise<StoredRow> {
  const [row] = await t.db.$queryRawUnsafe<{ row: StoredRow }[]>(
    'SELECT to_jsonb(s) AS row FROM webhook_subscriptions s WHERE id = $1::uuid',
    id,
  );
  if (!row) throw new Error(`no subscription ${id}`);
  return row.row;
}

/** The secret and the key bytes it stands for, in every spelling a careless store could hold them. */
const spellings = (secret: string) => {
  const body = secret.slice('whsec_'.length);
  const bytes = Buffer.from(body, 'base64');
  return [secret, body, body.replace(/=+$/, ''), bytes.toString('hex'), bytes.toString('base64url')];
};

function expectNoClearSecret(row: StoredRow, ...secrets: string[]) {
  const text = JSON.stringify(row);
  for (const secret of secrets) for (const spelled of spellings(secret)) expect(text).not.toContain(spelled);
}

describe('webhook secrets at rest', () => {
  let t: TestContext;
  let receiver: Receiver;
  let box: SecretBox;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true' }, worker: true });
    receiver = await startReceiver();
    box = loadSecretBox(t.config);
    tenant = await createTenant(t.db);
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  /** Sends a test event to the subscription and returns the request its receiver got. */
  async function testDelivery(subId: string) {
    const res = await api(t.app, tenant.key).post(`/api/v1/webhooks/${subId}/test`, {});
    expect(res.statusCode).toBe(200);
    const id = res.json().data.id as string;
    return waitFor(() => receiver.received.find((r) => r.headers['webhook-id'] === id), 10_000, `delivery ${id}`);
  }
  const headersOf = (r: { headers: Record<string, unknown> }) => r.headers as Record<string, string>;

  it('stores the secret of a new subscription encrypted: neither the secret nor its base64 body in any column', async () => {
    const generated = await subscribe(t, tenant, `${receiver.url}/generated`, ['record.created']);
    const own = `whsec_${randomBytes(32).toString('base64')}`;
    const created = await api(t.app, tenant.key).post('/api/v1/webhooks', {
      url: `${receiver.url}/own`,
      events: ['record.created'],
      secret: own,
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().data.secret).toBe(own); // the API still returns it, once

    for (const [id, secret] of [
      [generated.id, generated.secret],
      [created.json().data.id as string, own],
    ] as const) {
      const row = await storedRow(t, id);
      expect(row.secret).toMatch(/^enc:v1:test:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/]+=*$/);
      expect(row.previous_secret).toBeNull();
      expectNoClearSecret(row, secret);
      expect(openSecret(box, id, 'secret', row.secret)).toBe(secret);
    }
  });

  it('signs deliveries with the secret the API returned (standardwebhooks verifies them)', async () => {
    const sub = await subscribe(t, tenant, `${receiver.url}/verified`, ['record.created']);
    const delivery = await testDelivery(sub.id);
    expect(new StandardWebhooks(sub.secret).verify(delivery.body, headersOf(delivery))).toMatchObject({ event: 'webhook.test' });
    expect(() => new StandardWebhooks(`whsec_${randomBytes(32).toString('base64')}`).verify(delivery.body, headersOf(delivery))).toThrow();
  });

  it('keeps both secrets encrypted through a rotation, each bound to its own column', async () => {
    const sub = await subscribe(t, tenant, `${receiver.url}/rotated`, ['record.created']);
    const before = await storedRow(t, sub.id);
    const res = await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/rotate-secret`, { grace_period_seconds: 3600 });
    expect(res.statusCode).toBe(200);
    const rotated = res.json().data as { secret: string };

    const row = await storedRow(t, sub.id);
    expect(keyIdOf(row.secret)).toBe('test');
    expect(keyIdOf(row.previous_secret as string)).toBe('test');
    expectNoClearSecret(row, sub.secret, rotated.secret);
    expect(openSecret(box, sub.id, 'secret', row.secret)).toBe(rotated.secret);
    expect(openSecret(box, sub.id, 'previous_secret', row.previous_secret as string)).toBe(sub.secret);
    // Sealed again for its new column, not moved: the old `secret` value is not what is stored.
    expect(row.previous_secret).not.toBe(before.secret);
    expect(() => openSecret(box, sub.id, 'secret', row.previous_secret as string)).toThrow(/cannot be decrypted/);

    // During the grace period both sign; a receiver with either verifies.
    const delivery = await testDelivery(sub.id);
    for (const secret of [sub.secret, rotated.secret]) {
      expect(new StandardWebhooks(secret).verify(delivery.body, headersOf(delivery))).toMatchObject({ event: 'webhook.test' });
    }

    // Grace 0: the previous secret is dropped, the new one sealed.
    const latest = (await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/rotate-secret`, { grace_period_seconds: 0 })).json()
      .data as { secret: string };
    const after = await storedRow(t, sub.id);
    expect(after.previous_secret).toBeNull();
    expectNoClearSecret(after, latest.secret, rotated.secret, sub.secret);
    expect(openSecret(box, sub.id, 'secret', after.secret)).toBe(latest.secret);
  });

  it('loses no secret when rotations race: each replaced secret is the one before it', async () => {
    const sub = await subscribe(t, tenant, `${receiver.url}/raced`, ['record.created']);
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/rotate-secret`, { grace_period_seconds: 60 }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    const issued = new Set([sub.secret, ...results.map((r) => r.json().data.secret as string)]);
    const row = await storedRow(t, sub.id);
    const current = openSecret(box, sub.id, 'secret', row.secret);
    const previous = openSecret(box, sub.id, 'previous_secret', row.previous_secret as string);
    expect(issued.has(current) && issued.has(previous) && current !== previous).toBe(true);
  });

  it('does not sign with a secret copied from another subscription: the attempt fails instead, and resumes once it is put back', async () => {
    const a = await subscribe(t, tenant, `${receiver.url}/a`, ['record.created']);
    const b = await subscribe(t, tenant, `${receiver.url}/b`, ['record.created']);
    const own = (await storedRow(t, b.id)).secret;
    await t.db.$executeRawUnsafe(
      'UPDATE webhook_subscriptions SET secret = (SELECT secret FROM webhook_subscriptions WHERE id = $1::uuid) WHERE id = $2::uuid',
      a.id,
      b.id,
    );
    const res = await api(t.app, tenant.key).post(`/api/v1/webhooks/${b.id}/test`, {});
    const deliveryId = res.json().data.id as string;
    const job = await waitFor(
      async () =>
        (
          await t.db.$queryRawUnsafe<{ attempts: number; last_error: string | null }[]>(
            `SELECT attempts, last_error FROM graphile_worker.jobs WHERE key = 'delivery:' || $1 AND last_error IS NOT NULL`,
            deliveryId,
          )
        )[0],
      10_000,
      'the failed job',
    );
    expect(job.last_error).toContain(`${secretContext(b.id, 'secret')} cannot be decrypted with key "test"`);
    expect(receiver.received.some((r) => r.headers['webhook-id'] === deliveryId)).toBe(false);
    // Not the receiver's fault: no attempt is recorded against it.
    const [delivery] = await t.db.$queryRawUnsafe<{ status: string; attempts: number }[]>(
      'SELECT status, attempts FROM webhook_deliveries WHERE id = $1::uuid',
      deliveryId,
    );
    expect(delivery).toEqual({ status: 'pending', attempts: 0 });

    // Its own value back: the job's retry signs with b's secret.
    await t.db.$executeRawUnsafe('UPDATE webhook_subscriptions SET secret = $1 WHERE id = $2::uuid', own, b.id);
    await t.db.$executeRawUnsafe(`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE key = 'delivery:' || $1`, deliveryId);
    const delivered = await waitFor(() => receiver.received.find((r) => r.headers['webhook-id'] === deliveryId), 10_000, 'the retry');
    expect(new StandardWebhooks(b.secret).verify(delivered.body, headersOf(delivered))).toMatchObject({ event: 'webhook.test' });
  });

  it('seals secrets stored in clear at boot, once, with replicas booting together', async () => {
    const clear = Array.from({ length: 3 }, () => ({ id: randomUUID(), secret: `whsec_${randomBytes(32).toString('base64')}` }));
    const previous = `whsec_${randomBytes(32).toString('base64')}`;
    for (const [i, c] of clear.entries()) {
      await t.db.$executeRawUnsafe(
        `INSERT INTO webhook_subscriptions (id, establishment_id, livemode, url, events, secret, previous_secret, previous_secret_expires_at)
         VALUES ($1::uuid, $2::uuid, false, $3, ARRAY['record.created'], $4, $5, $6::timestamptz)`,
        c.id,
        tenant.establishmentId,
        `${receiver.url}/clear-${i}`,
        c.secret,
        i === 0 ? previous : null,
        i === 0 ? new Date(Date.now() + 3_600_000) : null,
      );
    }
    // Until then a clear value still signs (rows written by an older server during a rolling deploy).
    const early = await testDelivery(clear[1]?.id as string);
    expect(new StandardWebhooks(clear[1]?.secret as string).verify(early.body, headersOf(early))).toMatchObject({ event: 'webhook.test' });

    const logs: { sealed?: number }[] = [];
    const log = { info: (obj: object) => logs.push(obj), warn: () => {} };
    const config = { ...t.config, databaseUrl: t.database.url };
    const replicas = await Promise.all([openDatabase(config, { migrate: true, log }), openDatabase(config, { migrate: true, log })]);
    await Promise.all(replicas.map((d) => d.close()));
    const sealed = logs.filter((l) => l.sealed !== undefined).map((l) => l.sealed as number);
    // Between them, each clear row sealed once.
    expect(sealed).toHaveLength(2);
    expect((sealed[0] ?? 0) + (sealed[1] ?? 0)).toBe(3);

    for (const [i, c] of clear.entries()) {
      const row = await storedRow(t, c.id);
      expectNoClearSecret(row, c.secret, previous);
      expect(openSecret(box, c.id, 'secret', row.secret)).toBe(c.secret);
      if (i === 0) expect(openSecret(box, c.id, 'previous_secret', row.previous_secret as string)).toBe(previous);
      else expect(row.previous_secret).toBeNull();
    }
    const [left] = await t.db.$queryRawUnsafe<{ n: number }[]>(
      "SELECT count(*)::int AS n FROM webhook_subscriptions WHERE NOT starts_with(secret, 'enc:v1:') OR NOT starts_with(previous_secret, 'enc:v1:')",
    );
    expect(left?.n).toBe(0);

    // Idempotent: the next boot finds nothing to seal, and what it sealed still signs.
    logs.length = 0;
    await (await openDatabase(config, { migrate: true, log })).close();
    expect(logs.find((l) => l.sealed !== undefined)?.sealed).toBe(0);
    const later = await testDelivery(clear[0]?.id as string);
    for (const secret of [clear[0]?.secret as string, previous]) {
      expect(new StandardWebhooks(secret).verify(later.body, headersOf(later))).toMatchObject({ event: 'webhook.test' });
    }
  });

  it('refuses to boot when stored secrets need a key it does not have, naming the key', async () => {
    // A secret of its own under the key "test", whichever tests ran before.
    await subscribe(t, tenant, `${receiver.url}/refused-boot`, ['record.created']);
    const config = { ...t.config, databaseUrl: t.database.url, encryptionKeys: parseEncryptionKeys(newKey('other')) };
    await expect(openDatabase(config, { migrate: true })).rejects.toThrow(
      /^Stored secrets are encrypted with key "test" \(\d+ secrets?\) that MERMA_ENCRYPTION_KEY does not hold \(it holds other\)\. Put it back after the current key/,
    );
    // The right id with another key (a key regenerated by mistake) is refused too.
    const wrong = { ...config, encryptionKeys: parseEncryptionKeys(newKey('test')) };
    await expect(openDatabase(wrong, { migrate: true })).rejects.toThrow(
      /^Stored secrets cannot be decrypted with the key MERMA_ENCRYPTION_KEY gives as "test" \(.* cannot be decrypted with key "test"/,
    );
  });
});

describe('key rotation with merma-admin secrets reencrypt', { timeout: deadline(90_000) }, () => {
  const K1 = newKey('k1');
  const K2 = newKey('k2');
  let t: TestContext;
  let receiver: Receiver;

  beforeAll(async () => {
    // The API runs with k1 only; no worker until k1 is gone.
    t = await startTestApp({ config: { WEBHOOKS_ALLOW_PRIVATE: 'true', MERMA_ENCRYPTION_KEY: K1 } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  const admin = (args: string[], key: string | undefined) =>
    run('admin', args, {
      DATABASE_URL: t.database.url,
      DATA_DIR: undefined,
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://merma.test',
      MAIL_TO_LOG: 'true',
      TRUST_PROXY: 'loopback',
      MERMA_ENCRYPTION_KEY: key,
    });

  it('moves every secret from k1 to k2, after which k1 can be removed', async () => {
    const tenant = await createTenant(t.db);
    const plain = await subscribe(t, tenant, `${receiver.url}/plain`, ['record.created']);
    const rotating = await subscribe(t, tenant, `${receiver.url}/rotating`, ['record.created']);
    const rotated = (
      await api(t.app, tenant.key).post(`/api/v1/webhooks/${rotating.id}/rotate-secret`, { grace_period_seconds: 3600 })
    ).json().data as { secret: string };
    const stored = async () =>
      t.db.$queryRawUnsafe<{ id: string; secret: string; previous_secret: string | null }[]>(
        'SELECT id::text, secret, previous_secret FROM webhook_subscriptions ORDER BY id',
      );
    const keyIds = async () =>
      (await stored())
        .flatMap((r) => [r.secret, r.previous_secret])
        .filter((v) => v !== null)
        .map(keyIdOf);
    expect(await keyIds()).toEqual(['k1', 'k1', 'k1']);

    // Dropping k1 too early: refused, naming it, nothing written.
    const early = await admin(['secrets', 'reencrypt'], K2);
    expect(early.code).toBe(1);
    expect(early.stdout).toBe('');
    expect(early.stderr).toMatch(
      /^merma-admin: Stored secrets are encrypted with key "k1" \(3 secrets\) that MERMA_ENCRYPTION_KEY does not hold \(it holds k2\)/,
    );
    expect(await keyIds()).toEqual(['k1', 'k1', 'k1']);

    // The new key first, the old one after it.
    const moved = await admin(['secrets', 'reencrypt'], `${K2},${K1}`);
    expect(moved, moved.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(moved.stdout)).toEqual({ key_id: 'k2', reencrypted: 2, subscriptions: 2, integrations: 0, keys_in_use: ['k2'] });
    expect(await keyIds()).toEqual(['k2', 'k2', 'k2']);

    // k1 removed: the CLI boots, and a second run has nothing left to do.
    const again = await admin(['secrets', 'reencrypt'], K2);
    expect(again, again.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(again.stdout)).toEqual({ key_id: 'k2', reencrypted: 0, subscriptions: 2, integrations: 0, keys_in_use: ['k2'] });

    // A worker holding k2 only signs with the secrets the API returned, the previous one included.
    const box = loadSecretBox({ ...t.config, encryptionKeys: parseEncryptionKeys(K2) });
    for (const row of await stored()) {
      expect(openSecret(box, row.id, 'secret', row.secret)).toBe(row.id === plain.id ? plain.secret : rotated.secret);
    }
    await t.startWorker({ config: { encryptionKeys: parseEncryptionKeys(K2) } });
    for (const [sub, secrets] of [
      [plain, [plain.secret]],
      [rotating, [rotated.secret, rotating.secret]],
    ] as const) {
      const res = await api(t.app, tenant.key).post(`/api/v1/webhooks/${sub.id}/test`, {});
      const id = res.json().data.id as string;
      const delivery = await waitFor(() => receiver.received.find((r) => r.headers['webhook-id'] === id), 10_000, `delivery ${id}`);
      for (const secret of secrets) {
        expect(new StandardWebhooks(secret).verify(delivery.body, delivery.headers as Record<string, string>)).toMatchObject({
          event: 'webhook.test',
        });
        expect((await verifyDelivery({ payload: delivery.body, headers: delivery.headers as Record<string, string>, secret })).ok).toBe(
          true,
        );
      }
    }
    await drain(t.db);
  });
});

describe('production without MERMA_ENCRYPTION_KEY', { timeout: deadline(60_000) }, () => {
  const MESSAGE =
    'MERMA_ENCRYPTION_KEY: required when NODE_ENV=production (webhook signing secrets are encrypted with it): generate a key with `openssl rand -base64 32` and set MERMA_ENCRYPTION_KEY=k1:<that key>';
  const env = {
    NODE_ENV: 'production',
    PUBLIC_URL: 'https://merma.test',
    MAIL_TO_LOG: 'true',
    TRUST_PROXY: 'loopback',
    MERMA_ENCRYPTION_KEY: undefined,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: undefined,
  };

  it('the server does not start, and says why', async () => {
    const res = await run('main', [], { ...env, DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/never' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(MESSAGE);
    expect(res.stdout).not.toMatch(/Server listening/);
  });

  it('nor does merma-admin', async () => {
    const res = await run('admin', ['secrets', 'reencrypt'], { ...env, DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/never' });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(`merma-admin: Invalid configuration:   ${MESSAGE}\n`);
  });
});
