import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APIUserAbortError, Merma, NotFoundError } from '../src/index.js';
import { API, BASE, DESTINO, envelope, errorBody, HttpResponse, http, KEY, record, server, uuid } from './setup.js';

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = (opts: Partial<ConstructorParameters<typeof Merma>[0]> = {}) => new Merma({ apiKey: KEY, baseUrl: BASE, ...opts });
const item = (i: number) => ({ food_category: 'bakery' as const, weight_kg: (i % 50) + 1, destino_id: DESTINO });

type BatchCall = { size: number; key: string | null };

/** A batch endpoint that refuses every item whose weight is 13 kg, like the API refuses a bad item. */
function batchServer(calls: BatchCall[], options: { failChunk?: number; delayMs?: number; inflight?: { now: number; max: number } } = {}) {
  server.use(
    http.post(`${API}/records/batch`, async ({ request }) => {
      const body = (await request.json()) as { records: { weight_kg: number }[] };
      const n = calls.length;
      calls.push({ size: body.records.length, key: request.headers.get('idempotency-key') });
      if (options.inflight) {
        options.inflight.now++;
        options.inflight.max = Math.max(options.inflight.max, options.inflight.now);
      }
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      if (options.inflight) options.inflight.now--;
      if (n === options.failChunk)
        return HttpResponse.json(errorBody(500, 'internal'), { status: 500, headers: { 'x-should-retry': 'false' } });
      const errors: { index: number; code: string; error: string }[] = [];
      const records: { index: number; id: string; record_hash: string; created_at: string }[] = [];
      body.records.forEach((r, index) => {
        if (r.weight_kg === 13) errors.push({ index, code: 'validation_error', error: 'unlucky' });
        else records.push({ index, id: uuid(n * 1000 + index), record_hash: 'b'.repeat(64), created_at: '2026-11-23T10:00:00.000Z' });
      });
      return HttpResponse.json(envelope({ inserted: records.length, failed: errors.length, errors, records }));
    }),
  );
}

describe('records.batch', () => {
  it.each([0, 1, 500, 501, 1_234, 10_000])('splits %d records into chunks of at most 500 and maps indexes back', async (count) => {
    const calls: BatchCall[] = [];
    batchServer(calls);
    const items = Array.from({ length: count }, (_, i) => item(i));
    const progress: number[] = [];
    const result = await client().records.batch(items, { onProgress: (p) => progress.push(p.sent) });
    const expectedChunks = Math.ceil(count / 500);
    expect(calls.map((c) => c.size)).toEqual(Array.from({ length: expectedChunks }, (_, i) => Math.min(500, count - i * 500)));
    const refused = items.flatMap((it, i) => (it.weight_kg === 13 ? [i] : []));
    expect(result.failed).toBe(refused.length);
    expect(result.inserted).toBe(count - refused.length);
    expect(result.errors.map((e) => e.index)).toEqual(refused);
    expect(result.records.map((r) => r.index)).toEqual(items.flatMap((it, i) => (it.weight_kg === 13 ? [] : [i])));
    expect(progress.at(-1)).toBe(count);
    expect(progress).toHaveLength(Math.max(1, expectedChunks));
  });

  it("sends every item and maps the API's per-item errors back to your indexes", async () => {
    const calls: BatchCall[] = [];
    batchServer(calls);
    const items = [item(0), { ...item(1), weight_kg: 13 }, item(2), { ...item(3), weight_kg: 13 }];
    const result = await client().records.batch(items);
    expect(calls.map((c) => c.size)).toEqual([4]);
    expect(result.errors.map((e) => [e.index, e.code])).toEqual([
      [1, 'validation_error'],
      [3, 'validation_error'],
    ]);
    expect(result.records.map((r) => r.index)).toEqual([0, 2]);
    expect(result).toMatchObject({ inserted: 2, replayed: 0, failed: 2 });
  });

  it('counts chunks the API replays from an idempotency key apart from newly stored ones', async () => {
    // A rerun after a crash: chunk 0 was stored by the first run, chunk 1 was not.
    const stored = new Set(['rerun:0']);
    const keys: (string | null)[] = [];
    server.use(
      http.post(`${API}/records/batch`, async ({ request }) => {
        const body = (await request.json()) as { records: unknown[] };
        const key = request.headers.get('idempotency-key');
        keys.push(key);
        const answer = envelope({ inserted: body.records.length, failed: 0, errors: [] });
        return HttpResponse.json(answer, { headers: key && stored.has(key) ? { 'idempotent-replayed': 'true' } : {} });
      }),
    );
    const progress: { inserted: number; replayed: number }[] = [];
    const items = Array.from({ length: 800 }, (_, i) => item(i));
    const result = await client().records.batch(items, {
      idempotencyKey: 'rerun',
      onProgress: ({ inserted, replayed }) => progress.push({ inserted, replayed }),
    });
    expect(keys).toEqual(['rerun:0', 'rerun:1']);
    expect(result).toMatchObject({ inserted: 300, replayed: 500, failed: 0, errors: [] });
    expect(progress.at(-1)).toEqual({ inserted: 300, replayed: 500 });
  });

  /**
   * An idempotent batch endpoint: stores a chunk once per key, answers a repeat with the first
   * answer and `Idempotent-Replayed: true`, and can lose (or fail) its first answer to each key.
   */
  function replayingBatchServer(firstAnswer: 'lost' | 500 | 429, storedBefore: string[] = []) {
    const answers = new Map<string, ReturnType<typeof envelope>>();
    const stored = (n: number) =>
      Array.from({ length: n }, (_, index) => ({
        index,
        id: uuid(index),
        record_hash: 'c'.repeat(64),
        created_at: '2026-11-23T10:00:00.000Z',
      }));
    for (const key of storedBefore) answers.set(key, envelope({ inserted: 2, failed: 0, errors: [], records: stored(2) }));
    const seen = new Set<string>();
    const keys: (string | null)[] = [];
    server.use(
      http.post(`${API}/records/batch`, async ({ request }) => {
        const body = (await request.json()) as { records: unknown[] };
        const key = request.headers.get('idempotency-key') as string;
        keys.push(key);
        const first = !seen.has(key);
        seen.add(key);
        if (first && firstAnswer === 429)
          return HttpResponse.json(errorBody(429, 'rate_limited'), { status: 429, headers: { 'retry-after': '0' } });
        const replayed = answers.has(key);
        if (!replayed) {
          answers.set(key, envelope({ inserted: body.records.length, failed: 0, errors: [], records: stored(body.records.length) }));
        }
        // The chunk is stored; the answer to the first attempt never arrives, or is a 500.
        if (first && firstAnswer === 'lost') return HttpResponse.error();
        if (first && firstAnswer === 500) return HttpResponse.json(errorBody(500, 'internal'), { status: 500 });
        return HttpResponse.json(answers.get(key), { headers: replayed ? { 'idempotent-replayed': 'true' } : {} });
      }),
    );
    return keys;
  }

  it.each(['lost', 500] as const)(
    "counts a chunk stored by this call's own first attempt as inserted when the retry is answered with a replay (first answer %s)",
    async (firstAnswer) => {
      const keys = replayingBatchServer(firstAnswer);
      const items = Array.from({ length: 3 }, (_, i) => item(i));
      const progress: { inserted: number; replayed: number }[] = [];
      const result = await client().records.batch(items, {
        idempotencyKey: 'import',
        onProgress: ({ inserted, replayed }) => progress.push({ inserted, replayed }),
      });
      expect(keys).toEqual(['import:0', 'import:0']);
      expect(result).toMatchObject({ inserted: 3, replayed: 0, failed: 0, errors: [] });
      expect(result.records.map((r) => [r.index, r.replayed])).toEqual([
        [0, false],
        [1, false],
        [2, false],
      ]);
      expect(progress).toEqual([{ inserted: 3, replayed: 0 }]);

      // The same import run again: now every item was stored by an earlier call.
      const rerun = await client().records.batch(items, { idempotencyKey: 'import' });
      expect(rerun).toMatchObject({ inserted: 0, replayed: 3, failed: 0 });
      expect(rerun.records.every((r) => r.replayed)).toBe(true);
    },
  );

  it('keeps a replay as replayed when no attempt of this call can have stored the chunk (rate limited first)', async () => {
    const keys = replayingBatchServer(429, ['earlier:0']);
    const result = await client().records.batch([item(0), item(1)], { idempotencyKey: 'earlier' });
    expect(keys).toEqual(['earlier:0', 'earlier:0']);
    expect(result).toMatchObject({ inserted: 0, replayed: 2, failed: 0 });
    expect(result.records.map((r) => r.replayed)).toEqual([true, true]);
  });

  it("accepts the contract's minimal answer {inserted, failed, errors}: a stored chunk is never reported as failed", async () => {
    server.use(
      http.post(`${API}/records/batch`, async ({ request }) => {
        const body = (await request.json()) as { records: { weight_kg: number }[] };
        const errors = body.records.flatMap((r, index) => (r.weight_kg === 13 ? [{ index, error: 'weight' }] : []));
        return HttpResponse.json(envelope({ inserted: body.records.length - errors.length, failed: errors.length, errors }));
      }),
    );
    const items = Array.from({ length: 1_200 }, (_, i) => item(i));
    const result = await client().records.batch(items);
    const refused = items.flatMap((it, i) => (it.weight_kg === 13 ? [i] : []));
    expect(result.inserted).toBe(1_200 - refused.length);
    expect(result.failed).toBe(refused.length);
    expect(result.errors.map((e) => e.index)).toEqual(refused);
    expect(result.records).toEqual([]);
    expect(result.requestIds).toHaveLength(3);
  });

  it('reports every item of a chunk that fails as a whole, and goes on with the others', async () => {
    const calls: BatchCall[] = [];
    batchServer(calls, { failChunk: 1 });
    const items = Array.from({ length: 1_200 }, (_, i) => ({ ...item(i), weight_kg: 1 }));
    const result = await client({ maxRetries: 0 }).records.batch(items);
    expect(result.inserted).toBe(700);
    expect(result.failed).toBe(500);
    expect(result.errors.map((e) => e.index)).toEqual(Array.from({ length: 500 }, (_, i) => 500 + i));
    expect(result.errors[0]).toMatchObject({ code: 'internal' });
  });

  it('keeps at most `concurrency` chunks in flight and derives one key per chunk', async () => {
    const calls: BatchCall[] = [];
    const inflight = { now: 0, max: 0 };
    batchServer(calls, { delayMs: 30, inflight });
    const items = Array.from({ length: 3_000 }, (_, i) => ({ ...item(i), weight_kg: 1 }));
    const result = await client().records.batch(items, { concurrency: 2, idempotencyKey: 'import-2026-11-23' });
    expect(result.inserted).toBe(3_000);
    expect(inflight.max).toBe(2);
    expect(calls.map((c) => c.key).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `import-2026-11-23:${i}`).sort());
  });
});

describe('records.list', () => {
  function pages(total: number, pageSize: number) {
    const all = Array.from({ length: total }, (_, i) => record(i + 1));
    const seen: URL[] = [];
    server.use(
      http.get(`${API}/records`, ({ request }) => {
        const url = new URL(request.url);
        seen.push(url);
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const limit = Number(url.searchParams.get('limit') ?? 50);
        const data = all.slice(offset, offset + Math.min(limit, pageSize));
        return HttpResponse.json(
          envelope(data, { meta: { pagination: { limit, offset, total, has_more: offset + data.length < total } } }),
        );
      }),
    );
    return seen;
  }

  it('returns a page with navigation', async () => {
    const seen = pages(5, 2);
    const page = await client().records.list({ limit: 2, food_category: 'meat', from: '2026-11-01' });
    expect(page.data.map((r) => r.id)).toEqual([record(1).id, record(2).id]);
    expect(page.pagination).toEqual({ limit: 2, offset: 0, total: 5, has_more: true });
    expect(page.hasNextPage()).toBe(true);
    const next = await page.getNextPage();
    expect(next.data.map((r) => r.id)).toEqual([record(3).id, record(4).id]);
    expect(seen[0]?.searchParams.get('food_category')).toBe('meat');
    expect(seen[0]?.searchParams.get('from')).toBe('2026-11-01');
  });

  it('iterates every record across pages with for await', async () => {
    pages(7, 3);
    const ids: string[] = [];
    for await (const r of client().records.list({ limit: 3 })) ids.push(r.id);
    expect(ids).toEqual(Array.from({ length: 7 }, (_, i) => record(i + 1).id));
  });

  it('sends the query as given and starts at the offset asked for', async () => {
    const seen = pages(7, 3);
    const page = await client().records.list({ limit: 3, offset: 3, to: '2026-11-23' });
    expect(page.data.map((r) => r.id)).toEqual([record(4).id, record(5).id, record(6).id]);
    expect(Object.fromEntries(seen[0]?.searchParams ?? [])).toEqual({ limit: '3', offset: '3', to: '2026-11-23' });
  });

  it("walks pages of the contract's pagination {limit, offset, total} without has_more", async () => {
    const all = Array.from({ length: 5 }, (_, i) => record(i + 1));
    server.use(
      http.get(`${API}/records`, ({ request }) => {
        const url = new URL(request.url);
        const offset = Number(url.searchParams.get('offset'));
        const data = all.slice(offset, offset + 2);
        return HttpResponse.json(envelope(data, { meta: { pagination: { limit: 2, offset, total: 5 } } }));
      }),
    );
    const ids: string[] = [];
    for await (const r of client().records.list({ limit: 2 })) ids.push(r.id);
    expect(ids).toEqual(all.map((r) => r.id));
  });
});

/** A background verification run in `status`. */
const verificationRun = (status: 'queued' | 'running' | 'completed', checked = 0) => ({
  id: uuid(9),
  status,
  progress: { checked, total: 3 },
  result:
    status === 'completed'
      ? { valid: true, checked: 3, rehashed: 3, head_hash: 'a'.repeat(64), first_invalid: null, algorithm: 'x', mode: 'full' }
      : null,
  error: null,
  created_at: '2026-11-24T06:00:00.000Z',
  started_at: status === 'queued' ? null : '2026-11-24T06:00:01.000Z',
  finished_at: status === 'completed' ? '2026-11-24T06:00:02.000Z' : null,
});

describe('compliance.dossier', () => {
  it('GET /compliance/dossier.zip asking for application/zip, with its query: the ZIP as sent', async () => {
    const zip = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);
    const seen: { query: Record<string, string>; accept: string | null }[] = [];
    server.use(
      http.get(`${API}/compliance/dossier.zip`, ({ request }) => {
        seen.push({ query: Object.fromEntries(new URL(request.url).searchParams), accept: request.headers.get('accept') });
        return new HttpResponse(zip, { headers: { 'content-type': 'application/zip' } });
      }),
    );
    const bytes = await client().compliance.dossier({ year: 2025, lang: 'en' });
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(bytes).toEqual(zip);
    expect(seen).toEqual([{ query: { year: '2025', lang: 'en' }, accept: 'application/zip' }]);
  });

  it('esrsE5Csv: GET /compliance/esrs-e5.csv asking for text/csv, with its query: the bytes as sent', async () => {
    const csv = new TextEncoder().encode('\uFEFFConcepto;ESRS E5, párrafo;kg;%\r\nResiduos generados;37 (a);16;\r\n');
    const seen: { query: Record<string, string>; accept: string | null }[] = [];
    server.use(
      http.get(`${API}/compliance/esrs-e5.csv`, ({ request }) => {
        seen.push({ query: Object.fromEntries(new URL(request.url).searchParams), accept: request.headers.get('accept') });
        return new HttpResponse(csv, { headers: { 'content-type': 'text/csv; charset=utf-8' } });
      }),
    );
    expect(await client().compliance.esrsE5Csv({ year: 2026 })).toEqual(csv);
    expect(seen).toEqual([{ query: { year: '2026' }, accept: 'text/csv' }]);
  });

  it('answers an error status with the same typed error as a JSON call', async () => {
    server.use(
      http.get(`${API}/compliance/dossier.zip`, () => HttpResponse.json(errorBody(404, 'not_found', 'No such thing'), { status: 404 })),
    );
    await expect(client({ maxRetries: 0 }).compliance.dossier()).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('records.verifyInBackground', () => {
  it('starts a run and polls it until it is finished, reporting each state', async () => {
    const states = [verificationRun('running', 1), verificationRun('running', 2), verificationRun('completed', 3)];
    const polled: string[] = [];
    server.use(
      http.post(`${API}/records/verifications`, async ({ request }) => {
        expect(await request.json()).toEqual({});
        return HttpResponse.json(envelope(verificationRun('queued')), { status: 202 });
      }),
      http.get(`${API}/records/verifications/:id`, ({ params }) => {
        polled.push(String(params.id));
        return HttpResponse.json(envelope(states.shift()));
      }),
    );
    const seen: string[] = [];
    const run = await client().records.verifyInBackground({
      pollIntervalMs: 1,
      onProgress: (r) => seen.push(`${r.status} ${r.progress.checked}/${r.progress.total}`),
    });
    expect(run).toMatchObject({ status: 'completed', result: { valid: true, checked: 3 } });
    expect(seen).toEqual(['queued 0/3', 'running 1/3', 'running 2/3', 'completed 3/3']);
    expect(polled).toEqual([uuid(9), uuid(9), uuid(9)]);
  });

  it('stops waiting when its signal aborts', async () => {
    server.use(
      http.post(`${API}/records/verifications`, () => HttpResponse.json(envelope(verificationRun('queued')), { status: 202 })),
      http.get(`${API}/records/verifications/:id`, () => HttpResponse.json(envelope(verificationRun('running', 1)))),
    );
    const controller = new AbortController();
    const waiting = client().records.verifyInBackground({ pollIntervalMs: 10_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(waiting).rejects.toThrow(APIUserAbortError);
  });
});

describe('every resource calls its endpoint', () => {
  const wid = uuid(42);
  const session = {
    id: uuid(7),
    name: 'Cierre',
    shift_id: null,
    status: 'open',
    started_at: '2026-11-23T10:00:00.000Z',
    completed_at: null,
    record_count: 0,
    total_kg: 0,
  };
  const subscription = {
    id: wid,
    url: 'https://erp.example.com/hook',
    events: ['record.created'],
    status: 'active',
    description: null,
    consecutive_failures: 0,
    created_at: '2026-11-23T10:00:00.000Z',
    deactivated_at: null,
    previous_secret_expires_at: null,
  };
  const delivery = {
    id: uuid(8),
    event_id: uuid(9),
    event: 'record.created',
    attempt: 1,
    status: 'succeeded',
    response_status: 200,
    duration_ms: 12,
    error: null,
    created_at: '2026-11-23T10:00:00.000Z',
    next_attempt_at: null,
    attempts: [
      {
        attempt: 1,
        attempted_at: '2026-11-23T10:00:00.000Z',
        response_status: 200,
        duration_ms: 12,
        error: null,
        next_attempt_at: null,
      },
    ],
  };
  const analytics = {
    total_kg: 3,
    total_records: 2,
    by_category: { meat: 3 },
    by_destino: { [DESTINO]: 3 },
    by_cause: {},
    by_stage: {},
    recovery_rate: 1,
    trend: [{ period: '2026-W47', total_kg: 3 }],
    from: '2026-10-24',
    to: '2026-11-23',
    group_by: 'week',
  };
  const plan = {
    id: uuid(11),
    establishment_id: uuid(2),
    generated_at: '2026-11-23T10:00:00.000Z',
    period: { from: '2025-11-24', to: '2026-11-23' },
    total_kg: 10,
    total_records: 2,
    by_stage: [],
    by_category: [],
    by_cause: [],
    by_shift: [],
    destinations: [],
    below_feed_kg: 0,
    hotspots: [],
    target: { baseline_year: null, baseline_kg: null, target_2030_kg: null, reduction: 0.5, note: 'n' },
  };
  const entityInput = {
    name: 'Banco de Alimentos',
    nif: 'G28029643',
    address: 'Calle Mayor 1, Madrid',
    legal_form: 'banco_de_alimentos' as const,
    ley_49_2002: { art2_entity: true, regime_opted_in: true },
    capacity: { cold_chain: true, vehicle: false },
  };
  const entity = {
    ...entityInput,
    id: uuid(21),
    registry_number: null,
    food_bank_network: 'FESBAL',
    contacts: [],
    capacity: { cold_chain: true, vehicle: false, notes: null },
    archived: false,
    created_at: '2026-11-23T10:00:00.000Z',
    updated_at: '2026-11-23T10:00:00.000Z',
  };
  const agreementInput = {
    entity_id: uuid(21),
    establishment_ids: [uuid(3)],
    valid_from: '2026-01-01',
    valid_until: '2027-12-31',
    renewal: 'none' as const,
    accepted_food_categories: ['bakery' as const],
    conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
    collection: { schedule: 'Lunes 18:00', weekdays: ['monday' as const], transport: 'entity' as const },
    storage_conditions: 'Refrigerado',
    safety_responsibility_clause: 'El donante hasta la entrega',
    refusal_procedure: 'Por escrito con motivo',
  };
  const agreement = {
    ...agreementInput,
    id: uuid(22),
    entity_name: 'Banco de Alimentos',
    status: 'draft',
    document: null,
    created_at: '2026-11-23T10:00:00.000Z',
    updated_at: '2026-11-23T10:00:00.000Z',
  };
  const donationInput = {
    agreement_id: uuid(22),
    lines: [{ description: 'Pan', food_category: 'bakery' as const, quantity: 2, unit: 'kg' as const }],
  };
  const donation = { id: uuid(23), agreement_id: uuid(22), entity_id: uuid(21), status: 'offered', lines: [{ id: uuid(24) }] };
  const decision = { lines: [{ line_id: uuid(24), decision: 'refused' as const, reason: 'Sin cámara' }] };
  const list = (data: unknown[]) => envelope(data, { meta: { pagination: { limit: 50, offset: 0, total: data.length, has_more: false } } });
  const pan = {
    id: uuid(3),
    name: 'Pan',
    food_category: 'bakery',
    ean: '4006381333931',
    pos_ref: null,
    unit_weight_kg: null,
    density_kg_per_l: null,
    price: 1,
    unit_cost: 0.3,
    salvage_value: null,
    active: true,
  };
  const cases: [string, string, string, (m: Merma) => PromiseLike<unknown>, unknown, number?][] = [
    [
      'causas.list',
      'get',
      '/causas',
      (m) => m.causas.list(),
      envelope([{ id: uuid(1), nombre: 'Caducidad', icono: 'calendar-x', activo: true }]),
    ],
    [
      'destinos.list',
      'get',
      '/destinos',
      (m) => m.destinos.list(),
      envelope([{ id: DESTINO, nombre: 'Donación', orden: 2, es_recuperacion: true, code: 'donation', wfd_operation: 'not_waste' }]),
    ],
    [
      'establishments.list',
      'get',
      '/establishments',
      (m) => m.establishments.list(),
      envelope([
        {
          id: uuid(2),
          name: 'E',
          cif: 'B1',
          sector: 'horeca',
          timezone: 'Europe/Madrid',
          nace_code: '56.10',
          stage: 'food_services',
          floor_area_m2: 250,
        },
      ]),
    ],
    [
      'establishments.update',
      'patch',
      `/establishments/${uuid(2)}`,
      (m) => m.establishments.update(uuid(2), { nace_code: '5610', floor_area_m2: 250 }),
      envelope({
        id: uuid(2),
        name: 'E',
        cif: 'B1',
        sector: 'horeca',
        timezone: 'Europe/Madrid',
        nace_code: '56.10',
        stage: 'food_services',
        floor_area_m2: 250,
      }),
    ],
    [
      'compliance.esrsE5',
      'get',
      '/compliance/esrs-e5',
      (m) => m.compliance.esrsE5({ year: 2025 }),
      envelope({
        establishment_id: uuid(2),
        livemode: false,
        year: 2025,
        period: { from: '2025-01-01', to: '2025-12-31' },
        total_kg: 31,
        not_waste_kg: 15,
        waste_kg: 16,
        diverted_from_disposal: { preparation_for_reuse_kg: 0, recycling_kg: 8, other_recovery_kg: 3, total_kg: 11 },
        directed_to_disposal: { incineration_kg: 0, landfill_kg: 5, other_disposal_kg: 0, total_kg: 5 },
        non_recycled_kg: 8,
        non_recycled_share: 0.5,
        measurement: { measured_kg: 12, estimated_kg: 3, not_stated_kg: 1 },
        measured_share: 0.75,
        by_destination: [{ code: 'landfill', wfd_operation: 'D1', kg: 5 }],
      }),
    ],
    [
      'compliance.reduction',
      'get',
      '/compliance/reduction',
      (m) => m.compliance.reduction({ year: 2026, baseline: 'first_year' }),
      envelope({
        establishment_id: uuid(2),
        livemode: false,
        stage: 'food_services',
        target: { reduction: 0.3, target_kg: 56 },
        year: {
          year: 2026,
          period: { from: '2026-01-01', to: '2026-11-29' },
          complete: false,
          waste_kg: 72,
          measured_kg: 63,
          estimated_kg: 9,
          not_stated_kg: 0,
        },
        baseline: { kind: 'first_year', years: [2022], years_with_records: [2022], waste_kg: 80 },
        change_share: -0.1,
        sales: null,
      }),
    ],
    [
      'preventionPlan.measures',
      'get',
      '/prevention-plan/measures',
      (m) => m.preventionPlan.measures({ lang: 'en' }),
      envelope([
        {
          measure_id: 'storage.fefo_rotation',
          text: 'Rotate stock first-expired-first-out and label every container with its opening date.',
          owner: 'Jefa de cocina',
          due_on: '2026-12-31',
          status: 'in_progress',
          note: null,
          updated_at: '2026-11-20T10:00:00.000Z',
          in_latest_plan: true,
        },
      ]),
    ],
    [
      'preventionPlan.trainingSessions',
      'get',
      '/training-sessions',
      (m) => m.preventionPlan.trainingSessions({ year: 2026 }),
      envelope([
        {
          id: uuid(4),
          held_on: '2026-10-01',
          topic: 'Rotación FEFO',
          trainer: null,
          attendees: 8,
          attendee_names: null,
          created_at: '2026-10-01T10:00:00.000Z',
        },
      ]),
    ],
    [
      'compliance.hierarchy',
      'get',
      '/compliance/hierarchy',
      (m) => m.compliance.hierarchy({ year: 2025 }),
      envelope({
        establishment_id: uuid(2),
        livemode: false,
        year: 2025,
        period: { from: '2025-01-01', to: '2025-12-31' },
        best_by_category: [{ food_category: 'bakery', destino_id: uuid(3), code: 'donation' }],
        below_best: { records: 2, kg: 3 },
        justified: { records: 1, kg: 1 },
        by_reason: [{ reason: 'no_taker', records: 1, kg: 1 }],
        unjustified_count: 1,
        unjustified: [
          {
            id: uuid(4),
            occurred_at: '2025-05-01T10:00:00.000Z',
            food_category: 'bakery',
            weight_kg: 2,
            destino_id: uuid(5),
            best_destino_id: uuid(3),
          },
        ],
      }),
    ],
    [
      'compliance.organization',
      'get',
      '/compliance/organization',
      (m) => m.compliance.organization({ year: 2026, baseline: 'first_year' }),
      envelope({
        organization_id: uuid(1),
        livemode: false,
        scope: 'organization',
        year: 2026,
        baseline: 'first_year',
        establishments: [],
        by_stage: [],
        total: {
          waste_kg: 0,
          measured_kg: 0,
          estimated_kg: 0,
          not_stated_kg: 0,
          baseline_kg: null,
          compared_waste_kg: null,
          change_share: null,
        },
        esrs: {
          livemode: false,
          year: 2026,
          total_kg: 0,
          not_waste_kg: 0,
          waste_kg: 0,
          diverted_from_disposal: { preparation_for_reuse_kg: 0, recycling_kg: 0, other_recovery_kg: 0, total_kg: 0 },
          directed_to_disposal: { incineration_kg: 0, landfill_kg: 0, other_disposal_kg: 0, total_kg: 0 },
          non_recycled_kg: 0,
          non_recycled_share: null,
          measurement: { measured_kg: 0, estimated_kg: 0, not_stated_kg: 0 },
          measured_share: null,
        },
      }),
    ],
    [
      'compliance.wasteStreams',
      'get',
      '/compliance/waste-streams',
      (m) => m.compliance.wasteStreams(),
      envelope([
        {
          destination_id: uuid(3),
          destination_code: 'composting',
          wfd_operation: 'R3',
          ler_code: '20 01 08',
          ler_label: { es: 'Residuos biodegradables de cocinas y restaurantes', en: 'Biodegradable kitchen and canteen waste' },
          manager_name: 'Gestora',
          manager_nima: '2800012345',
          updated_at: '2026-11-29T10:00:00.000Z',
        },
      ]),
    ],
    [
      'compliance.setWasteStream',
      'put',
      `/compliance/waste-streams/${uuid(3)}`,
      (m) => m.compliance.setWasteStream(uuid(3), { ler_code: '200108', manager_name: null, manager_nima: null }),
      envelope({
        destination_id: uuid(3),
        destination_code: 'composting',
        wfd_operation: 'R3',
        ler_code: '20 01 08',
        ler_label: { es: 'Residuos biodegradables de cocinas y restaurantes', en: 'Biodegradable kitchen and canteen waste' },
        manager_name: null,
        manager_nima: null,
        updated_at: '2026-11-29T10:00:00.000Z',
      }),
    ],
    [
      'compliance.obligations',
      'get',
      '/compliance/obligations',
      (m) => m.compliance.obligations({ lang: 'en' }),
      envelope({
        establishment_id: uuid(2),
        as_of: '2026-11-29',
        lang: 'en',
        organization: { headcount: 45, annual_turnover_eur: 3200000, balance_sheet_eur: null, microenterprise: false },
        establishment: {
          nace_code: '56.10',
          nace_label: 'Restaurants and mobile food service activities',
          stage: 'food_services',
          floor_area_m2: 250,
        },
        cif: { cif: 'B1', establishments: 1, floor_area_m2: 250 },
        obligations: [
          { key: 'prevention_plan', applies: 'no', reason: 'small_premises', articles: ['Ley 1/2025, art. 6.4.a'], text: 'Not obliged.' },
        ],
        missing: [],
      }),
    ],
    ['products.list', 'get', '/products', (m) => m.products.list({ include_inactive: true }), envelope([pan])],
    [
      'products.create',
      'post',
      '/products',
      (m) => m.products.create({ name: 'Pan', food_category: 'bakery', ean: '4006381333931', price: 1, unit_cost: 0.3 }),
      envelope(pan),
      201,
    ],
    [
      'products.update',
      'patch',
      `/products/${uuid(3)}`,
      (m) => m.products.update(uuid(3), { active: false }),
      envelope({ ...pan, active: false }),
    ],
    [
      'products.import',
      'post',
      '/products/import',
      (m) => m.products.import({ csv: 'name,food_category,ean\nPan,bakery,4006381333931\n', dry_run: true }),
      envelope({ dry_run: true, created: 1, updated: 0, products: [] }),
    ],
    [
      'records.verify',
      'get',
      '/records/verify',
      (m) => m.records.verify({ full: true }),
      envelope({ valid: true, checked: 3, head_hash: 'a'.repeat(64), first_invalid: null, algorithm: 'x', mode: 'full' }),
    ],
    [
      'photos.get',
      'get',
      `/photos/${uuid(12)}`,
      (m) => m.photos.get(uuid(12)),
      envelope({
        id: uuid(12),
        object: 'photo',
        url: `https://merma.example.com/api/v1/photos/${uuid(12)}`,
        content_type: 'image/jpeg',
        size_bytes: 4,
        sha256: 'b'.repeat(64),
        livemode: false,
        created_at: '2026-11-30T10:00:00.000Z',
        download_url: `https://merma.example.com/files/photos/${uuid(12)}?expires=1&signature=x`,
        download_expires_at: '2026-11-30T10:05:00.000Z',
      }),
    ],
    [
      'records.startVerification',
      'post',
      '/records/verifications',
      (m) => m.records.startVerification(),
      envelope(verificationRun('queued')),
      202,
    ],
    [
      'records.getVerification',
      'get',
      `/records/verifications/${uuid(9)}`,
      (m) => m.records.getVerification(uuid(9)),
      envelope(verificationRun('running')),
    ],
    [
      'records.checkpoints',
      'get',
      '/records/checkpoints',
      (m) => m.records.checkpoints({ limit: 5 }),
      envelope([
        {
          establishment_id: uuid(1),
          livemode: false,
          seq: 3,
          head_hash: 'a'.repeat(64),
          signed_at: '2026-11-24T06:00:00.000Z',
          key_id: 'ed25519-0123456789abcdef',
          signature: 'c2ln',
        },
      ]),
    ],
    ['analytics.get', 'get', '/analytics', (m) => m.analytics.get({ group_by: 'week' }), envelope(analytics)],
    [
      'benchmarking.get',
      'get',
      '/benchmarking',
      (m) => m.benchmarking.get({ sector: 'horeca' }),
      envelope({
        your_avg_kg_per_day: 2,
        sector_avg_kg_per_day: null,
        percentile: null,
        sector: 'horeca',
        sample_size: 3,
        window_days: 90,
        note: 'too few',
      }),
    ],
    [
      'predict.get',
      'get',
      '/predict',
      (m) => m.predict.get({ horizon: 7 }),
      envelope({
        type: 'waste',
        food_category: null,
        method: 'holt-winters',
        history_days: 60,
        backtest: { metric: 'mae', value: 1.2, days: 14 },
        points: [{ date: '2026-11-24', predicted_kg: 2, lower: 1, upper: 3 }],
        generated_at: '2026-11-23T10:00:00.000Z',
      }),
    ],
    [
      'predict.demand',
      'get',
      '/predict',
      (m) => m.predict.demand({ horizon: 1, product_id: uuid(7) }),
      envelope({ type: 'demand', product_id: uuid(7), food_category: null, products: [], generated_at: '2026-11-23T10:00:00.000Z' }),
    ],
    ['preventionPlan.generate', 'post', '/prevention-plan', (m) => m.preventionPlan.generate({ lang: 'en' }), envelope(plan), 201],
    [
      'preventionPlan.get',
      'get',
      '/prevention-plan',
      (m) => m.preventionPlan.get({ format: 'markdown', lang: 'en' }),
      envelope({ ...plan, markdown: '# Plan' }),
    ],
    [
      'shifts.list',
      'get',
      '/shifts',
      (m) => m.shifts.list(),
      envelope([{ id: uuid(4), name: 'Noche', start_time: '22:00', end_time: '06:00' }]),
    ],
    [
      'shifts.create',
      'post',
      '/shifts',
      (m) => m.shifts.create({ name: 'Noche', start_time: '22:00', end_time: '06:00' }),
      envelope({ id: uuid(4), name: 'Noche', start_time: '22:00', end_time: '06:00' }),
      201,
    ],
    [
      'predict.settings.retrieve',
      'get',
      '/predict/settings',
      (m) => m.predict.settings.retrieve(),
      envelope({ service_level: 0.85, is_default: true, updated_at: null }),
    ],
    [
      'predict.settings.update',
      'put',
      '/predict/settings',
      (m) => m.predict.settings.update({ service_level: 0.9 }),
      envelope({ service_level: 0.9, is_default: false, updated_at: '2026-11-23T10:00:00.000Z' }),
    ],
    [
      'openingCalendar.retrieve',
      'get',
      '/opening-calendar',
      (m) => m.openingCalendar.retrieve(),
      envelope({ closed_weekdays: ['monday'], closures: [] }),
    ],
    [
      'openingCalendar.setClosedWeekdays',
      'put',
      '/opening-calendar/weekdays',
      (m) => m.openingCalendar.setClosedWeekdays({ closed_weekdays: ['monday', 'sunday'] }),
      envelope({ closed_weekdays: ['monday', 'sunday'], closures: [] }),
    ],
    [
      'openingCalendar.closures.create',
      'post',
      '/opening-calendar/closures',
      (m) => m.openingCalendar.closures.create({ starts_on: '2026-12-24', ends_on: '2026-12-26', reason: 'Navidad' }),
      envelope({ id: uuid(8), starts_on: '2026-12-24', ends_on: '2026-12-26', reason: 'Navidad', created_at: '2026-11-23T10:00:00.000Z' }),
      201,
    ],
    [
      'openingCalendar.closures.delete',
      'delete',
      `/opening-calendar/closures/${uuid(8)}`,
      (m) => m.openingCalendar.closures.delete(uuid(8)),
      envelope({ id: uuid(8), deleted: true }),
    ],
    ['socialEntities.list', 'get', '/social-entities', (m) => m.socialEntities.list({ include_archived: true }), envelope([entity])],
    ['socialEntities.get', 'get', `/social-entities/${uuid(21)}`, (m) => m.socialEntities.get(uuid(21)), envelope(entity)],
    ['socialEntities.create', 'post', '/social-entities', (m) => m.socialEntities.create(entityInput), envelope(entity), 201],
    [
      'socialEntities.update',
      'patch',
      `/social-entities/${uuid(21)}`,
      (m) => m.socialEntities.update(uuid(21), { food_bank_network: null }),
      envelope({ ...entity, food_bank_network: null }),
    ],
    [
      'socialEntities.archive',
      'post',
      `/social-entities/${uuid(21)}/archive`,
      (m) => m.socialEntities.archive(uuid(21)),
      envelope({ ...entity, archived: true }),
    ],
    ['socialEntities.restore', 'post', `/social-entities/${uuid(21)}/restore`, (m) => m.socialEntities.restore(uuid(21)), envelope(entity)],
    [
      'donationAgreements.list',
      'get',
      '/donation-agreements',
      (m) => m.donationAgreements.list({ entity_id: uuid(21), status: 'expiring' }),
      envelope([agreement]),
    ],
    ['donationAgreements.get', 'get', `/donation-agreements/${uuid(22)}`, (m) => m.donationAgreements.get(uuid(22)), envelope(agreement)],
    [
      'donationAgreements.create',
      'post',
      '/donation-agreements',
      (m) => m.donationAgreements.create(agreementInput),
      envelope(agreement),
      201,
    ],
    [
      'donationAgreements.update',
      'patch',
      `/donation-agreements/${uuid(22)}`,
      (m) => m.donationAgreements.update(uuid(22), { renewal: 'automatic_yearly' }),
      envelope({ ...agreement, renewal: 'automatic_yearly' }),
    ],
    ['donations.list', 'get', '/donations', (m) => m.donations.list({ awaiting_reroute: true }), list([donation])],
    ['donations.get', 'get', `/donations/${uuid(23)}`, (m) => m.donations.get(uuid(23)), envelope(donation)],
    ['donations.create', 'post', '/donations', (m) => m.donations.create(donationInput), envelope(donation), 201],
    ['donations.decide', 'post', `/donations/${uuid(23)}/decision`, (m) => m.donations.decide(uuid(23), decision), envelope(donation)],
    ['donations.collect', 'post', `/donations/${uuid(23)}/collect`, (m) => m.donations.collect(uuid(23)), envelope(donation)],
    ['donations.receive', 'post', `/donations/${uuid(23)}/receive`, (m) => m.donations.receive(uuid(23)), envelope(donation)],
    [
      'donations.rerouteLine',
      'post',
      `/donations/${uuid(23)}/lines/${uuid(24)}/reroute`,
      (m) => m.donations.rerouteLine(uuid(23), uuid(24), { destino_id: DESTINO }),
      envelope(donation),
    ],
    [
      'donations.createLink',
      'post',
      `/donations/${uuid(23)}/link`,
      (m) => m.donations.createLink(uuid(23), { expires_in_hours: 24 }),
      envelope({ url: `https://app.merma.test/dashboard/sign/${uuid(23)}#dln_x`, expires_at: '2026-11-24T10:00:00.000Z' }),
      201,
    ],
    [
      'donations.createCertificateLink',
      'post',
      `/donations/tax-pack/certificates/${uuid(21)}/link`,
      (m) => m.donations.createCertificateLink(uuid(21), { year: 2026 }),
      envelope({ url: `https://app.merma.test/dashboard/sign/certificate/${uuid(25)}#dln_x`, expires_at: '2026-11-24T10:00:00.000Z' }),
      201,
    ],
    [
      'donations.taxPack',
      'get',
      '/donations/tax-pack',
      (m) => m.donations.taxPack({ year: 2026, cif: 'B12345678' }),
      envelope({ year: 2026, livemode: false, scope: 'establishment', taxpayers: [] }),
    ],
    ['sessions.list', 'get', '/sessions', (m) => m.sessions.list({ status: 'open' }), list([session])],
    ['sessions.create', 'post', '/sessions', (m) => m.sessions.create({ name: 'Cierre' }), envelope(session), 201],
    ['sessions.get', 'get', `/sessions/${uuid(7)}`, (m) => m.sessions.get(uuid(7)), envelope(session)],
    [
      'sessions.complete',
      'post',
      `/sessions/${uuid(7)}/complete`,
      (m) => m.sessions.complete(uuid(7)),
      envelope({ ...session, status: 'completed' }),
    ],
    [
      'webhooks.create',
      'post',
      '/webhooks',
      (m) => m.webhooks.create({ url: 'https://erp.example.com/hook', events: ['record.created'] }),
      envelope({ ...subscription, secret: 'whsec_abc' }),
      201,
    ],
    ['webhooks.list', 'get', '/webhooks', (m) => m.webhooks.list(), envelope([subscription])],
    ['webhooks.get', 'get', `/webhooks/${wid}`, (m) => m.webhooks.get(wid), envelope(subscription)],
    [
      'webhooks.update',
      'patch',
      `/webhooks/${wid}`,
      (m) => m.webhooks.update(wid, { events: ['record.created', 'alert.triggered'] }),
      envelope(subscription),
    ],
    ['webhooks.delete', 'delete', `/webhooks/${wid}`, (m) => m.webhooks.delete(wid), envelope({ id: wid, deleted: true })],
    ['webhooks.reactivate', 'post', `/webhooks/${wid}/reactivate`, (m) => m.webhooks.reactivate(wid), envelope(subscription)],
    [
      'webhooks.rotateSecret',
      'post',
      `/webhooks/${wid}/rotate-secret`,
      (m) => m.webhooks.rotateSecret(wid, { grace_period_seconds: 3600 }),
      envelope({ ...subscription, secret: 'whsec_new', previous_secret_expires_at: '2026-11-23T11:00:00.000Z' }),
    ],
    [
      'webhooks.recover',
      'post',
      `/webhooks/${wid}/recover`,
      (m) => m.webhooks.recover(wid, { since: '2026-11-22T00:00:00.000Z', until: '2026-11-23T00:00:00.000Z' }),
      envelope({ recovered: 3, since: '2026-11-22T00:00:00.000Z', until: '2026-11-23T00:00:00.000Z' }),
    ],
    ['webhooks.deliveries', 'get', `/webhooks/${wid}/deliveries`, (m) => m.webhooks.deliveries(wid), list([delivery])],
    [
      'webhooks.retryDelivery',
      'post',
      `/webhooks/${wid}/deliveries/${uuid(8)}/retry`,
      (m) => m.webhooks.retryDelivery(wid, uuid(8)),
      envelope(delivery),
    ],
    ['webhooks.test', 'post', `/webhooks/${wid}/test`, (m) => m.webhooks.test(wid), envelope(delivery)],
    [
      'inbound.send',
      'post',
      '/webhooks/inbound',
      (m) =>
        m.inbound.send({ event: 'waste.created', payload: { food_category: 'meat', weight_kg: 1, destino_id: DESTINO, source: 'erp' } }),
      envelope({ event_id: uuid(5), status: 'processed', record_id: uuid(6) }),
    ],
    [
      'inbound.sales',
      'post',
      '/webhooks/inbound',
      (m) => m.inbound.sales({ source: 'tpv', sales: [{ ean: '8410000000023', quantity: 12, sold_at: '2026-11-23' }] }),
      envelope({ event_id: uuid(5), status: 'processed', record_id: null, sales: { received: 1, stored: 1, duplicates: 0, errors: [] } }),
    ],
  ];

  /** What each call must send: its query string and its JSON body (none when absent). */
  const sends: Record<string, { query?: Record<string, string>; body?: unknown }> = {
    'analytics.get': { query: { group_by: 'week' } },
    'benchmarking.get': { query: { sector: 'horeca' } },
    'predict.get': { query: { horizon: '7' } },
    'predict.demand': { query: { horizon: '1', product_id: uuid(7), type: 'demand' } },
    'preventionPlan.generate': { query: { lang: 'en' } },
    'records.verify': { query: { full: 'true' } },
    'records.checkpoints': { query: { limit: '5' } },
    'preventionPlan.get': { query: { format: 'markdown', lang: 'en' } },
    'establishments.update': { body: { nace_code: '5610', floor_area_m2: 250 } },
    'compliance.obligations': { query: { lang: 'en' } },
    'compliance.esrsE5': { query: { year: '2025' } },
    'compliance.hierarchy': { query: { year: '2025' } },
    'compliance.organization': { query: { year: '2026', baseline: 'first_year' } },
    'compliance.setWasteStream': { body: { ler_code: '200108', manager_name: null, manager_nima: null } },
    'preventionPlan.measures': { query: { lang: 'en' } },
    'compliance.reduction': { query: { year: '2026', baseline: 'first_year' } },
    'preventionPlan.trainingSessions': { query: { year: '2026' } },
    'shifts.create': { body: { name: 'Noche', start_time: '22:00', end_time: '06:00' } },
    'sessions.list': { query: { status: 'open', offset: '0' } },
    'records.startVerification': { body: {} },
    'sessions.create': { body: { name: 'Cierre' } },
    'webhooks.create': { body: { url: 'https://erp.example.com/hook', events: ['record.created'] } },
    'webhooks.update': { body: { events: ['record.created', 'alert.triggered'] } },
    'webhooks.rotateSecret': { body: { grace_period_seconds: 3600 } },
    'webhooks.recover': { body: { since: '2026-11-22T00:00:00.000Z', until: '2026-11-23T00:00:00.000Z' } },
    'webhooks.deliveries': { query: { offset: '0' } },
    'products.list': { query: { include_inactive: 'true' } },
    'products.create': { body: { name: 'Pan', food_category: 'bakery', ean: '4006381333931', price: 1, unit_cost: 0.3 } },
    'products.update': { body: { active: false } },
    'products.import': { body: { csv: 'name,food_category,ean\nPan,bakery,4006381333931\n', dry_run: true } },
    'openingCalendar.setClosedWeekdays': { body: { closed_weekdays: ['monday', 'sunday'] } },
    'socialEntities.list': { query: { include_archived: 'true' } },
    'socialEntities.create': { body: entityInput },
    'socialEntities.update': { body: { food_bank_network: null } },
    'donationAgreements.list': { query: { entity_id: uuid(21), status: 'expiring' } },
    'donationAgreements.create': { body: agreementInput },
    'donationAgreements.update': { body: { renewal: 'automatic_yearly' } },
    'donations.list': { query: { awaiting_reroute: 'true', offset: '0' } },
    'donations.create': { body: donationInput },
    'donations.decide': { body: decision },
    'donations.rerouteLine': { body: { destino_id: DESTINO } },
    'donations.createLink': { body: { expires_in_hours: 24 } },
    'donations.createCertificateLink': { body: { year: 2026 } },
    'donations.taxPack': { query: { year: '2026', cif: 'B12345678' } },
    'predict.settings.update': { body: { service_level: 0.9 } },
    'openingCalendar.closures.create': { body: { starts_on: '2026-12-24', ends_on: '2026-12-26', reason: 'Navidad' } },
    'inbound.sales': {
      body: { event: 'sales.recorded', payload: { source: 'tpv', sales: [{ ean: '8410000000023', quantity: 12, sold_at: '2026-11-23' }] } },
    },
    'inbound.send': {
      body: { event: 'waste.created', payload: { food_category: 'meat', weight_kg: 1, destino_id: DESTINO, source: 'erp' } },
    },
  };

  it('covers every method of every resource', () => {
    const m = client() as unknown as Record<string, object>;
    const methods = Object.keys(m)
      .filter((k) => typeof m[k] === 'object' && m[k] !== null)
      .flatMap((k) =>
        Object.getOwnPropertyNames(Object.getPrototypeOf(m[k]))
          .filter((f) => f !== 'constructor')
          .map((f) => `${k}.${f}`),
      );
    const tested = new Set(cases.map((c) => c[0]));
    // records.create/list/batch, verifyInBackground and the dossier (a ZIP) have their own tests above; the agreement
    // document's upload and download (not JSON) and a photo's upload theirs below; the tax pack's files and the signed
    // certificate's upload and download theirs in donations.test.ts.
    expect(methods.filter((name) => !tested.has(name)).sort()).toEqual([
      'compliance.dossier',
      'compliance.esrsE5Csv',
      'donationAgreements.downloadDocument',
      'donationAgreements.uploadDocument',
      'donations.signedCertificatePdf',
      'donations.taxCertificatePdf',
      'donations.taxPackCsv',
      'donations.taxPackPdf',
      'donations.uploadSignedCertificate',
      'photos.create',
      'records.batch',
      'records.create',
      'records.list',
      'records.verifyInBackground',
    ]);
  });

  it.each(cases)('%s → %s %s', async (name, method, path, call, answer, status = 200) => {
    const requests: { url: URL; body: unknown }[] = [];
    server.use(
      http[method as 'get'](`${API}${path}`, async ({ request }) => {
        const text = await request.text();
        requests.push({ url: new URL(request.url), body: text ? JSON.parse(text) : undefined });
        return HttpResponse.json(answer as object, { status });
      }),
    );
    const result = await call(client());
    expect(requests).toHaveLength(1);
    expect(Object.fromEntries(requests[0]?.url.searchParams ?? [])).toEqual(sends[name]?.query ?? {});
    expect(requests[0]?.body).toEqual(sends[name]?.body);
    const data = (answer as { data: unknown }).data;
    if (result && typeof result === 'object' && 'data' in result && 'pagination' in result)
      expect((result as { data: unknown }).data).toEqual(data);
    else expect(result).toEqual(data);
  });
});

describe('donationAgreements documents', () => {
  const pdf = new TextEncoder().encode('%PDF-1.7\nsigned\n%%EOF\n');

  it('uploads the PDF as the raw body, with Content-Type application/pdf, and answers the agreement', async () => {
    const seen: { type: string | null; bytes: Uint8Array; method: string }[] = [];
    server.use(
      http.put(`${API}/donation-agreements/${uuid(22)}/document`, async ({ request }) => {
        seen.push({
          type: request.headers.get('content-type'),
          bytes: new Uint8Array(await request.arrayBuffer()),
          method: request.method,
        });
        return HttpResponse.json(
          envelope({ id: uuid(22), status: 'active', document: { sha256: 'a'.repeat(64), size_bytes: pdf.length } }),
        );
      }),
    );
    const agreement = await client().donationAgreements.uploadDocument(uuid(22), pdf);
    expect(seen).toEqual([{ type: 'application/pdf', bytes: pdf, method: 'PUT' }]);
    expect(agreement).toMatchObject({ id: uuid(22), status: 'active', document: { sha256: 'a'.repeat(64) } });
  });

  it('retries a failed upload with the same bytes', async () => {
    const bodies: number[] = [];
    server.use(
      http.put(`${API}/donation-agreements/${uuid(22)}/document`, async ({ request }) => {
        bodies.push((await request.arrayBuffer()).byteLength);
        if (bodies.length === 1) return HttpResponse.json(errorBody(503, 'internal'), { status: 503, headers: { 'retry-after': '0' } });
        return HttpResponse.json(envelope({ id: uuid(22) }));
      }),
    );
    await client().donationAgreements.uploadDocument(uuid(22), pdf.buffer.slice(0) as ArrayBuffer);
    expect(bodies).toEqual([pdf.length, pdf.length]);
  });

  it('downloads the stored PDF as bytes, and a missing one is a NotFoundError', async () => {
    server.use(
      http.get(`${API}/donation-agreements/${uuid(22)}/document`, ({ request }) => {
        expect(request.headers.get('accept')).toBe('application/pdf');
        return new HttpResponse(pdf, { headers: { 'content-type': 'application/pdf' } });
      }),
      http.get(`${API}/donation-agreements/${uuid(23)}/document`, () => HttpResponse.json(errorBody(404, 'not_found'), { status: 404 })),
    );
    expect(await client().donationAgreements.downloadDocument(uuid(22))).toEqual(pdf);
    await expect(client().donationAgreements.downloadDocument(uuid(23))).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('photos.create', () => {
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
  const photo = {
    id: uuid(12),
    object: 'photo',
    url: `https://merma.example.com/api/v1/photos/${uuid(12)}`,
    content_type: 'image/jpeg',
    size_bytes: jpeg.length,
    sha256: 'b'.repeat(64),
    livemode: false,
    created_at: '2026-11-30T10:00:00.000Z',
  };

  it('sends the image as the raw body under its type, from bytes or a Blob, and answers the photo', async () => {
    const seen: { type: string | null; bytes: number[] }[] = [];
    server.use(
      http.post(`${API}/photos`, async ({ request }) => {
        seen.push({ type: request.headers.get('content-type'), bytes: [...new Uint8Array(await request.arrayBuffer())] });
        return HttpResponse.json(envelope(photo), { status: 201 });
      }),
    );
    expect(await client().photos.create(jpeg, { contentType: 'image/jpeg' })).toEqual(photo);
    expect(await client().photos.create(new Blob([jpeg], { type: 'image/png' }))).toEqual(photo);
    expect(seen).toEqual([
      { type: 'image/jpeg', bytes: [...jpeg] },
      { type: 'image/png', bytes: [...jpeg] },
    ]);
  });

  it('refuses bytes without a type before sending anything', () => {
    // @ts-expect-error bytes need a contentType
    expect(() => client().photos.create(jpeg)).toThrow(/contentType/);
    expect(() => client().photos.create(new Blob([jpeg]))).toThrow(/contentType/);
  });
});
