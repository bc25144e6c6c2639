import { createHash, createPublicKey, verify } from 'node:crypto';
import { PreventionPlanHistoryQuery } from '@merma/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poolOf } from '../src/db/client.js';
import { sqlOfPool } from '../src/db/sql.js';
import { getPlan, listPlans } from '../src/modules/plan/service.js';
import { api, createTenant, DESTINO_LANDFILL, recordAt, startTestApp, type Tenant, type TestContext } from './helpers.js';

/**
 * Prevention plan versions (modules/plan/service.ts): every generated plan is a version, stored
 * once and never changed (a trigger refuses UPDATE and DELETE), with the SHA-256 of its content as
 * the database writes it, entered into the register's documents chain (kind `prevention_plan`) and
 * signed by the next checkpoint; each names the version it follows and what changed since it.
 * `GET /records/verify` re-hashes every version: one changed or deleted behind the trigger's back
 * is found.
 *
 * Worked example (the kitchen below, clock 2026-06-15): the first plan holds 30 kg of bakery
 * thrown after service (post_service) and 20 kg of fruit and vegetables in storage, all to
 * landfill: total 50 kg, below feed 50 kg. Then 12 kg of dairy spoiled in storage is recorded: the
 * second plan holds 62 kg, below feed 62 kg, and a new hotspot (dairy, storage); none is gone (5
 * hotspots at most, 3 here).
 */

const NOW = new Date('2026-06-15T10:00:00.000Z');
let t: TestContext;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  t = await startTestApp({ clock: () => NOW });
});
afterAll(() => t?.close());

type Plan = {
  id: string;
  generated_at: string;
  version: number;
  sha256: string | null;
  previous: null | { id: string; generated_at: string; sha256: string | null; changes: Record<string, unknown> };
  markdown?: string;
};

async function kitchen(mode: 'test' | 'live' = 'test') {
  const tenant = await createTenant(t.db, { mode });
  const livemode = mode === 'live';
  await recordAt(
    t.db,
    tenant,
    '2026-05-01T12:00:00.000Z',
    { weight_kg: 30, food_category: 'bakery', waste_stage: 'post_service', destino_id: DESTINO_LANDFILL },
    { livemode },
  );
  await recordAt(
    t.db,
    tenant,
    '2026-05-02T12:00:00.000Z',
    { weight_kg: 20, food_category: 'fruit_veg', waste_stage: 'storage', destino_id: DESTINO_LANDFILL },
    { livemode },
  );
  return tenant;
}

async function generate(tenant: Tenant, lang: 'es' | 'en' = 'es'): Promise<Plan> {
  const res = await api(t.app, tenant.key).post(`/api/v1/prevention-plan?lang=${lang}`, {});
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

const storedText = async (id: string) =>
  (await t.db.$queryRawUnsafe<{ text: string }[]>('SELECT content::text AS text FROM prevention_plans WHERE id = $1::uuid', id))[0]
    ?.text as string;

const verifyOf = async (tenant: Tenant) => {
  const res = await api(t.app, tenant.key).get('/api/v1/records/verify');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

/** Changes a stored version as someone with the database's owner rights could: the trigger switched off around it. */
async function behindTheTrigger(statement: string, id: string) {
  await t.db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('ALTER TABLE prevention_plans DISABLE TRIGGER prevention_plans_immutable');
    await tx.$executeRawUnsafe(statement, id);
    await tx.$executeRawUnsafe('ALTER TABLE prevention_plans ENABLE TRIGGER prevention_plans_immutable');
  });
}

describe('prevention plan versions', () => {
  it('stores each version with the SHA-256 of its stored content, names the one it follows and what changed', async () => {
    const tenant = await kitchen();
    const first = await generate(tenant);
    expect(first.sha256).toMatch(/^[0-9a-f]{64}$/);
    // The digest is the one documented: of the content as PostgreSQL writes it.
    expect(first.sha256).toBe(sha256(await storedText(first.id)));
    expect(first.previous).toBeNull();
    expect(first.version).toBe(1);

    await recordAt(t.db, tenant, '2026-06-01T12:00:00.000Z', {
      weight_kg: 12,
      food_category: 'dairy',
      waste_stage: 'storage',
      destino_id: DESTINO_LANDFILL,
    });
    const second = await generate(tenant);
    expect(second.sha256).toBe(sha256(await storedText(second.id)));
    expect(second.sha256).not.toBe(first.sha256);
    // Generated in the same millisecond (the clock is fixed): the version number orders them.
    expect(second.version).toBe(2);
    expect(second.previous).toEqual({
      id: first.id,
      generated_at: first.generated_at,
      sha256: first.sha256,
      changes: {
        period_from: '2025-06-16',
        period_to: '2026-06-15',
        total_kg: { from: 50, to: 62 },
        total_records: { from: 2, to: 3 },
        below_feed_kg: { from: 50, to: 62 },
        hotspots_added: [{ food_category: 'dairy', waste_stage: 'storage' }],
        hotspots_removed: [],
        agreements_added: [],
        agreements_removed: [],
        baseline_year: null,
      },
    });

    // Read back as the latest, by id and in the history (the dashboard's reads): the same digest and link.
    const latest = await api(t.app, tenant.key).get('/api/v1/prevention-plan?format=markdown&lang=en');
    expect(latest.json().data).toMatchObject({ id: second.id, sha256: second.sha256, previous: { id: first.id, sha256: first.sha256 } });
    const sql = sqlOfPool(poolOf(t.db));
    const scope = { establishmentId: tenant.establishmentId, livemode: false, timezone: 'Europe/Madrid' };
    expect(await getPlan(sql, scope, first.id, 'es', 'json')).toMatchObject({ sha256: first.sha256, previous: null });
    expect((await listPlans(sql, scope, { limit: 5 })).data.map((p) => [p.id, p.version, p.sha256])).toEqual([
      [second.id, 2, second.sha256],
      [first.id, 1, first.sha256],
    ]);

    // The printable document says so, in its language.
    const md = latest.json().data.markdown as string;
    expect(md).toContain(`SHA-256 of this version, entered into the register's documents chain: \`${second.sha256}\``);
    expect(md).toContain(`(\`${first.id}\`). Changes since:`);
    expect(md).toContain('- Total recorded: from 50 kg to 62 kg.');
    expect(md).toContain('- Below donation and animal feed: from 50 kg to 62 kg.');
    expect(md).toMatch(/- New hotspot: [A-Z][^—]+ — [A-Z][^.]+\./);
    const es = (await getPlan(sql, scope, first.id, 'es', 'markdown')).markdown;
    expect(es).toContain('Primera versión del plan de este establecimiento.');
    expect(es).toContain(`SHA-256 de esta versión, anotado en la cadena de documentos del registro: \`${first.sha256}\``);
  });

  it('orders versions of one millisecond by their number, not by their random ids', async () => {
    const tenant = await kitchen();
    const made: Plan[] = [await generate(tenant)];
    // Until the newest version's id is not the largest: a read ordered by time then id would then miss it.
    while (made.length < 40) {
      made.push(await generate(tenant));
      const newest = made.at(-1) as Plan;
      if (made.some((p) => p.id > newest.id)) break;
    }
    const newest = made.at(-1) as Plan;
    expect(made.some((p) => p.id > newest.id)).toBe(true);
    expect(made.map((p) => p.version)).toEqual(made.map((_, i) => i + 1));
    expect(made.slice(1).map((p) => p.previous?.id)).toEqual(made.slice(0, -1).map((p) => p.id));
    expect((await api(t.app, tenant.key).get('/api/v1/prevention-plan')).json().data).toMatchObject({
      id: newest.id,
      version: made.length,
    });
    const sql = sqlOfPool(poolOf(t.db));
    const scope = { establishmentId: tenant.establishmentId, livemode: false, timezone: 'Europe/Madrid' };
    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listPlans(sql, scope, PreventionPlanHistoryQuery.parse({ limit: 1, ...(cursor ? { cursor } : {}) }));
      pages.push(...page.data.map((p) => p.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(pages).toEqual(made.map((p) => p.id).reverse());
  });

  it('enters each version into the documents chain, signed by the next checkpoint', async () => {
    const tenant = await kitchen();
    const first = await generate(tenant);
    const second = await generate(tenant);
    const entries = await t.db.$queryRawUnsafe<{ kind: string; subject_id: string; sha256: string; entry_hash: string }[]>(
      'SELECT kind, subject_id::text, sha256, entry_hash FROM register_documents WHERE establishment_id = $1::uuid AND livemode = false ORDER BY seq',
      tenant.establishmentId,
    );
    expect(entries.map((e) => [e.kind, e.subject_id, e.sha256])).toEqual([
      ['prevention_plan', first.id, first.sha256],
      ['prevention_plan', second.id, second.sha256],
    ]);
    const checked = await verifyOf(tenant);
    expect(checked).toMatchObject({ valid: true, documents: { valid: true, checked: 2, head_hash: entries[1]?.entry_hash } });
    const c = checked.checkpoint;
    expect(c).toMatchObject({ documents_seq: 2, documents_head_hash: entries[1]?.entry_hash });
    const keys = (await t.app.inject({ method: 'GET', url: '/.well-known/merma-checkpoint-keys.json' })).json();
    const jwk = keys.keys.find((k: { kid: string }) => k.kid === c.key_id);
    const message = `merma-checkpoint:v2|${tenant.establishmentId}|test|${c.seq}|${c.head_hash}|2|${c.documents_head_hash}|${c.signed_at}`;
    expect(verify(null, Buffer.from(message), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(c.signature, 'base64url'))).toBe(
      true,
    );
  });

  it('refuses to change or delete a stored version', async () => {
    const tenant = await kitchen();
    const plan = await generate(tenant);
    await expect(
      t.db.$executeRawUnsafe(`UPDATE prevention_plans SET content = jsonb_set(content, '{total_kg}', '1') WHERE id = $1::uuid`, plan.id),
    ).rejects.toThrow(/stored version/);
    await expect(t.db.$executeRawUnsafe('DELETE FROM prevention_plans WHERE id = $1::uuid', plan.id)).rejects.toThrow(/stored version/);
    expect(sha256(await storedText(plan.id))).toBe(plan.sha256);
    expect((await verifyOf(tenant)).documents.valid).toBe(true);
  });

  it('finds a version changed behind the trigger, its digest kept or recomputed, and one deleted', async () => {
    const changed = await kitchen();
    const a = await generate(changed);
    await generate(changed);
    await behindTheTrigger(`UPDATE prevention_plans SET content = jsonb_set(content, '{total_kg}', '1') WHERE id = $1::uuid`, a.id);
    expect((await verifyOf(changed)).documents).toMatchObject({
      valid: false,
      checked: 0,
      first_invalid: { seq: 1, reason: 'document_changed' },
    });

    // The shown digest rewritten to match the new content: still not the entry's.
    const rehashed = await kitchen();
    const b = await generate(rehashed);
    await behindTheTrigger(`UPDATE prevention_plans SET content = jsonb_set(content, '{total_kg}', '1') WHERE id = $1::uuid;`, b.id);
    await behindTheTrigger(
      `UPDATE prevention_plans SET sha256 = encode(sha256(convert_to(content::text, 'UTF8')), 'hex') WHERE id = $1::uuid`,
      b.id,
    );
    expect((await verifyOf(rehashed)).documents).toMatchObject({ valid: false, first_invalid: { seq: 1, reason: 'document_changed' } });

    const deleted = await kitchen();
    await generate(deleted);
    const c = await generate(deleted);
    await behindTheTrigger('DELETE FROM prevention_plans WHERE id = $1::uuid', c.id);
    expect((await verifyOf(deleted)).documents).toMatchObject({
      valid: false,
      checked: 1,
      first_invalid: { seq: 2, reason: 'document_missing' },
    });
  });

  it("keeps each mode's versions in its own chain, and another establishment's apart", async () => {
    const live = await kitchen('live');
    const plan = await generate(live);
    const other = await kitchen();
    const otherPlan = await generate(other);
    const kinds = await t.db.$queryRawUnsafe<{ establishment_id: string; livemode: boolean; subject_id: string }[]>(
      `SELECT establishment_id::text, livemode, subject_id::text FROM register_documents WHERE establishment_id = ANY($1::uuid[]) ORDER BY establishment_id, seq`,
      [live.establishmentId, other.establishmentId],
    );
    expect(kinds).toHaveLength(2);
    expect(kinds).toContainEqual({ establishment_id: live.establishmentId, livemode: true, subject_id: plan.id });
    expect(kinds).toContainEqual({ establishment_id: other.establishmentId, livemode: false, subject_id: otherPlan.id });
    // The live version follows nothing: the other kitchen's plan is not its predecessor.
    expect(plan.previous).toBeNull();
    expect(otherPlan.previous).toBeNull();
  });
});
