import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StationError } from '../src/station/client.ts';
import { Outbox } from '../src/station/outbox.ts';
import { openStationStore, type RecordBody, type StationStore } from '../src/station/store.ts';

/**
 * The station's outbox (station/outbox.ts) over a real IndexedDB implementation (fake-indexeddb)
 * and a server that stores by Idempotency-Key as ours does: sent in tap order, kept across a new
 * page (a new store and outbox over the same database), stored once when an answer is lost, held
 * back for the cook when refused, and never dropped when the device is unpaired. The real server
 * and a real browser do the same in apps/server/test/station-browser.test.ts.
 */

type Stored = { id: string; key: string; body: RecordBody; created_at: string };

/** A server keyed like ours: a key it has seen answers the record it stored, never a second one. */
function fakeServer() {
  const stored: Stored[] = [];
  const undone: string[] = [];
  let failNext: StationError | undefined;
  /** Store the record but lose the answer, as a connection dropped after the server's commit does. */
  let loseNextAnswer = false;
  return {
    stored,
    undone,
    failNext: (e: StationError) => {
      failNext = e;
    },
    loseNextAnswer: () => {
      loseNextAnswer = true;
    },
    api: {
      async createRecord(_token: string, key: string, body: unknown) {
        if (failNext) {
          const e = failNext;
          failNext = undefined;
          throw e;
        }
        let record = stored.find((s) => s.key === key);
        if (!record) {
          record = { id: `r${stored.length + 1}`, key, body: body as RecordBody, created_at: new Date().toISOString() };
          stored.push(record);
        }
        if (loseNextAnswer) {
          loseNextAnswer = false;
          throw new StationError(0, 'offline', 'No connection');
        }
        return { id: record.id, created_at: record.created_at } as never;
      },
      async undo(_token: string, _key: string, id: string) {
        undone.push(id);
        return { id: `void-${id}` } as never;
      },
    },
  };
}

const body = (kg: number) => ({ food_category: 'bakery', weight_kg: kg, destino_id: 'd1' });
let name: string;
let store: StationStore;
let keys = 0;
const newKey = () => `k${++keys}`;
const sender = () => ({ token: 'stn_test_x', scope: 'e1:test' });

beforeEach(async () => {
  name = `station-${Math.random()}`;
  store = await openStationStore(name);
});
afterEach(() => store.close());

describe('the outbox', () => {
  it('sends records in tap order with their tap times, across a reload, exactly once', async () => {
    const server = fakeServer();
    // Offline: the first page queues three records, then is closed.
    let online = false;
    const offlineApi = {
      createRecord: async (...args: Parameters<typeof server.api.createRecord>) => {
        if (!online) throw new StationError(0, 'offline', 'No connection');
        return server.api.createRecord(...args);
      },
      undo: server.api.undo,
    };
    const first = new Outbox(store, sender, offlineApi, newKey);
    const taps = [new Date('2026-11-24T10:00:00.000Z'), new Date('2026-11-24T10:00:05.000Z'), new Date('2026-11-24T10:00:09.000Z')];
    for (const [i, at] of taps.entries()) await first.record(body(i + 1), at);
    await first.flush();
    expect(first.status).toMatchObject({ waiting: 3, retrying: true });
    first.stop();
    store.close();

    // A new page over the same database, online: everything is sent, in order.
    online = true;
    store = await openStationStore(name);
    const second = new Outbox(store, sender, offlineApi, newKey);
    await second.refresh();
    expect(second.status.waiting).toBe(3);
    await second.flush();
    expect(second.status).toMatchObject({ waiting: 0, retrying: false });
    expect(server.stored.map((s) => [s.body.weight_kg, s.body.occurred_at])).toEqual(taps.map((at, i) => [i + 1, at.toISOString()]));
    expect((await store.sentRecords()).map((s) => s.id)).toEqual(['r3', 'r2', 'r1']);
  });

  it('holds the records after one that failed briefly, and sends them after it, in tap order', async () => {
    // Three records queued while one send is in doubt: only the first fails (a dropped connection,
    // a 503, a 429), and only once. Nothing after it may reach the server before it does.
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    for (const kg of [1, 2, 3])
      await store.enqueue({
        kind: 'record',
        scope: 'e1:test',
        key: newKey(),
        state: 'waiting',
        body: { ...body(kg), occurred_at: new Date(Date.UTC(2026, 10, 24, 10, 0, kg)).toISOString() },
      });
    for (const failure of [
      new StationError(0, 'offline', 'No connection'),
      new StationError(503, 'service_unavailable', 'The database is unavailable; retry shortly', [], 1),
    ]) {
      server.failNext(failure);
      await outbox.flush();
      expect(outbox.status).toMatchObject({ retrying: true, refused: [] });
      expect(server.stored.map((s) => s.body.weight_kg)).toEqual([]);
    }
    await outbox.flush();
    outbox.stop();
    expect(server.stored.map((s) => s.body.weight_kg)).toEqual([1, 2, 3]);
    expect(outbox.status).toMatchObject({ waiting: 0, retrying: false });
  });

  it('stores a record once when the answer is lost after the server stored it', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    server.loseNextAnswer();
    await outbox.record(body(2));
    await outbox.flush();
    expect(outbox.status).toMatchObject({ waiting: 1, retrying: true });
    await outbox.flush(); // the retry, with the same key
    outbox.stop();
    expect(server.stored).toHaveLength(1);
    expect(outbox.status.waiting).toBe(0);
  });

  it('sends again what the server marks X-Should-Retry (the same key being answered), and holds what it does not', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    server.failNext(new StationError(409, 'conflict', 'A request with this Idempotency-Key is in progress; retry', [], undefined, true));
    await outbox.record(body(1));
    await outbox.flush();
    expect(outbox.status).toMatchObject({ waiting: 1, retrying: true, refused: [] });
    await outbox.flush();
    outbox.stop();
    expect(server.stored).toHaveLength(1);
    server.failNext(
      new StationError(409, 'conflict', 'This Idempotency-Key was already used with a different request', [], undefined, false),
    );
    await outbox.record(body(2));
    await outbox.flush();
    expect(outbox.status.refused).toHaveLength(1);
  });

  it('holds a refused record for the cook, sends the ones after it, and sends it corrected with its tap time', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    server.failNext(new StationError(400, 'validation_error', 'causa_id: this cause is retired; use an active cause', []));
    const tapped = new Date('2026-11-24T10:00:00.000Z');
    await outbox.record({ ...body(1), causa_id: 'old' }, tapped);
    await outbox.flush();
    await outbox.record(body(2));
    await outbox.flush();
    expect(outbox.status.refused).toHaveLength(1);
    expect(outbox.status.refused[0]?.error?.message).toMatch(/retired/);
    expect(server.stored.map((s) => s.body.weight_kg)).toEqual([2]);

    const seq = outbox.status.refused[0]?.seq as number;
    await outbox.correct(seq, { ...body(1), causa_id: 'new' });
    await outbox.flush();
    expect(outbox.status).toMatchObject({ waiting: 0, refused: [] });
    expect(server.stored.at(-1)?.body).toMatchObject({ causa_id: 'new', occurred_at: tapped.toISOString() });
  });

  it('keeps every record when the device is unpaired, and sends nothing more', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    server.failNext(new StationError(401, 'unauthorized', 'This station is not paired'));
    await outbox.record(body(1));
    await outbox.flush();
    expect(outbox.status).toMatchObject({ unpaired: true, waiting: 1 });
    expect(server.stored).toHaveLength(0);
  });

  it("keeps another pairing's records waiting instead of sending them into this kitchen's register", async () => {
    const server = fakeServer();
    let scope = 'e1:test';
    const outbox = new Outbox(store, () => ({ token: 'stn_test_x', scope }), server.api, newKey);
    server.failNext(new StationError(401, 'unauthorized', 'This station is not paired'));
    await outbox.record(body(1));
    await outbox.flush();
    scope = 'e2:test'; // paired again, to another establishment
    await outbox.record(body(2));
    await outbox.flush();
    expect(server.stored.map((s) => s.body.weight_kg)).toEqual([2]);
    expect(outbox.status.waiting).toBe(1);
  });

  it('undoes a stored record through the server, and forgets one never sent', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    await outbox.record(body(1));
    await outbox.flush();
    await outbox.undo('r1');
    await outbox.flush();
    expect(server.undone).toEqual(['r1']);
    expect((await store.sent('r1'))?.undone).toBe(true);

    // Offline, a record still waiting is undone on the tablet: it is never sent.
    server.failNext(new StationError(0, 'offline', 'No connection'));
    const waiting = await outbox.record(body(7));
    await outbox.flush();
    outbox.stop();
    await outbox.discard(waiting.seq as number);
    await outbox.flush();
    expect(server.stored.map((s) => s.body.weight_kg)).toEqual([1]);
    expect(outbox.status.waiting).toBe(0);
  });
});
