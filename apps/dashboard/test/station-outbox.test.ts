import 'fake-indexeddb/auto';
import { Blob as NodeBlob } from 'node:buffer';
import { deadline } from '@merma/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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
type StoredPhoto = { id: string; url: string; content_type: string; bytes: string };

/**
 * A server keyed like ours: a key it has seen answers the record it stored, never a second one;
 * photos named by their bytes, as ours are (the same bytes answer the same photo). `calls` is what
 * it was asked, in order.
 */
function fakeServer() {
  const stored: Stored[] = [];
  const undone: string[] = [];
  const photos: StoredPhoto[] = [];
  const calls: string[] = [];
  let failNext: StationError | undefined;
  let failNextPhoto: StationError | undefined;
  /** Store the record but lose the answer, as a connection dropped after the server's commit does. */
  let loseNextAnswer = false;
  return {
    stored,
    undone,
    photos,
    calls,
    failNext: (e: StationError) => {
      failNext = e;
    },
    failNextPhoto: (e: StationError) => {
      failNextPhoto = e;
    },
    loseNextAnswer: () => {
      loseNextAnswer = true;
    },
    api: {
      async uploadPhoto(_token: string, photo: Blob) {
        calls.push('photo');
        if (failNextPhoto) {
          const e = failNextPhoto;
          failNextPhoto = undefined;
          throw e;
        }
        const bytes = await photo.text();
        let found = photos.find((p) => p.bytes === bytes);
        if (!found) {
          const id = `p${photos.length + 1}`;
          found = { id, url: `https://merma.test/api/v1/photos/${id}`, content_type: photo.type, bytes };
          photos.push(found);
        }
        return { id: found.id, object: 'photo', url: found.url, content_type: found.content_type } as never;
      },
      async createRecord(_token: string, key: string, body: unknown) {
        calls.push('record');
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
      uploadPhoto: server.api.uploadPhoto,
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

/**
 * A record with a photo taken at the bin: the photo goes first, its address is written into the
 * queued record before the record is sent, and a photo the server refuses holds its record.
 */
describe('the outbox with a photo', () => {
  // Node's Blob, not the test DOM's: fake-indexeddb copies what it stores with Node's structuredClone,
  // which keeps a Node Blob whole (as a browser's IndexedDB keeps its own) but not happy-dom's.
  const photo = (text: string, type: string) => new NodeBlob([text], { type }) as unknown as Blob;
  const jpeg = (text = 'jpeg bytes') => photo(text, 'image/jpeg');
  const queued = async () => (await store.outbox()).filter((i) => i.kind === 'record');

  it('uploads the photo, then sends the record with its address, once', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    await outbox.record(body(1), new Date('2026-11-24T10:00:00.000Z'), jpeg());
    await outbox.flush();
    outbox.stop();
    expect(server.calls).toEqual(['photo', 'record']);
    expect(server.photos).toEqual([
      { id: 'p1', url: 'https://merma.test/api/v1/photos/p1', content_type: 'image/jpeg', bytes: 'jpeg bytes' },
    ]);
    expect(server.stored.map((s) => s.body)).toEqual([
      { ...body(1), photo_url: 'https://merma.test/api/v1/photos/p1', occurred_at: '2026-11-24T10:00:00.000Z' },
    ]);
    expect(outbox.status).toMatchObject({ waiting: 0, retrying: false, refused: [] });
    expect(await store.outbox()).toEqual([]);
    // A record without a photo asks for no upload.
    await outbox.record(body(2));
    await outbox.flush();
    outbox.stop();
    expect(server.calls).toEqual(['photo', 'record', 'record']);
    expect(server.stored[1]?.body).not.toHaveProperty('photo_url');
  });

  it("keeps the photo's address once uploaded: a record that failed after it, sent from a new page, is not uploaded again", async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    server.failNext(new StationError(503, 'service_unavailable', 'The database is unavailable; retry shortly'));
    await outbox.record(body(1), new Date('2026-11-24T10:00:00.000Z'), jpeg());
    await outbox.flush();
    outbox.stop();
    expect(server.calls).toEqual(['photo', 'record']);
    expect(server.stored).toEqual([]);
    expect(outbox.status).toMatchObject({ waiting: 1, retrying: true });
    // On the tablet: the address, and no photo left to upload.
    const [item] = await queued();
    expect(item).toMatchObject({ state: 'waiting', body: { photo_url: 'https://merma.test/api/v1/photos/p1' } });
    expect(item).not.toHaveProperty('photo');

    // The page is reloaded meanwhile: a new store and outbox over the same database.
    store.close();
    store = await openStationStore(name);
    const again = new Outbox(store, sender, server.api, newKey);
    await again.refresh();
    await again.flush();
    again.stop();
    expect(server.calls).toEqual(['photo', 'record', 'record']);
    expect(server.photos).toHaveLength(1);
    expect(server.stored.map((s) => s.body.photo_url)).toEqual(['https://merma.test/api/v1/photos/p1']);
    expect(again.status).toMatchObject({ waiting: 0, retrying: false });
  });

  it('retries a photo that could not be sent (offline, 5xx, 429) later, holding the records after it', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    // Queued as the tablet queued them while offline (no sending started yet).
    const at = (second: number) => new Date(Date.UTC(2026, 10, 24, 10, 0, second)).toISOString();
    await store.enqueue({
      kind: 'record',
      scope: 'e1:test',
      key: newKey(),
      state: 'waiting',
      body: { ...body(1), occurred_at: at(0) },
      photo: jpeg(),
    });
    await store.enqueue({ kind: 'record', scope: 'e1:test', key: newKey(), state: 'waiting', body: { ...body(2), occurred_at: at(5) } });
    for (const failure of [
      new StationError(0, 'offline', 'No connection'),
      new StationError(429, 'rate_limited', 'Too many requests', [], 1),
      new StationError(502, 'bad_gateway', 'Bad gateway'),
    ]) {
      server.failNextPhoto(failure);
      await outbox.flush();
      outbox.stop();
      expect(outbox.status).toMatchObject({ waiting: 2, retrying: true, refused: [] });
      expect(server.stored).toEqual([]);
      // The photo is still on the tablet, to be sent; no address yet.
      const [first] = await queued();
      expect(first?.kind === 'record' && first.photo).toBeInstanceOf(NodeBlob);
      expect(first?.kind === 'record' && first.body.photo_url).toBeUndefined();
    }
    await outbox.flush();
    outbox.stop();
    expect(server.stored.map((s) => [s.body.weight_kg, s.body.photo_url])).toEqual([
      [1, 'https://merma.test/api/v1/photos/p1'],
      [2, undefined],
    ]);
    expect(outbox.status).toMatchObject({ waiting: 0, retrying: false });
  });

  it('holds a record whose photo is refused, sends the ones after it, and sends it corrected without the photo', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    server.failNextPhoto(new StationError(415, 'unsupported_media_type', 'A photo must be image/jpeg, image/png or image/webp'));
    const tapped = new Date('2026-11-24T10:00:00.000Z');
    await outbox.record(body(1), tapped, photo('gif', 'image/gif'));
    await outbox.record(body(2));
    await outbox.flush();
    outbox.stop();
    expect(server.calls).toEqual(['photo', 'record']);
    expect(server.stored.map((s) => s.body.weight_kg)).toEqual([2]);
    expect(outbox.status.refused).toHaveLength(1);
    const [refused] = outbox.status.refused;
    expect(refused).toMatchObject({ state: 'refused', error: { message: /image\/jpeg/, photo: true } });

    // The cook removes the photo and saves again: the record goes, with its tap time, and no photo.
    await outbox.correct(refused?.seq as number, body(1));
    await outbox.flush();
    outbox.stop();
    expect(server.calls).toEqual(['photo', 'record', 'record']);
    expect(server.stored.at(-1)?.body).toEqual({ ...body(1), occurred_at: tapped.toISOString() });
    expect(outbox.status).toMatchObject({ waiting: 0, refused: [] });
  });

  it("keeps an uploaded photo's address on a record refused after it, and sends the correction with it, not uploading again", async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    server.failNext(new StationError(400, 'validation_error', 'causa_id: this cause is retired; use an active cause'));
    await outbox.record({ ...body(1), causa_id: 'old' }, new Date('2026-11-24T10:00:00.000Z'), jpeg());
    await outbox.flush();
    outbox.stop();
    const [refused] = outbox.status.refused;
    expect(refused).toMatchObject({ body: { photo_url: 'https://merma.test/api/v1/photos/p1' }, error: { message: /retired/ } });
    expect(refused?.error).not.toHaveProperty('photo');
    expect(refused).not.toHaveProperty('photo');

    // The correction keeps the photo, as the station's screen passes it: its address in the body.
    const kept = refused?.kind === 'record' ? refused.body.photo_url : undefined;
    await outbox.correct(refused?.seq as number, { ...body(1), causa_id: 'new', ...(kept ? { photo_url: kept } : {}) });
    await outbox.flush();
    outbox.stop();
    expect(server.calls).toEqual(['photo', 'record', 'record']);
    expect(server.stored.map((s) => [s.body.causa_id, s.body.photo_url])).toEqual([['new', 'https://merma.test/api/v1/photos/p1']]);

    // A photo still to upload, kept through a correction, is uploaded with it.
    server.failNextPhoto(new StationError(413, 'payload_too_large', 'A photo is at most 8 MiB'));
    await outbox.record(body(3), new Date('2026-11-24T10:01:00.000Z'), jpeg('too big'));
    await outbox.flush();
    outbox.stop();
    const [second] = outbox.status.refused;
    expect(second?.error).toMatchObject({ photo: true });
    await outbox.correct(second?.seq as number, body(3), jpeg('taken again'));
    await outbox.flush();
    outbox.stop();
    expect(server.stored.at(-1)?.body).toMatchObject({ weight_kg: 3, photo_url: 'https://merma.test/api/v1/photos/p2' });
    expect(server.photos.map((p) => p.bytes)).toEqual(['jpeg bytes', 'taken again']);
  });

  it('sends nothing for a record the cook discarded while its photo went up', async () => {
    const server = fakeServer();
    let outbox: Outbox | undefined;
    const api = {
      ...server.api,
      async uploadPhoto(token: string, photo: Blob) {
        // The cook undoes the record (still waiting) during the upload.
        const [item] = await queued();
        await outbox?.discard(item?.seq as number);
        return server.api.uploadPhoto(token, photo);
      },
    };
    outbox = new Outbox(store, sender, api, newKey);
    await store.enqueue({
      kind: 'record',
      scope: 'e1:test',
      key: newKey(),
      state: 'waiting',
      body: { ...body(1), occurred_at: '2026-11-24T10:00:00.000Z' },
      photo: jpeg(),
    });
    await outbox.flush();
    outbox.stop();
    expect(server.calls).toEqual(['photo']);
    expect(await store.outbox()).toEqual([]);
    expect(outbox.status).toMatchObject({ waiting: 0, refused: [] });
  });

  it('keeps a record with its photo when the device is unpaired at the upload', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    server.failNextPhoto(new StationError(401, 'unauthorized', 'This station is not paired'));
    await outbox.record(body(1), new Date('2026-11-24T10:00:00.000Z'), jpeg());
    await outbox.flush();
    outbox.stop();
    expect(outbox.status).toMatchObject({ unpaired: true, waiting: 1, refused: [] });
    expect(server.calls).toEqual(['photo']);
    const [item] = await queued();
    expect(item?.kind === 'record' && item.photo).toBeInstanceOf(NodeBlob);
  });

  it('tries again after a pause that doubles up to a minute, or what Retry-After asks, and starts again from a second once one goes through', async () => {
    // The pause is read where the outbox sets its timer; the timer's callback is called by hand, so
    // no test waits a second. Only the outbox's own timers are a second or more.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const cleared = vi.spyOn(globalThis, 'clearTimeout');
    const server = fakeServer();
    let failures: StationError[] = [];
    const api = {
      ...server.api,
      createRecord: async (...args: Parameters<typeof server.api.createRecord>) => {
        const failure = failures.shift();
        if (failure) throw failure;
        return server.api.createRecord(...args);
      },
    };
    const outbox = new Outbox(store, sender, api, newKey);
    const pauses = () => timers.mock.calls.map(([, ms]) => ms).filter((ms): ms is number => typeof ms === 'number' && ms >= 1000);
    const lastRetry = () => {
      const call = timers.mock.calls.filter(([, ms]) => typeof ms === 'number' && ms >= 1000).at(-1);
      return call?.[0] as () => void;
    };
    try {
      const offline = () => new StationError(0, 'offline', 'No connection');
      failures = Array.from({ length: 9 }, offline);
      await outbox.record(body(1), new Date('2026-11-24T10:00:00.000Z'));
      await outbox.flush();
      for (let i = 0; i < 7; i++) await outbox.flush();
      expect(pauses()).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
      expect(outbox.status).toMatchObject({ waiting: 1, retrying: true });

      // The server's Retry-After, in seconds, wins over the pause.
      failures = [new StationError(429, 'rate_limited', 'Too many requests', [], 7)];
      await outbox.flush();
      expect(pauses().at(-1)).toBe(7000);

      // The timer's callback sends again: one more failure, then it goes through.
      failures = [offline()];
      lastRetry()();
      await vi.waitFor(() => expect(pauses()).toHaveLength(10), { timeout: deadline(5_000) });
      expect(pauses().at(-1)).toBe(60000);
      lastRetry()();
      await vi.waitFor(() => expect(server.stored).toHaveLength(1), { timeout: deadline(5_000) });
      await outbox.flush();
      expect(outbox.status).toMatchObject({ waiting: 0, retrying: false });

      // A success resets the pause: the next failure waits a second again.
      failures = [offline()];
      await outbox.record(body(2), new Date('2026-11-24T10:00:05.000Z'));
      await outbox.flush();
      expect(pauses().at(-1)).toBe(1000);
      // Each flush, and stop(), clear the timer set before.
      const timer = timers.mock.results.at(-1)?.value;
      outbox.stop();
      expect(cleared).toHaveBeenLastCalledWith(timer);
    } finally {
      outbox.stop();
      timers.mockRestore();
      cleared.mockRestore();
    }
  });

  it('counts only the items waiting, and lists only the refused ones', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    const listener = vi.fn();
    const unsubscribe = outbox.subscribe(listener);
    server.failNext(new StationError(400, 'validation_error', 'weight_kg: too heavy'));
    await outbox.record(body(900), new Date('2026-11-24T10:00:00.000Z'));
    await outbox.flush();
    expect(outbox.status.waiting).toBe(0);
    expect(outbox.status.refused.map((i) => i.kind === 'record' && i.body.weight_kg)).toEqual([900]);
    expect(listener).toHaveBeenCalled();
    unsubscribe();
    listener.mockClear();
    outbox.markUnpaired();
    expect(outbox.status.unpaired).toBe(true);
    expect(listener).not.toHaveBeenCalled();
    outbox.stop();
  });
});

/**
 * What the outbox does at its edges: a new page's status, the keys it makes, an undo queued or
 * refused, a correction of the wrong item or of none, a station not paired, an error that is not
 * the server's, and the retry timer a successful flush leaves behind.
 */
describe('the outbox at its edges', () => {
  const photo = () => new NodeBlob(['jpeg bytes'], { type: 'image/jpeg' }) as unknown as Blob;
  const offline = () => new StationError(0, 'offline', 'No connection');

  it('starts with nothing waiting, nothing refused, not retrying and paired', () => {
    // A new page must not show a retry banner, or the pairing screen, before anything happened.
    const outbox = new Outbox(store, sender, fakeServer().api, newKey);
    expect(outbox.status).toEqual({ waiting: 0, refused: [], retrying: false, unpaired: false });
  });

  it('keys each write with a random UUID of its own when no key maker is given', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api);
    await outbox.record(body(1));
    await outbox.record(body(2));
    await outbox.flush();
    outbox.stop();
    const keys = server.stored.map((s) => s.key);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(2);
  });

  it('queues an undo as an undo of its record, with its tap time, a key and the scope, and marks the record undone', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, { ...server.api, undo: async () => Promise.reject(offline()) }, newKey);
    await outbox.record(body(1));
    await outbox.flush();
    await outbox.undo('r1', new Date('2026-11-24T10:05:00.000Z'));
    await outbox.flush();
    outbox.stop();
    expect(await store.outbox()).toEqual([
      {
        kind: 'undo',
        seq: expect.any(Number),
        scope: 'e1:test',
        key: expect.stringMatching(/^k\d+$/),
        state: 'waiting',
        record_id: 'r1',
        tapped_at: '2026-11-24T10:05:00.000Z',
      },
    ]);
    expect((await store.sent('r1'))?.undone).toBe(true);
    expect(outbox.status).toMatchObject({ waiting: 1, retrying: true });
  });

  it('holds an undo the server refuses, with its message and no photo blamed, and sends what follows', async () => {
    const server = fakeServer();
    const api = {
      ...server.api,
      undo: async () => Promise.reject(new StationError(404, 'not_found', 'No record r9 in this establishment')),
    };
    const outbox = new Outbox(store, sender, api, newKey);
    await outbox.undo('r9', new Date('2026-11-24T10:05:00.000Z'));
    await outbox.record(body(2));
    await outbox.flush();
    outbox.stop();
    expect(server.stored.map((s) => s.body.weight_kg)).toEqual([2]);
    expect(outbox.status.refused).toEqual([
      expect.objectContaining({
        kind: 'undo',
        record_id: 'r9',
        state: 'refused',
        error: { message: 'No record r9 in this establishment', details: [] },
      }),
    ]);

    // A correction is for a record: asked of the undo, it changes nothing.
    const seq = outbox.status.refused[0]?.seq as number;
    await outbox.correct(seq, body(3));
    expect(await store.outbox()).toEqual([expect.objectContaining({ seq, kind: 'undo', state: 'refused' })]);
    expect(server.stored).toHaveLength(1);
  });

  it('corrects the refused record it is asked to, and leaves the other refused one as it was', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    server.failNext(new StationError(400, 'validation_error', 'weight_kg: too heavy'));
    await outbox.record(body(900), new Date('2026-11-24T10:00:00.000Z'));
    await outbox.flush();
    server.failNext(new StationError(400, 'validation_error', 'weight_kg: too heavy'));
    await outbox.record(body(800), new Date('2026-11-24T10:07:00.000Z'));
    await outbox.flush();
    const [first, second] = outbox.status.refused;
    expect([first, second].map((i) => i?.kind === 'record' && i.body.weight_kg)).toEqual([900, 800]);

    await outbox.correct(second?.seq as number, body(8));
    await outbox.flush();
    outbox.stop();
    // With its own tap time, not the other refused record's.
    expect(server.stored.map((s) => [s.body.weight_kg, s.body.occurred_at])).toEqual([[8, '2026-11-24T10:07:00.000Z']]);
    expect(outbox.status.refused).toEqual([
      expect.objectContaining({ seq: first?.seq, state: 'refused', body: expect.objectContaining({ weight_kg: 900 }) }),
    ]);

    // An item no longer queued (discarded meanwhile): nothing to correct, nothing sent.
    await outbox.discard(first?.seq as number);
    await outbox.correct(first?.seq as number, body(9));
    await outbox.flush();
    outbox.stop();
    expect(await store.outbox()).toEqual([]);
    expect(server.stored).toHaveLength(1);
  });

  it('refuses a tap on a station not paired, queuing nothing, and sends nothing without a pairing', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, () => undefined, server.api, newKey);
    await expect(outbox.record(body(1))).rejects.toThrow('The station is not paired');
    await expect(outbox.undo('r1')).rejects.toThrow('The station is not paired');
    expect(await store.outbox()).toEqual([]);

    // Queued under a pairing since forgotten: it waits, unsent, and the flush does not fail.
    await store.enqueue({
      kind: 'record',
      scope: 'e1:test',
      key: newKey(),
      state: 'waiting',
      body: { ...body(1), occurred_at: '2026-11-24T10:00:00.000Z' },
    });
    await outbox.flush();
    expect(server.calls).toEqual([]);
    expect(outbox.status).toEqual({ waiting: 1, refused: [], retrying: false, unpaired: false });
  });

  it('lets an error that is not the server’s answer through, and keeps the record waiting, not refused', async () => {
    // A bug in the client (a TypeError) is not the server refusing the record: the cook must not be
    // asked to correct it, and it is sent again on the next flush.
    const server = fakeServer();
    let broken = true;
    const api = {
      ...server.api,
      createRecord: async (...args: Parameters<typeof server.api.createRecord>) => {
        if (broken) throw new TypeError('body.weight_kg.toFixed is not a function');
        return server.api.createRecord(...args);
      },
    };
    const outbox = new Outbox(store, sender, api, newKey);
    await store.enqueue({
      kind: 'record',
      scope: 'e1:test',
      key: newKey(),
      state: 'waiting',
      body: { ...body(1), occurred_at: '2026-11-24T10:00:00.000Z' },
    });
    await expect(outbox.flush()).rejects.toThrow(TypeError);
    expect(outbox.status).toMatchObject({ waiting: 1, refused: [] });
    expect(await store.outbox()).toEqual([expect.objectContaining({ state: 'waiting' })]);
    broken = false;
    await outbox.flush();
    expect(server.stored.map((s) => s.body.weight_kg)).toEqual([1]);
  });

  it('sends a record that already has its photo address without uploading the photo it still holds', async () => {
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    const url = 'https://merma.test/api/v1/photos/p7';
    await store.enqueue({
      kind: 'record',
      scope: 'e1:test',
      key: newKey(),
      state: 'waiting',
      body: { ...body(1), photo_url: url, occurred_at: '2026-11-24T10:00:00.000Z' },
      photo: photo(),
    });
    await outbox.flush();
    outbox.stop();
    expect(server.calls).toEqual(['record']);
    expect(server.stored.map((s) => s.body.photo_url)).toEqual([url]);
  });

  it('tells its listeners when the device is found unpaired', () => {
    const outbox = new Outbox(store, sender, fakeServer().api, newKey);
    const listener = vi.fn(() => expect(outbox.status.unpaired).toBe(true));
    outbox.subscribe(listener);
    outbox.markUnpaired();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(outbox.status).toEqual({ waiting: 0, refused: [], retrying: false, unpaired: true });
  });

  it('clears the pending retry when a flush goes through before it, so it does not send again behind the cook', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const cleared = vi.spyOn(globalThis, 'clearTimeout');
    const server = fakeServer();
    const outbox = new Outbox(store, sender, server.api, newKey);
    try {
      server.failNext(offline());
      await outbox.record(body(1));
      await outbox.flush();
      const retry = timers.mock.results[timers.mock.calls.findIndex(([, ms]) => ms === 1000)]?.value;
      expect(retry).toBeDefined();
      cleared.mockClear();
      await outbox.flush(); // back online before the pause is over
      expect(cleared).toHaveBeenCalledWith(retry);
      expect(outbox.status).toMatchObject({ waiting: 0, retrying: false });
    } finally {
      outbox.stop();
      timers.mockRestore();
      cleared.mockRestore();
    }
  });
});
