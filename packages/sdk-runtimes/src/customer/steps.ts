import type * as MermaSdk from '@merma/sdk';
import type { CreateRecordInput, WasteRecord } from '@merma/sdk';

/**
 * The customer script: the one source of the steps that every runtime runs against the real
 * server. It has no value imports, so the same text works as ESM, inlined into CommonJS, as
 * TypeScript executed by Node's type stripping, and bundled for an edge runtime or a browser; each
 * runtime's entry (see test/support/entries.ts) only says how to load the SDK, where the settings come from
 * and how to print. Everything it needs from the runtime is web-standard: fetch, setTimeout, JSON.
 *
 * It prints one JSON line per step, `{"step":"create","ok":true}`, or `ok: false` with the error's
 * message and name. A step whose input an earlier failed step should have produced is reported as
 * failed and `skipped`, so the first failure is the one to read.
 */

/** What the steps use from the SDK, however the runtime loads it (import(), require(), a bundle). */
export type SdkModule = Pick<typeof MermaSdk, 'Merma' | 'MermaError' | 'verifyWebhook' | 'WebhookVerificationError'>;

export type StepSettings = {
  apiKey: string;
  baseUrl: string;
  /** Where the test's receiver takes deliveries; `${receiverUrl}/captured` lists what it got. */
  receiverUrl: string;
  /** In a browser: check that the client refuses to start without dangerouslyAllowBrowser, then allow it. */
  browser?: boolean;
};

export type StepLine = { step: string; ok: boolean; error?: string; name?: string; skipped?: boolean; detail?: unknown };

/** The steps, in the order they run; the test expects exactly these lines (browser-guard only in a browser). */
export const STEP_NAMES = [
  'import',
  'browser-guard',
  'client',
  'destinos',
  'create',
  'batch',
  'list',
  'iterate',
  'analytics',
  'sales-demand',
  'chain-verify',
  'webhook-create',
  'webhook-delivery',
  'verify',
  'verify-tampered',
] as const;

const BATCH_SIZE = 1_200;
const DELIVERY_DEADLINE_MS = 30_000;
const CATEGORIES = ['meat', 'fish', 'fruit_veg', 'dairy', 'bakery', 'prepared_meals'] as const;

type Captured = { body: string; headers: Record<string, string> };

type Present<T extends readonly unknown[]> = { [K in keyof T]: NonNullable<T[K]> };

export async function runSteps(load: () => Promise<SdkModule>, settings: StepSettings, print: (line: string) => void): Promise<boolean> {
  let failures = 0;
  const emit = (line: StepLine) => {
    if (!line.ok) failures++;
    print(JSON.stringify(line));
  };
  function check(condition: unknown, message: string): asserts condition {
    if (!condition) throw new Error(message);
  }
  /**
   * Runs one step. `needs` are results of earlier steps (undefined when those failed); the body
   * gets them, present, as its arguments.
   */
  async function step<const N extends readonly unknown[], T>(
    name: string,
    needs: N,
    body: (...args: Present<N>) => Promise<T>,
  ): Promise<T | undefined> {
    if (needs.some((n) => n === undefined || n === null)) {
      emit({ step: name, ok: false, skipped: true, error: 'skipped: an earlier step it needs failed' });
      return undefined;
    }
    try {
      const value = await body(...(needs as unknown as Present<N>));
      emit({ step: name, ok: true });
      return value;
    } catch (err) {
      const e = err as { message?: unknown; name?: unknown; constructor?: { name?: string } } | undefined;
      emit({
        step: name,
        ok: false,
        error: typeof e?.message === 'string' ? e.message : String(err),
        name: typeof e?.name === 'string' ? e.name : (e?.constructor?.name ?? typeof err),
      });
      return undefined;
    }
  }

  const sdk = await step('import', [], async () => {
    const mod = await load();
    check(typeof mod.Merma === 'function', `Merma is ${typeof mod.Merma}, not a class`);
    check(typeof mod.verifyWebhook === 'function', `verifyWebhook is ${typeof mod.verifyWebhook}`);
    return mod;
  });

  if (settings.browser) {
    await step('browser-guard', [sdk], async ({ Merma, MermaError }) => {
      try {
        new Merma({ apiKey: settings.apiKey, baseUrl: settings.baseUrl });
      } catch (err) {
        check(err instanceof MermaError, `threw ${String(err)}, which is not a MermaError`);
        return true;
      }
      throw new Error('new Merma() without dangerouslyAllowBrowser did not throw in a browser');
    });
  }

  const merma = await step(
    'client',
    [sdk],
    async ({ Merma }) =>
      new Merma({ apiKey: settings.apiKey, baseUrl: settings.baseUrl, ...(settings.browser ? { dangerouslyAllowBrowser: true } : {}) }),
  );

  const destinoId = await step('destinos', [merma], async (merma) => {
    const destinos = await merma.destinos.list();
    const first = destinos[0];
    check(first && typeof first.id === 'string', `expected destinations, got ${JSON.stringify(destinos).slice(0, 200)}`);
    return first.id;
  });

  const created = await step('create', [merma, destinoId], async (merma, destinoId) => {
    const input: CreateRecordInput = { food_category: 'bakery', weight_kg: 3.2, destino_id: destinoId, notes: 'pan' };
    const record: WasteRecord = await merma.records.create(input);
    check(typeof record.id === 'string' && record.id.length > 0, `no id in ${JSON.stringify(record)}`);
    check(/^[0-9a-f]{64}$/.test(record.record_hash), `record_hash ${JSON.stringify(record.record_hash)} is not 64 hex`);
    return record;
  });

  const batched = await step('batch', [merma, destinoId], async (merma, destinoId) => {
    const items: CreateRecordInput[] = Array.from({ length: BATCH_SIZE }, (_, i) => ({
      food_category: CATEGORIES[i % CATEGORIES.length] ?? 'others',
      weight_kg: (i % 7) + 0.25,
      destino_id: destinoId,
    }));
    const summary = await merma.records.batch(items);
    check(summary.inserted === BATCH_SIZE, `inserted ${summary.inserted}, expected ${BATCH_SIZE}`);
    check(summary.failed === 0, `failed ${summary.failed}: ${JSON.stringify(summary.errors.slice(0, 3))}`);
    return summary;
  });

  // What the establishment holds if both writes worked; the counting steps need it.
  const stored = created && batched ? 1 + BATCH_SIZE : undefined;

  await step('list', [merma], async (merma) => {
    const page = await merma.records.list({ limit: 200 });
    check(Array.isArray(page.data) && page.data.length === 200, `first page has ${page.data?.length} records, expected 200`);
    return true;
  });

  await step('iterate', [merma, stored], async (merma, stored) => {
    const ids = new Set<string>();
    let seen = 0;
    for await (const record of merma.records.list({ limit: 200 })) {
      seen++;
      ids.add(record.id);
    }
    check(ids.size === stored, `iterated ${seen} records, ${ids.size} distinct ids; expected ${stored}`);
    return true;
  });

  await step('analytics', [merma, stored], async (merma, stored) => {
    const analytics = await merma.analytics.get({ group_by: 'day' });
    check(analytics.total_records === stored, `total_records ${analytics.total_records}, expected ${stored}`);
    return true;
  });

  await step('sales-demand', [merma], async (merma) => {
    // Three weeks of a POS's day totals for the product the test imported (pos_ref RT-CROISSANT),
    // sent twice (the second time: duplicates), then tomorrow's production advice.
    // Dated in the establishment's zone (Europe/Madrid), as a POS there dates its sales: the
    // forecast counts its history in that zone's days, and after Madrid's midnight UTC is a day behind.
    const day = (back: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid' }).format(Date.now() - back * 86_400_000);
    const sales = Array.from({ length: 21 }, (_, i) => ({
      product_ref: 'RT-CROISSANT',
      quantity: 20 + (i % 7) * 3,
      sold_at: day(21 - i),
      external_id: `z-${i}`,
    }));
    const sent = await merma.inbound.sales({ source: 'runtime', sales });
    check(sent.status === 'processed' && sent.sales?.stored === 21, `sales: ${JSON.stringify(sent).slice(0, 200)}`);
    const again = await merma.inbound.sales({ source: 'runtime', sales });
    check(again.status === 'duplicate' && again.sales?.duplicates === 21, `resend: ${JSON.stringify(again).slice(0, 200)}`);
    const { products } = await merma.predict.demand({ horizon: 1 });
    const tomorrow = products[0]?.points[0];
    check(products.length === 1 && products[0]?.history_days === 21, `demand: ${JSON.stringify(products).slice(0, 200)}`);
    check(tomorrow !== undefined && Number.isInteger(tomorrow.advised) && tomorrow.advised >= 0, `advice: ${JSON.stringify(tomorrow)}`);
    return true;
  });

  await step('chain-verify', [merma, stored], async (merma, stored) => {
    // The routine check, then the whole chain by the server's worker, polled until it is done.
    const routine = await merma.records.verify();
    check(routine.valid && routine.checked === stored, `verify: ${JSON.stringify(routine).slice(0, 200)}`);
    const states: string[] = [];
    const run = await merma.records.verifyInBackground({ pollIntervalMs: 100, onProgress: (r) => states.push(r.status) });
    check(run.status === 'completed', `background run ended ${run.status}: ${run.error}`);
    check(run.result?.valid === true && run.result.checked === stored, `background result ${JSON.stringify(run.result).slice(0, 200)}`);
    check(states.at(-1) === 'completed', `progress states ${states.join(',')}`);
    return true;
  });

  const hook = await step('webhook-create', [merma], async (merma) => {
    const subscription = await merma.webhooks.create({ url: settings.receiverUrl, events: ['record.created'] });
    check(typeof subscription.secret === 'string' && subscription.secret.length > 0, 'the created subscription carries no secret');
    return subscription;
  });

  const delivery = await step('webhook-delivery', [merma, hook, destinoId], async (merma, _hook, destinoId) => {
    const record = await merma.records.create({ food_category: 'dairy', weight_kg: 1.5, destino_id: destinoId });
    const deadline = Date.now() + DELIVERY_DEADLINE_MS;
    for (;;) {
      const res = await fetch(`${settings.receiverUrl}/captured`);
      check(res.ok, `GET ${settings.receiverUrl}/captured answered ${res.status}`);
      const captured = (await res.json()) as Captured[];
      const match = captured.find((c) => c.body.includes(record.id));
      if (match) return { ...match, recordId: record.id };
      check(
        Date.now() < deadline,
        `no delivery of record ${record.id} within ${DELIVERY_DEADLINE_MS} ms (${captured.length} other deliveries)`,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  await step('verify', [sdk, hook, delivery], async ({ verifyWebhook }, hook, { body, headers, recordId }) => {
    const event = await verifyWebhook({ payload: body, headers, secret: hook.secret });
    check(event.event === 'record.created', `event ${event.event}, expected record.created`);
    const id = (event.data as { id?: unknown }).id;
    check(id === recordId, `event for record ${String(id)}, expected ${recordId}`);
    return true;
  });

  await step('verify-tampered', [sdk, hook, delivery], async ({ verifyWebhook, WebhookVerificationError }, hook, { body, headers }) => {
    const at = Math.floor(body.length / 2);
    const tampered = body.slice(0, at) + (body[at] === 'a' ? 'b' : 'a') + body.slice(at + 1);
    try {
      await verifyWebhook({ payload: tampered, headers, secret: hook.secret });
    } catch (err) {
      check(err instanceof WebhookVerificationError, `threw ${String(err)}, which is not a WebhookVerificationError`);
      return true;
    }
    throw new Error('a tampered body was accepted');
  });

  return failures === 0;
}
