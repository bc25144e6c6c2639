import { addDays, localDate } from '@merma/schema';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayStartSql, localDaySql } from '../src/calendar.js';
import { createTestDatabase, type TestDatabase } from './helpers.js';

/**
 * "Which local day" has one definition on each side: `localDate` in JavaScript (the records' day
 * buckets when stored, today's date, the dashboard's dates) and `localDaySql` / `dayStartSql` in SQL
 * (a correction taking its original out of its day, demand and spike detection, range bounds).
 * A record's bucket is written by one and found again by the other, so they must agree to the
 * millisecond around midnight and through both daylight-saving changes — here in Madrid, in the
 * Canaries (an hour behind) and in two zones far from UTC, on the real database (PGlite or PostgreSQL).
 */
let database: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await database?.drop();
});

const ZONES = ['Europe/Madrid', 'Atlantic/Canary', 'America/Mexico_City', 'Pacific/Kiritimati'];
// The EU changes of 2026 and 2027: the last Sundays of March and October, at 01:00 UTC.
const CHANGES = ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2027-03-28T01:00:00Z', '2027-10-31T01:00:00Z'];

/** Every 15 minutes over the two days around each change, and a millisecond either side of each hour. */
function instantsAround(change: string): Date[] {
  const at = Date.parse(change);
  const instants: Date[] = [];
  for (let t = at - 26 * 3_600_000; t <= at + 26 * 3_600_000; t += 15 * 60_000) instants.push(new Date(t));
  for (let t = at - 26 * 3_600_000; t <= at + 26 * 3_600_000; t += 3_600_000) instants.push(new Date(t - 1), new Date(t + 1));
  return instants;
}

describe('the local day, in Node and in PostgreSQL', () => {
  it.each(ZONES)('%s: every instant around both clock changes falls on the same local date', async (zone) => {
    const instants = CHANGES.flatMap(instantsAround);
    const { rows } = await client.query<{ day: string }>(
      `SELECT to_char(${localDaySql('t', '$2')}, 'YYYY-MM-DD') AS day FROM unnest($1::timestamptz[]) WITH ORDINALITY AS u(t, n) ORDER BY n`,
      [instants.map((i) => i.toISOString()), zone],
    );
    const disagreements = instants
      .map((instant, i) => ({ instant: instant.toISOString(), node: localDate(instant, zone), sql: rows[i]?.day }))
      .filter((d) => d.node !== d.sql);
    expect(rows).toHaveLength(instants.length);
    expect(disagreements).toEqual([]);
  });

  it.each(ZONES)('%s: a local day starts, in SQL, at the first instant Node puts on that date', async (zone) => {
    // The days of each change, and the days either side.
    const dates = CHANGES.flatMap((change) => [-1, 0, 1].map((d) => addDays(change.slice(0, 10), d)));
    const { rows } = await client.query<{ start: Date }>(
      `SELECT ${dayStartSql('d', '$2')} AS start FROM unnest($1::date[]) WITH ORDINALITY AS u(d, n) ORDER BY n`,
      [dates, zone],
    );
    const seen = dates.map((date, i) => {
      const start = rows[i]?.start as Date;
      return { date, at: localDate(start, zone), before: localDate(new Date(start.getTime() - 1), zone) };
    });
    expect(seen).toEqual(dates.map((date) => ({ date, at: date, before: addDays(date, -1) })));
  });
});
