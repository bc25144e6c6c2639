import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DESTINO_COMPOSTING, type Receiver, startReceiver, startTestServer, type Tenant, type TestServer } from '@merma/test-server';
import { deadline } from '@merma/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  Merma,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  verifyCheckpoint,
  verifyWebhook,
} from '../src/index.js';

/**
 * The SDK against the real built server (@merma/test-server: apps/server/dist/main.js as a child
 * process, on its embedded PGlite or on a fresh database of the PostgreSQL named by DATABASE_URL)
 * for every endpoint that exists. Endpoints still to come are covered by msw tests.
 */
const DESTINO = '6ccf7d29-f6d9-403d-a9b0-2f907f15477b';
let t: TestServer;
let tenant: Tenant;
let baseUrl: string;
let merma: Merma;

const countRecords = async (server: TestServer, establishmentId: string) =>
  (await server.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM records WHERE establishment_id = $1', [establishmentId])).rows[0]
    ?.n;

beforeAll(async () => {
  t = await startTestServer();
  tenant = await t.createTenant();
  baseUrl = t.url;
  merma = new Merma({ apiKey: tenant.key, baseUrl });
});
afterAll(() => t?.close());

describe('the SDK against the server', () => {
  it('creates, lists, iterates and verifies records', async () => {
    const created = await merma.records.create({
      food_category: 'bakery',
      weight_kg: 3.2,
      destino_id: DESTINO,
      notes: 'Pan del día anterior',
    });
    expect(created).toMatchObject({ food_category: 'bakery', weight_kg: 3.2, establishment_id: tenant.establishmentId });
    expect(created.record_hash).toMatch(/^[0-9a-f]{64}$/);
    for (let i = 0; i < 4; i++) await merma.records.create({ food_category: 'fish', weight_kg: i + 1, destino_id: DESTINO });

    const page = await merma.records.list({ limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.pagination).toMatchObject({ limit: 2, offset: 0, total: 5, has_more: true });
    const ids: string[] = [];
    for await (const r of merma.records.list({ limit: 2 })) ids.push(r.id);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    expect(ids).toContain(created.id);

    const fish = await merma.records.list({ food_category: 'fish' });
    expect(fish.data.map((r) => r.weight_kg).sort()).toEqual([1, 2, 3, 4]);
    const verified = await merma.records.verify();
    expect(verified).toMatchObject({ valid: true, checked: 5, checkpoint: { seq: 5 } });
    // The signed checkpoint checks out with the keys the server publishes, and not once altered.
    const keys = await (await fetch(`${baseUrl}/.well-known/merma-checkpoint-keys.json`)).json();
    const checkpoint = verified.checkpoint as NonNullable<typeof verified.checkpoint>;
    expect(await verifyCheckpoint(checkpoint, keys)).toBe(true);
    expect(await verifyCheckpoint({ ...checkpoint, head_hash: '0'.repeat(64) }, keys)).toBe(false);
    expect((await merma.records.checkpoints()).map((c) => c.seq)).toEqual([5]);
    expect(await merma.records.verify({ full: true })).toMatchObject({ valid: true, mode: 'full', rehashed: 5 });
  });

  it('uploads a photo, names it in a record, and downloads it by its short-lived link', async () => {
    // A kitchen of its own: the other tests count the shared tenant's records.
    const merma = new Merma({ apiKey: (await t.createTenant()).key, baseUrl });
    // A real 1×1 PNG.
    const png = Uint8Array.from(
      atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='),
      (c) => c.charCodeAt(0),
    );
    const photo = await merma.photos.create(new Blob([png], { type: 'image/png' }));
    expect(photo).toMatchObject({ object: 'photo', content_type: 'image/png', size_bytes: png.length, livemode: false });
    expect(photo.url).toMatch(new RegExp(`/api/v1/photos/${photo.id}$`));
    // The same bytes again: the same photo.
    expect((await merma.photos.create(png, { contentType: 'image/png' })).id).toBe(photo.id);
    const record = await merma.records.create({ food_category: 'bakery', weight_kg: 0.4, destino_id: DESTINO, photo_url: photo.url });
    expect(record.photo_url).toBe(photo.url);
    const shown = await merma.photos.get(photo.id);
    // The server's PUBLIC_URL is unset here: the link is read at the address the server listens on.
    const link = new URL(shown.download_url);
    const bytes = new Uint8Array(await (await fetch(`${baseUrl}${link.pathname}${link.search}`)).arrayBuffer());
    expect(bytes).toEqual(png);
    await expect(merma.photos.create(png, { contentType: 'image/jpeg' })).rejects.toBeInstanceOf(BadRequestError);
    await expect(merma.photos.get('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('uploads 2,000 records in four chunks and the chain stays valid', async () => {
    const other = await t.createTenant();
    const client = new Merma({ apiKey: other.key, baseUrl });
    const items = Array.from({ length: 2_000 }, (_, i) => ({
      food_category: 'prepared_meals' as const,
      weight_kg: i === 1_500 ? -1 : (i % 9) + 0.5,
      destino_id: i === 700 ? '00000000-0000-4000-8000-000000000000' : DESTINO,
    }));
    const progress: number[] = [];
    const result = await client.records.batch(items, { onProgress: (p) => progress.push(p.sent), idempotencyKey: 'import-1' });
    expect(result.inserted).toBe(1_998);
    expect(result.replayed).toBe(0);
    expect(result.errors.map((e) => e.index)).toEqual([700, 1_500]);
    expect(result.errors[0]?.details?.[0]?.path).toBe('destino_id');
    expect(progress.at(-1)).toBe(2_000);
    expect(progress).toHaveLength(4);
    expect(await countRecords(t, other.establishmentId)).toBe(1_998);
    expect(await client.records.verify()).toMatchObject({ valid: true, checked: 1_998 });
    // The same import run again with the same key: every chunk is replayed, nothing stored twice.
    const rerun = await client.records.batch(items, { idempotencyKey: 'import-1' });
    expect(rerun).toMatchObject({ inserted: 0, replayed: 1_998, failed: 2 });
    expect(rerun.records.every((r) => r.replayed)).toBe(true);
    expect(rerun.records.map((r) => r.id)).toEqual(result.records.map((r) => r.id));
    expect(await countRecords(t, other.establishmentId)).toBe(1_998);
  });

  it('stores once when a create is sent twice with the same key, and refuses the key for another body', async () => {
    const other = await t.createTenant();
    const client = new Merma({ apiKey: other.key, baseUrl });
    const body = { food_category: 'dairy' as const, weight_kg: 2, destino_id: DESTINO };
    const first = await client.records.create(body, { idempotencyKey: 'pos-ticket-81' });
    const again = await client.records.create(body, { idempotencyKey: 'pos-ticket-81' });
    expect(again.id).toBe(first.id);
    expect(await countRecords(t, other.establishmentId)).toBe(1);
    await expect(client.records.create({ ...body, weight_kg: 3 }, { idempotencyKey: 'pos-ticket-81' })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it('reads the catalogues and manages shifts', async () => {
    expect((await merma.destinos.list()).map((d) => d.code)).toContain('donation');
    expect((await merma.causas.list()).every((c) => c.activo)).toBe(true);
    expect(await merma.establishments.list()).toEqual([expect.objectContaining({ id: tenant.establishmentId })]);
    expect(await merma.products.list()).toEqual([]);
    const shift = await merma.shifts.create({ name: 'Noche', start_time: '22:00', end_time: '06:00' });
    expect(await merma.shifts.list()).toEqual([shift]);
  });

  it('adds, changes, deactivates and imports products with a live key; a test key only reads and previews', async () => {
    // The catalogue is shared by both modes: a live key of its own organisation changes it.
    const own = await t.createTenant({ mode: 'live' });
    const live = new Merma({ apiKey: own.key, baseUrl });
    await expect(merma.products.create({ name: 'Pan', food_category: 'bakery', ean: '4006381333931' })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
    expect(await merma.products.import({ csv: 'name,food_category,ean\nPan,bakery,4006381333931\n', dry_run: true })).toMatchObject({
      created: 1,
    });
    const pan = await live.products.create({ name: 'Pan', food_category: 'bakery', ean: '4006381333931', price: 1, unit_cost: 0.3 });
    expect(pan).toMatchObject({ name: 'Pan', price: 1, unit_cost: 0.3, active: true });
    await expect(live.products.create({ name: 'Otro', food_category: 'bakery', ean: '4006381333931' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await live.products.update(pan.id, { active: false })).toMatchObject({ active: false });
    expect(await live.products.list()).not.toContainEqual(expect.objectContaining({ id: pan.id }));
    expect(await live.products.list({ include_inactive: true })).toContainEqual(expect.objectContaining({ id: pan.id, active: false }));
    const preview = await live.products.import({ csv: 'name;food_category;ean;price\nPan;bakery;4006381333931;1,10\n', dry_run: true });
    expect(preview).toMatchObject({ dry_run: true, created: 0, updated: 1 });
    await expect(live.products.import({ csv: 'name,food_category,ean\nPan,bakery,1\n' })).rejects.toMatchObject({ status: 400 });
    await live.products.import({ csv: 'name;food_category;ean;price\nPan;bakery;4006381333931;1,10\n' });
    expect(await live.products.list()).toContainEqual(expect.objectContaining({ id: pan.id, price: 1.1, active: true }));
  });

  it("sets the production advice's service level (PUT), refuses one out of range, and goes back to the default", async () => {
    expect(await merma.predict.settings.retrieve()).toEqual({ service_level: 0.85, is_default: true, updated_at: null });
    expect(await merma.predict.settings.update({ service_level: 0.9 })).toMatchObject({ service_level: 0.9, is_default: false });
    await expect(merma.predict.settings.update({ service_level: 1.2 })).rejects.toBeInstanceOf(BadRequestError);
    expect((await merma.predict.settings.retrieve()).service_level).toBe(0.9);
    expect(await merma.predict.settings.update({ service_level: null })).toEqual({
      service_level: 0.85,
      is_default: true,
      updated_at: null,
    });
  });

  it('sets the opening calendar: closed weekdays (PUT) and a closure added and deleted', async () => {
    expect(await merma.openingCalendar.setClosedWeekdays({ closed_weekdays: ['sunday', 'monday'] })).toEqual({
      closed_weekdays: ['monday', 'sunday'],
      closures: [],
    });
    const closure = await merma.openingCalendar.closures.create({ starts_on: '2026-12-24', ends_on: '2026-12-26', reason: 'Navidad' });
    expect(closure).toMatchObject({ starts_on: '2026-12-24', ends_on: '2026-12-26', reason: 'Navidad' });
    expect((await merma.openingCalendar.retrieve()).closures).toEqual([closure]);
    expect(await merma.openingCalendar.closures.delete(closure.id)).toEqual({ id: closure.id, deleted: true });
    await expect(merma.openingCalendar.closures.delete(closure.id)).rejects.toBeInstanceOf(NotFoundError);
    await merma.openingCalendar.setClosedWeekdays({ closed_weekdays: [] });
  });

  it('offers a donation under a signed agreement, with a signing link; the entity refuses a line, which is sent elsewhere; collected and received; the tax pack of its year', async () => {
    // Social entities and agreements are the organisation's: a live key of its own changes them.
    const own = await t.createTenant({ mode: 'live' });
    const live = new Merma({ apiKey: own.key, baseUrl });
    const entity = await live.socialEntities.create({
      name: 'Banco de Alimentos',
      nif: 'G28029643',
      address: 'Calle Mayor 1, Madrid',
      legal_form: 'banco_de_alimentos',
      ley_49_2002: { art2_entity: true, regime_opted_in: true },
      capacity: { cold_chain: true, vehicle: true },
    });
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const draft = await live.donationAgreements.create({
      entity_id: entity.id,
      establishment_ids: [own.establishmentId],
      valid_from: day(-30),
      valid_until: day(365),
      renewal: 'none',
      accepted_food_categories: ['bakery', 'fruit_veg'],
      conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
      collection: { schedule: 'Martes a las 18:00', weekdays: ['tuesday'], transport: 'entity' },
      storage_conditions: 'Refrigerado entre 0 y 4 ºC',
      safety_responsibility_clause: 'El donante responde hasta la entrega.',
      refusal_procedure: 'Por escrito y con motivo.',
    });
    const pdf = new TextEncoder().encode(`%PDF-1.7\n${'x'.repeat(512)}\n%%EOF\n`);
    expect(await live.donationAgreements.uploadDocument(draft.id, pdf)).toMatchObject({ status: 'active' });

    const bread = { description: 'Pan de barra', food_category: 'bakery' as const, quantity: 4.5, unit: 'kg' as const };
    const apples = { description: 'Manzanas', food_category: 'fruit_veg' as const, quantity: 2, unit: 'kg' as const };
    const refused = await live.donations
      .create({ agreement_id: draft.id, lines: [bread, { ...apples, use_by: day(-2) }] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as BadRequestError).details.map((d) => d.path)).toEqual(['lines.1.use_by']);
    expect((await live.donations.list()).data).toEqual([]);

    const offered = await live.donations.create({ agreement_id: draft.id, notes: 'Recogida a las 18:00', lines: [bread, apples] });
    expect(offered).toMatchObject({ status: 'offered', entity_id: entity.id, livemode: true, totals: { net_kg: 6.5 } });
    const [breadLine, applesLine] = offered.lines;
    if (!breadLine || !applesLine) throw new Error('expected two lines');
    expect(await live.records.list()).toMatchObject({ pagination: { total: 2 } });
    expect(await live.donations.get(offered.id)).toEqual(offered);

    // The entity's signing link: 201, its token in the URL's fragment, 48 hours unless told.
    const made = await live.donations.createLink(offered.id).withResponse();
    expect(made.response.status).toBe(201);
    expect(made.data.url).toMatch(new RegExp(`/dashboard/sign/${offered.id}#dln_[A-Za-z0-9_-]{43}$`));
    expect(new URL(made.data.url).search).toBe('');
    const hoursLeft = (link: { expires_at: string }) => (Date.parse(link.expires_at) - Date.now()) / 3_600_000;
    expect(hoursLeft(made.data)).toBeGreaterThan(47);
    expect(hoursLeft(made.data)).toBeLessThanOrEqual(48);
    const replacement = await live.donations.createLink(offered.id, { expires_in_hours: 1 });
    expect(replacement.url).not.toBe(made.data.url);
    expect(hoursLeft(replacement)).toBeLessThanOrEqual(1);
    await expect(live.donations.createLink(offered.id, { expires_in_hours: 169 })).rejects.toBeInstanceOf(BadRequestError);

    const decided = await live.donations.decide(offered.id, {
      lines: [
        { line_id: breadLine.id, decision: 'accepted' },
        { line_id: applesLine.id, decision: 'refused', reason: 'Sin cámara libre hoy' },
      ],
    });
    expect(decided).toMatchObject({ status: 'accepted', awaiting_reroute: 1, totals: { accepted_kg: 4.5 } });
    await expect(live.donations.createLink(offered.id, {}, { maxRetries: 0 })).rejects.toBeInstanceOf(ConflictError);
    expect((await live.donations.list({ awaiting_reroute: true })).data.map((d) => d.id)).toEqual([offered.id]);
    await expect(live.donations.receive(offered.id)).rejects.toBeInstanceOf(ConflictError);

    const rerouted = await live.donations.rerouteLine(offered.id, applesLine.id, { destino_id: DESTINO_COMPOSTING, note: 'Compost' });
    expect(rerouted.awaiting_reroute).toBe(0);
    expect(rerouted.lines[1]?.rerouted).toMatchObject({ destino_id: DESTINO_COMPOSTING });
    expect((await live.donations.list({ awaiting_reroute: true })).data).toEqual([]);
    const collected = await live.donations.collect(offered.id);
    expect(collected.status).toBe('collected');
    expect((await live.donations.receive(offered.id)).status).toBe('received');
    const ids: string[] = [];
    for await (const d of live.donations.list({ status: 'received', limit: 1 })) ids.push(d.id);
    expect(ids).toEqual([offered.id]);
    expect(await live.records.verify()).toMatchObject({ valid: true });

    // The tax pack of the year it was handed over in (the day of collection in Madrid): this year.
    const handedOverOn = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid' }).format(new Date(collected.collected_at ?? ''));
    const year = Number(handedOverOn.slice(0, 4));
    const { data: pack, response } = await live.donations.taxPack({ year }).withResponse();
    expect(response.status).toBe(200);
    expect(pack).toMatchObject({ year, livemode: true, scope: 'establishment', rules: { rate_pct: 40, computed: true } });
    expect(pack.taxpayers).toHaveLength(1);
    expect(pack.taxpayers[0]?.donations).toEqual([
      expect.objectContaining({ donation_id: offered.id, entity_id: entity.id, handed_over_on: handedOverOn, lines: 1, net_kg: 4.5 }),
    ]);
    expect(pack.taxpayers[0]?.entities.map((e) => [e.entity_id, e.rate_pct])).toEqual([[entity.id, 40]]);
    await expect(live.donations.taxPack({ year: 1999 })).rejects.toMatchObject({ status: 400, details: [{ path: 'year' }] });

    // And as files: the CSV (UTF-8 with a BOM), the summary and the entity's certificate as PDFs.
    const csv = await live.donations.taxPackCsv({ year });
    expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(csv)).toContain(offered.id);
    const summary = await live.donations.taxPackPdf({ year, cif: pack.taxpayers[0]?.cif });
    expect(new TextDecoder().decode(summary.subarray(0, 5))).toBe('%PDF-');
    const certificate = await live.donations.taxCertificatePdf(entity.id, { year });
    expect(new TextDecoder().decode(certificate.subarray(0, 5))).toBe('%PDF-');
    await expect(live.donations.taxCertificatePdf(entity.id, { year: year - 1 })).rejects.toBeInstanceOf(NotFoundError);

    // The certificate the entity signed, stored and read back; its hash enters the register's
    // documents chain, so the next checkpoint signs that chain's head too (v2), which checks out.
    const signedCertificate = await live.donations.uploadSignedCertificate(entity.id, { year }, certificate);
    expect(signedCertificate).toMatchObject({ entity_id: entity.id, year, size_bytes: certificate.byteLength });
    expect(await live.donations.signedCertificatePdf(entity.id, { year })).toEqual(certificate);
    const verified = await live.records.verify();
    expect(verified).toMatchObject({ valid: true, documents: { valid: true, checked: 1 } });
    const checkpoint = verified.checkpoint as NonNullable<typeof verified.checkpoint>;
    expect(checkpoint).toMatchObject({ documents_seq: 1, documents_head_hash: verified.documents?.head_hash });
    const keys = await (await fetch(`${baseUrl}/.well-known/merma-checkpoint-keys.json`)).json();
    expect(await verifyCheckpoint(checkpoint, keys)).toBe(true);
    expect(await verifyCheckpoint({ ...checkpoint, documents_seq: 2 }, keys)).toBe(false);
    // Or signed by the entity through a link of its own.
    const certificateLink = await live.donations.createCertificateLink(entity.id, { year, expires_in_hours: 2 });
    expect(certificateLink.url).toMatch(/\/dashboard\/sign\/certificate\/[0-9a-f-]{36}#dln_[\w-]{43}$/);
    await expect(live.donations.createCertificateLink(entity.id, { year: year - 1 })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('reads analytics, benchmarking, predictions, sessions and the prevention plan', async () => {
    const analytics = await merma.analytics.get({ group_by: 'week' });
    expect(analytics.total_records).toBeGreaterThanOrEqual(5);
    expect(analytics.by_category.bakery).toBe(3.2);
    const bench = await merma.benchmarking.get();
    expect(bench).toMatchObject({ sector: 'horeca', sector_avg_kg_per_day: null, window_days: 90 });
    const forecast = await merma.predict.get({ horizon: 3 });
    expect(forecast.points).toHaveLength(3);
    expect(forecast.type).toBe('waste');

    const session = await merma.sessions.create({ name: 'Inventario' });
    await merma.records.create({ food_category: 'dairy', weight_kg: 1.5, destino_id: DESTINO, session_id: session.id });
    const completed = await merma.sessions.complete(session.id);
    expect(completed).toMatchObject({ status: 'completed', record_count: 1, total_kg: 1.5 });
    await expect(merma.sessions.complete(session.id)).rejects.toBeInstanceOf(ConflictError);
    const ids: string[] = [];
    for await (const s of merma.sessions.list({ status: 'completed' })) ids.push(s.id);
    expect(ids).toEqual([session.id]);

    const plan = await merma.preventionPlan.generate();
    expect(plan.total_records).toBeGreaterThanOrEqual(6);
    expect(plan.lang).toBe('es');
    // A test key's plan is marked as made from test data, above its title.
    expect((await merma.preventionPlan.get({ format: 'markdown' })).markdown).toMatch(
      /^> \*\*TEST DATA \/ DATOS DE PRUEBA\*\*.*\n\n# Plan de prevención/,
    );
    const english = await merma.preventionPlan.generate({ lang: 'en' });
    expect(english.lang).toBe('en');
    expect(english.by_category.find((c) => c.key === 'bakery')?.label).toBe('Bakery');
    const markdown = (await merma.preventionPlan.get({ format: 'markdown', lang: 'en' })).markdown;
    expect(markdown).toMatch(/^> \*\*TEST DATA \/ DATOS DE PRUEBA\*\*.*\n\n# Food loss and waste prevention plan/);
    expect(markdown).not.toMatch(/prepared_meals|fruit_veg|post_service/);

    // The inspection dossier: a ZIP (its local file header), the same bytes twice, both plan versions in it.
    const dossier = await merma.compliance.dossier({ lang: 'en' });
    expect(Array.from(dossier.subarray(0, 4))).toEqual([0x50, 0x4b, 0x03, 0x04]);
    expect(await merma.compliance.dossier({ lang: 'en' })).toEqual(dossier);
    expect(new TextDecoder('latin1').decode(dossier)).toMatch(/plan\/v0002-\d{4}-\d{2}-\d{2}\.md/);
  });

  it('manages webhook subscriptions and sends inbound events', async () => {
    const created = await merma.webhooks.create({ url: 'https://93.184.216.34/hooks', events: ['record.created'] });
    expect(created.secret).toMatch(/^whsec_/);
    expect((await merma.webhooks.list()).map((w) => w.id)).toEqual([created.id]);
    expect(await merma.webhooks.update(created.id, { events: ['record.created', 'session.completed'] })).toMatchObject({
      events: ['record.created', 'session.completed'],
    });
    expect((await merma.webhooks.reactivate(created.id)).status).toBe('active');
    expect(await merma.webhooks.delete(created.id)).toEqual({ id: created.id, deleted: true });
    await expect(merma.webhooks.get(created.id, { maxRetries: 0 })).rejects.toBeInstanceOf(NotFoundError);

    const event = {
      event: 'waste.created' as const,
      payload: { source: 'tpv', external_id: 'T-1', food_category: 'meat' as const, weight_kg: 1, destino_id: DESTINO },
    };
    const first = await merma.inbound.send(event);
    expect(first.status).toBe('processed');
    expect((await merma.inbound.send(event)).status).toBe('duplicate');
  });

  it("sends a POS's sales and reads the demand forecast with tomorrow's production advice", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'merma-sdk-products-'));
    const file = join(dir, 'products.csv');
    writeFileSync(file, 'name;food_category;ean;pos_ref;unit_weight_kg\nCroissant;bakery;8410000000023;CRO-1;0,06\n');
    await t.admin(['product', 'import', '--org', tenant.organizationId, '--file', file]);
    rmSync(dir, { recursive: true, force: true });

    // Days in the establishment's zone (the server's default, Europe/Madrid): near midnight UTC,
    // the UTC date is a day behind Madrid's, and the forecast counts its history in Madrid's days.
    const madrid = (ahead: number) =>
      new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid' }).format(Date.now() + ahead * 86_400_000);
    // Three weeks of day totals, then one sale line that the server cannot use.
    const day = (back: number) => madrid(-back);
    const sales = Array.from({ length: 21 }, (_, i) => ({
      product_ref: 'CRO-1',
      quantity: 30 + (i % 7) * 5,
      sold_at: day(21 - i),
      external_id: `z-${i}`,
    }));
    const sent = await merma.inbound.sales({ source: 'tpv', sales: [...sales, { ean: '8410000099997', quantity: 1, sold_at: day(1) }] });
    expect(sent).toMatchObject({ status: 'processed', record_id: null, sales: { received: 22, stored: 21, duplicates: 0 } });
    expect(sent.sales?.errors.map((e) => e.index)).toEqual([21]);
    expect((await merma.inbound.sales({ source: 'tpv', ...sales[0] } as Parameters<typeof merma.inbound.sales>[0])).status).toBe(
      'duplicate',
    );

    const demand = await merma.predict.demand({ horizon: 2 });
    expect(demand.type).toBe('demand');
    const [croissant] = demand.products;
    expect(croissant).toMatchObject({ product_name: 'Croissant', unit: 'unit', history_days: 21 });
    // Tomorrow and the day after, in the establishment's zone.
    expect(croissant?.points.map((p) => p.date)).toEqual([madrid(1), madrid(2)]);
    expect(Number.isInteger(croissant?.points[0]?.advised)).toBe(true);
    expect(await merma.predict.get({ type: 'demand', horizon: 2 })).toEqual({ ...demand, generated_at: expect.any(String) });
  });

  it('calls endpoints through client.get/post/put/delete, with an idempotency key on POST, and pins the API version', async () => {
    const destinos = await merma.get<{ id: string }[]>('/destinos');
    expect(destinos).toEqual(await merma.destinos.list());
    const body = { food_category: 'fish', weight_kg: 0.75, destino_id: DESTINO, notes: 'generic post' };
    const created = await merma.post<{ id: string; weight_kg: number }>('/records', { body, idempotencyKey: 'generic-post-1' });
    expect(created).toMatchObject({ weight_kg: 0.75 });
    // Sent again under the same key: the first answer, stored once.
    const again = await merma.post<{ id: string }>('/api/v1/records', { body, idempotencyKey: 'generic-post-1' }).withResponse();
    expect(again.data.id).toBe(created.id);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    const page = await merma.get<{ id: string }[]>('/records', { query: { limit: 200 } });
    expect(page.filter((r) => r.id === created.id)).toHaveLength(1);
    expect(await merma.put('/predict/settings', { body: { service_level: 0.8 } })).toMatchObject({ service_level: 0.8 });
    await merma.put('/predict/settings', { body: { service_level: null } });
    await expect(merma.get('/no-such-endpoint', { maxRetries: 0 })).rejects.toBeInstanceOf(NotFoundError);

    const pinned = new Merma({ apiKey: tenant.key, baseUrl, apiVersion: '2026-11-28' });
    const { response } = await pinned.causas.list().withResponse();
    expect(response.headers.get('merma-version')).toBe('2026-11-28');
    const unpinned = await merma.causas.list().withResponse();
    expect(unpinned.response.headers.get('merma-version')).toBe('2026-11-28');
    const refused = await new Merma({ apiKey: tenant.key, baseUrl, apiVersion: '1999-01-01' }).causas.list().catch((e) => e);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused).toMatchObject({ status: 400, code: 'validation_error', details: [{ path: 'Merma-Version' }] });
    // Per call, over the client's.
    await expect(pinned.destinos.list({ apiVersion: '1999-01-01' })).rejects.toBeInstanceOf(BadRequestError);
  });

  it('answers an unknown subscription id with NotFoundError', async () => {
    await expect(merma.webhooks.deliveries('00000000-0000-4000-8000-000000000001', {}, { maxRetries: 0 })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('webhook deliveries, end to end', () => {
  let hooks: TestServer;
  let receiver: Receiver;
  let client: Merma;
  beforeAll(async () => {
    hooks = await startTestServer({ worker: true, env: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    receiver = await startReceiver();
    const owner = await hooks.createTenant();
    client = new Merma({ apiKey: owner.key, baseUrl: hooks.url });
  });
  afterAll(async () => {
    await hooks?.close();
    await receiver?.close();
  });

  it("verifies the whole chain in the background, on the server's worker", async () => {
    const owner = await hooks.createTenant();
    const verifier = new Merma({ apiKey: owner.key, baseUrl: hooks.url });
    const items = Array.from({ length: 1_200 }, (_, i) => ({
      food_category: 'bakery' as const,
      weight_kg: 1 + (i % 7),
      destino_id: DESTINO,
    }));
    expect((await verifier.records.batch(items)).inserted).toBe(1_200);
    const states: string[] = [];
    const run = await verifier.records.verifyInBackground({ pollIntervalMs: 50, onProgress: (r) => states.push(r.status) });
    expect(run).toMatchObject({
      status: 'completed',
      progress: { checked: 1_200, total: 1_200 },
      result: { valid: true, checked: 1_200, rehashed: 1_200, mode: 'full', checkpoint: { seq: 1_200 } },
      error: null,
    });
    expect(states[0]).toMatch(/^(queued|running|completed)$/);
    expect(states.at(-1)).toBe('completed');
    expect(await verifier.records.getVerification(run.id)).toEqual(run);
    // Another establishment cannot read it.
    await expect(client.records.getVerification(run.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  const deliveredTo = async (count: number) => {
    await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(count), { timeout: deadline(20_000), interval: 50 });
    return receiver.received[count - 1] as (typeof receiver.received)[number];
  };
  const verify = (got: { headers: Record<string, unknown>; body: string }, secret: string | string[]) =>
    verifyWebhook({ payload: got.body, headers: got.headers as Record<string, string>, secret });

  it('sends a test event, lists it with its attempt, resends it on request, rotates the secret and recovers', async () => {
    const hook = await client.webhooks.create({ url: `${receiver.url}/merma`, events: ['record.created'] });

    const test = await client.webhooks.test(hook.id);
    expect(test).toMatchObject({ event: 'webhook.test' });
    const first = await deliveredTo(1);
    const event = await verify(first, hook.secret);
    expect(event).toMatchObject({ event: 'webhook.test', data: { subscription_id: hook.id } });

    await vi.waitFor(
      async () => {
        const page = await client.webhooks.deliveries(hook.id);
        expect(page.data[0]).toMatchObject({ id: test.id, status: 'succeeded', attempts: [{ attempt: 1, response_status: 200 }] });
      },
      { timeout: deadline(10_000), interval: 100 },
    );

    const again = await client.webhooks.retryDelivery(hook.id, test.id);
    expect(again.id).toBe(test.id);
    const second = await deliveredTo(2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(await verify(second, hook.secret)).toEqual(event);

    // Rotation: for the grace period a delivery verifies with the old secret alone and the new one alone.
    const rotated = await client.webhooks.rotateSecret(hook.id, { grace_period_seconds: 600 });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(Date.parse(rotated.previous_secret_expires_at ?? '')).toBeGreaterThan(Date.now());
    await client.records.create({ food_category: 'bakery', weight_kg: 1, destino_id: DESTINO });
    const third = await deliveredTo(3);
    expect(String(third.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [hook.secret, rotated.secret, [rotated.secret, hook.secret]]) {
      expect(await verify(third, secret)).toMatchObject({ event: 'record.created' });
    }

    // Nothing failed, so nothing to recover; a deactivated subscription must be reactivated first.
    const since = new Date(Date.now() - 3_600_000).toISOString();
    expect(await client.webhooks.recover(hook.id, { since })).toMatchObject({ recovered: 0, since });
    const deactivated = await hooks.sql.query(
      "UPDATE webhook_subscriptions SET status = 'deactivated', deactivated_at = now() WHERE id = $1",
      [hook.id],
    );
    expect(deactivated.rowCount).toBe(1);
    await expect(client.webhooks.recover(hook.id, { since }, { maxRetries: 0 })).rejects.toBeInstanceOf(ConflictError);
  });
});

describe('rate limits', () => {
  let limited: TestServer;
  let limitedUrl: string;
  beforeAll(async () => {
    limited = await startTestServer({ env: { RATE_LIMIT_GENERAL_PER_MINUTE: '2', RATE_LIMIT_WINDOW_SECONDS: '2' } });
    limitedUrl = limited.url;
  });
  afterAll(() => limited?.close());

  it('waits out a 429 as Retry-After says, then succeeds', async () => {
    const owner = await limited.createTenant();
    const client = new Merma({ apiKey: owner.key, baseUrl: limitedUrl });
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect(await client.causas.list()).toHaveLength(10);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('retries a PUT over the limit after the wait the server asks, instead of throwing', async () => {
    const owner = await limited.createTenant();
    const statuses: { method: string; status: number }[] = [];
    const client = new Merma({ apiKey: owner.key, baseUrl: limitedUrl }).on('response', (e) => statuses.push(e));
    for (const level of [0.6, 0.7, 0.8])
      expect(await client.predict.settings.update({ service_level: level })).toMatchObject({ service_level: level });
    expect(statuses.filter((s) => s.status === 429).length).toBeGreaterThanOrEqual(1);
    expect(new Set(statuses.map((s) => s.method))).toEqual(new Set(['PUT']));
    expect((await client.predict.settings.retrieve()).service_level).toBe(0.8);
  });

  it('throws RateLimitError with the reset time when the wait is longer than allowed', async () => {
    const owner = await limited.createTenant();
    const client = new Merma({ apiKey: owner.key, baseUrl: limitedUrl, maxRetryAfter: 100 });
    await client.causas.list();
    await client.causas.list();
    const err = await client.causas.list().catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.resetAt.getTime()).toBeGreaterThan(Date.now());
    expect(err.requestId).toMatch(/^req_/);
  });
});
