import { describe, expect, it } from 'vitest';
import { decodeKeysetCursor, encodeKeysetCursor, KeysetCursor, MAX_CURSOR_LENGTH } from '../src/cursor.js';

/**
 * The keyset cursors of the dashboard's paged lists (audit log, records table, plan history): the
 * one spelling `encodeKeysetCursor` writes, read back by `decodeKeysetCursor`, and every other
 * spelling refused — so that no crafted value reaches SQL. (The lists walked over HTTP with them,
 * ties included, are apps/server/test/cursors.test.ts.)
 */
const AT = '2026-11-23T10:00:00.000Z';
const ID = '0b4f6a2e-8c1d-4e3f-9a5b-7c6d5e4f3a2b';
/** What a cursor is: base64url, without padding, of `<timestamp>|<id>` (ASCII). */
const b64url = (text: string) => btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');

describe('encodeKeysetCursor', () => {
  it('writes the base64url of `<timestamp>|<id>` without padding, from a Date or its ISO string alike', () => {
    const cursor = encodeKeysetCursor(AT, ID);
    // 61 bytes: standard base64 would end in `==`.
    expect(cursor).toBe('MjAyNi0xMS0yM1QxMDowMDowMC4wMDBafDBiNGY2YTJlLThjMWQtNGUzZi05YTViLTdjNmQ1ZTRmM2EyYg');
    expect(cursor).toBe(b64url(`${AT}|${ID}`));
    expect(encodeKeysetCursor(new Date(AT), ID)).toBe(cursor);
    // The Date is written as toISOString() does (UTC, milliseconds), whatever it was built from.
    expect(encodeKeysetCursor(new Date('2026-11-23T11:00:00+01:00'), ID)).toBe(cursor);
    expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
  });

  it('uses the URL alphabet (- and _, never + or /) and drops every padding character', () => {
    // Text whose standard base64 holds `+`, `/` and one or two `=`: `Pj4+`, `Pz8/`.
    expect(encodeKeysetCursor('>>>', '???')).toBe('Pj4-fD8_Pw');
    expect(encodeKeysetCursor('>>>', '??')).toBe('Pj4-fD8_');
    expect(encodeKeysetCursor('>>>', '?')).toBe('Pj4-fD8');
  });
});

describe('decodeKeysetCursor', () => {
  it('reads back the position a cursor was written for', () => {
    expect(decodeKeysetCursor(encodeKeysetCursor(AT, ID))).toEqual({ at: AT, id: ID });
    // The first and last instants PostgreSQL and toISOString() share with four-digit years.
    expect(decodeKeysetCursor(encodeKeysetCursor('0001-01-01T00:00:00.000Z', ID))).toEqual({ at: '0001-01-01T00:00:00.000Z', id: ID });
    expect(decodeKeysetCursor(encodeKeysetCursor('9999-12-31T23:59:59.999Z', ID))).toEqual({ at: '9999-12-31T23:59:59.999Z', id: ID });
    // A leap day is a real day.
    expect(decodeKeysetCursor(encodeKeysetCursor('2028-02-29T00:00:00.000Z', ID))).toEqual({ at: '2028-02-29T00:00:00.000Z', id: ID });
  });

  it('refuses what is not base64url text: other alphabets, padding, spaces, an impossible length', () => {
    const cursor = encodeKeysetCursor(AT, ID);
    expect(decodeKeysetCursor('')).toBeNull();
    // One character is 6 bits, no byte: atob itself refuses it.
    expect(decodeKeysetCursor('a')).toBeNull();
    expect(decodeKeysetCursor(`${cursor}=`)).toBeNull();
    expect(decodeKeysetCursor(`${cursor}==`)).toBeNull();
    expect(decodeKeysetCursor(btoa(`${AT}|${ID}`))).toBeNull();
    expect(decodeKeysetCursor(` ${cursor}`)).toBeNull();
    expect(decodeKeysetCursor(`${cursor.slice(0, 40)} ${cursor.slice(40)}`)).toBeNull();
    expect(decodeKeysetCursor(`${cursor}\n`)).toBeNull();
  });

  it('refuses a second spelling of the same text (leftover bits in the last character)', () => {
    const cursor = encodeKeysetCursor(AT, ID);
    // `g` and `h` differ only in bits that encode no byte: atob reads both as the same text.
    const other = `${cursor.slice(0, -1)}h`;
    expect(atob(other)).toBe(`${AT}|${ID}`);
    expect(decodeKeysetCursor(other)).toBeNull();
  });

  it('refuses missing, extra and reordered parts', () => {
    expect(decodeKeysetCursor(b64url(AT))).toBeNull();
    expect(decodeKeysetCursor(b64url(`${AT}|`))).toBeNull();
    expect(decodeKeysetCursor(b64url(`|${ID}`))).toBeNull();
    expect(decodeKeysetCursor(b64url(`${ID}|${AT}`))).toBeNull();
    // Both parts right, a third one after them.
    expect(decodeKeysetCursor(b64url(`${AT}|${ID}|`))).toBeNull();
    expect(decodeKeysetCursor(b64url(`${AT}|${ID}|${ID}`))).toBeNull();
  });

  it('refuses a timestamp not written as toISOString() writes it, with a valid id beside it', () => {
    for (const at of [
      '2026-11-23T10:00:00Z',
      '2026-11-23T10:00:00.000+00:00',
      '2026-11-23 10:00:00.000Z',
      '2026-11-23T10:00:00.0000Z',
      ' 2026-11-23T10:00:00.000Z',
      '2026-11-23T10:00:00.000Z ',
      '+012026-11-23T10:00:00.000Z',
      '2026-11-23',
    ]) {
      expect(decodeKeysetCursor(b64url(`${at}|${ID}`)), at).toBeNull();
    }
  });

  it('refuses an id that is not a lower-case UUID, with a valid timestamp beside it', () => {
    for (const id of [
      ID.toUpperCase(),
      ID.replaceAll('-', ''),
      `{${ID}}`,
      `${ID}0`,
      `0${ID}`,
      ID.slice(1),
      ID.replace('0', 'g'),
      `${ID}\n`,
      '1',
    ]) {
      expect(decodeKeysetCursor(b64url(`${AT}|${id}`)), id).toBeNull();
    }
  });

  it('refuses a date that does not exist, or that PostgreSQL cannot store (year 0)', () => {
    // Month 13: Date.parse gives NaN.
    expect(decodeKeysetCursor(b64url(`2026-13-01T00:00:00.000Z|${ID}`))).toBeNull();
    // 30 February: Date.parse rolls it over to 2 March, which is written back otherwise.
    expect(decodeKeysetCursor(b64url(`2026-02-30T00:00:00.000Z|${ID}`))).toBeNull();
    expect(decodeKeysetCursor(b64url(`2026-02-29T00:00:00.000Z|${ID}`))).toBeNull();
    expect(decodeKeysetCursor(b64url(`2026-11-23T24:00:00.000Z|${ID}`))).toBeNull();
    // Year 0 is a real instant for JavaScript (1 BC), not for PostgreSQL.
    expect(new Date(Date.parse('0000-06-01T00:00:00.000Z')).toISOString()).toBe('0000-06-01T00:00:00.000Z');
    expect(decodeKeysetCursor(b64url(`0000-06-01T00:00:00.000Z|${ID}`))).toBeNull();
  });

  it('reads a year ending in 0000 or a time of 00:00 as any other (only the year 0 is refused)', () => {
    const at = '2000-01-01T00:00:00.000Z';
    expect(decodeKeysetCursor(encodeKeysetCursor(at, ID))).toEqual({ at, id: ID });
  });

  it('refuses what is longer than any cursor it writes, before decoding it', () => {
    const long = encodeKeysetCursor(AT, ID).padEnd(MAX_CURSOR_LENGTH + 1, 'A');
    expect(decodeKeysetCursor(long)).toBeNull();
  });
});

describe('KeysetCursor (the `cursor` field of a paged list)', () => {
  it('parses a cursor the server wrote to its position, and an empty one to the first page', () => {
    expect(KeysetCursor.parse(encodeKeysetCursor(AT, ID))).toEqual({ at: AT, id: ID });
    expect(KeysetCursor.parse('')).toBeUndefined();
  });

  it('refuses anything else as a validation issue on the field, with the message naming the mistake', () => {
    for (const value of ['x', encodeKeysetCursor(AT, 'not-a-uuid'), b64url(`${AT}|${ID}|`)]) {
      const result = KeysetCursor.safeParse(value);
      expect(result.success, value).toBe(false);
      expect(result.error?.issues).toEqual([
        expect.objectContaining({
          code: 'custom',
          path: [],
          message: 'invalid cursor: pass the next_cursor of the previous page, or none for the first page',
        }),
      ]);
    }
  });

  it('refuses another type, and an oversized string before reading it', () => {
    expect(KeysetCursor.safeParse(42).success).toBe(false);
    expect(KeysetCursor.safeParse(null).success).toBe(false);
    const long = KeysetCursor.safeParse('A'.repeat(MAX_CURSOR_LENGTH + 1));
    expect(long.error?.issues.map((i) => i.code)).toEqual(['too_big']);
  });
});
