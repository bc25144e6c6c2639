import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalRecordJson, chainHash, GENESIS_HASH, HASH_ALGORITHM, type HashedFields } from '../src/modules/records/hash.js';

/**
 * The record chain's definition (records/hash.ts) on its own, without a database: the canonical
 * JSON written out in full and the hash of a known record. Every chain ever stored verifies only
 * while these stay exactly as they are, so they are spelled out here rather than recomputed.
 * test/hash-sql.test.ts checks that the database's SQL builder writes the same JSON.
 */

const RECORD: HashedFields = {
  id: '7d3f1a52-0c4e-4b8a-9f21-3e5d6c7b8a90',
  establishment_id: '1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b',
  livemode: false,
  food_category: 'bakery',
  weight_kg: 1.5,
  destino_id: '6ccf7d29-f6d9-403d-a9b0-2f907f15477b',
  causa_id: null,
  product_name: 'Croissant "mantequilla"',
  waste_stage: 'post_service',
  shift_id: null,
  session_id: null,
  notes: 'línea 1\nlínea 2',
  photo_url: null,
  source: 'api',
  created_at: '2026-03-01T09:30:00.000Z',
  occurred_at: '2026-03-01T09:30:00.000Z',
};

const JSON_OF_RECORD =
  '{"causa_id":null,"created_at":"2026-03-01T09:30:00.000Z","destino_id":"6ccf7d29-f6d9-403d-a9b0-2f907f15477b",' +
  '"establishment_id":"1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b","food_category":"bakery","id":"7d3f1a52-0c4e-4b8a-9f21-3e5d6c7b8a90",' +
  '"livemode":false,"notes":"línea 1\\nlínea 2","photo_url":null,"product_name":"Croissant \\"mantequilla\\"","session_id":null,' +
  '"shift_id":null,"source":"api","waste_stage":"post_service","weight_kg":1.5}';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('canonical record JSON', () => {
  it('writes every hashed field, keys sorted, values as JSON.stringify writes them, no whitespace', () => {
    expect(canonicalRecordJson(RECORD)).toBe(JSON_OF_RECORD);
    // The same JSON as a plain object with sorted keys would give: valid JSON, nothing added.
    expect(JSON.parse(canonicalRecordJson(RECORD))).toEqual(
      Object.fromEntries(Object.entries(RECORD).filter(([key]) => key !== 'occurred_at')),
    );
  });

  it('leaves occurred_at out while it equals created_at, and writes it in its sorted place when it differs', () => {
    const dated = { ...RECORD, occurred_at: '2026-02-28T21:15:00.000Z' };
    const json = canonicalRecordJson(dated);
    expect(json).toBe(JSON_OF_RECORD.replace(',"photo_url"', ',"occurred_at":"2026-02-28T21:15:00.000Z","photo_url"'));
    expect(Object.keys(JSON.parse(json))).toEqual(Object.keys(JSON.parse(json)).sort());
  });

  it('writes supersedes_id only on a correction, in its sorted place, together with occurred_at when both apply', () => {
    const original = '0f9e8d7c-6b5a-4493-8271-605f4e3d2c1b';
    expect(canonicalRecordJson({ ...RECORD, supersedes_id: null })).toBe(JSON_OF_RECORD);
    expect(canonicalRecordJson({ ...RECORD, supersedes_id: original })).toBe(
      JSON_OF_RECORD.replace(',"waste_stage"', `,"supersedes_id":"${original}","waste_stage"`),
    );
    const both = canonicalRecordJson({ ...RECORD, supersedes_id: original, occurred_at: '2026-02-28T21:15:00.000Z' });
    expect(both).toBe(
      JSON_OF_RECORD.replace(',"photo_url"', ',"occurred_at":"2026-02-28T21:15:00.000Z","photo_url"').replace(
        ',"waste_stage"',
        `,"supersedes_id":"${original}","waste_stage"`,
      ),
    );
  });

  it('writes voided only when true, and each field added later only when set, each in its sorted place', () => {
    // Records stored before these fields existed hash as they always did: null or absent adds no key.
    const unset = { product_id: null, measurement_method: null, scale_id: null, estimated: null, edible: null, tare_kg: null };
    expect(canonicalRecordJson({ ...RECORD, ...unset, hierarchy_reason: null, hierarchy_note: null, transfer_document_ref: null })).toBe(
      JSON_OF_RECORD,
    );
    expect(canonicalRecordJson({ ...RECORD, product_id: undefined, estimated: undefined })).toBe(JSON_OF_RECORD);
    expect(canonicalRecordJson({ ...RECORD, voided: true })).toBe(JSON_OF_RECORD.replace(',"waste_stage"', ',"voided":true,"waste_stage"'));
    // false is said, not absent: a field that may be false is written when false.
    const measured = canonicalRecordJson({
      ...RECORD,
      product_id: '5a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d',
      measurement_method: 'direct_weighing',
      scale_id: 'balanza-1',
      estimated: false,
      edible: 'edible',
      tare_kg: 0.25,
      hierarchy_reason: 'no_donation_agreement',
      hierarchy_note: 'sin acuerdo',
      transfer_document_ref: 'DI-2026-0001',
    });
    expect(measured).toBe(
      JSON_OF_RECORD.replace(',"establishment_id"', ',"edible":"edible","establishment_id"')
        .replace(',"food_category"', ',"estimated":false,"food_category"')
        .replace(',"id"', ',"hierarchy_note":"sin acuerdo","hierarchy_reason":"no_donation_agreement","id"')
        .replace(',"notes"', ',"measurement_method":"direct_weighing","notes"')
        .replace(',"product_name"', ',"product_id":"5a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d","product_name"')
        .replace(',"session_id"', ',"scale_id":"balanza-1","session_id"')
        .replace(',"waste_stage"', ',"tare_kg":0.25,"transfer_document_ref":"DI-2026-0001","waste_stage"'),
    );
    // The same record written again, then another combination, then the first: nothing carried over.
    expect(canonicalRecordJson({ ...RECORD, voided: true })).toBe(JSON_OF_RECORD.replace(',"waste_stage"', ',"voided":true,"waste_stage"'));
    expect(canonicalRecordJson(RECORD)).toBe(JSON_OF_RECORD);
  });

  it('changes with every hashed field', () => {
    const base = canonicalRecordJson(RECORD);
    const changed: Partial<HashedFields>[] = [
      { id: '7d3f1a52-0c4e-4b8a-9f21-3e5d6c7b8a91' },
      { establishment_id: '1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5c' },
      { livemode: true },
      { food_category: 'dairy' },
      { weight_kg: 1.501 },
      { destino_id: '6ccf7d29-f6d9-403d-a9b0-2f907f15477c' },
      { causa_id: '2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d' },
      { product_name: null },
      { waste_stage: null },
      { shift_id: '3a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d' },
      { session_id: '4a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d' },
      { notes: 'línea 1\nlínea 3' },
      { photo_url: 'https://example.com/p.jpg' },
      { source: 'batch' },
      { created_at: '2026-03-01T09:30:00.001Z', occurred_at: '2026-03-01T09:30:00.001Z' },
    ];
    const hashedKeys = Object.keys(RECORD).filter((key) => key !== 'occurred_at');
    expect(new Set(changed.flatMap((c) => Object.keys(c)).filter((key) => key !== 'occurred_at'))).toEqual(new Set(hashedKeys));
    for (const change of changed) expect(canonicalRecordJson({ ...RECORD, ...change }), JSON.stringify(change)).not.toBe(base);
  });
});

describe('chain hash', () => {
  it('is hex SHA-256 of the previous hash followed by the canonical JSON, from a genesis of 64 zeros', () => {
    expect(GENESIS_HASH).toBe('0'.repeat(64));
    const first = chainHash(GENESIS_HASH, JSON_OF_RECORD);
    expect(first).toBe(sha256(`${'0'.repeat(64)}${JSON_OF_RECORD}`));
    expect(first).toBe('29e82d3f47ba3acdb07aa2eb3783ec7c0d8fa32e95d5189c96bf47ee6ce68c79');
    // The next link depends on the previous hash, not on the record alone.
    expect(chainHash(first, JSON_OF_RECORD)).toBe(sha256(`${first}${JSON_OF_RECORD}`));
    expect(chainHash(first, JSON_OF_RECORD)).not.toBe(first);
    // What the verification answers name as the algorithm (records/verify.ts) says the same.
    expect(HASH_ALGORITHM).toBe('sha256(prev_hash || canonical_json(record)), sorted keys, genesis 0x00*32');
  });
});
