import type { StationIdentity, StationRecent, StationSetup } from '@merma/schema/dashboard';
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';

/**
 * What a station keeps on the tablet, in IndexedDB (database `merma-station`): its pairing (the
 * device's token, which never leaves this store but for the station's own requests), the last setup
 * and records it was shown (so it opens with the network down), the outbox of writes not yet
 * answered by the server (with the photos still to upload), and the records it stored lately (what
 * it may undo).
 */

/** A record as the station sends it: `CreateRecordInput`, with `occurred_at` taken at the tap. */
export type RecordBody = {
  food_category: string;
  weight_kg: number;
  destino_id: string;
  causa_id?: string | null;
  session_id?: string | null;
  waste_stage?: string | null;
  product_name?: string | null;
  notes?: string | null;
  measurement_method?: 'direct_weighing' | 'counting';
  product_id?: string;
  scale_id?: string;
  tare_kg?: number;
  edible?: string;
  hierarchy_reason?: string;
  /** The photo's stable address (`Photo.url`), once its upload was answered (outbox.ts). */
  photo_url?: string;
  occurred_at: string;
};

/** A write waiting for the server's answer, or refused by it and waiting for the cook. */
export type OutboxItem = {
  /** The order of the taps: the outbox is sent in this order. */
  seq?: number;
  /** The Idempotency-Key, made at the tap: however often the write is sent, it is stored once. */
  key: string;
  /**
   * The establishment and mode it was made for (`<establishment id>:<mode>`): sent only while the
   * tablet is paired to them, never into another kitchen's register after a new pairing.
   */
  scope: string;
  state: 'waiting' | 'refused';
  /**
   * The server's message when it refused the write (400, 404, 409): shown to the cook. `photo`: it
   * was the record's photo that was refused (400, 413, 415), and the record was not sent.
   */
  error?: { message: string; details: { path: string; message: string }[]; photo?: boolean };
} & (
  | {
      kind: 'record';
      body: RecordBody;
      /**
       * The photo taken at the bin, still to be uploaded (IndexedDB keeps Blobs as they are). Once
       * uploaded, it is dropped and its address is the body's `photo_url`, in the same write.
       */
      photo?: Blob;
    }
  | { kind: 'undo'; record_id: string; tapped_at: string }
);

/** A record of this station the server stored: it may be undone until `created_at` + the window. */
export type SentRecord = { id: string; key: string; created_at: string; body: RecordBody; undone?: boolean };

export type Pairing = { token: string; identity: StationIdentity };

/** The scope of a pairing's writes: its establishment and mode. */
export const scopeOf = (identity: StationIdentity) => `${identity.establishment.id}:${identity.mode}`;

interface StationDb extends DBSchema {
  /** One row, `current`: the pairing. */
  device: { key: string; value: Pairing };
  /** `setup` and `recent`: the last answers of GET /station/setup and /station/records. */
  cache: { key: 'setup' | 'recent'; value: StationSetup | StationRecent };
  outbox: { key: number; value: OutboxItem };
  sent: { key: string; value: SentRecord; indexes: { created_at: string } };
}

const DB_NAME = 'merma-station';
/** How many stored records the station remembers for undo (the window is short; a few suffice). */
const SENT_KEPT = 20;

export type StationStore = Awaited<ReturnType<typeof openStationStore>>;

export async function openStationStore(name = DB_NAME) {
  const db: IDBPDatabase<StationDb> = await openDB<StationDb>(name, 1, {
    upgrade(db) {
      db.createObjectStore('device');
      db.createObjectStore('cache');
      db.createObjectStore('outbox', { keyPath: 'seq', autoIncrement: true });
      db.createObjectStore('sent', { keyPath: 'id' }).createIndex('created_at', 'created_at');
    },
  });
  return {
    pairing: () => db.get('device', 'current'),
    setPairing: (pairing: Pairing) => db.put('device', pairing, 'current'),
    /** Forgets the pairing and what was cached for it; the outbox stays (its records are not lost). */
    async unpair() {
      const tx = db.transaction(['device', 'cache'], 'readwrite');
      await Promise.all([tx.objectStore('device').clear(), tx.objectStore('cache').clear(), tx.done]);
    },
    setup: () => db.get('cache', 'setup') as Promise<StationSetup | undefined>,
    setSetup: (setup: StationSetup) => db.put('cache', setup, 'setup'),
    recent: () => db.get('cache', 'recent') as Promise<StationRecent | undefined>,
    setRecent: (recent: StationRecent) => db.put('cache', recent, 'recent'),
    /** Adds a write at the end of the outbox; its `seq` fixes its place. */
    async enqueue(item: OutboxItem): Promise<OutboxItem> {
      const seq = await db.add('outbox', item);
      return { ...item, seq };
    },
    /** The outbox in tap order. */
    outbox: () => db.getAll('outbox'),
    updateItem: (item: OutboxItem) => db.put('outbox', item),
    removeItem: (seq: number) => db.delete('outbox', seq),
    /**
     * The photo of the queued record `seq` was uploaded: its address goes into the body and the
     * photo is dropped, in one write, so the record is never sent without it and the photo never
     * uploaded again. Only while the record is still queued (the cook may have discarded it during
     * the upload): the record as written, or undefined when it is gone.
     */
    async photoUploaded(seq: number, url: string): Promise<OutboxItem | undefined> {
      const tx = db.transaction('outbox', 'readwrite');
      const item = await tx.store.get(seq);
      if (item?.kind !== 'record') {
        await tx.done;
        return undefined;
      }
      const { photo: _uploaded, ...rest } = item;
      const written: OutboxItem = { ...rest, body: { ...item.body, photo_url: url } };
      await Promise.all([tx.store.put(written), tx.done]);
      return written;
    },
    /** The server stored the write `seq` (as `sent`, for a record): one transaction, so it is never both queued and sent. */
    async settle(seq: number, sent?: SentRecord) {
      const tx = db.transaction(['outbox', 'sent'], 'readwrite');
      const work: Promise<unknown>[] = [tx.objectStore('outbox').delete(seq)];
      if (sent) work.push(tx.objectStore('sent').put(sent));
      await Promise.all([...work, tx.done]);
      if (sent) await trimSent();
    },
    sent: (id: string) => db.get('sent', id),
    /** The stored records, newest first. */
    async sentRecords(): Promise<SentRecord[]> {
      return (await db.getAllFromIndex('sent', 'created_at')).reverse();
    },
    markUndone: async (id: string) => {
      const sent = await db.get('sent', id);
      if (sent) await db.put('sent', { ...sent, undone: true });
    },
    close: () => db.close(),
  };

  async function trimSent() {
    const all = await db.getAllKeysFromIndex('sent', 'created_at');
    const old = all.slice(0, Math.max(0, all.length - SENT_KEPT));
    await Promise.all(old.map((id) => db.delete('sent', id)));
  }
}
