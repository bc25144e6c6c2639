import { z } from 'zod';

/**
 * Keyset page cursors, one implementation for every list paged by `(timestamp DESC, id DESC)`: the
 * dashboard's audit log, records table and plan history. A cursor is the base64url (no padding) of
 * `<timestamp>|<id>` — the last row of the page before: its timestamp as `toISOString()` writes it
 * (UTC, milliseconds, as the columns store it) and its id as a lower-case UUID.
 *
 * A cursor is opaque to clients and checked where it enters (the `cursor` field of the list's input
 * schema): anything that is not exactly what `encodeKeysetCursor` writes — other base64 spellings,
 * missing, extra or reordered parts, a date that does not exist or that PostgreSQL cannot store,
 * another type, more than MAX_CURSOR_LENGTH characters — is refused as a validation error on
 * `cursor` (400), so no crafted value reaches SQL. A cursor is not signed: it holds only a place in
 * the caller's own list (the tenant is applied apart from it), so a well-formed forged one shows
 * nothing the caller could not page to. An empty string is read as no cursor (the first page).
 */
export type KeysetPosition = { at: string; id: string };

/** Longer than any cursor `encodeKeysetCursor` writes (82 characters). */
export const MAX_CURSOR_LENGTH = 128;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const toBase64Url = (ascii: string) => btoa(ascii).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');

/** The cursor of the page after the row at `at` (a Date or its ISO string) with `id`. */
export function encodeKeysetCursor(at: Date | string, id: string): string {
  const timestamp = typeof at === 'string' ? at : at.toISOString();
  return toBase64Url(`${timestamp}|${id}`);
}

/** The position a cursor names, or null when it is not one `encodeKeysetCursor` writes. */
export function decodeKeysetCursor(cursor: string): KeysetPosition | null {
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) return null;
  let text: string;
  try {
    text = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'));
  } catch {
    return null;
  }
  const parts = text.split('|');
  if (parts.length !== 2) return null;
  const [at, id] = parts as [string, string];
  if (!TIMESTAMP.test(at) || !UUID.test(id)) return null;
  // A real instant, written back the same way: no 30 February, no year 0 (PostgreSQL has none).
  const time = Date.parse(at);
  if (Number.isNaN(time) || new Date(time).toISOString() !== at || at.startsWith('0000')) return null;
  // One spelling per position: no padding, no leftover bits, nothing else decoding to the same text.
  if (toBase64Url(text) !== cursor) return null;
  return { at, id };
}

/**
 * The `cursor` field of a keyset-paged list's input: the `next_cursor` of the page before, parsed
 * to its position (undefined for the first page).
 */
export const KeysetCursor = z
  .string()
  .max(MAX_CURSOR_LENGTH)
  .transform((value, ctx): KeysetPosition | undefined => {
    if (value === '') return undefined;
    const position = decodeKeysetCursor(value);
    if (position) return position;
    ctx.addIssue({ code: 'custom', message: 'invalid cursor: pass the next_cursor of the previous page, or none for the first page' });
    return z.NEVER;
  })
  .describe('the `next_cursor` of the previous page; absent for the first page');
