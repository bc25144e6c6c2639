import { randomUUID } from 'node:crypto';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, DashboardBrowser, failure, PASSWORD } from './dashboard-client.js';
import { createTenant, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * The audit log's filters: by actor (an e-mail, any case), by action and by a range of whole days
 * read in the time zone the page shows times in; combined, paged by the same keyset, and checked
 * (an unknown action, a bad zone or `from` after `to` is a 400). The SQL is a plain condition per
 * filter over an index that ends in the page's order (the migration's indexes; EXPLAIN below).
 */
let t: TestContext;
let tenant: Tenant;
let owner: DashboardBrowser;
let ownerEmail: string;
const now = new Date('2026-11-23T11:00:00Z');

type Seed = { action: string; email: string | null; at: string };
// Times in UTC; Madrid is UTC+1 in November.
const SEEDS: Seed[] = [
  { action: 'shift.created', email: 'ana@example.com', at: '2026-11-20T10:00:00Z' },
  { action: 'shift.created', email: 'luis@example.com', at: '2026-11-21T10:00:00Z' },
  { action: 'api_key.created', email: 'Ana@Example.com', at: '2026-11-21T23:30:00Z' }, // 22 Nov, 00:30 in Madrid
  { action: 'plan.generated', email: 'ana@example.com', at: '2026-11-22T09:00:00Z' },
  { action: 'shift.created', email: null, at: '2026-11-22T12:00:00Z' },
  { action: 'shift.created', email: 'ana@example.com', at: '2026-11-23T08:00:00Z' },
];

beforeAll(async () => {
  t = await startTestApp({ config: { TRUST_PROXY: 'true', REDIS_URL: '' }, clock: () => now });
  tenant = await createTenant(t.db);
  const o = await createMember(t.db, tenant.organizationId, 'owner');
  ownerEmail = o.email;
  owner = new DashboardBrowser(t.app);
  await owner.signIn(o.email, PASSWORD);
  // Another organisation's entries never show.
  const other = await createTenant(t.db);
  for (const org of [tenant.organizationId, other.organizationId]) {
    for (const [i, s] of SEEDS.entries()) {
      await t.db.auditEvent.create({
        data: {
          id: randomUUID(),
          organization_id: org,
          actor_email: s.email,
          action: s.action,
          target: `seed-${i}`,
          created_at: new Date(s.at),
        },
      });
    }
  }
}, deadline(60_000));

afterAll(async () => {
  await t?.close();
});

const targets = async (query: Record<string, unknown>) =>
  ((await owner.query('audit.list', { limit: 50, ...query })).entries as { target: string | null }[])
    .flatMap((e) => (e.target ? [e.target] : []))
    .filter((target) => target.startsWith('seed-'));

describe('audit log filters', () => {
  it('by action, newest first', async () => {
    expect(await targets({ action: 'shift.created' })).toEqual(['seed-5', 'seed-4', 'seed-1', 'seed-0']);
    const entries = (await owner.query('audit.list', { action: 'plan.generated' })).entries;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'plan.generated', target: 'seed-3', actor: { email: 'ana@example.com' } });
  });

  it('by actor, whatever the case of the address', async () => {
    expect(await targets({ actor: 'ANA@example.com' })).toEqual(['seed-5', 'seed-3', 'seed-2', 'seed-0']);
    expect(await targets({ actor: 'nobody@example.com' })).toEqual([]);
    // The signed-in owner's own sign-in is an entry of theirs.
    const mine = (await owner.query('audit.list', { actor: ownerEmail })).entries;
    expect(mine.map((e: { action: string }) => e.action)).toEqual(['user.signed_in']);
  });

  it("by whole days in the page's time zone (UTC by default), both ends included", async () => {
    expect(await targets({ from: '2026-11-22', to: '2026-11-22', time_zone: 'Europe/Madrid' })).toEqual(['seed-4', 'seed-3', 'seed-2']);
    expect(await targets({ from: '2026-11-22', to: '2026-11-22' })).toEqual(['seed-4', 'seed-3']);
    expect(await targets({ from: '2026-11-22', time_zone: 'Europe/Madrid' })).toEqual(['seed-5', 'seed-4', 'seed-3', 'seed-2']);
    expect(await targets({ to: '2026-11-20', time_zone: 'Europe/Madrid' })).toEqual(['seed-0']);
  });

  it('combined, and paged by the same keyset within the filter', async () => {
    expect(await targets({ action: 'shift.created', actor: 'ana@example.com', from: '2026-11-21', time_zone: 'Europe/Madrid' })).toEqual([
      'seed-5',
    ]);
    const query = { action: 'shift.created', limit: 1 };
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await owner.query('audit.list', { ...query, ...(cursor ? { cursor } : {}) });
      seen.push(...page.entries.map((e: { target: string }) => e.target));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(['seed-5', 'seed-4', 'seed-1', 'seed-0']);
  });

  it('refuses an unknown action, an unknown zone and a range that ends before it starts', async () => {
    expect(await failure(owner.query('audit.list', { action: 'shift.exploded' }))).toMatchObject({ status: 400, code: 'validation_error' });
    expect(await failure(owner.query('audit.list', { from: '2026-11-01', time_zone: 'Mars/Olympus' }))).toMatchObject({ status: 400 });
    expect(await failure(owner.query('audit.list', { from: '2026-11-23', to: '2026-11-01' }))).toMatchObject({ status: 400 });
    expect(await failure(owner.query('audit.list', { from: '23/11/2026' }))).toMatchObject({ status: 400 });
  });

  it('filters through indexes in the page order (no sort of the whole log)', async () => {
    // With sequential scans off, the planner shows whether an index can serve the filter and the
    // order at once: a Sort node would mean the log is read whole and sorted.
    const plan = async (where: string, values: unknown[]) => {
      await t.db.$executeRawUnsafe('SET enable_seqscan = off');
      try {
        const rows = await t.db.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(
          `EXPLAIN SELECT id FROM audit_events WHERE organization_id = $1::uuid AND ${where} ORDER BY created_at DESC, id DESC LIMIT 51`,
          tenant.organizationId,
          ...values,
        );
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await t.db.$executeRawUnsafe('RESET enable_seqscan');
      }
    };
    const byAction = await plan('action = $2', ['shift.created']);
    expect(byAction).toContain('audit_events_organization_id_action_created_at_id_idx');
    expect(byAction).not.toMatch(/\bSort\b/);
    const byActor = await plan('lower(actor_email) = lower($2)', ['ana@example.com']);
    expect(byActor).toContain('audit_events_organization_id_actor_created_at_id_idx');
    expect(byActor).not.toMatch(/\bSort\b/);
  });
});
