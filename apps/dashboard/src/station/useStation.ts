import type { StationRecent, StationSetup } from '@merma/schema/dashboard';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { StationError, stationApi } from './client.ts';
import { Outbox, type OutboxStatus } from './outbox.ts';
import { type OutboxItem, openStationStore, type Pairing, type SentRecord, type StationStore, scopeOf } from './store.ts';

/** How often an idle station asks for today's figures again (other stations and the API write too). */
const REFRESH_MS = 60_000;

export type StationState = {
  store: StationStore;
  pairing: Pairing | null;
  setup: StationSetup | undefined;
  recent: StationRecent | undefined;
  outbox: Outbox;
  status: OutboxStatus;
  items: OutboxItem[];
  sent: SentRecord[];
  online: boolean;
  /** Reads the setup and today's records again (kept for the next start without network). */
  reload(): Promise<void>;
  pair(code: string): Promise<void>;
  unpair(): Promise<void>;
};

/** Whether the browser has a network (the `online`/`offline` events): what the header shows. */
function useOnline(): boolean {
  return useSyncExternalStore(
    (notify) => {
      window.addEventListener('online', notify);
      window.addEventListener('offline', notify);
      return () => {
        window.removeEventListener('online', notify);
        window.removeEventListener('offline', notify);
      };
    },
    () => navigator.onLine,
  );
}

/**
 * The station's state: the IndexedDB store opened once, the pairing, the last setup and records
 * (from the server, else from the store), and the outbox, flushed at start, after each write,
 * when the network returns and every minute. `undefined` while the store opens.
 */
export function useStation(): StationState | undefined {
  const [store, setStore] = useState<StationStore>();
  const [pairing, setPairing] = useState<Pairing | null>();
  const [setup, setSetup] = useState<StationSetup>();
  const [recent, setRecent] = useState<StationRecent>();
  const [items, setItems] = useState<OutboxItem[]>([]);
  const [sent, setSent] = useState<SentRecord[]>([]);
  const [status, setStatus] = useState<OutboxStatus>({ waiting: 0, refused: [], retrying: false, unpaired: false });
  const online = useOnline();
  const pairingRef = useRef<Pairing | null>(null);
  pairingRef.current = pairing ?? null;

  useEffect(() => {
    let closed = false;
    let opened: StationStore | undefined;
    void openStationStore().then(async (s) => {
      if (closed) return s.close();
      opened = s;
      const [p, cachedSetup, cachedRecent] = await Promise.all([s.pairing(), s.setup(), s.recent()]);
      setSetup(cachedSetup);
      setRecent(cachedRecent);
      setPairing(p ?? null);
      setStore(s);
    });
    return () => {
      closed = true;
      opened?.close();
    };
  }, []);

  const outbox = useMemo(() => {
    if (!store) return undefined;
    return new Outbox(store, () => {
      const p = pairingRef.current;
      return p ? { token: p.token, scope: scopeOf(p.identity) } : undefined;
    });
  }, [store]);
  const outboxRef = useRef<Outbox | undefined>(undefined);
  outboxRef.current = outbox;

  const reload = useCallback(async () => {
    const p = pairingRef.current;
    if (!store || !p) return;
    try {
      const [s, r] = await Promise.all([stationApi.setup(p.token), stationApi.recent(p.token)]);
      setSetup(s);
      setRecent(r);
      await Promise.all([store.setSetup(s), store.setRecent(r)]);
    } catch (err) {
      // Offline: what was read last stays on screen. Unpaired: the outbox says so at its next send.
      if (err instanceof StationError && err.unpaired) outboxRef.current?.markUnpaired();
      else if (!(err instanceof StationError)) throw err;
    }
  }, [store]);

  // The outbox's changes, onto the screen; a write that went through refreshes today's figures.
  useEffect(() => {
    if (!outbox || !store) return;
    let lastWaiting = -1;
    const update = () => {
      setStatus({ ...outbox.status });
      void store.outbox().then(setItems);
      void store.sentRecords().then(setSent);
      if (outbox.status.waiting < lastWaiting) void reload();
      lastWaiting = outbox.status.waiting;
    };
    const off = outbox.subscribe(update);
    void outbox.refresh().then(() => outbox.flush());
    return () => {
      off();
      outbox.stop();
    };
  }, [outbox, store, reload]);

  useEffect(() => {
    if (!pairing || !outbox) return;
    void reload();
    const timer = setInterval(() => {
      void reload();
      void outbox.flush();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [pairing, outbox, reload]);

  // Back online: send at once rather than at the next pause.
  useEffect(() => {
    if (online && outbox) void outbox.flush();
  }, [online, outbox]);

  const pair = useCallback(
    async (code: string) => {
      if (!store) return;
      const redeemed = await stationApi.pair(code);
      const next: Pairing = {
        token: redeemed.token,
        identity: { device: redeemed.device, establishment: redeemed.establishment, mode: redeemed.mode },
      };
      await store.setPairing(next);
      // The code is spent: not left in the address bar, nor in a bookmark of the installed app.
      history.replaceState(null, '', location.pathname);
      pairingRef.current = next;
      setPairing(next);
      // The flush starts by clearing `unpaired`, and sends what waited for the new pairing.
      await outbox?.flush();
      await reload();
    },
    [store, reload, outbox],
  );

  const unpair = useCallback(async () => {
    if (!store) return;
    await store.unpair();
    pairingRef.current = null;
    setPairing(null);
    setSetup(undefined);
    setRecent(undefined);
  }, [store]);

  if (!store || !outbox || pairing === undefined) return undefined;
  return { store, pairing, setup, recent, outbox, status, items, sent, online, reload, pair, unpair };
}
