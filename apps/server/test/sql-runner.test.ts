import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { DbTx } from '../src/db/client.js';
import { pgQuery, sqlOfPool, sqlOfTransaction, sqlParams, statementName } from '../src/db/sql.js';
import { findText, inspectJson, NUL_CHARACTER, UNPAIRED_SURROGATE } from '../src/db/text.js';

/**
 * The SQL runner of the hot read paths (db/sql.ts) and the JSON walk that finds text PostgreSQL
 * cannot store (db/text.ts), on fake pools, clients and Prisma transactions: what is sent, in
 * which order, and what happens to a connection when a statement or the connection fails.
 * named-statements.test.ts runs the prepared statements on a real database.
 */

/** A pg client that records its statements; `fail` makes the statement with that text throw. */
function fakeClient(fail: Record<string, Error> = {}) {
  const client = Object.assign(new EventEmitter(), {
    sent: [] as unknown[],
    released: [] as unknown[],
    async query(arg: unknown) {
      client.sent.push(arg);
      const text = typeof arg === 'string' ? arg : (arg as { text: string }).text;
      const error = fail[text];
      if (error) throw error;
      return { rows: [{ text }] };
    },
    release(destroy?: unknown) {
      client.released.push(destroy);
    },
  });
  return client;
}
type FakeClient = ReturnType<typeof fakeClient>;

/** A pg pool whose own queries and checked-out client are recorded. */
function fakePool(client: FakeClient = fakeClient()) {
  const sent: unknown[] = [];
  const pool = {
    sent,
    connects: 0,
    // What pg would run: a text and its values, or a query (pg.Query: named, its text and values).
    async query(arg: unknown, values?: unknown[]) {
      if (typeof arg === 'string') sent.push({ text: arg, values });
      else if (arg instanceof pg.Query) {
        const q = arg as pg.Query & { name?: string; text: string; values: unknown[] };
        sent.push({ query: true, name: q.name, text: q.text, values: q.values });
      } else sent.push(arg);
      return { rows: [{ n: 1 }] };
    },
    async connect() {
      pool.connects++;
      return client;
    },
  };
  return pool as typeof pool & pg.Pool;
}

describe('statementName', () => {
  it("is `merma_` and the first 24 characters of the text's SHA-256 in base64url", () => {
    const text = 'SELECT $1::int + 1 AS n';
    const expected = `merma_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    expect(statementName(text)).toBe(expected);
    expect(statementName(text)).toMatch(/^merma_[A-Za-z0-9_-]{24}$/);
    // The same text always gets the same name; another text another one.
    expect(statementName(text)).toBe(expected);
    expect(statementName(`${text} `)).not.toBe(expected);
    expect(statementName('')).toBe(`merma_${createHash('sha256').update('').digest('base64url').slice(0, 24)}`);
  });
});

describe('pgQuery', () => {
  const TEXT = 'SELECT * FROM records WHERE id = $1';

  it('names the statement only when it is asked to be prepared and the pool may prepare', () => {
    expect(pgQuery(TEXT, [1], { prepare: true }, true)).toEqual({ name: statementName(TEXT), text: TEXT, values: [1] });
    expect(pgQuery(TEXT, [1], { prepare: true }, false)).toEqual({ text: TEXT, values: [1] });
    expect(pgQuery(TEXT, [1], { prepare: false }, true)).toEqual({ text: TEXT, values: [1] });
    expect(pgQuery(TEXT, [1], {}, true)).toEqual({ text: TEXT, values: [1] });
    expect(pgQuery(TEXT, [1], undefined, true)).toEqual({ text: TEXT, values: [1] });
    expect(pgQuery(TEXT, [1], undefined, false)).toEqual({ text: TEXT, values: [1] });
  });

  it('sends no values as an empty list, named or not', () => {
    expect(pgQuery(TEXT, undefined, undefined, false)).toEqual({ text: TEXT, values: [] });
    expect(pgQuery(TEXT, undefined, { prepare: true }, true)).toEqual({ name: statementName(TEXT), text: TEXT, values: [] });
  });
});

describe('sqlOfPool', () => {
  it('runs a statement on the pool itself, named only when it may prepare and is asked to', async () => {
    const pool = fakePool();
    expect((await sqlOfPool(pool).query('SELECT 1', [2], { prepare: true })).rows).toEqual([{ n: 1 }]);
    await sqlOfPool(pool, { namedStatements: true }).query('SELECT 2', [3], { prepare: true });
    await sqlOfPool(pool, { namedStatements: true }).query('SELECT 3');
    expect(pool.sent).toEqual([
      { text: 'SELECT 1', values: [2] },
      { query: true, name: statementName('SELECT 2'), text: 'SELECT 2', values: [3] },
      { text: 'SELECT 3', values: [] },
    ]);
    expect(pool.connects).toBe(0);
  });

  it('runs a transaction on one connection between BEGIN and COMMIT, and gives the connection back', async () => {
    const client = fakeClient();
    const pool = fakePool(client);
    const result = await sqlOfPool(pool, { namedStatements: true }).transaction(async (tx) => {
      await tx.query('SELECT 4', [4], { prepare: true });
      const { rows } = await tx.query('SELECT 5');
      return rows;
    });
    expect(result).toEqual([{ text: 'SELECT 5' }]);
    expect(client.sent).toEqual([
      'BEGIN',
      { name: statementName('SELECT 4'), text: 'SELECT 4', values: [4] },
      { text: 'SELECT 5', values: [] },
      'COMMIT',
    ]);
    expect(pool.sent).toEqual([]);
    expect(pool.connects).toBe(1);
    // Given back whole (release(false)), and no listener of ours left on it.
    expect(client.released).toEqual([false]);
    expect(client.listenerCount('error')).toBe(0);
  });

  it('does not name statements inside a transaction when the pool may not prepare', async () => {
    const client = fakeClient();
    await sqlOfPool(fakePool(client)).transaction((tx) => tx.query('SELECT 6', [6], { prepare: true }));
    expect(client.sent).toEqual(['BEGIN', { text: 'SELECT 6', values: [6] }, 'COMMIT']);
  });

  it('rolls back when the work throws, rethrows its error, and gives the connection back', async () => {
    const client = fakeClient();
    const boom = new Error('boom');
    await expect(
      sqlOfPool(fakePool(client)).transaction(async (tx) => {
        await tx.query('SELECT 7');
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(client.sent).toEqual(['BEGIN', { text: 'SELECT 7', values: [] }, 'ROLLBACK']);
    expect(client.released).toEqual([false]);
    expect(client.listenerCount('error')).toBe(0);
  });

  it('rolls back when COMMIT itself fails, with its error', async () => {
    const refused = new Error('could not serialize access');
    const client = fakeClient({ COMMIT: refused });
    await expect(sqlOfPool(fakePool(client)).transaction(async () => 1)).rejects.toBe(refused);
    expect(client.sent).toEqual(['BEGIN', 'COMMIT', 'ROLLBACK']);
    expect(client.released).toEqual([false]);
  });

  it("destroys a connection lost meanwhile (its error heard, not thrown): no ROLLBACK on it, the work's error rethrown", async () => {
    const client = fakeClient();
    const lost = new Error('terminating connection due to administrator command');
    await expect(
      sqlOfPool(fakePool(client)).transaction(async () => {
        // Emitted on the client: without a listener, EventEmitter would throw it here instead.
        client.emit('error', lost);
        throw lost;
      }),
    ).rejects.toBe(lost);
    expect(client.sent).toEqual(['BEGIN']);
    expect(client.released).toEqual([true]);
    expect(client.listenerCount('error')).toBe(0);
  });

  it('destroys a connection that cannot even roll back, and rethrows the first error', async () => {
    const client = fakeClient({ ROLLBACK: new Error('connection gone') });
    const boom = new Error('boom');
    await expect(
      sqlOfPool(fakePool(client)).transaction(async () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(client.sent).toEqual(['BEGIN', 'ROLLBACK']);
    expect(client.released).toEqual([true]);
    expect(client.listenerCount('error')).toBe(0);
  });

  it('listens for a lost connection only while the transaction runs', async () => {
    const client = fakeClient();
    let during = -1;
    await sqlOfPool(fakePool(client)).transaction(async () => {
      during = client.listenerCount('error');
    });
    expect(during).toBe(1);
    expect(client.listenerCount('error')).toBe(0);
  });
});

describe('sqlOfTransaction', () => {
  /** A Prisma client (or transaction client, without `$transaction`) that records its raw queries. */
  function fakePrisma(name: string, opens?: { inner: ReturnType<typeof fakePrisma>; options: unknown[] }) {
    const calls: unknown[][] = [];
    const tx = {
      name,
      calls,
      async $queryRawUnsafe(...args: unknown[]) {
        calls.push(args);
        return [{ from: name }];
      },
      ...(opens
        ? {
            async $transaction(fn: (inner: unknown) => Promise<unknown>, options: unknown) {
              opens.options.push(options);
              return fn(opens.inner);
            },
          }
        : {}),
    };
    return tx;
  }

  it('runs a statement through $queryRawUnsafe with its values spread, none when there are none', async () => {
    const tx = fakePrisma('tx');
    const sql = sqlOfTransaction(tx as unknown as DbTx);
    expect(await sql.query('SELECT $1, $2', [1, 'a'])).toEqual({ rows: [{ from: 'tx' }] });
    expect(await sql.query('SELECT 1')).toEqual({ rows: [{ from: 'tx' }] });
    expect(tx.calls).toEqual([['SELECT $1, $2', 1, 'a'], ['SELECT 1']]);
  });

  it('joins the transaction the client already is: the same runner, no transaction opened', async () => {
    const tx = fakePrisma('tx');
    const sql = sqlOfTransaction(tx as unknown as DbTx);
    const seen = await sql.transaction(async (inner) => {
      await inner.query('SELECT 2');
      return inner;
    });
    expect(seen).toBe(sql);
    expect(tx.calls).toEqual([['SELECT 2']]);
  });

  it('opens a transaction on the top-level client and runs the work on its transaction client', async () => {
    const inner = fakePrisma('inner');
    const opens = { inner, options: [] as unknown[] };
    const top = fakePrisma('top', opens);
    const sql = sqlOfTransaction(top as unknown as DbTx);
    const result = await sql.transaction(async (tx) => {
      expect(tx).not.toBe(sql);
      return tx.query('SELECT 3', [3]);
    });
    expect(result).toEqual({ rows: [{ from: 'inner' }] });
    expect(inner.calls).toEqual([['SELECT 3', 3]]);
    expect(top.calls).toEqual([]);
    expect(opens.options).toEqual([{ maxWait: 10_000, timeout: 30_000 }]);
  });
});

describe('sqlParams', () => {
  it('numbers placeholders from $1 in the order values are added, keeping each value as given', () => {
    const params = sqlParams();
    expect(params.values).toEqual([]);
    const when = new Date('2026-11-23T10:00:00.000Z');
    expect(params.add('a')).toBe('$1');
    expect(params.add(null)).toBe('$2');
    expect(params.add(when)).toBe('$3');
    expect(params.add('a')).toBe('$4');
    expect(params.values).toEqual(['a', null, when, 'a']);
    expect(params.values[2]).toBe(when);
    // Each builder counts on its own.
    expect(sqlParams().add(1)).toBe('$1');
  });
});

describe('text PostgreSQL cannot store', () => {
  it('NUL characters, and UTF-16 surrogates without their pair', () => {
    expect(NUL_CHARACTER.test('a\u0000b')).toBe(true);
    expect(NUL_CHARACTER.test('a0b')).toBe(false);
    expect(UNPAIRED_SURROGATE.test('\ud800')).toBe(true);
    expect(UNPAIRED_SURROGATE.test('a\udc00')).toBe(true);
    expect(UNPAIRED_SURROGATE.test('\udc00\ud800')).toBe(true);
    expect(UNPAIRED_SURROGATE.test('😀 ok')).toBe(false);
    expect(UNPAIRED_SURROGATE.test('\ud83d\ude00')).toBe(false);
  });
});

describe('inspectJson', () => {
  const NUL = NUL_CHARACTER;

  it('finds a string anywhere, naming its path with dots and array indexes', () => {
    expect(inspectJson('a\u0000', NUL)).toEqual({ path: '', reason: 'text' });
    expect(inspectJson({ notes: 'a\u0000' }, NUL)).toEqual({ path: 'notes', reason: 'text' });
    expect(inspectJson(['ok', 'a\u0000'], NUL)).toEqual({ path: '1', reason: 'text' });
    expect(inspectJson({ records: [{ notes: 'ok' }, { notes: 'ok', tags: ['x', 'y\u0000'] }] }, NUL)).toEqual({
      path: 'records.1.tags.1',
      reason: 'text',
    });
    expect(inspectJson([[['a\u0000']]], NUL)).toEqual({ path: '0.0.0', reason: 'text' });
  });

  it('finds a key too, naming the path to it', () => {
    expect(inspectJson({ 'a\u0000': 1 }, NUL)).toEqual({ path: 'a\u0000', reason: 'text' });
    expect(inspectJson({ payload: { lines: [{ 'bad\u0000key': 'ok' }] } }, NUL)).toEqual({
      path: 'payload.lines.0.bad\u0000key',
      reason: 'text',
    });
  });

  it('reports the first matching element of an array, in order', () => {
    expect(inspectJson(['a\u0000', 'b\u0000'], NUL)).toEqual({ path: '0', reason: 'text' });
    expect(inspectJson([{ x: 'ok' }, ['ok', 'c\u0000'], 'd\u0000'], NUL)).toEqual({ path: '1.1', reason: 'text' });
  });

  it("reports an object's first matching value, in the order of its keys", () => {
    expect(inspectJson({ a: 'x\u0000', b: 'y\u0000' }, NUL)).toEqual({ path: 'a', reason: 'text' });
    expect(inspectJson({ ok: 'fine', lines: [{ notes: 'x\u0000' }], tail: 'y\u0000' }, NUL)).toEqual({
      path: 'lines.0.notes',
      reason: 'text',
    });
  });

  it('finds nothing in text that does not match, nor in numbers, booleans and nulls', () => {
    expect(inspectJson({ a: 'ok', b: [1, true, null, false, 0, ''], c: { d: 'fine' } }, NUL)).toBeUndefined();
    expect(inspectJson(null, NUL)).toBeUndefined();
    expect(inspectJson(42, NUL)).toBeUndefined();
    expect(inspectJson([], NUL)).toBeUndefined();
    expect(inspectJson({}, NUL)).toBeUndefined();
    // Numbers are not read as text, even when their digits would match.
    expect(inspectJson({ a: 10 }, /0/)).toBeUndefined();
    expect(inspectJson([10], /1/)).toBeUndefined();
  });

  it('reports the first value nested deeper than the limit, with its path', () => {
    // Depth 0 is the value itself: with a limit of 2 an object at depth 2 is one too many.
    expect(inspectJson({ a: { b: 1 } }, NUL, 2)).toBeUndefined();
    expect(inspectJson({ a: { b: {} } }, NUL, 2)).toEqual({ path: 'a.b', reason: 'depth' });
    expect(inspectJson({ a: { b: [] } }, NUL, 2)).toEqual({ path: 'a.b', reason: 'depth' });
    expect(inspectJson([[[]]], NUL, 2)).toEqual({ path: '0.0', reason: 'depth' });
    expect(inspectJson([[1]], NUL, 2)).toBeUndefined();
    expect(inspectJson({}, NUL, 0)).toEqual({ path: '', reason: 'depth' });
    expect(inspectJson('text', NUL, 0)).toBeUndefined();
    // A string deep down is still only text: the limit is on containers.
    expect(inspectJson({ a: { b: 'x' } }, NUL, 2)).toBeUndefined();
  });

  it('has no limit by default, and walks any depth without recursion', () => {
    let deep: unknown = 'a\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const found = inspectJson(deep, NUL);
    expect(found?.reason).toBe('text');
    expect(found?.path).toBe(Array(100_000).fill('0').join('.'));
  });

  it('findText gives the path only, or undefined', () => {
    expect(findText({ a: ['ok', 'b\u0000'] }, NUL)).toBe('a.1');
    expect(findText({ a: ['ok'] }, NUL)).toBeUndefined();
    // No depth limit: a deep value is not a finding.
    expect(findText([[[[[[[[[[[]]]]]]]]]]], NUL)).toBeUndefined();
  });
});
