import { describe, expect, it } from 'vitest';
import type { Sql } from '../src/db/sql.js';
import { closedDays, closedDaysOf, REOPENING_DAYS } from '../src/modules/opening/service.js';

/**
 * The opening calendar as the demand forecast reads it (modules/opening/service.ts): a day is
 * closed on a weekly closed day or inside any closure (both ends included), and the first
 * REOPENING_DAYS open days after each closure are its reopening. No database: `closedDays` runs on
 * a fake runner; opening-calendar.test.ts runs the calendar over HTTP.
 */
/** The days of `days` that `closedOn` says are closed. */
const closedIn = (closed: { closedOn(day: string): boolean }, days: string[]) => days.filter((d) => closed.closedOn(d));
// 2026-11-02 is a Monday.
const WEEK = ['2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-07', '2026-11-08'];

describe('closedDaysOf', () => {
  it('closes each weekly closed day, Monday to Sunday, every week', () => {
    expect(closedIn(closedDaysOf(['monday'], []), WEEK)).toEqual(['2026-11-02']);
    expect(closedIn(closedDaysOf(['sunday'], []), WEEK)).toEqual(['2026-11-08']);
    expect(closedIn(closedDaysOf(['saturday', 'sunday'], []), WEEK)).toEqual(['2026-11-07', '2026-11-08']);
    expect(closedIn(closedDaysOf(['tuesday', 'wednesday', 'thursday', 'friday'], []), WEEK)).toEqual(WEEK.slice(1, 5));
    // The next weeks too, across a month and a year.
    expect(closedDaysOf(['sunday'], []).closedOn('2026-11-29')).toBe(true);
    expect(closedDaysOf(['friday'], []).closedOn('2027-01-01')).toBe(true);
    expect(closedDaysOf([], []).closedOn('2026-11-08')).toBe(false);
  });

  it('closes a closure from its first to its last day, both included', () => {
    const closed = closedDaysOf([], [{ starts_on: '2026-11-04', ends_on: '2026-11-06' }]);
    expect(closedIn(closed, WEEK)).toEqual(['2026-11-04', '2026-11-05', '2026-11-06']);
    const oneDay = closedDaysOf([], [{ starts_on: '2026-12-25', ends_on: '2026-12-25' }]);
    expect(['2026-12-24', '2026-12-25', '2026-12-26'].filter((d) => oneDay.closedOn(d))).toEqual(['2026-12-25']);
  });

  it('closes a day when any of several closures says so', () => {
    const closed = closedDaysOf(
      [],
      [
        { starts_on: '2026-11-02', ends_on: '2026-11-02' },
        { starts_on: '2026-11-06', ends_on: '2026-11-07' },
      ],
    );
    expect(closedIn(closed, WEEK)).toEqual(['2026-11-02', '2026-11-06', '2026-11-07']);
  });

  it('names the first three open days after each closure as its reopening', () => {
    expect(REOPENING_DAYS).toBe(3);
    const { reopening } = closedDaysOf([], [{ starts_on: '2026-11-02', ends_on: '2026-11-04' }]);
    expect([...reopening]).toEqual(['2026-11-05', '2026-11-06', '2026-11-07']);
  });

  it('steps over weekly closed days and other closures to find the reopening', () => {
    // Closed Sundays; a closure ending on Saturday reopens on Monday.
    const { reopening } = closedDaysOf(['sunday'], [{ starts_on: '2026-11-05', ends_on: '2026-11-07' }]);
    expect([...reopening]).toEqual(['2026-11-09', '2026-11-10', '2026-11-11']);
    // A holiday just after a break: the break's reopening comes after the holiday, and the
    // holiday's own reopening is the same days.
    const two = closedDaysOf(
      ['wednesday'],
      [
        { starts_on: '2026-11-02', ends_on: '2026-11-03' },
        { starts_on: '2026-11-05', ends_on: '2026-11-05' },
      ],
    );
    expect([...two.reopening].sort()).toEqual(['2026-11-06', '2026-11-07', '2026-11-08']);
  });

  it('a weekly closed day alone has no reopening', () => {
    expect(closedDaysOf(['monday', 'tuesday'], []).reopening.size).toBe(0);
  });

  it('looks for the reopening a year at most (a calendar closed every day has none)', () => {
    const always = closedDaysOf(
      ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      [{ starts_on: '2026-11-02', ends_on: '2026-11-02' }],
    );
    expect(always.reopening.size).toBe(0);
    // A long closure still reopens right after its end, however far.
    const long = closedDaysOf([], [{ starts_on: '2026-01-01', ends_on: '2027-12-31' }]);
    expect([...long.reopening]).toEqual(['2028-01-01', '2028-01-02', '2028-01-03']);
  });
});

describe('closedDays', () => {
  it("reads the weekly closed days and the closures overlapping the range, in one query of the scope's", async () => {
    const queries: { text: string; values: unknown[] | undefined }[] = [];
    const sql: Sql = {
      async query<T>(text: string, values?: unknown[]) {
        queries.push({ text, values });
        return {
          rows: [
            { weekday: 7, starts_on: null, ends_on: null },
            { weekday: 1, starts_on: null, ends_on: null },
            { weekday: null, starts_on: '2026-11-04', ends_on: '2026-11-05' },
          ] as T[],
        };
      },
    };
    const scope = { establishmentId: '0b4f6a2e-8c1d-4e3f-9a5b-7c6d5e4f3a2b', livemode: true };
    const closed = await closedDays(sql, scope, '2026-11-01', '2026-12-01');
    expect(queries).toHaveLength(1);
    expect(queries[0]?.values).toEqual([scope.establishmentId, true, '2026-11-01', '2026-12-01']);
    expect(queries[0]?.text).toContain('FROM weekly_closed_days WHERE establishment_id = $1::uuid AND livemode = $2');
    expect(queries[0]?.text).toContain('AND ends_on >= $3::date AND starts_on < $4::date');
    // 7 is Sunday, 1 Monday (ISO numbers, as the table stores them).
    expect(closedIn(closed, WEEK)).toEqual(['2026-11-02', '2026-11-04', '2026-11-05', '2026-11-08']);
    expect([...closed.reopening]).toEqual(['2026-11-06', '2026-11-07', '2026-11-10']);
  });

  it('with no rows, nothing is closed and nothing reopens', async () => {
    const sql: Sql = { query: async () => ({ rows: [] }) };
    const closed = await closedDays(sql, { establishmentId: 'x', livemode: false }, '2026-11-01', '2026-12-01');
    expect(closedIn(closed, WEEK)).toEqual([]);
    expect(closed.reopening.size).toBe(0);
  });
});
