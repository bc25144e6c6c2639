import { describe, expect, it } from 'vitest';
import {
  BatchRecordsInput,
  CreateRecordInput,
  CreateShiftInput,
  CreateWebhookInput,
  ErrorBody,
  FOOD_CATEGORIES,
  ListRecordsQuery,
  MAX_BATCH_RECORDS,
  MAX_NOTES_LENGTH,
  MAX_PAGE_LIMIT,
  RateLimitErrorBody,
  RecoverWebhookInput,
  RotateWebhookSecretInput,
  WasteRecord,
} from '../src/index.js';

const DESTINO = '6ccf7d29-f6d9-403d-a9b0-2f907f15477b';

describe('CreateRecordInput', () => {
  it('accepts the required fields and treats null optionals as absent', () => {
    const parsed = CreateRecordInput.parse({ food_category: 'dairy', weight_kg: 2, destino_id: DESTINO, causa_id: null, notes: null });
    expect(parsed).toEqual({ food_category: 'dairy', weight_kg: 2, destino_id: DESTINO, causa_id: null, notes: null });
  });

  it('rounds weights half-up to the gram and refuses what rounds to zero', () => {
    expect(CreateRecordInput.parse({ food_category: 'meat', weight_kg: 1.0005, destino_id: DESTINO }).weight_kg).toBe(1.001);
    expect(CreateRecordInput.parse({ food_category: 'meat', weight_kg: 0.1 + 0.2, destino_id: DESTINO }).weight_kg).toBe(0.3);
    expect(CreateRecordInput.safeParse({ food_category: 'meat', weight_kg: 0.0004, destino_id: DESTINO }).success).toBe(false);
  });

  it('refuses unknown fields, NUL characters and notes over the limit', () => {
    const base = { food_category: 'meat', weight_kg: 1, destino_id: DESTINO };
    expect(CreateRecordInput.safeParse({ ...base, extra: 1 }).success).toBe(false);
    expect(CreateRecordInput.safeParse({ ...base, notes: 'a\u0000' }).success).toBe(false);
    expect(CreateRecordInput.safeParse({ ...base, notes: 'n'.repeat(MAX_NOTES_LENGTH) }).success).toBe(true);
    expect(CreateRecordInput.safeParse({ ...base, notes: 'n'.repeat(MAX_NOTES_LENGTH + 1) }).success).toBe(false);
  });

  it('knows the nine food categories of the contract', () => {
    expect(FOOD_CATEGORIES).toHaveLength(9);
    for (const c of FOOD_CATEGORIES) {
      expect(CreateRecordInput.safeParse({ food_category: c, weight_kg: 1, destino_id: DESTINO }).success).toBe(true);
    }
  });
});

describe('limits', () => {
  it('caps a batch at 500 items and a page at 200', () => {
    expect(BatchRecordsInput.safeParse({ records: Array(MAX_BATCH_RECORDS).fill({}) }).success).toBe(true);
    expect(BatchRecordsInput.safeParse({ records: Array(MAX_BATCH_RECORDS + 1).fill({}) }).success).toBe(false);
    expect(ListRecordsQuery.parse({ limit: String(MAX_PAGE_LIMIT) }).limit).toBe(200);
    expect(ListRecordsQuery.safeParse({ limit: '201' }).success).toBe(false);
    expect(ListRecordsQuery.parse({})).toEqual({ limit: 50, offset: 0 });
  });

  it('refuses impossible dates', () => {
    expect(ListRecordsQuery.safeParse({ from: '2026-02-30' }).success).toBe(false);
    expect(ListRecordsQuery.safeParse({ from: '2026-02-28' }).success).toBe(true);
    expect(ListRecordsQuery.safeParse({ from: '2026-02-28T10:00:00+01:00' }).success).toBe(true);
  });
});

describe('shifts', () => {
  it('accepts overnight shifts and refuses equal or malformed times', () => {
    expect(CreateShiftInput.safeParse({ name: 'Noche', start_time: '22:00', end_time: '06:00' }).success).toBe(true);
    expect(CreateShiftInput.safeParse({ name: 'X', start_time: '08:00', end_time: '08:00' }).success).toBe(false);
    expect(CreateShiftInput.safeParse({ name: 'X', start_time: '8:00', end_time: '16:00' }).success).toBe(false);
  });
});

describe('response shapes', () => {
  it('describes the error bodies of the contract', () => {
    const ts = '2026-11-23T10:00:00.000Z';
    expect(ErrorBody.safeParse({ error: 'x', status: 400, timestamp: ts, code: 'validation_error' }).success).toBe(true);
    expect(RateLimitErrorBody.safeParse({ error: 'x', status: 429, resetAt: ts, code: 'rate_limited', timestamp: ts }).success).toBe(true);
    expect(ErrorBody.safeParse({ error: 'x', status: 400, timestamp: '2026-11-23T10:00:00Z', code: 'validation_error' }).success).toBe(
      false,
    );
  });

  it('requires a SHA-256 shaped record_hash', () => {
    const record = {
      id: DESTINO,
      establishment_id: DESTINO,
      livemode: false,
      food_category: 'meat',
      weight_kg: 1,
      destino_id: DESTINO,
      causa_id: null,
      product_name: null,
      waste_stage: null,
      shift_id: null,
      session_id: null,
      notes: null,
      photo_url: null,
      product_id: null,
      measurement_method: null,
      scale_id: null,
      estimated: null,
      edible: null,
      tare_kg: null,
      hierarchy_reason: null,
      hierarchy_note: null,
      transfer_document_ref: null,
      source: 'api',
      record_hash: 'a'.repeat(64),
      created_at: '2026-11-23T10:00:00.000Z',
      occurred_at: '2026-11-23T10:00:00.000Z',
    };
    expect(WasteRecord.safeParse(record).success).toBe(true);
    expect(WasteRecord.safeParse({ ...record, record_hash: 'xyz' }).success).toBe(false);
  });
});

describe('webhook secrets, rotation and recovery', () => {
  const HOOK = { url: 'https://93.184.216.34/hook', events: ['record.created'] };
  const ID = '7f4e7c9e-5d2a-4c1b-9e8f-0a1b2c3d4e5f';
  const b64 = (n: number) => btoa(String.fromCharCode(...Array.from({ length: n }, (_, i) => (i * 37) % 256)));

  it('accepts only secrets every Standard Webhooks verifier reads alike, naming `secret` and why', () => {
    for (const secret of [`whsec_${b64(24)}`, `whsec_${b64(32)}`, `whsec_${b64(64)}`]) {
      expect(CreateWebhookInput.safeParse({ ...HOOK, secret }).success, secret).toBe(true);
    }
    for (const secret of [
      'a-secret-of-my-own-of-24+-chars',
      `whsec_${b64(23)}`,
      `whsec_${b64(65)}`,
      `whsec_${b64(32).replace(/=+$/, '')}`,
      `whsec_${b64(33).replaceAll('+', '-').replaceAll('/', '_')}`,
      `whsec_${b64(32)} `,
      '',
    ]) {
      const parsed = CreateWebhookInput.safeParse({ ...HOOK, secret });
      expect(parsed.success, secret).toBe(false);
      expect(
        parsed.error?.issues.map((i) => i.path.join('.')),
        secret,
      ).toEqual(['secret']);
      expect(parsed.error?.issues[0]?.message, secret).toMatch(/whsec_|base64|bytes/);
    }
  });

  it('rotation: optional secret, grace period 0 … 7 days defaulting to 1 day', () => {
    expect(RotateWebhookSecretInput.parse({ id: ID })).toEqual({ id: ID, grace_period_seconds: 86_400 });
    expect(RotateWebhookSecretInput.safeParse({ id: ID, grace_period_seconds: 0 }).success).toBe(true);
    expect(RotateWebhookSecretInput.safeParse({ id: ID, grace_period_seconds: 604_800 }).success).toBe(true);
    for (const grace of [-1, 604_801, 1.5, '60']) {
      expect(RotateWebhookSecretInput.safeParse({ id: ID, grace_period_seconds: grace }).success, String(grace)).toBe(false);
    }
    expect(RotateWebhookSecretInput.safeParse({ id: ID, secret: 'x'.repeat(40) }).error?.issues[0]?.path).toEqual(['secret']);
  });

  it('recovery: `since` required, date-times only', () => {
    expect(RecoverWebhookInput.safeParse({ id: ID }).success).toBe(false);
    expect(RecoverWebhookInput.safeParse({ id: ID, since: '2026-01-01T00:00:00+01:00' }).success).toBe(true);
    expect(RecoverWebhookInput.safeParse({ id: ID, since: '2026-01-01' }).success).toBe(false);
    expect(RecoverWebhookInput.safeParse({ id: ID, since: '0000-01-01T00:00:00Z' }).success).toBe(false);
  });
});
