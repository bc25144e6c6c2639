import type { Photo, Session, WasteRecord } from '@merma/schema';
import type { RedeemedPairing, StationRecent, StationSetup } from '@merma/schema/dashboard';
import type { DonationOffer, SigningLink, StationAgreement, StationDonation } from './donation.ts';

/**
 * The station's calls to its routes (`/station/…`, apps/server/src/http/surfaces/station.ts): plain fetch,
 * the device's token as `Authorization: Bearer`, the API's envelope (`{data}`) and error shape
 * (`{code, error, details}`). Only types come from @merma/schema: the page ships no zod.
 */

/** Where the station's routes are: the page's own origin. */
const BASE = '/station';

/** An answer other than 2xx, or no answer at all (`status` 0: offline, or the connection dropped). */
export class StationError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { path: string; message: string }[] = [],
    /** Seconds the server asked to wait (Retry-After), if it did. */
    readonly retryAfter?: number,
    /** The server's `X-Should-Retry`, when it said. */
    readonly shouldRetry?: boolean,
  ) {
    super(message);
    this.name = 'StationError';
  }

  /**
   * No answer, a 5xx, a 429, or an answer the server marks `X-Should-Retry: true` (a 409 while
   * the same key is being answered): worth sending again later, unchanged.
   */
  get retryable(): boolean {
    return this.status === 0 || this.status >= 500 || this.status === 429 || this.shouldRetry === true;
  }

  /** The device's token no longer works (revoked, or unknown): the station must be paired again. */
  get unpaired(): boolean {
    return this.status === 401;
  }
}

async function call<T>(
  path: string,
  init: RequestInit & { token?: string | undefined; idempotencyKey?: string; contentType?: string },
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey;
  let res: Response;
  try {
    res = await fetch(`${BASE}${path}`, { ...init, headers, cache: 'no-store' });
  } catch {
    throw new StationError(0, 'offline', 'No connection');
  }
  const body = (await res.json().catch(() => null)) as {
    data?: T;
    code?: string;
    error?: string;
    details?: { path: string; message: string }[];
  } | null;
  if (res.ok && body && 'data' in body) return body.data as T;
  const retryAfter = Number(res.headers.get('retry-after')) || undefined;
  const shouldRetry = res.headers.has('x-should-retry') ? res.headers.get('x-should-retry') === 'true' : undefined;
  throw new StationError(
    res.status,
    body?.code ?? 'unknown',
    body?.error ?? `HTTP ${res.status}`,
    body?.details ?? [],
    retryAfter,
    shouldRetry,
  );
}

export const stationApi = {
  pair: (code: string) => call<RedeemedPairing>('/pair', { method: 'POST', body: JSON.stringify({ code }) }),
  setup: (token: string) => call<StationSetup>('/setup', { method: 'GET', token }),
  recent: (token: string) => call<StationRecent>('/records', { method: 'GET', token }),
  createRecord: (token: string, idempotencyKey: string, body: unknown) =>
    call<WasteRecord>('/records', { method: 'POST', token, idempotencyKey, body: JSON.stringify(body) }),
  /**
   * A photo's bytes as they are, typed by the blob's own type. No Idempotency-Key: photos are
   * content-addressed, so the same bytes sent again answer the same photo.
   */
  uploadPhoto: (token: string, photo: Blob) => call<Photo>('/photos', { method: 'POST', token, body: photo, contentType: photo.type }),
  undo: (token: string, idempotencyKey: string, recordId: string) =>
    call<WasteRecord>(`/records/${encodeURIComponent(recordId)}/undo`, { method: 'POST', token, idempotencyKey, body: '{}' }),
  startSession: (token: string, idempotencyKey: string, name: string) =>
    call<Session>('/sessions', { method: 'POST', token, idempotencyKey, body: JSON.stringify({ name }) }),
  completeSession: (token: string, idempotencyKey: string, id: string) =>
    call<Session>(`/sessions/${encodeURIComponent(id)}/complete`, { method: 'POST', token, idempotencyKey, body: '{}' }),
  agreements: (token: string) => call<StationAgreement[]>('/donations/agreements', { method: 'GET', token }),
  offerDonation: (token: string, idempotencyKey: string, body: DonationOffer) =>
    call<{ id: string }>('/donations', { method: 'POST', token, idempotencyKey, body: JSON.stringify(body) }),
  donationLink: (token: string, idempotencyKey: string, id: string) =>
    call<SigningLink>(`/donations/${encodeURIComponent(id)}/link`, { method: 'POST', token, idempotencyKey, body: '{}' }),
  donation: (token: string, id: string) => call<StationDonation>(`/donations/${encodeURIComponent(id)}`, { method: 'GET', token }),
};
