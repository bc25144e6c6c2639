import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_PHOTO_BYTES } from '@merma/schema';
import { AwsClient } from 'aws4fetch';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { addKey, api, createTenant, startTestApp, type Tenant, type TestContext, testConfig, validRecord } from './helpers.js';

/**
 * The waste's photos (modules/photos): uploaded raw by an API key or a paired station, kept as
 * files under DATA_DIR or in an S3-compatible bucket (a real one here: s3rver over HTTP), named by
 * a stable URL a record's `photo_url` holds, and read through short-lived signed links — tried on
 * both sides of their expiry with a moved clock, altered, and across organisations and modes.
 */

/** A real 1×1 PNG (a red pixel) and a JPEG's first bytes (SOI, APP0 "JFIF"): what the magic-number check reads. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(64, 7)]);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let now = new Date('2026-11-30T10:00:00.000Z');
const clock = () => now;

const upload = (t: TestContext, key: string | undefined, body: Buffer | string, type = 'image/png', url = '/api/v1/photos') =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(type ? { 'content-type': type } : {}) },
    payload: body,
  });

/** The path and query of a link (the app is reached by inject, not at its public address). */
const pathOf = (link: string) => {
  const u = new URL(link);
  return `${u.pathname}${u.search}`;
};

const photoRows = (t: TestContext, organizationId: string) =>
  t.db.$queryRawUnsafe<{ id: string; sha256: string; storage: string; storage_key: string; livemode: boolean }[]>(
    'SELECT id::text, sha256, storage, storage_key, livemode FROM photos WHERE organization_id = $1::uuid ORDER BY created_at',
    organizationId,
  );

describe('photos kept as files under DATA_DIR', () => {
  let t: TestContext;
  let tenant: Tenant;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'merma-photos-'));
    t = await startTestApp({ clock, config: { DATA_DIR: dataDir, PUBLIC_URL: 'https://merma.example.com' } });
    tenant = await createTenant(t.db);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stores the bytes durably, answers 201 with a stable URL, and the same bytes again are the same photo', async () => {
    const res = await upload(t, tenant.key, PNG);
    expect(res.statusCode, res.body).toBe(201);
    const photo = res.json().data;
    expect(photo).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      object: 'photo',
      url: `https://merma.example.com/api/v1/photos/${photo.id}`,
      content_type: 'image/png',
      size_bytes: PNG.length,
      sha256: sha256(PNG),
      livemode: false,
      created_at: now.toISOString(),
    });
    const [row] = await photoRows(t, tenant.organizationId);
    expect(row).toMatchObject({ id: photo.id, storage: 'file', storage_key: `${tenant.organizationId}/test/${sha256(PNG)}.png` });
    expect(readFileSync(join(dataDir, 'photos', row?.storage_key ?? '')).equals(PNG)).toBe(true);

    const again = await upload(t, tenant.key, PNG);
    expect(again.statusCode).toBe(201);
    expect(again.json().data.id).toBe(photo.id);
    expect(await photoRows(t, tenant.organizationId)).toHaveLength(1);
  });

  it('answers the photo with a download link that works until its expiry and not a second after', async () => {
    const owner = await createTenant(t.db);
    const { id } = (await upload(t, owner.key, JPEG, 'image/jpeg')).json().data;
    const asked = now;
    const res = await api(t.app, owner.key).get(`/api/v1/photos/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    const photo = res.json().data;
    // PHOTO_LINK_TTL_SECONDS: 300 by default.
    expect(photo.download_expires_at).toBe(new Date(asked.getTime() + 300_000).toISOString());
    expect(photo.download_url).toMatch(new RegExp(`^https://merma\\.example\\.com/files/photos/${id}\\?expires=\\d+&signature=`));
    const link = pathOf(photo.download_url);

    const fetched = await t.app.inject({ method: 'GET', url: link });
    expect(fetched.statusCode).toBe(200);
    expect(fetched.rawPayload.equals(JPEG)).toBe(true);
    expect(fetched.headers['content-type']).toBe('image/jpeg');
    expect(fetched.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(fetched.headers['cache-control']).toBe('private, max-age=300');
    expect(fetched.headers['x-content-type-options']).toBe('nosniff');
    // No key is needed, and none is looked at: the signature is the permission.
    expect((await t.app.inject({ method: 'GET', url: link, headers: { authorization: 'Bearer nonsense' } })).statusCode).toBe(200);

    try {
      now = new Date(asked.getTime() + 299_000);
      const late = await t.app.inject({ method: 'GET', url: link });
      expect(late.statusCode).toBe(200);
      expect(late.headers['cache-control']).toBe('private, max-age=1');
      now = new Date(asked.getTime() + 300_000);
      const expired = await t.app.inject({ method: 'GET', url: link });
      expect(expired.statusCode).toBe(404);
      expect(expired.json()).toMatchObject({ code: 'not_found' });
    } finally {
      now = asked;
    }

    // Altered: a later expiry under the same signature, another signature, another photo's id.
    const url = new URL(photo.download_url);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await t.app.inject({ method: 'GET', url: pathOf(later.toString()) })).statusCode).toBe(404);
    const forged = new URL(url);
    // Its last character changed to another, whatever it was ("AA" put in place of the last two was, one time in 4,096, the signature itself).
    const signature = url.searchParams.get('signature') ?? '';
    forged.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`);
    expect((await t.app.inject({ method: 'GET', url: pathOf(forged.toString()) })).statusCode).toBe(404);
    const other = (await upload(t, owner.key, PNG)).json().data;
    expect((await t.app.inject({ method: 'GET', url: link.replace(id, other.id) })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/files/photos/${id}` })).statusCode).toBe(404);
  });

  it('refuses what is not a photo with a clear 4xx and stores nothing', async () => {
    const fresh = await createTenant(t.db);
    const cases: [Buffer | string, string, number, string][] = [
      [JSON.stringify({ photo: 'x' }), 'application/json', 415, 'unsupported_media_type'],
      ['a photo', 'text/plain', 415, 'unsupported_media_type'],
      [PNG, 'image/gif', 415, 'unsupported_media_type'],
      [JPEG, 'image/png', 400, 'validation_error'],
      [PNG, 'image/webp', 400, 'validation_error'],
      [Buffer.alloc(0), 'image/jpeg', 400, 'validation_error'],
      [Buffer.concat([JPEG, Buffer.alloc(MAX_PHOTO_BYTES)]), 'image/jpeg', 413, 'payload_too_large'],
    ];
    for (const [body, type, status, code] of cases) {
      const res = await upload(t, fresh.key, body, type);
      expect(res.statusCode, `${type}: ${res.body}`).toBe(status);
      expect(res.json()).toMatchObject({ code });
    }
    expect(await photoRows(t, fresh.organizationId)).toEqual([]);

    expect((await upload(t, undefined, PNG)).statusCode).toBe(401);
    const reader = await addKey(t.db, fresh.establishmentId, 'test', 'records:read');
    const forbidden = await upload(t, reader.key, PNG);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error).toContain('records:write');
    expect(await photoRows(t, fresh.organizationId)).toEqual([]);
    // Reading needs records:read: the reader may, a writer-only key may not.
    const writer = await addKey(t.db, fresh.establishmentId, 'test', 'records:write');
    const { id } = (await upload(t, writer.key, PNG)).json().data;
    expect((await api(t.app, writer.key).get(`/api/v1/photos/${id}`)).statusCode).toBe(403);
    expect((await api(t.app, reader.key).get(`/api/v1/photos/${id}`)).statusCode).toBe(200);
    expect((await api(t.app, reader.key).get('/api/v1/photos/not-a-uuid')).statusCode).toBe(400);
  });

  it("is the organisation's and its mode's alone: another's, or the other mode's, is a 404 and a record cannot name it", async () => {
    const mine = await createTenant(t.db);
    const theirs = await createTenant(t.db);
    const { id, url } = (await upload(t, mine.key, PNG)).json().data;
    expect((await api(t.app, theirs.key).get(`/api/v1/photos/${id}`)).statusCode).toBe(404);
    const live = await addKey(t.db, mine.establishmentId, 'live');
    expect((await api(t.app, live.key).get(`/api/v1/photos/${id}`)).statusCode).toBe(404);
    // Another establishment of the same organisation may read and link it.
    const sibling = await createTenant(t.db, { organizationId: mine.organizationId });
    expect((await api(t.app, sibling.key).get(`/api/v1/photos/${id}`)).statusCode).toBe(200);

    for (const key of [theirs.key, live.key]) {
      const refused = await api(t.app, key).post('/api/v1/records', validRecord({ photo_url: url }));
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json().details).toEqual([expect.objectContaining({ path: 'photo_url' })]);
    }
    const unknown = `https://merma.example.com/api/v1/photos/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`;
    expect((await api(t.app, mine.key).post('/api/v1/records', validRecord({ photo_url: unknown }))).statusCode).toBe(400);
    const batch = await api(t.app, mine.key).post('/api/v1/records/batch', {
      records: [validRecord({ photo_url: url }), validRecord({ photo_url: unknown })],
    });
    expect(batch.statusCode, batch.body).toBeGreaterThanOrEqual(200);
    expect(JSON.stringify(batch.json())).toContain('photo_url');
    const counted = await t.db.$queryRawUnsafe<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM records WHERE establishment_id = ANY($1::uuid[]) AND photo_url = $2',
      [theirs.establishmentId, mine.establishmentId],
      unknown,
    );
    expect(counted[0]?.n).toBe(0);

    // Its own record names it; an address that is not Merma's is the caller's own and is kept.
    const stored = await api(t.app, sibling.key).post('/api/v1/records', validRecord({ photo_url: url }));
    expect(stored.statusCode, stored.body).toBe(201);
    expect(stored.json().data.photo_url).toBe(url);
    const external = await api(t.app, mine.key).post('/api/v1/records', validRecord({ photo_url: 'https://cdn.example.org/bin/1.jpg' }));
    expect(external.statusCode).toBe(201);
  });

  it('takes a photo from a paired station, and the dashboard opens a record’s photo by its link', async () => {
    const kitchen = await createTenant(t.db);
    const owner = await createMember(t.db, kitchen.organizationId, 'owner');
    const http = new DashboardBrowser(t.app);
    await http.signIn(owner.email, PASSWORD);
    const scope = { establishment_id: kitchen.establishmentId, livemode: false };
    const started = await http.mutate('stations.startPairing', { ...scope, name: 'Cubo 1' });
    const paired = await t.app.inject({
      method: 'POST',
      url: '/station/pair',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ code: started.code }),
    });
    const { token } = paired.json().data;

    expect((await upload(t, undefined, JPEG, 'image/jpeg', '/station/photos')).statusCode).toBe(401);
    expect((await upload(t, token, '{}', 'application/json', '/station/photos')).statusCode).toBe(415);
    const taken = await upload(t, token, JPEG, 'image/jpeg', '/station/photos');
    expect(taken.statusCode, taken.body).toBe(201);
    const photo = taken.json().data;
    expect(photo).toMatchObject({ object: 'photo', content_type: 'image/jpeg', sha256: sha256(JPEG), livemode: false });
    // Every other station route still refuses an image body.
    expect((await upload(t, token, JPEG, 'image/jpeg', '/station/records')).statusCode).toBe(415);

    const record = await t.app.inject({
      method: 'POST',
      url: '/station/records',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'photo-record-1' },
      payload: JSON.stringify(validRecord({ photo_url: photo.url })),
    });
    expect(record.statusCode, record.body).toBe(201);
    const recordId = record.json().data.id;

    const opened = await http.query('records.photo', { ...scope, id: recordId });
    expect(opened).toMatchObject({ id: photo.id, url: photo.url });
    const bytes = await t.app.inject({ method: 'GET', url: pathOf(opened.download_url) });
    expect(bytes.rawPayload.equals(JPEG)).toBe(true);
    // A record without one: a 404.
    const plain = await api(t.app, kitchen.key).post('/api/v1/records', validRecord());
    await expect(http.query('records.photo', { ...scope, id: plain.json().data.id })).rejects.toThrow(/no photo/i);
  });
});

describe('photos kept in an S3-compatible bucket', () => {
  let t: TestContext;
  let tenant: Tenant;
  let s3: S3rver;
  let bucketUrl: string;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'merma-s3-'));
    s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'merma-photos' }] });
    const { port } = await s3.run();
    bucketUrl = `http://127.0.0.1:${port}/merma-photos`;
    t = await startTestApp({
      clock,
      config: {
        PHOTOS_S3_URL: bucketUrl.replace('http://', 'http://S3RVER:S3RVER@'),
        PHOTOS_S3_REGION: 'eu-west-1',
        PHOTO_LINK_TTL_SECONDS: '120',
      },
    });
    tenant = await createTenant(t.db);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the object to the bucket and answers a presigned link of the configured lifetime', async () => {
    // The bucket checks a presigned link's lifetime against its own clock, the real one: the
    // service signs at its "now", so here "now" is the real time (to the second, as links are
    // signed). A fixed date would make this test pass only until two minutes after it.
    const fixed = now;
    now = new Date(Math.floor(Date.now() / 1000) * 1000);
    try {
      await bucketLink();
    } finally {
      now = fixed;
    }
  });

  async function bucketLink() {
    const res = await upload(t, tenant.key, JPEG, 'image/jpeg');
    expect(res.statusCode, res.body).toBe(201);
    const { id } = res.json().data;
    const [row] = await photoRows(t, tenant.organizationId);
    expect(row).toMatchObject({ storage: 's3', storage_key: `${tenant.organizationId}/test/${sha256(JPEG)}.jpg` });

    // The object is in the bucket, as sent, under its type.
    const reader = new AwsClient({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', service: 's3', region: 'eu-west-1' });
    const object = await reader.fetch(`${bucketUrl}/${row?.storage_key}`);
    expect(object.status).toBe(200);
    expect(object.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await object.arrayBuffer()).equals(JPEG)).toBe(true);

    const photo = (await api(t.app, tenant.key).get(`/api/v1/photos/${id}`)).json().data;
    expect(photo.download_expires_at).toBe(new Date(now.getTime() + 120_000).toISOString());
    const link = new URL(photo.download_url);
    expect(`${link.origin}${link.pathname}`).toBe(`${bucketUrl}/${row?.storage_key}`);
    expect(Object.fromEntries(link.searchParams)).toMatchObject({
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Expires': '120',
      // Signed at the service's "now" (the bucket counts the lifetime from it).
      'X-Amz-Date': now.toISOString().replace(/[:-]|\.\d{3}/g, ''),
      'X-Amz-Credential': `S3RVER/${now.toISOString().slice(0, 10).replaceAll('-', '')}/eu-west-1/s3/aws4_request`,
      'X-Amz-Signature': expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const fetched = await fetch(photo.download_url);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(JPEG)).toBe(true);
    // Merma's own file route has nothing to serve: the bucket does.
    expect((await t.app.inject({ method: 'GET', url: `/files/photos/${id}?expires=9999999999&signature=x` })).statusCode).toBe(404);
  }

  it('answers 5xx and stores no row when the bucket refuses the write', async () => {
    const broken = await startTestApp({
      clock,
      config: {
        PHOTOS_S3_URL: bucketUrl.replace('merma-photos', 'no-such-bucket').replace('http://', 'http://S3RVER:S3RVER@'),
      },
    });
    try {
      const other = await createTenant(broken.db);
      const res = await upload(broken, other.key, PNG);
      expect(res.statusCode).toBeGreaterThanOrEqual(500);
      expect(await photoRows(broken, other.organizationId)).toEqual([]);
    } finally {
      await broken.close();
    }
  });
});

describe('the photo settings', () => {
  it('takes a bucket with its keys in its URL, and links of 10 s to 7 days', () => {
    expect(() => testConfig({ PHOTOS_S3_URL: 'https://merma-photos.s3.amazonaws.com' })).toThrow(/PHOTOS_S3_URL: give the access key id/);
    expect(() => testConfig({ PHOTOS_S3_URL: 'https://AKIA@merma-photos.s3.amazonaws.com' })).toThrow(/PHOTOS_S3_URL/);
    expect(() => testConfig({ PHOTOS_S3_URL: 'minio:9000' })).toThrow(/PHOTOS_S3_URL/);
    expect(() => testConfig({ PHOTO_LINK_TTL_SECONDS: '9' })).toThrow(/PHOTO_LINK_TTL_SECONDS/);
    expect(() => testConfig({ PHOTO_LINK_TTL_SECONDS: '604801' })).toThrow(/PHOTO_LINK_TTL_SECONDS/);
    expect(testConfig({ PHOTO_LINK_TTL_SECONDS: '604800' }).photos.linkTtlSeconds).toBe(604_800);
    expect(testConfig({ DATA_DIR: '/srv/merma' }).photos.storage).toEqual({ kind: 'file', dir: '/srv/merma/photos' });
    // An AWS secret holds / and +: percent-encoded in the URL, as a database password would be.
    const bucket = loadConfig({
      NODE_ENV: 'test',
      PHOTOS_S3_URL: 'https://AKIAEXAMPLE:wJal%2FrXU%2Btn@merma-photos.s3.eu-west-1.amazonaws.com/',
      PHOTOS_S3_REGION: 'eu-west-1',
    }).photos.storage;
    expect(bucket).toEqual({
      kind: 's3',
      bucketUrl: 'https://merma-photos.s3.eu-west-1.amazonaws.com',
      region: 'eu-west-1',
      accessKeyId: 'AKIAEXAMPLE',
      secretAccessKey: 'wJal/rXU+tn',
    });
    // The secret is never in an error message.
    try {
      loadConfig({ NODE_ENV: 'test', PHOTOS_S3_URL: 'ftp://AKIAEXAMPLE:very-secret@host/b' });
      expect.unreachable();
    } catch (err) {
      expect(String(err)).toContain('PHOTOS_S3_URL');
      expect(String(err)).not.toContain('very-secret');
    }
  });
});
