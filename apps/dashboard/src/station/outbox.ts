import { StationError, stationApi } from './client.ts';
import type { OutboxItem, RecordBody, SentRecord, StationStore } from './store.ts';

/** The pairing the outbox sends with: the device's token and its scope (store.ts, `scopeOf`). */
export type Sender = { token: string; scope: string };

/**
 * The station's outbox: every write is stored on the tablet first (IndexedDB), then sent, in tap
 * order, one at a time, whenever there is a network (docs/decisions/0007-the-kitchen-station.md).
 *
 * - Never lost: an item leaves the outbox only in the same IndexedDB transaction that records the
 *   server's answer (`settle`), so a reload, a crash or a dropped connection mid-request leaves it
 *   queued, to be sent again.
 * - Never stored twice: each item carries the Idempotency-Key made at the tap; sent again, the
 *   server answers the record it stored the first time.
 * - No answer, a 5xx, a 429: the flush stops there (the order holds) and is tried again after a
 *   pause that doubles up to a minute, or at once when the browser says it is online again.
 * - Refused (400, 404, 409): the item stays, marked with the server's message, for the cook to
 *   correct or discard; the items after it are sent.
 * - A record's photo goes first (`POST /station/photos`), and its address is written into the
 *   queued record (`photo_url`, the photo itself dropped) in one write before the record is sent:
 *   the record never reaches the server without its photo, and a crash between the upload and that
 *   write at worst sends the same bytes again, which the server answers with the same photo (photos
 *   are content-addressed). A photo the server refuses (400, 413, 415) holds its record, unsent, like
 *   a refused record, for the cook to correct (without the photo, or with another) or discard.
 * - 401: the device was unpaired; nothing more is sent, and nothing is dropped.
 * - An item is sent only with a pairing of the establishment and mode it was made for: after the
 *   tablet is paired elsewhere, older items wait (counted) instead of landing in another register.
 */

export type OutboxStatus = {
  waiting: number;
  refused: OutboxItem[];
  /** The last flush stopped on a connection problem and will try again. */
  retrying: boolean;
  /** The server no longer knows this device. */
  unpaired: boolean;
};

type Api = Pick<typeof stationApi, 'createRecord' | 'undo' | 'uploadPhoto'>;

const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 60_000;

export class Outbox {
  private flushing: Promise<void> | undefined;
  private again = false;
  private pause = FIRST_PAUSE_MS;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private listeners = new Set<() => void>();
  status: OutboxStatus = { waiting: 0, refused: [], retrying: false, unpaired: false };

  constructor(
    private readonly store: StationStore,
    private readonly sender: () => Sender | undefined,
    private readonly api: Api = stationApi,
    private readonly newKey: () => string = () => crypto.randomUUID(),
  ) {}

  /** Calls `listener` whenever the outbox changes; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Queues a record, with its tap time as `occurred_at` and a key of its own, and its photo if one
   * was taken, and starts sending.
   */
  async record(body: Omit<RecordBody, 'occurred_at'>, tappedAt = new Date(), photo?: Blob): Promise<OutboxItem> {
    const item = await this.store.enqueue({
      kind: 'record',
      scope: this.scope(),
      key: this.newKey(),
      state: 'waiting',
      body: { ...body, occurred_at: tappedAt.toISOString() },
      ...(photo ? { photo } : {}),
    });
    await this.refresh();
    void this.flush();
    return item;
  }

  /** Queues the undo of a stored record (the server voids it). */
  async undo(recordId: string, tappedAt = new Date()): Promise<void> {
    await this.store.enqueue({
      kind: 'undo',
      scope: this.scope(),
      key: this.newKey(),
      state: 'waiting',
      record_id: recordId,
      tapped_at: tappedAt.toISOString(),
    });
    await this.store.markUndone(recordId);
    await this.refresh();
    void this.flush();
  }

  /** Drops a queued item: a record never sent (its undo) or a refused one the cook discards. */
  async discard(seq: number): Promise<void> {
    await this.store.removeItem(seq);
    await this.refresh();
  }

  /**
   * Replaces a refused record by its corrected body (the tap time kept) under a new key, and sends it.
   * The photo is the correction's: the one still to upload that the cook kept (or took again), or
   * none; one already uploaded is the body's `photo_url`.
   */
  async correct(seq: number, body: Omit<RecordBody, 'occurred_at'>, photo?: Blob): Promise<void> {
    const item = (await this.store.outbox()).find((i) => i.seq === seq);
    if (item?.kind !== 'record') return;
    await this.store.updateItem({
      kind: 'record',
      seq,
      scope: item.scope,
      key: this.newKey(),
      state: 'waiting',
      body: { ...body, occurred_at: item.body.occurred_at },
      ...(photo ? { photo } : {}),
    });
    await this.refresh();
    void this.flush();
  }

  /**
   * Sends what is waiting, in order. One flush at a time: a call during a flush makes it go round
   * once more (an item queued meanwhile is sent in the same run).
   */
  flush(): Promise<void> {
    if (this.flushing) {
      this.again = true;
      return this.flushing;
    }
    clearTimeout(this.timer);
    this.flushing = (async () => {
      try {
        do {
          this.again = false;
          await this.sendAll();
        } while (this.again && !this.status.retrying && !this.status.unpaired);
      } finally {
        this.flushing = undefined;
        await this.refresh();
      }
    })();
    return this.flushing;
  }

  /** The server refused the device's token on another request: nothing is sent until it is paired again. */
  markUnpaired(): void {
    this.status = { ...this.status, unpaired: true };
    for (const listener of this.listeners) listener();
  }

  /** Stops the retry timer (the page is closing, or the station is unpaired). */
  stop(): void {
    clearTimeout(this.timer);
  }

  private scope(): string {
    const sender = this.sender();
    if (!sender) throw new Error('The station is not paired');
    return sender.scope;
  }

  private async sendAll(): Promise<void> {
    const sender = this.sender();
    if (!sender) return;
    const { token } = sender;
    this.status = { ...this.status, unpaired: false, retrying: false };
    for (const queued of await this.store.outbox()) {
      if (queued.state !== 'waiting' || queued.seq === undefined || queued.scope !== sender.scope) continue;
      // The item as last written: after its photo's upload, the one with `photo_url` (what a refusal
      // must mark, so that the photo is not uploaded again).
      let item: OutboxItem & { seq: number } = { ...queued, seq: queued.seq };
      try {
        if (item.kind === 'record') {
          const photo = photoToUpload(item);
          if (photo) {
            const uploaded = await this.api.uploadPhoto(token, photo);
            const written = await this.store.photoUploaded(item.seq, uploaded.url);
            // Discarded while its photo went up: nothing to send.
            if (written?.kind !== 'record') continue;
            item = { ...written, seq: item.seq };
          }
          const stored = await this.api.createRecord(token, item.key, item.body);
          const sent: SentRecord = { id: stored.id, key: item.key, created_at: stored.created_at, body: item.body };
          await this.store.settle(item.seq, sent);
        } else {
          await this.api.undo(token, item.key, item.record_id);
          await this.store.settle(item.seq);
        }
        this.pause = FIRST_PAUSE_MS;
        await this.refresh();
      } catch (err) {
        if (!(err instanceof StationError)) throw err;
        if (err.unpaired) {
          this.status = { ...this.status, unpaired: true };
          return;
        }
        if (err.retryable) {
          this.retryLater(err.retryAfter);
          return;
        }
        await this.store.updateItem({
          ...item,
          state: 'refused',
          // Still holding a photo to upload, the record was not sent: it was the photo that was refused.
          error: { message: err.message, details: err.details, ...(photoToUpload(item) ? { photo: true } : {}) },
        });
        await this.refresh();
      }
    }
  }

  private retryLater(retryAfterSeconds?: number): void {
    this.status = { ...this.status, retrying: true };
    const wait = retryAfterSeconds ? retryAfterSeconds * 1000 : this.pause;
    this.pause = Math.min(this.pause * 2, LONGEST_PAUSE_MS);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), wait);
  }

  /** Reads the outbox's counts again and tells the listeners. */
  async refresh(): Promise<void> {
    const items = await this.store.outbox();
    this.status = {
      ...this.status,
      waiting: items.filter((i) => i.state === 'waiting').length,
      refused: items.filter((i) => i.state === 'refused'),
    };
    for (const listener of this.listeners) listener();
  }
}

/** The photo a queued record still has to upload before it is sent, if any. */
function photoToUpload(item: OutboxItem): Blob | undefined {
  return item.kind === 'record' && !item.body.photo_url ? item.photo : undefined;
}
