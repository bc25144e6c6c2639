import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { PHOTO_PATH_PATTERN } from '@merma/schema';
import { deadline } from '@merma/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { importProducts } from '../src/admin/service.js';
import {
  expectAccessible,
  hasChromium,
  launchPersistentChromium,
  settled,
  signedInPage,
  startBrowserSuite,
  TEST_RESULTS,
} from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { addKey, api, CAUSA_CADUCIDAD, createTenant, DESTINO_DONATION, recordAt, type TestContext } from './helpers.js';

/**
 * The kitchen station in a real browser (Debian's chromium through playwright-core, on the built
 * dashboard and its service worker) at tablet sizes, landscape 1024×768 and portrait 768×1024,
 * with axe-core: pairing with the code an owner was shown; a record in four taps and the weight;
 * bad weights answered on the keypad; 25 records made offline across a reload, then sent exactly
 * once, in tap order, with their tap times, when the sync is cut midway; an undo; a revoked
 * tablet back at the pairing screen with its waiting records kept; a donation offered, its signing
 * link's QR code, and the entity's signature seen at the station; a photo of the waste in one tap,
 * sent brought down to 1600 px as JPEG before its record, online and after a time offline.
 * Screenshots in test-results/.
 */
let t: TestContext;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, browser, base } = suite));

const SIZES = { landscape: { width: 1024, height: 768 }, portrait: { width: 768, height: 1024 } } as const;

/** A new kitchen, its owner signed in, and a pairing code the owner was shown for a device named `name`. */
async function kitchenWithCode(name = 'Cocina — cubo 1') {
  const tenant = await createTenant(t.db);
  const owner = await createMember(t.db, tenant.organizationId, 'owner');
  const http = new DashboardBrowser(t.app);
  await http.signIn(owner.email, PASSWORD);
  const scope = { establishment_id: tenant.establishmentId, livemode: false };
  const started = await http.mutate('stations.startPairing', { ...scope, name });
  return { tenant, http, scope, code: started.code as string, deviceId: started.device.id as string };
}

async function stationPage(size: keyof typeof SIZES, locale = 'es-ES'): Promise<{ context: BrowserContext; page: Page }> {
  // bypassCSP only lets axe-core be injected (the page allows no inline script).
  const context = await browser.newContext({ locale, viewport: SIZES[size], bypassCSP: true, hasTouch: true });
  return { context, page: await context.newPage() };
}

async function pairWith(page: Page, code: string) {
  await page.goto(`${base}/dashboard/station?code=${encodeURIComponent(code)}`);
  await page.getByRole('button', { name: 'Vincular', exact: true }).click();
  await page.getByRole('heading', { name: '¿Qué se tira?' }).waitFor();
}

/** One record through the four taps and the keypad: category, cause, destination, the weight's keys, Save. */
async function record(
  page: Page,
  r: { category: string; cause: string; destination: string; weight: string; stage?: string; product?: string },
) {
  await page.getByRole('button', { name: r.category, exact: true }).click();
  await page.getByRole('button', { name: r.cause, exact: true }).click();
  await page.getByRole('button', { name: r.destination, exact: true }).click();
  for (const key of r.weight) {
    await page.getByRole('button', { name: key === ',' ? 'Coma decimal' : key, exact: true }).click();
  }
  if (r.stage || r.product) {
    // The optional details, behind one button.
    await page.getByRole('button', { name: 'Más detalles' }).click();
    const dialog = page.getByRole('dialog', { name: 'Más detalles' });
    await dialog.getByRole('button', { name: 'Listo' }).waitFor();
    expect(await smallTargets(page)).toEqual([]);
    if (r.stage) await dialog.getByText(r.stage, { exact: true }).click();
    if (r.product) await dialog.getByLabel('Producto').fill(r.product);
    await dialog.getByRole('button', { name: 'Listo' }).click();
    await dialog.waitFor({ state: 'detached' });
  }
  await page.getByRole('button', { name: 'Guardar', exact: true }).click();
  await page.getByRole('heading', { name: '¿Qué se tira?' }).waitFor();
}

/** Resolves once the page's service worker is active (it has precached the app). */
const serviceWorkerReady = (page: Page) =>
  page.evaluate(async () => {
    // The page's own globals (this project's TypeScript has no DOM library).
    await (globalThis as unknown as { navigator: { serviceWorker: { ready: Promise<unknown> } } }).navigator.serviceWorker.ready;
  });

/**
 * Controls smaller than 48×48 px (WCAG 2.5.5's target size, for wet fingers): their names and sizes.
 * Measured once the page's animations have ended: mid-way through a dialog's slide-in, a 48 px option
 * measures 47.99998 px (the transform's fractions), which is not what a cook's finger meets.
 */
const smallTargets = async (page: Page) => {
  await settled(page);
  return page.evaluate(() => {
    type El = {
      tagName: string;
      control?: { type: string } | null;
      getBoundingClientRect(): { width: number; height: number };
      textContent: string | null;
      getAttribute(n: string): string | null;
    };
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): El[] } }).document;
    // A radio's label is what is tapped (a segmented control's option); a text field's label is not.
    return (
      [...doc.querySelectorAll('button, a[href], input:not([type=radio]), textarea, select, label[for]')]
        .filter((el) => el.tagName !== 'LABEL' || el.control?.type === 'radio')
        .map((el) => ({ el, box: el.getBoundingClientRect() }))
        // Smaller by at least a layout unit (1/64 px): a transform's float arithmetic gives 47.99998 for 48.
        .filter(({ box }) => box.width > 0 && box.height > 0 && Math.min(box.width, box.height) <= 48 - 1 / 64)
        .map(
          ({ el, box }) =>
            `${el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '?'} ${box.width.toFixed(2)}×${box.height.toFixed(2)}`,
        )
    );
  });
};

const stationRecords = (establishmentId: string) =>
  t.db.$queryRawUnsafe<{ weight_kg: number; occurred_at: Date; created_at: Date; source: string; voided: boolean; counts: boolean }[]>(
    `SELECT weight_kg::float8 AS weight_kg, occurred_at, created_at, source, voided, superseded_by IS NULL AS counts
     FROM records WHERE establishment_id = $1::uuid ORDER BY chain_seq`,
    establishmentId,
  );

/**
 * A PNG of `width`×`height` in four bands of colour (a tray of food, roughly), built here with zlib:
 * larger than the station's 1600 px, and not a JPEG, so what the server stores shows the tablet
 * brought it down and encoded it.
 */
function bandedPng(width: number, height: number): Buffer {
  const colours = [
    [0xe8, 0x8a, 0x2c],
    [0x5a, 0x8f, 0x3c],
    [0x8b, 0x5a, 0x2b],
    [0xf2, 0xe6, 0xc8],
  ];
  // Each row: filter byte 0, then RGB.
  const rows = colours.map((rgb) => {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
    return row;
  });
  const raw = Buffer.concat(Array.from({ length: height }, (_, y) => rows[Math.floor((y * rows.length) / height)] as Buffer));
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(data.length + 12);
    out.writeUInt32BE(data.length, 0);
    typed.copy(out, 4);
    out.writeUInt32BE(crc32(typed), data.length + 8);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = 2; // RGB
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** A JPEG's size, from its start-of-frame segment. */
function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1] as number;
    if (marker >= 0xc0 && marker <= 0xc3) return { width: bytes.readUInt16BE(at + 7), height: bytes.readUInt16BE(at + 5) };
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return undefined;
}

/**
 * The cook taps "Foto" at the weight step: one tap opens the camera (the file chooser, here), the
 * photo comes back brought down to 1600 px and is shown attached.
 */
async function attachPhoto(page: Page) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Foto', exact: true }).click();
  const opened = await chooser;
  expect(await opened.element().getAttribute('capture')).toBe('environment');
  await opened.setFiles({ name: 'bandeja.png', mimeType: 'image/png', buffer: bandedPng(2400, 1800) });
  const thumbnail = page.getByRole('img', { name: 'Foto adjunta' });
  await thumbnail.waitFor();
  await expect.poll(() => thumbnail.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1600);
}

const photoRecords = (establishmentId: string) =>
  t.db.$queryRawUnsafe<{ weight_kg: number; photo_url: string | null }[]>(
    'SELECT weight_kg::float8 AS weight_kg, photo_url FROM records WHERE establishment_id = $1::uuid ORDER BY chain_seq',
    establishmentId,
  );
const photosOf = (organizationId: string) =>
  t.db.$queryRawUnsafe<{ id: string; content_type: string; livemode: boolean; size_bytes: number }[]>(
    'SELECT id::text, content_type, livemode, size_bytes FROM photos WHERE organization_id = $1::uuid ORDER BY created_at',
    organizationId,
  );

describe.skipIf(!hasChromium)('the kitchen station in a browser (reason when skipped: no chromium)', () => {
  it('pairs with the code, records in four taps and the weight, refuses bad weights, and undoes', async () => {
    mkdirSync(TEST_RESULTS, { recursive: true });
    const kitchen = await kitchenWithCode();
    const { context, page } = await stationPage('landscape');
    try {
      // A well-formed code the server does not know is refused in the tablet's language.
      const wrong = kitchen.code.slice(0, -1) + (kitchen.code.endsWith('2') ? '3' : '2');
      await page.goto(`${base}/dashboard/station?code=${encodeURIComponent(wrong)}`);
      await page.getByRole('button', { name: 'Vincular', exact: true }).click();
      await page.getByText('Este código no vale: ya se usó, caducó o no existe.', { exact: false }).waitFor();
      await pairWith(page, kitchen.code);
      await expect(page.getByRole('heading', { name: 'Cocina — cubo 1', level: 1 }).isVisible()).resolves.toBe(true);
      // The code is spent and no longer in the address bar.
      expect(new URL(page.url()).search).toBe('');
      await expectAccessible(page, 'station, first step');
      expect(await smallTargets(page)).toEqual([]);

      await page.screenshot({ path: join(TEST_RESULTS, 'station-landscape.png') });

      // Four taps and the weight.
      const started = Date.now();
      await record(page, {
        category: 'Panadería y bollería',
        cause: 'Caducidad',
        destination: 'Donación',
        weight: '1,25',
        stage: 'Almacenamiento',
        product: 'Pan de ayer',
      });
      await page.getByText('Guardado: 1,25 kg de Panadería y bollería').waitFor();
      await page.getByText('Todos los registros enviados').waitFor();
      const [stored] = await stationRecords(kitchen.tenant.establishmentId);
      expect(stored).toMatchObject({ weight_kg: 1.25, source: `station:${kitchen.deviceId}`, counts: true });
      const [details] = await t.db.$queryRawUnsafe<{ waste_stage: string; product_name: string; causa_id: string }[]>(
        'SELECT waste_stage, product_name, causa_id::text FROM records WHERE establishment_id = $1::uuid',
        kitchen.tenant.establishmentId,
      );
      expect(details).toEqual({ waste_stage: 'storage', product_name: 'Pan de ayer', causa_id: CAUSA_CADUCIDAD });
      expect(stored?.occurred_at.getTime()).toBeGreaterThanOrEqual(started - 1000);
      await page.getByTestId('today-total').filter({ hasText: '1,3 kg en 1 registro' }).waitFor();

      // Bad weights are answered on the keypad: zero, and over the station's 500 kg.
      await page.getByRole('button', { name: 'Pescado', exact: true }).click();
      await page.getByRole('button', { name: 'Sin causa', exact: true }).click();
      await page.getByRole('button', { name: 'Vertedero', exact: true }).click();
      const save = page.getByRole('button', { name: 'Guardar', exact: true });
      expect(await save.isDisabled()).toBe(true);
      await page.getByRole('button', { name: '0', exact: true }).click();
      expect(await save.isDisabled()).toBe(true);
      for (const key of '600') await page.getByRole('button', { name: key, exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'Como máximo 500 kg desde una estación' }).waitFor();
      expect(await save.isDisabled()).toBe(true);
      await expectAccessible(page, 'station, weight refused');
      expect(await smallTargets(page)).toEqual([]);
      await page.screenshot({ path: join(TEST_RESULTS, 'station-keypad-refused.png') });
      // A weight it takes: what the README shows (docs/screenshots/station-tablet.png).
      for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Borrar el último dígito' }).click();
      for (const key of '0,85') await page.getByRole('button', { name: key === ',' ? 'Coma decimal' : key, exact: true }).click();
      expect(await save.isDisabled()).toBe(false);
      await page.screenshot({ path: join(TEST_RESULTS, 'station-tablet.png') });
      await page.getByRole('button', { name: 'Empezar de nuevo' }).click();

      // Undo the last record: a correction that voids it; nothing counts.
      await page.getByRole('button', { name: 'Deshacer el registro de 1,25 kg de Panadería y bollería' }).click();
      await page.getByText('Aún no hay registros hoy.').waitFor();
      const after = await stationRecords(kitchen.tenant.establishmentId);
      expect(after.map((r) => [r.weight_kg, r.voided, r.counts])).toEqual([
        [1.25, false, false],
        [1.25, true, false],
      ]);
      const key = api(t.app, kitchen.tenant.key);
      expect((await key.get('/api/v1/records')).json().data).toEqual([]);
      expect((await key.get('/api/v1/records/verify', { query: { full: 'true' } })).json().data).toMatchObject({ valid: true, checked: 2 });
    } finally {
      await context.close();
    }
  });

  // About 150 taps and a sync that pauses after each cut connection: a long scenario, given a
  // budget of its own (20 s on an idle machine).
  it('weighs on a scale (its id stored with the record), takes the container off as a tare, and says whether it was edible', async () => {
    const kitchen = await kitchenWithCode('Cocina — báscula');
    const { context, page } = await stationPage('landscape');
    // A USB scale on Web Serial: a CAS indicator that streams "stable, gross, 3.100 kg".
    await context.addInitScript(() => {
      const frame = new TextEncoder().encode('ST,GS,+  3.100kg\r\n');
      const port = {
        open: async () => {},
        close: async () => {},
        getInfo: () => ({ usbVendorId: 0x0eb8, usbProductId: 0x2200 }),
        // Each opening of the port reads a new stream, as a real port's does.
        get readable() {
          return new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(frame) });
        },
      };
      Object.defineProperty(Navigator.prototype, 'serial', {
        configurable: true,
        get: () => ({ getPorts: async () => [port], requestPort: async () => port }),
      });
    });
    const stored = () =>
      t.db.$queryRawUnsafe<
        {
          weight_kg: number;
          tare_kg: number | null;
          measurement_method: string | null;
          scale_id: string | null;
          estimated: boolean | null;
          edible: string | null;
        }[]
      >(
        `SELECT weight_kg::float8 AS weight_kg, tare_kg::float8 AS tare_kg, measurement_method, scale_id, estimated, edible
         FROM records WHERE establishment_id = $1::uuid ORDER BY chain_seq`,
        kitchen.tenant.establishmentId,
      );
    // The kitchen's blue bin, named on the Stations page with its empty weight.
    await t.db.$executeRawUnsafe(
      `INSERT INTO tare_presets (id, establishment_id, name, tare_kg, created_at) VALUES (gen_random_uuid(), $1::uuid, 'Cubo azul', 0.35, now())`,
      kitchen.tenant.establishmentId,
    );
    try {
      await pairWith(page, kitchen.code);
      await page.getByRole('button', { name: 'Panadería y bollería', exact: true }).click();
      await page.getByRole('button', { name: 'Caducidad', exact: true }).click();
      await page.getByRole('button', { name: 'Compost o digestato', exact: true }).click();
      await page.getByRole('button', { name: 'Leer la báscula' }).click();
      await page.getByLabel('Peso en kilos').filter({ hasText: '3,1' }).waitFor();
      // The bin, tapped by its name, weighs 0,35 kg; and what is in it could have been eaten.
      await page.getByRole('button', { name: 'Más detalles' }).click();
      const dialog = page.getByRole('dialog', { name: 'Más detalles' });
      await dialog.getByRole('button', { name: 'Cubo azul · 0,35 kg', exact: true }).click();
      await expect.poll(() => dialog.getByLabel('Tara del envase (kg)').inputValue()).toBe('0,35');
      expect(await dialog.getByRole('button', { name: 'Cubo azul · 0,35 kg', exact: true }).getAttribute('aria-pressed')).toBe('true');
      await dialog.getByText('Comestible', { exact: true }).click();
      expect(await smallTargets(page)).toEqual([]);
      await expectAccessible(page, 'station, details with tare');
      await dialog.getByRole('button', { name: 'Listo' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      await page.getByText('Guardado: 2,75 kg de Panadería y bollería').waitFor();
      await page.getByText('Todos los registros enviados').waitFor();
      expect(await stored()).toEqual([
        {
          weight_kg: 2.75,
          tare_kg: 0.35,
          measurement_method: 'direct_weighing',
          scale_id: 'usb:0eb8:2200',
          estimated: false,
          edible: 'edible',
        },
      ]);

      // Read from the scale, then typed over: the method is no longer known. A tare heavier than the weight is refused at the keypad.
      await page.getByRole('button', { name: 'Lácteos', exact: true }).click();
      await page.getByRole('button', { name: 'Caducidad', exact: true }).click();
      await page.getByRole('button', { name: 'Compost o digestato', exact: true }).click();
      await page.getByRole('button', { name: 'Leer la báscula' }).click();
      await page.getByLabel('Peso en kilos').filter({ hasText: '3,1' }).waitFor();
      for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Borrar el último dígito', exact: true }).click();
      await page.getByRole('button', { name: '1', exact: true }).click();
      await page.getByRole('button', { name: 'Más detalles' }).click();
      await dialog.getByLabel('Tara del envase (kg)').fill('1,5');
      await dialog.getByRole('button', { name: 'Listo' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'La tara pesa tanto como el peso o más' }).waitFor();
      expect(await stored()).toHaveLength(1);
      await page.getByRole('button', { name: 'Más detalles' }).click();
      await dialog.getByLabel('Tara del envase (kg)').fill('');
      await dialog.getByRole('button', { name: 'Listo' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      await page.getByText('Guardado: 1 kg de Lácteos').waitFor();
      await page.getByText('Todos los registros enviados').waitFor();
      expect((await stored())[1]).toEqual({
        weight_kg: 1,
        tare_kg: null,
        measurement_method: null,
        scale_id: null,
        estimated: null,
        edible: null,
      });
    } finally {
      await context.close();
    }
  });

  it('asks why when a food goes lower than its category went this year, and stores the reason tapped', async () => {
    const kitchen = await kitchenWithCode('Cocina — jerarquía');
    // Bread was donated this year: donation is bakery's best step.
    await recordAt(t.db, kitchen.tenant, new Date().toISOString(), { food_category: 'bakery', weight_kg: 1, destino_id: DESTINO_DONATION });
    const { context, page } = await stationPage('portrait');
    const reasons = () =>
      t.db.$queryRawUnsafe<{ food_category: string; hierarchy_reason: string | null }[]>(
        `SELECT food_category, hierarchy_reason FROM records WHERE establishment_id = $1::uuid AND source LIKE 'station:%' ORDER BY chain_seq`,
        kitchen.tenant.establishmentId,
      );
    try {
      await pairWith(page, kitchen.code);
      await page.getByRole('button', { name: 'Panadería y bollería', exact: true }).click();
      await page.getByRole('button', { name: 'Caducidad', exact: true }).click();
      await page.getByRole('button', { name: 'Compost o digestato', exact: true }).click();
      await page.getByRole('heading', { name: /^¿Por qué no a «Donación/ }).waitFor();
      await expectAccessible(page, 'station, hierarchy reason');
      expect(await smallTargets(page)).toEqual([]);
      await page.getByRole('button', { name: 'Ninguna entidad o gestor lo recoge', exact: true }).click();
      await page.getByRole('button', { name: 'Ninguna entidad o gestor lo recoge — Cambiar motivo' }).waitFor();
      await page.getByRole('button', { name: '2', exact: true }).click();
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      await page.getByText('Todos los registros enviados').waitFor();
      // Dairy went nowhere higher this year: compost asks nothing.
      await record(page, { category: 'Lácteos', cause: 'Caducidad', destination: 'Compost o digestato', weight: '1' });
      await page.getByText('Todos los registros enviados').waitFor();
      // Asked again, and left for later: stored without a reason, for the dashboard's list.
      await page.getByRole('button', { name: 'Panadería y bollería', exact: true }).click();
      await page.getByRole('button', { name: 'Caducidad', exact: true }).click();
      await page.getByRole('button', { name: 'Vertedero', exact: true }).click();
      await page.getByRole('button', { name: 'Justificar después', exact: true }).click();
      await page.getByRole('button', { name: '3', exact: true }).click();
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      await page.getByText('Guardado: 3 kg de Panadería y bollería').waitFor();
      await page.getByText('Todos los registros enviados').waitFor();
      expect(await reasons()).toEqual([
        { food_category: 'bakery', hierarchy_reason: 'no_taker' },
        { food_category: 'dairy', hierarchy_reason: null },
        { food_category: 'bakery', hierarchy_reason: null },
      ]);
    } finally {
      await context.close();
    }
  });

  it('records 25 times offline across a reload, then stores each exactly once, in tap order, when the sync is cut midway', {
    timeout: deadline(90_000),
  }, async () => {
    const kitchen = await kitchenWithCode('Obrador');
    const { context, page } = await stationPage('portrait');
    try {
      await pairWith(page, kitchen.code);
      // The service worker has the app: the page opens without the network from now on.
      await serviceWorkerReady(page);
      await context.setOffline(true);
      await page.getByText('Sin conexión: los registros se guardan en la tableta y se envían cuando vuelva la red.').waitFor();

      const wentOffline = Date.now();
      for (let i = 1; i <= 25; i++) {
        await record(page, { category: 'Lácteos', cause: 'Caducidad', destination: 'Compost o digestato', weight: String(i) });
        if (i === 12) {
          // A reload with the network down: the page comes from the service worker, the queue from IndexedDB.
          await page.reload();
          await page.getByRole('heading', { name: '¿Qué se tira?' }).waitFor();
          await page.getByTestId('waiting').filter({ hasText: '12 registros pendientes de enviar' }).waitFor();
        }
      }
      await page.getByTestId('waiting').filter({ hasText: '25 registros pendientes de enviar' }).waitFor();
      await expectAccessible(page, 'station, offline with records waiting');
      expect(await smallTargets(page)).toEqual([]);
      await page.screenshot({ path: join(TEST_RESULTS, 'station-portrait-offline.png') });
      expect(await stationRecords(kitchen.tenant.establishmentId)).toEqual([]);
      const lastTap = Date.now();

      // Back online, with the connection cut twice after the server stored a record but before the
      // tablet heard the answer: it sends those again, under the same keys.
      let posts = 0;
      await context.route('**/station/records', async (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        posts++;
        const response = await route.fetch();
        if (posts === 5 || posts === 13) return route.abort('connectionreset');
        return route.fulfill({ response });
      });
      await context.setOffline(false);
      await page.getByText('Todos los registros enviados').waitFor({ timeout: deadline(60_000) });

      const stored = await stationRecords(kitchen.tenant.establishmentId);
      expect(stored.map((r) => r.weight_kg)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      // Each with the time of its tap, not of its sending: in order, all before the network came back.
      const taps = stored.map((r) => r.occurred_at.getTime());
      expect(taps).toEqual([...taps].sort((a, b) => a - b));
      expect(taps[0]).toBeGreaterThanOrEqual(wentOffline - 1000);
      expect(taps[24]).toBeLessThanOrEqual(lastTap);
      expect(stored.every((r) => r.created_at.getTime() >= lastTap)).toBe(true);
      expect(posts).toBeGreaterThanOrEqual(27);
      // In the register and the totals once each.
      const key = api(t.app, kitchen.tenant.key);
      const listed = (await key.get('/api/v1/records')).json();
      expect(listed.meta.pagination.total).toBe(25);
      await page.getByTestId('today-total').filter({ hasText: '325 kg en 25 registros' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('a revoked tablet returns to pairing and keeps what it had not sent', async () => {
    const kitchen = await kitchenWithCode('Barra');
    const { context, page } = await stationPage('landscape', 'en-GB');
    try {
      await page.goto(`${base}/dashboard/station?code=${encodeURIComponent(kitchen.code)}`);
      // The station speaks the browser's language: English here.
      await page.getByRole('button', { name: 'Pair', exact: true }).click();
      await page.getByRole('heading', { name: 'What was thrown away?' }).waitFor();
      await expectAccessible(page, 'station in English');
      await context.setOffline(true);
      await page.getByRole('button', { name: 'Fish', exact: true }).click();
      await page.getByRole('button', { name: 'No cause', exact: true }).click();
      await page.getByRole('button', { name: 'Landfill', exact: true }).click();
      await page.getByRole('button', { name: '2', exact: true }).click();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByTestId('waiting').filter({ hasText: '1 record waiting to be sent' }).waitFor();

      await kitchen.http.mutate('stations.revoke', { ...kitchen.scope, id: kitchen.deviceId });
      await context.setOffline(false);
      await page.getByText('This tablet was unpaired from the dashboard').waitFor({ timeout: deadline(30_000) });
      expect(await stationRecords(kitchen.tenant.establishmentId)).toEqual([]);
      // Paired again (a new code) the record it kept is sent.
      const again = await kitchen.http.mutate('stations.startPairing', { ...kitchen.scope, name: 'Barra' });
      await page.getByLabel('Pairing code').fill(again.code);
      await page.getByRole('button', { name: 'Pair', exact: true }).click();
      await page.getByText('All records sent').waitFor({ timeout: deadline(30_000) });
      await settled(page);
      expect((await stationRecords(kitchen.tenant.establishmentId)).map((r) => r.weight_kg)).toEqual([2]);
    } finally {
      await context.close();
    }
  });

  it('offers the product thrown most as a quick button, and records it counted: units × its unit weight', async () => {
    const kitchen = await kitchenWithCode('Cocina — rápida');
    await importProducts(t.db, {
      org: kitchen.tenant.organizationId,
      csv: 'name;food_category;ean;unit_weight_kg\nYogur natural;dairy;8410000810004;0,125\n',
    });
    const yogurt = await t.db.product.findFirstOrThrow({ where: { organization_id: kitchen.tenant.organizationId } });
    await recordAt(t.db, kitchen.tenant, new Date(Date.now() - 86_400_000).toISOString(), {
      food_category: 'dairy',
      weight_kg: 1,
      product_id: yogurt.id,
      destino_id: '51a096c6-196d-41dd-a02a-968cbfa9803f', // compost: the dairy's best step, so nothing to justify
    });
    const { context, page } = await stationPage('landscape');
    try {
      await pairWith(page, kitchen.code);
      await page.getByRole('heading', { name: 'Lo que más se tira (por unidades)' }).waitFor();
      await page.getByRole('button', { name: 'Yogur natural', exact: true }).click();
      await page.getByRole('button', { name: 'Caducidad', exact: true }).click();
      await page.getByRole('button', { name: 'Compost o digestato', exact: true }).click();
      await page.getByRole('heading', { name: '¿Cuántas unidades de Yogur natural?' }).waitFor();
      for (const key of ['1', '2']) await page.getByRole('button', { name: key, exact: true }).click();
      // Whole units only: the decimal key is not there.
      expect(await page.getByRole('button', { name: 'Coma decimal' }).count()).toBe(0);
      expect(await page.getByLabel('Unidades').textContent()).toBe('12u.');
      await page.getByTestId('counted-weight').filter({ hasText: '= 1,5 kg' }).waitFor();
      expect(await smallTargets(page)).toEqual([]);
      await expectAccessible(page, 'station, counting units');
      await page.screenshot({ path: join(TEST_RESULTS, 'station-counting.png') });
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      // "All sent" showed before this record too: what ends the wait is the record in the register.
      await page.getByText(/^Guardado: 1,5 kg de /).waitFor();
      const stored = () =>
        t.db.$queryRawUnsafe<{ weight_kg: number; measurement_method: string; product_id: string; product_name: string }[]>(
          `SELECT weight_kg::float8 AS weight_kg, measurement_method, product_id::text, product_name FROM records
         WHERE establishment_id = $1::uuid AND source LIKE 'station:%'`,
          kitchen.tenant.establishmentId,
        );
      await expect
        .poll(stored)
        .toEqual([{ weight_kg: 1.5, measurement_method: 'counting', product_id: yogurt.id, product_name: 'Yogur natural' }]);
    } finally {
      await context.close();
    }
  });

  it('an owner pairs a tablet from the Stations page with the code or its QR, sees its last use, and unpairs it', async () => {
    const tenant = await createTenant(t.db);
    const owner = await createMember(t.db, tenant.organizationId, 'owner');
    const http = new DashboardBrowser(t.app);
    await http.signIn(owner.email, PASSWORD);
    const { context, page } = await signedInPage({ browser, base }, { http }, 'es-ES');
    const tablet = await stationPage('landscape');
    try {
      await page.goto(`${base}/dashboard/stations`);
      await page.getByRole('heading', { name: 'Estaciones', level: 1 }).waitFor();
      await page.getByText('Aún no hay estaciones').waitFor();
      await page.getByRole('button', { name: 'Vincular una estación' }).click();
      await page.getByRole('dialog').getByLabel('Nombre').fill('Cocina — cubo 2');
      await page.getByRole('button', { name: 'Mostrar el código' }).click();
      const code = (await page.getByTestId('pairing-code').textContent())?.trim() ?? '';
      expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
      await page.getByRole('img', { name: 'Código QR que abre la página de la estación con este código' }).waitFor();
      await page.getByText(`${base}/dashboard/station`).waitFor();
      await expectAccessible(page, 'stations page, pairing code shown');
      await page.screenshot({ path: join(TEST_RESULTS, 'stations-pairing-code.png') });
      await page.getByRole('button', { name: 'Hecho' }).click();

      // The tablet opens what the QR code holds (the station's address with the code) and pairs.
      await pairWith(tablet.page, code);
      await record(tablet.page, { category: 'Carne', cause: 'Sobreproducción', destination: 'Alimentación animal', weight: '3' });
      await tablet.page.getByText('Todos los registros enviados').waitFor();

      await page.reload();
      const row = page.getByRole('row', { name: /Cocina — cubo 2/ });
      await row.getByText('Activa').waitFor();
      expect(await row.getByText('Nunca').count()).toBe(0);

      // The kitchen's containers: a bucket named with its empty weight typed with a decimal comma; a
      // weight finer than the gram refused on its field.
      const containers = page.getByTestId('containers');
      await containers.getByText('Aún no hay contenedores.').waitFor();
      await containers.getByLabel('Nombre del contenedor').fill('Cubo azul');
      await containers.getByLabel('Peso en vacío (kg)').fill('0,3505');
      await containers.getByRole('button', { name: 'Añadir', exact: true }).click();
      await containers.getByRole('alert').waitFor();
      await containers.getByLabel('Peso en vacío (kg)').fill('0,35');
      await containers.getByRole('button', { name: 'Añadir', exact: true }).click();
      await containers.getByRole('cell', { name: 'Cubo azul' }).first().waitFor();
      const presets = await t.db.$queryRawUnsafe<{ name: string; tare_kg: number }[]>(
        'SELECT name, tare_kg::float8 AS tare_kg FROM tare_presets WHERE establishment_id = $1::uuid',
        tenant.establishmentId,
      );
      expect(presets).toEqual([{ name: 'Cubo azul', tare_kg: 0.35 }]);
      await expectAccessible(page, 'stations page with an active station and a container');
      await containers.screenshot({ path: join(TEST_RESULTS, 'stations-containers.png') });
      await page.getByRole('button', { name: 'Desvincular Cocina — cubo 2' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Desvincular' }).click();
      await row.getByText('Desvinculada').waitFor();
      // The tablet finds out at its next request.
      await tablet.page.reload();
      await tablet.page.getByText('Esta tableta se desvinculó desde el panel.').waitFor({ timeout: deadline(30_000) });

      // A viewer has no Stations page in the navigation.
      const viewer = await createMember(t.db, tenant.organizationId, 'viewer');
      const viewerHttp = new DashboardBrowser(t.app);
      await viewerHttp.signIn(viewer.email, PASSWORD);
      const seen = await signedInPage({ browser, base }, { http: viewerHttp }, 'es-ES');
      await seen.page.goto(`${base}/dashboard/overview`);
      await seen.page.getByRole('link', { name: 'Registros' }).waitFor();
      expect(await seen.page.getByRole('link', { name: 'Estaciones' }).count()).toBe(0);
      await seen.context.close();
    } finally {
      await tablet.context.close();
      await context.close();
    }
  });

  it('starts and completes a registration session; a record refused on sync waits for the cook to correct it', async () => {
    const kitchen = await kitchenWithCode('Desayunos');
    const { context, page } = await stationPage('landscape');
    try {
      await pairWith(page, kitchen.code);
      await page.getByRole('button', { name: 'Empezar una sesión' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Servicio de desayuno' }).waitFor();
      expect(await smallTargets(page)).toEqual([]);
      await page.getByRole('dialog').getByRole('button', { name: 'Servicio de desayuno' }).click();
      await page.getByText('Los registros van a «Servicio de desayuno»').waitFor();
      await record(page, { category: 'Panadería y bollería', cause: 'Sobreproducción', destination: 'Donación', weight: '2,5' });
      await page.getByText('Todos los registros enviados').waitFor();

      // Offline, one more record in the session; meanwhile the session is completed through the API.
      await context.setOffline(true);
      await record(page, { category: 'Panadería y bollería', cause: 'Sobreproducción', destination: 'Donación', weight: '1' });
      const [session] = await t.db.$queryRawUnsafe<{ id: string }[]>(
        'SELECT id::text FROM sessions WHERE establishment_id = $1::uuid',
        kitchen.tenant.establishmentId,
      );
      const completed = await api(t.app, kitchen.tenant.key).post(`/api/v1/sessions/${session?.id}/complete`, {});
      expect(completed.statusCode).toBe(200);
      await context.setOffline(false);
      const refused = page.getByRole('alert').filter({ hasText: '1 registro necesita tu atención' });
      await refused.waitFor({ timeout: deadline(30_000) });
      await refused.getByText('La sesión de registro ya se terminó: guarda el registro sin ella.').waitFor();
      await expectAccessible(page, 'station with a refused record');
      expect(await smallTargets(page)).toEqual([]);
      await page.screenshot({ path: join(TEST_RESULTS, 'station-refused.png') });
      // The session is gone from the station: corrected, the record goes in without it.
      await page.getByText('Los registros van a «Servicio de desayuno»').waitFor({ state: 'detached', timeout: deadline(70_000) });
      await refused.getByRole('button', { name: 'Corregir' }).click();
      await page.getByRole('button', { name: 'Sobreproducción', exact: true }).click();
      await page.getByRole('button', { name: 'Donación', exact: true }).click();
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      await refused.waitFor({ state: 'detached' });
      // Sent, and counted in the server's figures for today.
      await page.getByTestId('today-total').filter({ hasText: '3,5 kg en 2 registros' }).waitFor();
      await page.getByText('Todos los registros enviados').waitFor();
      const stored = await t.db.$queryRawUnsafe<{ weight_kg: number; session_id: string | null }[]>(
        'SELECT weight_kg::float8 AS weight_kg, session_id::text FROM records WHERE establishment_id = $1::uuid ORDER BY chain_seq',
        kitchen.tenant.establishmentId,
      );
      expect(stored).toEqual([
        { weight_kg: 2.5, session_id: session?.id },
        { weight_kg: 1, session_id: null },
      ]);
      const events = await t.db.event.findMany({ where: { establishment_id: kitchen.tenant.establishmentId, type: 'session.completed' } });
      expect(events).toHaveLength(1);
    } finally {
      await context.close();
    }
  });

  it('is installable as Chromium judges it: its manifest, icons and service worker, at the start URL', async () => {
    const profile = mkdtempSync(join(tmpdir(), 'merma-station-profile-'));
    const context = await launchPersistentChromium(profile, { viewport: SIZES.landscape, locale: 'es-ES' });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${base}/dashboard/station`);
      await page.getByRole('heading', { name: 'Vincular esta tableta' }).waitFor();
      await serviceWorkerReady(page);
      const cdp = await context.newCDPSession(page);
      const manifest = await cdp.send('Page.getAppManifest');
      expect(manifest.url).toBe(`${base}/dashboard/station.webmanifest`);
      expect(manifest.errors).toEqual([]);
      const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
      expect(installabilityErrors).toEqual([]);
      // The dashboard itself is not offered as an app: no manifest on its pages.
      await page.goto(`${base}/dashboard/sign-in`);
      await page.getByRole('button').first().waitFor();
      expect((await cdp.send('Page.getAppManifest')).url).toBe('');
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });

  it("offers today's surplus as a donation, shows the signing link's QR code, and sees the entity sign", async () => {
    mkdirSync(TEST_RESULTS, { recursive: true });
    const kitchen = await kitchenWithCode('Cocina — donaciones');
    // An agreement in force for the kitchen (its signed document stored), made through the API.
    const liveKey = (await addKey(t.db, kitchen.tenant.establishmentId, 'live')).key;
    const live = api(t.app, liveKey);
    const entity = await live.post('/api/v1/social-entities', {
      name: 'Banco de Alimentos del Barrio',
      nif: 'G28029643',
      address: 'Calle Mayor 1, Madrid',
      legal_form: 'banco_de_alimentos',
      ley_49_2002: { art2_entity: true, regime_opted_in: true },
      capacity: { cold_chain: true, vehicle: true },
    });
    expect(entity.statusCode, entity.body).toBe(201);
    const agreement = await live.post('/api/v1/donation-agreements', {
      entity_id: entity.json().data.id,
      establishment_ids: [kitchen.tenant.establishmentId],
      valid_from: '2020-01-01',
      valid_until: '2099-12-31',
      renewal: 'none',
      accepted_food_categories: ['bakery', 'fruit_veg'],
      conditions: { chilled: true, frozen: false, cooked: false, near_best_before: true },
      collection: { schedule: 'Lunes', weekdays: ['monday'], transport: 'entity' },
      storage_conditions: 'Seco',
      safety_responsibility_clause: 'Cada parte la suya',
      refusal_procedure: 'Por escrito',
    });
    expect(agreement.statusCode, agreement.body).toBe(201);
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(256, 7), Buffer.from('\n%%EOF\n')]);
    const stored = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/donation-agreements/${agreement.json().data.id}/document`,
      headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/pdf' },
      payload: pdf,
    });
    expect(stored.statusCode, stored.body).toBe(200);

    const { context, page } = await stationPage('landscape');
    try {
      await pairWith(page, kitchen.code);
      await page.getByRole('button', { name: 'Donar', exact: true }).click();
      // One agreement: no choice to make, straight to what is donated.
      await page.getByRole('heading', { name: '¿Qué se dona?' }).waitFor();
      await page.getByRole('button', { name: 'Panadería y bollería', exact: true }).click();
      await page.getByLabel('Descripción').fill('Pan de ayer');
      await page.getByLabel('Cantidad').fill('3,5');
      await expectAccessible(page, 'station, donation line');
      expect(await smallTargets(page)).toEqual([]);

      const linkAnswer = page.waitForResponse((r) => r.url().endsWith('/link') && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Ofrecer donación' }).click();
      const { url } = (await (await linkAnswer).json()).data as { url: string };
      const qr = page.getByRole('img', { name: 'Código QR del enlace de firma' });
      await qr.waitFor();
      expect((await qr.boundingBox())?.width).toBeGreaterThan(300);
      await page.getByText('Esperando la firma…').waitFor();
      await page.getByText(/^El enlace caduca el/).waitFor();
      await expectAccessible(page, 'station, donation QR code');
      expect(await smallTargets(page)).toEqual([]);
      await page.screenshot({ path: join(TEST_RESULTS, 'station-donation-qr.png') });

      // A test device's donation, as offered at the station.
      const donationId = url.slice(url.indexOf('/sign/') + 6, url.indexOf('#'));
      const [donation] = await t.db.$queryRawUnsafe<{ livemode: boolean; status: string }[]>(
        'SELECT livemode, status FROM donations WHERE id = $1::uuid',
        donationId,
      );
      expect(donation).toEqual({ livemode: false, status: 'offered' });
      const lines = await t.db.$queryRawUnsafe<{ id: string; description: string; quantity: number; unit: string }[]>(
        'SELECT id::text, description, quantity::float8 AS quantity, unit FROM donation_lines WHERE donation_id = $1::uuid',
        donationId,
      );
      expect(lines.map(({ id: _, ...l }) => l)).toEqual([{ description: 'Pan de ayer', quantity: 3.5, unit: 'kg' }]);

      // The volunteer signs on their phone, through the signing link's door.
      const signed = await t.app.inject({
        method: 'POST',
        url: `/donation-link/donations/${donationId}/signature`,
        headers: { authorization: `Bearer ${url.slice(url.indexOf('#') + 1)}`, 'content-type': 'application/json' },
        payload: JSON.stringify({
          lines: lines.map((l) => ({ line_id: l.id, decision: 'accepted' })),
          signer: { name: 'Lucía Pérez', id_document: '12345678Z', signature: { kind: 'typed', text: 'Lucía Pérez' } },
        }),
      });
      expect(signed.statusCode, signed.body).toBe(200);
      await page.getByRole('heading', { name: 'Firmado por Lucía Pérez' }).waitFor();
      await expectAccessible(page, 'station, donation signed');
      expect(await smallTargets(page)).toEqual([]);
      await page.getByRole('button', { name: 'Hecho' }).click();
      await page.getByRole('heading', { name: '¿Qué se tira?' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('attaches a photo of the waste in one tap, sends it brought down to 1600 px as JPEG, and stores the record with it', async () => {
    mkdirSync(TEST_RESULTS, { recursive: true });
    const kitchen = await kitchenWithCode('Cocina — fotos');
    const { context, page } = await stationPage('landscape');
    let uploads = 0;
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/station/photos') uploads++;
    });
    try {
      await pairWith(page, kitchen.code);
      // The page's own policy shows the photo from the tablet's memory (this context bypasses it only for axe).
      const policy = (await page.request.get(`${base}/dashboard/station`)).headers()['content-security-policy'];
      expect(policy).toMatch(/img-src [^;]*blob:/);
      await page.getByRole('button', { name: 'Panadería y bollería', exact: true }).click();
      await page.getByRole('button', { name: 'Caducidad', exact: true }).click();
      await page.getByRole('button', { name: 'Donación', exact: true }).click();
      for (const key of '2,4') await page.getByRole('button', { name: key === ',' ? 'Coma decimal' : key, exact: true }).click();
      await page.screenshot({ path: join(TEST_RESULTS, 'station-photo-button.png') });
      await attachPhoto(page);
      expect(await smallTargets(page)).toEqual([]);
      await expectAccessible(page, 'station, photo attached');
      await page.screenshot({ path: join(TEST_RESULTS, 'station-photo-landscape.png') });

      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      await page.getByText('Guardado: 2,4 kg de Panadería y bollería').waitFor();
      await expect
        .poll(() => photoRecords(kitchen.tenant.establishmentId))
        .toEqual([{ weight_kg: 2.4, photo_url: expect.stringMatching(PHOTO_PATH_PATTERN) }]);
      const [stored] = await photoRecords(kitchen.tenant.establishmentId);
      const photos = await photosOf(kitchen.tenant.organizationId);
      expect(photos).toEqual([{ id: expect.any(String), content_type: 'image/jpeg', livemode: false, size_bytes: expect.any(Number) }]);
      expect(stored?.photo_url?.endsWith(`/api/v1/photos/${photos[0]?.id}`)).toBe(true);
      expect(uploads).toBe(1);
      // What the kitchen's API key is given for the record's photo: the 2400 px PNG, as the tablet
      // sent it, a 1600 px JPEG.
      const photo = await api(t.app, kitchen.tenant.key).get(`/api/v1/photos/${photos[0]?.id}`);
      expect(photo.statusCode, photo.body).toBe(200);
      const link = new URL(photo.json().data.download_url);
      const file = await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
      expect(file.statusCode).toBe(200);
      expect(file.rawPayload.length).toBe(photos[0]?.size_bytes);
      expect(jpegSize(file.rawPayload)).toEqual({ width: 1600, height: 1200 });
      // The next record starts without it.
      expect(await page.getByRole('img', { name: 'Foto adjunta' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('keeps a record and its photo on the tablet while offline, and back online stores the record once, with its photo', async () => {
    mkdirSync(TEST_RESULTS, { recursive: true });
    const kitchen = await kitchenWithCode('Cocina — fotos sin red');
    const { context, page } = await stationPage('portrait');
    let uploaded = 0;
    page.on('response', (r) => {
      if (r.request().method() === 'POST' && new URL(r.url()).pathname === '/station/photos' && r.status() === 201) uploaded++;
    });
    try {
      await pairWith(page, kitchen.code);
      await context.setOffline(true);
      await page.getByText('Sin conexión: los registros se guardan en la tableta y se envían cuando vuelva la red.').waitFor();
      await page.getByRole('button', { name: 'Lácteos', exact: true }).click();
      await page.getByRole('button', { name: 'Caducidad', exact: true }).click();
      await page.getByRole('button', { name: 'Compost o digestato', exact: true }).click();
      await page.getByRole('button', { name: '3', exact: true }).click();
      await attachPhoto(page);
      expect(await smallTargets(page)).toEqual([]);
      await expectAccessible(page, 'station, offline, photo attached');
      await page.screenshot({ path: join(TEST_RESULTS, 'station-photo-portrait-offline.png') });
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      await page.getByTestId('waiting').filter({ hasText: '1 registro pendiente de enviar' }).waitFor();
      expect(await photoRecords(kitchen.tenant.establishmentId)).toEqual([]);
      expect(await photosOf(kitchen.tenant.organizationId)).toEqual([]);

      await context.setOffline(false);
      await page.getByText('Todos los registros enviados').waitFor({ timeout: deadline(30_000) });
      await expect
        .poll(() => photoRecords(kitchen.tenant.establishmentId))
        .toEqual([{ weight_kg: 3, photo_url: expect.stringMatching(PHOTO_PATH_PATTERN) }]);
      const [stored] = await photoRecords(kitchen.tenant.establishmentId);
      const photos = await photosOf(kitchen.tenant.organizationId);
      expect(photos).toEqual([{ id: expect.any(String), content_type: 'image/jpeg', livemode: false, size_bytes: expect.any(Number) }]);
      expect(stored?.photo_url?.endsWith(`/api/v1/photos/${photos[0]?.id}`)).toBe(true);
      expect(uploaded).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('holds a record whose photo the server refused, and sends it corrected with the photo it kept', async () => {
    const kitchen = await kitchenWithCode('Cocina — foto rechazada');
    const { context, page } = await stationPage('landscape');
    try {
      await pairWith(page, kitchen.code);
      // The server refuses the first photo it is sent (as it would bytes that are not the image they say).
      await context.route('**/station/photos', (route) =>
        route.fulfill({
          status: 415,
          contentType: 'application/json',
          body: JSON.stringify({ code: 'unsupported_media_type', error: 'Send the photo as the raw body', details: [] }),
        }),
      );
      await page.getByRole('button', { name: 'Panadería y bollería', exact: true }).click();
      await page.getByRole('button', { name: 'Caducidad', exact: true }).click();
      await page.getByRole('button', { name: 'Donación', exact: true }).click();
      await page.getByRole('button', { name: '4', exact: true }).click();
      await attachPhoto(page);
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      const refused = page.getByRole('alert').filter({ hasText: '1 registro necesita tu atención' });
      await refused.getByText('El servidor no aceptó la foto: corrige el registro y quítala o haz otra.').waitFor();
      expect(await photoRecords(kitchen.tenant.establishmentId)).toEqual([]);
      await context.unroute('**/station/photos');

      // Corrected, the record still has its photo (kept on the tablet), and goes with it.
      await refused.getByRole('button', { name: 'Corregir' }).click();
      await page.getByRole('button', { name: 'Caducidad', exact: true }).click();
      await page.getByRole('button', { name: 'Donación', exact: true }).click();
      const thumbnail = page.getByRole('img', { name: 'Foto adjunta' });
      await expect.poll(() => thumbnail.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1600);
      await page.getByRole('button', { name: 'Guardar', exact: true }).click();
      await refused.waitFor({ state: 'detached' });
      await expect
        .poll(() => photoRecords(kitchen.tenant.establishmentId))
        .toEqual([{ weight_kg: 4, photo_url: expect.stringMatching(PHOTO_PATH_PATTERN) }]);
      const [stored] = await photoRecords(kitchen.tenant.establishmentId);
      const photos = await photosOf(kitchen.tenant.organizationId);
      expect(photos).toMatchObject([{ content_type: 'image/jpeg' }]);
      expect(stored?.photo_url?.endsWith(`/api/v1/photos/${photos[0]?.id}`)).toBe(true);
    } finally {
      await context.close();
    }
  });
});
