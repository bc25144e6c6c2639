import { randomUUID } from 'node:crypto';
import { decodeKeysetCursor, encodeKeysetCursor, KeysetCursor } from '@merma/schema';
import { deadline } from '@merma/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAudit } from '../src/modules/audit/service.js';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { api, createTenant, startTestApp, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * The dashboard's keyset-paged lists (audit log, records table, plan history) over HTTP: a cursor
 * the server did not write — malformed, truncated, of another type, not base64url, oversized or
 * altered — is a 400 validation_error naming `cursor`, never a 500; the cursors the server writes
 * walk every entry once, ties on the timestamp included.
 */
let t: TestContext;
let tenant: Tenant;
let owner: DashboardBrowser;
let now = new Date('2026-11-23T10:00:00.000Z');
let scope: { establishment_id: string; livemode: boolean };

const enc = (text: string) => Buffer.from(text).toString('base64url');
const ID = '0b4f6a2e-8c1d-4e3f-9a5b-7c6d5e4f3a2b';

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => now });
  tenant = await createTenant(t.db);
  scope = { establishment_id: tenant.establishmentId, livemode: false };
  const client = api(t.app, tenant.key);
  // Five records, three of them at the same moment.
  const occurred = [
    '2026-11-20T08:00:00.000Z',
    '2026-11-21T08:00:00.000Z',
    '2026-11-21T08:00:00.000Z',
    '2026-11-21T08:00:00.000Z',
    '2026-11-22T08:00:00.000Z',
  ];
  const batch = await client.post('/api/v1/records/batch', { records: occurred.map((at) => validRecord({ occurred_at: at })) });
  expect(batch.statusCode, batch.body).toBe(200);
  // Five plans, three generated at the same moment.
  for (const at of [
    '2026-11-23T10:00:00.000Z',
    '2026-11-23T10:00:00.000Z',
    '2026-11-23T10:00:00.000Z',
    '2026-11-23T10:05:00.000Z',
    '2026-11-23T10:10:00.000Z',
  ]) {
    now = new Date(at);
    const plan = await client.post('/api/v1/prevention-plan', {});
    expect(plan.statusCode, plan.body).toBe(201);
  }
  // Audit entries, several at the same moment.
  for (let i = 0; i < 5; i++) {
    await recordAudit(t.db, {
      organizationId: tenant.organizationId,
      actor: null,
      action: 'shift.created',
      target: `Turno ${i}`,
      now: new Date(i < 3 ? '2026-11-22T09:00:00.000Z' : `2026-11-22T09:0${i}:00.000Z`),
    });
  }
  now = new Date('2026-11-23T11:00:00.000Z');
  const member = await createMember(t.db, tenant.organizationId, 'owner');
  owner = new DashboardBrowser(t.app);
  await owner.signIn(member.email, PASSWORD);
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

type Lister = {
  name: string;
  input: (page: { limit: number; cursor?: unknown }) => Record<string, unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: a page, read as the JSON it is
  ids: (page: any) => string[];
};
const LISTS: Lister[] = [
  { name: 'audit.list', input: (page) => page, ids: (p) => p.entries.map((e: { id: string }) => e.id) },
  {
    name: 'records.list',
    input: (page) => ({ ...scope, from: '2026-11-01', to: '2026-11-30', ...page }),
    ids: (p) => p.data.map((r: { id: string }) => r.id),
  },
  { name: 'plan.history', input: (page) => ({ ...scope, ...page }), ids: (p) => p.data.map((r: { id: string }) => r.id) },
];

/** A cursor the server wrote, for altering. */
async function genuineCursor(list: Lister): Promise<string> {
  const page = await owner.query(list.name, list.input({ limit: 1 }));
  expect(page.next_cursor).toEqual(expect.any(String));
  return page.next_cursor;
}

const crafted = (genuine: string): [string, unknown][] => {
  const decoded = Buffer.from(genuine, 'base64url').toString();
  const [at, id] = decoded.split('|') as [string, string];
  return [
    ['not base64url', 'not a cursor!'],
    ['base64 with padding and +/', `${Buffer.from(decoded).toString('base64')}+/==`],
    ['truncated', genuine.slice(0, -6)],
    ['cut to one character', genuine.slice(0, 1)],
    ['a timestamp without an id', enc(at)],
    ['an id without a timestamp', enc(`|${id}`)],
    ['a day February does not have', enc(`2026-02-30T00:00:00.000Z|${id}`)],
    ['a year PostgreSQL cannot store', enc(`+275760-09-13T00:00:00.000Z|${id}`)],
    ['a number for the timestamp', enc(`0|${id}`)],
    ['dashes for the id', enc(`${at}|${'-'.repeat(36)}`)],
    ['SQL for the id', enc(`${at}|'); DROP TABLE audit_events; --`)],
    ['a third field', enc(`${decoded}|x`)],
    ['the timestamp in another zone', enc(`2026-11-23T11:00:00.000+01:00|${id}`)],
    ['an upper-case id', enc(`${at}|${id.toUpperCase()}`)],
    ['bytes that are not UTF-8', Buffer.from([0xff, 0xfe, 0x7c, 0x80, 0x00]).toString('base64url')],
    ['oversized', 'A'.repeat(4000)],
    ['a number', 12345],
    ['an object', { at, id }],
    ['an array', [genuine]],
    ['null', null],
  ];
};

describe.each(LISTS)('$name cursors', (list) => {
  it('a crafted cursor is a 400 validation_error naming cursor', async () => {
    const genuine = await genuineCursor(list);
    const answers: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const [what, cursor] of crafted(genuine)) {
      const res = await owner.raw('query', list.name, list.input({ limit: 2, cursor }));
      const data = res.json().error?.data;
      const paths = (data?.details ?? []).map((d: { path: string }) => d.path).join(',');
      answers[what] = `${res.statusCode} ${data?.app_code ?? ''} ${paths}`;
      expected[what] = '400 validation_error cursor';
    }
    expect(answers).toEqual(expected);
  });

  it('the cursors it writes walk every entry once, in order', async () => {
    const all = list.ids(await owner.query(list.name, list.input({ limit: 100 })));
    expect(all.length).toBeGreaterThanOrEqual(5);
    const walked: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await owner.query(list.name, list.input(cursor ? { limit: 2, cursor } : { limit: 2 }));
      walked.push(...list.ids(page));
      cursor = page.next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(walked).toEqual(all);
  });
});

describe('a cursor for an id that matches nothing', () => {
  it('is a position, not a record: the page after it', async () => {
    // A well-formed cursor carries only a place in the caller's own list; the tenant is applied
    // apart from it, so a forged one can only show what the caller may read anyway.
    const page = await owner.query('records.list', { ...scope, limit: 100, cursor: enc(`2026-11-21T08:00:00.000Z|${randomUUID()}`) });
    expect(page.data.map((r: { occurred_at: string }) => r.occurred_at)).toContain('2026-11-20T08:00:00.000Z');
    expect(page.data.every((r: { occurred_at: string }) => r.occurred_at <= '2026-11-21T08:00:00.000Z')).toBe(true);
    const wrong = await failure(owner.query('records.list', { ...scope, limit: 100, cursor: enc(`2026-11-21T08:00:00.000Z|${ID}x`) }));
    expect(wrong).toMatchObject({ status: 400, code: 'validation_error' });
  });
});

describe('the keyset cursor, as a property', () => {
  it('every position it writes reads back as itself, and nothing else spells it', () => {
    const instant = fc.date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });
    fc.assert(
      fc.property(instant, fc.uuid(), (at, id) => {
        const cursor = encodeKeysetCursor(at, id);
        expect(decodeKeysetCursor(cursor)).toEqual({ at: at.toISOString(), id });
        expect(KeysetCursor.parse(cursor)).toEqual({ at: at.toISOString(), id });
        expect(decodeKeysetCursor(`${cursor}=`)).toBeNull();
        // Standard base64 of the same text (61 bytes: always padded) is another spelling.
        expect(decodeKeysetCursor(Buffer.from(`${at.toISOString()}|${id}`).toString('base64'))).toBeNull();
      }),
      { seed: 20261123, numRuns: 500 },
    );
  });

  it('any other text is refused, never thrown on', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const parsed = KeysetCursor.safeParse(text);
        if (parsed.success) expect(text === '' || encodeKeysetCursor(parsed.data?.at ?? '', parsed.data?.id ?? '') === text).toBe(true);
        else expect(parsed.error.issues[0]?.path).toEqual([]);
      }),
      { seed: 20261123, numRuns: 2000 },
    );
  });
});
