import { deadline } from '@merma/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANONICAL_RECORD_JSON_SQL, canonicalRecordJson, chainHash, GENESIS_HASH, type HashedFields } from '../src/modules/records/hash.js';
import { startTestApp, type TestContext } from './helpers.js';

/**
 * The chain is verified by the database (records/service.ts builds each record's canonical JSON
 * in SQL and hashes it with sha256()), while records are hashed by the server when they are
 * written (canonicalRecordJson in JS). The two builders must give the same bytes for every record
 * the columns can hold, or an intact chain would be reported broken: random records — any
 * Unicode text with quotes, backslashes and control characters, every weight a DECIMAL(12,3)
 * holds, dates to the millisecond, the optional keys present or not — go through both.
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

/** Text a PostgreSQL text column stores as given: every code point except NUL. */
const text = fc.string({ unit: 'binary', maxLength: 40 }).map((s) => s.replaceAll('\u0000', ''));
const tricky = fc.constantFrom('"', '\\', '\n\t\r\b\f', '\u001f\u007f', '</script>', 'ñandú 🥖', '\u2028\u2029', '{"a":1}', '');
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const instant = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true });

const record: fc.Arbitrary<HashedFields> = fc
  .record({
    id: fc.uuid(),
    establishment_id: fc.uuid(),
    livemode: fc.boolean(),
    food_category: fc.oneof(fc.constantFrom('bakery', 'fruit_veg', 'prepared_meals'), text),
    grams: fc.oneof(fc.integer({ min: 1, max: 999_999_999_999 }), fc.constantFrom(1, 10, 100, 1000, 1500, 12_000, 999_999_999_999)),
    destino_id: fc.uuid(),
    causa_id: maybe(fc.uuid()),
    product_name: maybe(fc.oneof(text, tricky)),
    waste_stage: maybe(fc.oneof(fc.constantFrom('storage', 'preparation'), text)),
    shift_id: maybe(fc.uuid()),
    session_id: maybe(fc.uuid()),
    notes: maybe(fc.oneof(text, tricky)),
    photo_url: maybe(fc.webUrl()),
    source: fc.oneof(fc.constantFrom('api', 'batch', 'inbound:square'), text),
    created: instant,
    occurred: fc.option(instant, { nil: null }),
    supersedes_id: maybe(fc.uuid()),
    product_id: maybe(fc.uuid()),
    voided: fc.boolean(),
    measurement_method: maybe(fc.oneof(fc.constantFrom('direct_weighing', 'estimate'), text)),
    scale_id: maybe(fc.oneof(text, tricky)),
    estimated: maybe(fc.boolean()),
    edible: maybe(fc.oneof(fc.constantFrom('edible', 'mixed'), text)),
    tare: maybe(fc.oneof(fc.integer({ min: 1, max: 999_999_999_999 }), fc.constantFrom(1, 10, 100, 1000, 250_000))),
    hierarchy_reason: maybe(fc.oneof(fc.constantFrom('no_taker', 'other'), text)),
    hierarchy_note: maybe(fc.oneof(text, tricky)),
    transfer_document_ref: maybe(fc.oneof(text, tricky)),
  })
  .map(({ grams, tare, created, occurred, voided, ...r }) => ({
    ...r,
    ...(voided ? { voided: true as const } : {}),
    weight_kg: grams / 1000,
    tare_kg: tare === null ? null : tare / 1000,
    created_at: created.toISOString(),
    occurred_at: (occurred ?? created).toISOString(),
  }));

/** The SQL builder over one row holding `r` in the columns' own types. */
async function sqlCanonical(r: HashedFields, prev: string): Promise<{ json: string; hash: string }> {
  const rows = await t.db.$queryRawUnsafe<{ json: string; hash: string }[]>(
    `SELECT ${CANONICAL_RECORD_JSON_SQL} AS json,
        encode(sha256(convert_to($17 || ${CANONICAL_RECORD_JSON_SQL}, 'UTF8')), 'hex') AS hash
     FROM (SELECT $1::uuid AS id, $2::uuid AS establishment_id, $3::boolean AS livemode, $4::text AS food_category,
       $5::decimal(12,3) AS weight_kg, $6::uuid AS destino_id, $7::uuid AS causa_id, $8::text AS product_name,
       $9::text AS waste_stage, $10::uuid AS shift_id, $11::uuid AS session_id, $12::text AS notes, $13::text AS photo_url,
       $14::text AS source, $15::timestamptz AS created_at, $16::timestamptz AS occurred_at, $18::uuid AS supersedes_id,
       $19::uuid AS product_id, $20::boolean AS voided, $21::text AS measurement_method, $22::text AS scale_id,
       $23::boolean AS estimated, $24::text AS edible, $25::decimal(12,3) AS tare_kg, $26::text AS hierarchy_reason,
       $27::text AS hierarchy_note, $28::text AS transfer_document_ref) r`,
    r.id,
    r.establishment_id,
    r.livemode,
    r.food_category,
    r.weight_kg.toString(),
    r.destino_id,
    r.causa_id,
    r.product_name,
    r.waste_stage,
    r.shift_id,
    r.session_id,
    r.notes,
    r.photo_url,
    r.source,
    r.created_at,
    r.occurred_at,
    prev,
    r.supersedes_id ?? null,
    r.product_id ?? null,
    r.voided === true,
    r.measurement_method ?? null,
    r.scale_id ?? null,
    r.estimated ?? null,
    r.edible ?? null,
    r.tare_kg == null ? null : r.tare_kg.toString(),
    r.hierarchy_reason ?? null,
    r.hierarchy_note ?? null,
    r.transfer_document_ref ?? null,
  );
  const [row] = rows;
  if (!row) throw new Error('no row');
  return row;
}

describe('canonical record JSON: SQL builder = JS builder', () => {
  it(
    'gives the same JSON and the same chain hash for random records',
    async () => {
      await fc.assert(
        fc.asyncProperty(record, fc.constantFrom(GENESIS_HASH, 'ab'.repeat(32)), async (r, prev) => {
          const js = canonicalRecordJson(r);
          const sql = await sqlCanonical(r, prev);
          expect(sql.json).toBe(js);
          expect(sql.hash).toBe(chainHash(prev, js));
        }),
        { numRuns: 400 },
      );
    },
    deadline(120_000),
  );

  it('writes the optional keys only when they say something, in sorted place', async () => {
    const base: HashedFields = {
      id: '00000000-0000-4000-8000-000000000001',
      establishment_id: '00000000-0000-4000-8000-000000000002',
      livemode: false,
      food_category: 'bakery',
      weight_kg: 1.5,
      destino_id: '00000000-0000-4000-8000-000000000003',
      causa_id: null,
      product_name: 'Pan "de ayer"',
      waste_stage: null,
      shift_id: null,
      session_id: null,
      notes: 'línea\n2',
      photo_url: null,
      source: 'api',
      created_at: '2026-06-15T10:30:00.000Z',
      occurred_at: '2026-06-15T10:30:00.000Z',
    };
    const plain = await sqlCanonical(base, GENESIS_HASH);
    expect(plain.json).toBe(
      '{"causa_id":null,"created_at":"2026-06-15T10:30:00.000Z","destino_id":"00000000-0000-4000-8000-000000000003",' +
        '"establishment_id":"00000000-0000-4000-8000-000000000002","food_category":"bakery","id":"00000000-0000-4000-8000-000000000001",' +
        '"livemode":false,"notes":"línea\\n2","photo_url":null,"product_name":"Pan \\"de ayer\\"","session_id":null,"shift_id":null,' +
        '"source":"api","waste_stage":null,"weight_kg":1.5}',
    );
    const dated = await sqlCanonical({ ...base, occurred_at: '2026-06-14T09:00:00.001Z', supersedes_id: base.destino_id }, GENESIS_HASH);
    expect(dated.json).toContain(',"notes":"línea\\n2","occurred_at":"2026-06-14T09:00:00.001Z","photo_url":null,');
    expect(dated.json).toContain(',"source":"api","supersedes_id":"00000000-0000-4000-8000-000000000003","waste_stage":null,');
    expect(dated.json).toBe(canonicalRecordJson({ ...base, occurred_at: '2026-06-14T09:00:00.001Z', supersedes_id: base.destino_id }));
    // A record naming its product: the key right before product_name; one without it hashes as before.
    const named = await sqlCanonical({ ...base, product_id: base.id }, GENESIS_HASH);
    expect(named.json).toContain(',"photo_url":null,"product_id":"00000000-0000-4000-8000-000000000001","product_name":');
    expect(named.json).toBe(canonicalRecordJson({ ...base, product_id: base.id }));
    expect(canonicalRecordJson({ ...base, product_id: null })).toBe(plain.json);
    // A voiding correction: `"voided":true` right after supersedes_id.
    const voiding = { ...base, supersedes_id: base.destino_id, voided: true as const };
    const voided = await sqlCanonical(voiding, GENESIS_HASH);
    expect(voided.json).toContain(',"supersedes_id":"00000000-0000-4000-8000-000000000003","voided":true,"waste_stage":null,');
    expect(voided.json).toBe(canonicalRecordJson(voiding));
    // How it was measured, edible, the tare: each key in its sorted place when said; null leaves the JSON as before.
    const measured = {
      ...base,
      measurement_method: 'direct_weighing',
      scale_id: 'BAL-01',
      estimated: false,
      edible: 'inedible',
      tare_kg: 0.25,
    };
    const weighed = await sqlCanonical(measured, GENESIS_HASH);
    expect(weighed.json).toContain('"destino_id":"00000000-0000-4000-8000-000000000003","edible":"inedible","establishment_id":');
    expect(weighed.json).toContain('"establishment_id":"00000000-0000-4000-8000-000000000002","estimated":false,"food_category":');
    expect(weighed.json).toContain('"livemode":false,"measurement_method":"direct_weighing","notes":');
    expect(weighed.json).toContain('"product_name":"Pan \\"de ayer\\"","scale_id":"BAL-01","session_id":null,');
    expect(weighed.json).toContain('"source":"api","tare_kg":0.25,"waste_stage":null,');
    expect(weighed.json).toBe(canonicalRecordJson(measured));
    expect(canonicalRecordJson({ ...base, measurement_method: null, scale_id: null, estimated: null, edible: null, tare_kg: null })).toBe(
      plain.json,
    );
    // The hierarchy's justification, after food_category.
    const justified = { ...base, hierarchy_reason: 'no_taker', hierarchy_note: 'Sin recogida el domingo "festivo"' };
    const why = await sqlCanonical(justified, GENESIS_HASH);
    expect(why.json).toContain(
      '"food_category":"bakery","hierarchy_note":"Sin recogida el domingo \\"festivo\\"","hierarchy_reason":"no_taker","id":',
    );
    expect(why.json).toBe(canonicalRecordJson(justified));
    // The transfer document, between tare_kg and voided/waste_stage.
    const handed = { ...measured, transfer_document_ref: 'DI "48"/7' };
    const paper = await sqlCanonical(handed, GENESIS_HASH);
    expect(paper.json).toContain('"tare_kg":0.25,"transfer_document_ref":"DI \\"48\\"/7","waste_stage":null,');
    expect(paper.json).toBe(canonicalRecordJson(handed));
    // `estimated: false` is said (a key), not left out like null: clearing it changes the hash.
    expect(canonicalRecordJson({ ...measured, estimated: null })).not.toBe(weighed.json);
  });
});
