import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';

export const BASE = 'https://api.test.merma';
export const API = `${BASE}/api/v1`;
export const KEY = `svc_test_${'A'.repeat(32)}`;
export const server = setupServer();
export { HttpResponse, http };

export const envelope = (data: unknown, extra: Record<string, unknown> = {}) => ({
  success: true,
  data,
  timestamp: '2026-11-23T10:00:00.000Z',
  ...extra,
});

export const errorBody = (status: number, code: string, error = 'nope', extra: Record<string, unknown> = {}) => ({
  error,
  status,
  code,
  timestamp: '2026-11-23T10:00:00.000Z',
  ...extra,
});

export const DESTINO = '6ccf7d29-f6d9-403d-a9b0-2f907f15477b';
export const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export function record(n: number, extra: Record<string, unknown> = {}) {
  return {
    id: uuid(n),
    establishment_id: uuid(9999),
    livemode: false,
    food_category: 'meat',
    weight_kg: 1.5,
    destino_id: DESTINO,
    causa_id: null,
    product_name: null,
    waste_stage: null,
    shift_id: null,
    session_id: null,
    notes: null,
    photo_url: null,
    product_id: null,
    source: 'api',
    record_hash: 'a'.repeat(64),
    created_at: '2026-11-23T10:00:00.000Z',
    ...extra,
  };
}
