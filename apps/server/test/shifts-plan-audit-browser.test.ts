import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, signedInPage, startBrowserSuite, TEST_RESULTS } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { addKey, api, recordAt, type Tenant, type TestContext, validRecord } from './helpers.js';

/**
 * The plan, shifts, session and audit pages in a real browser (Debian's chromium through
 * playwright-core, on the built dashboard), in Spanish and English at 1280 and 390 px, axe-core on
 * each: the plan of test data carries its marker and the establishment's CIF on screen and in print
 * (a live plan has the CIF and no marker); a shift is edited, an unused one deleted, and one in use
 * refused and archived instead (the database says so); a registration session opens to its records;
 * the audit log is filtered from its URL and from its form.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite));

const COMBOS = [
  { lang: 'es', locale: 'es-ES', width: 1280 },
  { lang: 'en', locale: 'en-GB', width: 390 },
  { lang: 'es', locale: 'es-ES', width: 390 },
  { lang: 'en', locale: 'en-GB', width: 1280 },
] as const;

const WORDS = {
  es: {
    plan: 'Plan de prevención',
    print: 'Imprimir o guardar en PDF',
    cif: (cif: string) => `CIF: ${cif}`,
    shifts: 'Turnos y sesiones',
    edit: (name: string) => `Editar el turno ${name}`,
    name: 'Nombre',
    save: 'Guardar cambios',
    del: (name: string) => `Eliminar el turno ${name}`,
    confirmDelete: 'Eliminar',
    archive: 'Archivar',
    archived: 'Archivado',
    inUse: (name: string) => `El turno ${name} está en uso`,
    audit: 'Registro de actividad',
    actor: 'Quién (correo electrónico)',
    filter: 'Filtrar',
    clear: 'Quitar filtros',
    filters: 'Filtrar el registro de actividad',
    shiftCreated: 'Turno añadido',
    exportCsv: 'Exportar CSV',
    exportEs: 'CSV para hoja de cálculo en español (; y coma decimal)',
    range: (n: number) => `1–${n} de ${n}`,
    monday: 'Lunes',
    saveDays: 'Guardar días de cierre',
    from: 'Primer día',
    to: 'Último día',
    reason: 'Motivo (opcional)',
    addClosure: 'Añadir cierre',
    endsBefore: 'El último día no puede ser anterior al primero',
    closures: 'Cierres',
    products: 'Productos',
    addProduct: 'Añadir producto',
    productName: 'Nombre',
    category: 'Categoría',
    bakery: 'Panadería y bollería',
    ean: 'EAN / GTIN',
    price: 'Precio, € (opcional)',
    cost: 'Coste por unidad, € (opcional)',
    costAbove: 'El coste no puede superar el precio',
    createProduct: 'Crear producto',
    csvText: 'Contenido del CSV',
    badEan: 'Línea 3: «123» no es un EAN/GTIN válido (8, 12, 13 o 14 cifras con su dígito de control)',
    check: 'Comprobar',
    importN: (n: number) => `Importar ${n} productos`,
    deactivate: (name: string) => `Desactivar ${name}`,
    inactive: 'Desactivado',
    obligations: '¿Te obliga la ley?',
    measures: 'Seguimiento de las medidas',
    followUp: 'Seguimiento de: ',
    measureDialog: 'Seguimiento de la medida',
    owner: 'Responsable (opcional)',
    statusLabel: 'Estado',
    inProgress: 'En curso',
    saveFollowUp: 'Guardar',
    training: 'Formación del personal',
    trainingDate: 'Fecha',
    trainingTopic: 'Tema',
    trainingAttendees: 'Asistentes',
    recordTraining: 'Registrar',
    dossier: (year: number) => `Descargar el dosier de ${year} (ZIP)`,
    dossierReadme: 'Merma: dosier de inspección',
    streams: 'Residuos y sus gestores',
    editStream: 'Editar el residuo «Compostaje o digestato»',
    streamDialog: 'Residuo «Compostaje o digestato»',
    lerLabel: 'Código LER',
    kitchenWaste: '20 01 08 · Residuos biodegradables de cocinas y restaurantes (fracciones recogidas selectivamente)',
    manager: 'Gestor autorizado (opcional)',
    nima: 'NIMA del gestor (opcional)',
    saveStream: 'Guardar',
    companyAndPremises: 'Empresa y local',
    headcount: 'Plantilla (unidades de trabajo anual)',
    turnover: 'Volumen de negocios anual (€)',
    activity: 'Actividad (código CNAE / NACE)',
    canteen: '56.29 — Otros servicios de comidas (comedores colectivos y catering)',
    area: 'Superficie abierta al público (m²)',
    saveFacts: 'Guardar',
    obliged: 'Obligado',
    notObliged: 'No obligado',
  },
  en: {
    plan: 'Prevention plan',
    print: 'Print or save as PDF',
    cif: (cif: string) => `CIF (tax id): ${cif}`,
    shifts: 'Shifts and sessions',
    edit: (name: string) => `Edit shift ${name}`,
    name: 'Name',
    save: 'Save changes',
    del: (name: string) => `Delete shift ${name}`,
    confirmDelete: 'Delete',
    archive: 'Archive',
    archived: 'Archived',
    inUse: (name: string) => `Shift ${name} is in use`,
    audit: 'Audit log',
    actor: 'Who (e-mail)',
    filter: 'Filter',
    clear: 'Clear filters',
    filters: 'Filter the audit log',
    shiftCreated: 'Shift added',
    exportCsv: 'Export CSV',
    exportEs: 'CSV for a spreadsheet in Spanish (; and decimal comma)',
    range: (n: number) => `1–${n} of ${n}`,
    monday: 'Monday',
    saveDays: 'Save closed days',
    from: 'First day',
    to: 'Last day',
    reason: 'Reason (optional)',
    addClosure: 'Add closure',
    endsBefore: 'The last day cannot be before the first',
    closures: 'Closures',
    products: 'Products',
    addProduct: 'Add product',
    productName: 'Name',
    category: 'Category',
    bakery: 'Bakery',
    ean: 'EAN / GTIN',
    price: 'Price, € (optional)',
    cost: 'Cost per unit, € (optional)',
    costAbove: 'The cost cannot be above the price',
    createProduct: 'Create product',
    csvText: 'CSV content',
    badEan: 'Line 3: “123” is not a valid EAN/GTIN (8, 12, 13 or 14 digits with their check digit)',
    check: 'Check',
    importN: (n: number) => `Import ${n} products`,
    deactivate: (name: string) => `Deactivate ${name}`,
    inactive: 'Deactivated',
    obligations: 'Does the law oblige you?',
    measures: 'Following the measures up',
    followUp: 'Follow up: ',
    measureDialog: 'Following the measure up',
    owner: 'Owner (optional)',
    statusLabel: 'Status',
    inProgress: 'In progress',
    saveFollowUp: 'Save',
    training: 'Staff training',
    trainingDate: 'Date',
    trainingTopic: 'Topic',
    trainingAttendees: 'Attendees',
    recordTraining: 'Record',
    dossier: (year: number) => `Download the ${year} dossier (ZIP)`,
    dossierReadme: 'Merma: inspection dossier',
    streams: 'Waste streams and their managers',
    editStream: 'Edit the stream “Compostaje o digestato”',
    streamDialog: 'Stream “Compostaje o digestato”',
    lerLabel: 'LER code',
    kitchenWaste: '20 01 08 · Biodegradable kitchen and canteen waste (separately collected fractions)',
    manager: 'Authorised manager (optional)',
    nima: "Manager's NIMA (optional)",
    saveStream: 'Save',
    companyAndPremises: 'Company and premises',
    headcount: 'Staff (annual work units)',
    turnover: 'Annual turnover (€)',
    activity: 'Activity (NACE / CNAE class)',
    canteen: '56.29 — Other food service activities (canteens and contract catering)',
    area: 'Floor area open to the public (m²)',
    saveFacts: 'Save',
    obliged: 'Obliged',
    notObliged: 'Not obliged',
  },
} as const;

async function owner() {
  const member = await createMember(t.db, tenant.organizationId, 'owner');
  const http = new DashboardBrowser(t.app);
  await http.signIn(member.email, PASSWORD);
  return { ...member, http };
}

const heading = (page: Page, name: string) => page.getByRole('heading', { name, level: 1 });

type BrowserGlobals = {
  document: { getAnimations(): { playState: string }[]; querySelectorAll(selector: string): Iterable<unknown> };
  getComputedStyle(element: unknown): { opacity: string };
};

/** axe-core once the dialogs' transitions are over: a dialog half faded in has too little contrast. */
async function accessible(page: Page, what: string) {
  await page.waitForFunction(
    () => {
      const { document, getComputedStyle } = globalThis as unknown as BrowserGlobals;
      return (
        document.getAnimations().every((a) => a.playState !== 'running') &&
        [...document.querySelectorAll('.mantine-Modal-content, .mantine-Modal-overlay')].every((e) => getComputedStyle(e).opacity === '1')
      );
    },
    undefined,
    { polling: 'raf' },
  );
  await expectAccessible(page, what);
}

/** Runs `check` on a page signed in as `me`, closing it after; uncaught page errors fail the test. */
async function onPage(me: { http: DashboardBrowser }, combo: (typeof COMBOS)[number], check: (page: Page) => Promise<void>) {
  const { context, page } = await signedInPage({ browser, base }, me, combo.locale, combo.width);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  try {
    await check(page);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

describe.skipIf(!hasChromium)(
  'plan, shifts, sessions and audit pages in a browser (reason when skipped: no chromium on this machine)',
  () => {
    it(
      "the plan of test data is marked, on screen and in print, and names the establishment's CIF; a live plan is not marked",
      async () => {
        mkdirSync(TEST_RESULTS, { recursive: true });
        const me = await owner();
        const { cif } = await t.db.establishment.findUniqueOrThrow({ where: { id: tenant.establishmentId } });
        const client = api(t.app, tenant.key);
        expect((await client.post('/api/v1/records', validRecord({ weight_kg: 4 }))).statusCode).toBe(201);
        expect((await client.post('/api/v1/prevention-plan', {})).statusCode).toBe(201);
        const live = await addKey(t.db, tenant.establishmentId, 'live');
        expect((await api(t.app, live.key).post('/api/v1/records', validRecord({ weight_kg: 2 }))).statusCode).toBe(201);
        expect((await api(t.app, live.key).post('/api/v1/prevention-plan', {})).statusCode).toBe(201);

        for (const combo of COMBOS) {
          const w = WORDS[combo.lang];
          await onPage(me, combo, async (page) => {
            await page.goto(`${base}/dashboard/plan`);
            await heading(page, w.plan).waitFor();
            const doc = page.getByTestId('plan-document');
            const marker = doc.getByTestId('plan-test-marker');
            await marker.getByText('TEST DATA / DATOS DE PRUEBA', { exact: true }).waitFor();
            await doc
              .getByTestId('plan-cif')
              .filter({ hasText: w.cif(cif) })
              .waitFor();
            await accessible(page, `plan ${combo.lang} ${combo.width}`);
            // On paper: the app's frame and buttons gone, the marker and the CIF still there.
            await page.emulateMedia({ media: 'print' });
            expect(await page.getByRole('button', { name: w.print }).isVisible()).toBe(false);
            expect(await marker.isVisible()).toBe(true);
            expect(await doc.getByTestId('plan-cif').isVisible()).toBe(true);
            // The print stylesheet's heavy border: the marker survives "print backgrounds: off".
            const border = await marker.evaluate(
              (el) =>
                (globalThis as unknown as { getComputedStyle(e: unknown): { borderTopWidth: string } }).getComputedStyle(el).borderTopWidth,
            );
            expect(border).toBe('3px');
            if (combo.width === 1280)
              await page.screenshot({ path: join(TEST_RESULTS, `plan-test-data-print-${combo.lang}.png`), fullPage: true });
            await page.emulateMedia({ media: 'screen' });

            // The live plan: the CIF, no marker.
            await page.goto(`${base}/dashboard/plan?mode=live`);
            await doc
              .getByTestId('plan-cif')
              .filter({ hasText: w.cif(cif) })
              .waitFor();
            expect(await doc.getByTestId('plan-test-marker').count()).toBe(0);
            expect(await doc.textContent()).not.toContain('DATOS DE PRUEBA');
          });
        }
      },
      deadline(180_000),
    );

    it(
      'edits a shift, deletes an unused one, and archives one in use when its deletion is refused',
      async () => {
        const me = await owner();
        const scope = { establishment_id: tenant.establishmentId, livemode: false };
        for (const combo of COMBOS) {
          const w = WORDS[combo.lang];
          const tag = `${combo.lang}${combo.width}`;
          const edited = await me.http.mutate('shifts.create', {
            ...scope,
            shift: { name: `Mañana ${tag}`, start_time: '07:00', end_time: '15:00' },
          });
          const unused = await me.http.mutate('shifts.create', {
            ...scope,
            shift: { name: `Libre ${tag}`, start_time: '01:00', end_time: '02:00' },
          });
          const used = await me.http.mutate('shifts.create', {
            ...scope,
            shift: { name: `Usado ${tag}`, start_time: '03:00', end_time: '04:00' },
          });
          const record = await api(t.app, tenant.key).post('/api/v1/records', validRecord({ shift_id: used.id }));
          expect(record.statusCode).toBe(201);

          await onPage(me, combo, async (page) => {
            await page.goto(`${base}/dashboard/shifts`);
            await heading(page, w.shifts).waitFor();
            await accessible(page, `shifts ${tag}`);

            // Edit: a dialog with the shift's values; saved, the table and the database have the new ones.
            await page.getByRole('button', { name: w.edit(edited.name), exact: true }).click();
            const dialog = page.getByRole('dialog');
            const name = dialog.getByLabel(w.name, { exact: true });
            expect(await name.inputValue()).toBe(edited.name);
            await accessible(page, `edit shift ${tag}`);
            await name.fill(`Comidas ${tag}`);
            await dialog.getByRole('button', { name: w.save }).click();
            await dialog.waitFor({ state: 'detached' });
            await page.getByRole('cell', { name: `Comidas ${tag}`, exact: true }).waitFor();
            expect(await t.db.shift.findUniqueOrThrow({ where: { id: edited.id } })).toMatchObject({
              name: `Comidas ${tag}`,
              start_time: '07:00',
            });

            // Delete an unused shift: asked first, then gone from the page and the database.
            await page.getByRole('button', { name: w.del(unused.name), exact: true }).click();
            await page.getByRole('dialog').getByRole('button', { name: w.confirmDelete, exact: true }).click();
            await page.getByRole('cell', { name: unused.name, exact: true }).waitFor({ state: 'detached' });
            expect(await t.db.shift.findUnique({ where: { id: unused.id } })).toBeNull();

            // Delete a shift in use: refused, and the page offers to archive it.
            await page.getByRole('button', { name: w.del(used.name), exact: true }).click();
            await page.getByRole('dialog').getByRole('button', { name: w.confirmDelete, exact: true }).click();
            const offer = page.getByRole('dialog', { name: w.inUse(used.name) });
            await offer.waitFor();
            // The pointer rests where the first dialog's button was, over this one's: move it away so axe
            // sees the button as it stays (a hovered filled button is a shade lighter).
            await page.mouse.move(0, 0);
            await accessible(page, `shift in use ${tag}`);
            await offer.getByRole('button', { name: w.archive, exact: true }).click();
            await page.getByRole('row').filter({ hasText: used.name }).getByText(w.archived, { exact: true }).waitFor();
            const stored = await t.db.shift.findUniqueOrThrow({ where: { id: used.id } });
            expect(stored.archived_at).not.toBeNull();
            expect((await t.db.record.findUniqueOrThrow({ where: { id: record.json().data.id } })).shift_id).toBe(used.id);
            await page.screenshot({ path: join(TEST_RESULTS, `shifts-${tag}.png`), fullPage: true });
          });
        }
      },
      deadline(180_000),
    );

    it(
      'sets the closed weekdays, adds a closure (refusing one that ends before it starts) and deletes it',
      async () => {
        const me = await owner();
        const closures = () =>
          t.db.$queryRawUnsafe<{ reason: string | null; starts_on: string; ends_on: string }[]>(
            `SELECT reason, to_char(starts_on, 'YYYY-MM-DD') AS starts_on, to_char(ends_on, 'YYYY-MM-DD') AS ends_on
           FROM closures WHERE establishment_id = $1::uuid AND livemode = false`,
            tenant.establishmentId,
          );
        const weekdays = async () =>
          (
            await t.db.$queryRawUnsafe<{ weekday: number }[]>(
              'SELECT weekday FROM weekly_closed_days WHERE establishment_id = $1::uuid AND livemode = false ORDER BY weekday',
              tenant.establishmentId,
            )
          ).map((r) => Number(r.weekday));
        for (const combo of COMBOS) {
          const w = WORDS[combo.lang];
          const tag = `${combo.lang}${combo.width}`;
          await t.db.$executeRawUnsafe('DELETE FROM weekly_closed_days WHERE establishment_id = $1::uuid', tenant.establishmentId);
          await t.db.$executeRawUnsafe('DELETE FROM closures WHERE establishment_id = $1::uuid', tenant.establishmentId);

          await onPage(me, combo, async (page) => {
            await page.goto(`${base}/dashboard/shifts`);
            await heading(page, w.shifts).waitFor();
            await page.getByRole('checkbox', { name: w.monday, exact: true }).check();
            await page.getByRole('button', { name: w.saveDays }).click();
            await expect.poll(weekdays).toEqual([1]);

            // A closure whose last day is before its first: said under the field, nothing sent.
            await page.getByLabel(w.from, { exact: true }).fill('2026-12-26');
            await page.getByLabel(w.to, { exact: true }).fill('2026-12-24');
            await page.getByRole('button', { name: w.addClosure }).click();
            await page.getByText(w.endsBefore, { exact: true }).waitFor();
            expect(await closures()).toEqual([]);

            await page.getByLabel(w.to, { exact: true }).fill('2026-12-28');
            await page.getByLabel(w.reason, { exact: true }).fill(`Navidad ${tag}`);
            await page.getByRole('button', { name: w.addClosure }).click();
            const row = page.getByRole('row').filter({ hasText: `Navidad ${tag}` });
            await row.waitFor();
            expect(await closures()).toEqual([{ reason: `Navidad ${tag}`, starts_on: '2026-12-26', ends_on: '2026-12-28' }]);
            await page.mouse.move(0, 0);
            await accessible(page, `opening calendar ${tag}`);
            await page.screenshot({ path: join(TEST_RESULTS, `opening-calendar-${tag}.png`), fullPage: true });

            await row.getByRole('button').click();
            await page.getByRole('dialog').getByRole('button', { name: w.confirmDelete, exact: true }).click();
            await row.waitFor({ state: 'detached' });
            expect(await closures()).toEqual([]);
            expect(await weekdays()).toEqual([1]);
          });
        }
      },
      deadline(180_000),
    );

    it(
      'follows a plan measure up and records a staff training session on the plan page, and the next plan version keeps both',
      async () => {
        const me = await owner();
        // A plan with measures to follow up (the kitchen's records give it its hotspots).
        // Two days ago by the machine's clock, which the server runs on here: inside the plan's 12 months on any day.
        const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
        await recordAt(t.db, tenant, twoDaysAgo, { food_category: 'bakery', weight_kg: 3, waste_stage: 'storage' });
        expect((await api(t.app, tenant.key).post('/api/v1/prevention-plan', {})).statusCode).toBe(201);
        for (const combo of COMBOS) {
          const w = WORDS[combo.lang];
          const tag = `${combo.lang}${combo.width}`;
          const topic = `FEFO ${tag}`;
          await onPage(me, combo, async (page) => {
            await page.goto(`${base}/dashboard/plan`);
            const measures = page.getByTestId('plan-measures');
            await measures.getByRole('heading', { name: w.measures }).waitFor();
            await measures
              .getByRole('button', { name: new RegExp(`^${w.followUp}`) })
              .first()
              .click();
            const dialog = page.getByRole('dialog', { name: w.measureDialog });
            await dialog.getByLabel(w.owner, { exact: true }).fill(`Ana ${tag}`);
            await dialog.getByRole('combobox', { name: w.statusLabel }).click();
            await page.getByRole('option', { name: w.inProgress }).click();
            await accessible(page, `measure follow-up ${tag}`);
            await dialog.getByRole('button', { name: w.saveFollowUp, exact: true }).click();
            await dialog.waitFor({ state: 'detached' });
            await measures.getByText(`Ana ${tag}`).waitFor();

            const training = page.getByTestId('plan-training');
            await training.getByRole('heading', { name: w.training }).waitFor();
            await training.getByLabel(w.trainingDate, { exact: true }).fill(twoDaysAgo.slice(0, 10));
            await training.getByLabel(w.trainingTopic, { exact: true }).fill(topic);
            await training.getByLabel(w.trainingAttendees, { exact: true }).fill('6');
            await training.getByRole('button', { name: w.recordTraining, exact: true }).click();
            await training.getByRole('cell', { name: topic }).first().waitFor();
            await page.mouse.move(0, 0);
            await accessible(page, `plan follow-up ${tag}`);
            await page.screenshot({ path: join(TEST_RESULTS, `plan-follow-up-${tag}.png`), fullPage: true });
            await measures.screenshot({ path: join(TEST_RESULTS, `plan-measures-${tag}.png`) });
            await training.screenshot({ path: join(TEST_RESULTS, `plan-training-${tag}.png`) });
          });
        }
        const followed = await t.db.$queryRawUnsafe<{ owner: string; status: string }[]>(
          'SELECT owner, status FROM plan_measures WHERE establishment_id = $1::uuid AND livemode = false',
          tenant.establishmentId,
        );
        expect(followed).toEqual([{ owner: `Ana ${COMBOS.at(-1)?.lang}${COMBOS.at(-1)?.width}`, status: 'in_progress' }]);
        const sessions = await t.db.$queryRawUnsafe<{ topic: string }[]>(
          'SELECT topic FROM training_sessions WHERE establishment_id = $1::uuid ORDER BY created_at',
          tenant.establishmentId,
        );
        expect(sessions.map((s) => s.topic)).toEqual(COMBOS.map((c) => `FEFO ${c.lang}${c.width}`));
        const next = (await api(t.app, tenant.key).post('/api/v1/prevention-plan', {})).json().data;
        expect(next.follow_up.measures[0]).toMatchObject({ status: 'in_progress' });
        expect(next.follow_up.training).toHaveLength(COMBOS.length);
      },
      deadline(240_000),
    );

    it(
      'names each waste stream’s LER code and authorised manager on the plan page, as an owner chooses them',
      async () => {
        const me = await owner();
        for (const combo of COMBOS) {
          const w = WORDS[combo.lang];
          const tag = `${combo.lang}${combo.width}`;
          await onPage(me, combo, async (page) => {
            await page.goto(`${base}/dashboard/plan`);
            const card = page.getByTestId('waste-streams');
            await card.getByRole('heading', { name: w.streams }).waitFor();
            await card.getByRole('button', { name: w.editStream, exact: true }).click();
            const dialog = page.getByRole('dialog', { name: w.streamDialog });
            await dialog.getByRole('combobox', { name: w.lerLabel }).click();
            await page.getByRole('option', { name: w.kitchenWaste }).click();
            await dialog.getByLabel(w.manager, { exact: true }).fill(`Compostajes ${tag}`);
            await dialog.getByLabel(w.nima, { exact: true }).fill('4100098765');
            await accessible(page, `waste stream form ${tag}`);
            await dialog.getByRole('button', { name: w.saveStream, exact: true }).click();
            await dialog.waitFor({ state: 'detached' });
            await card.getByText(`Compostajes ${tag} · NIMA 4100098765`).waitFor();
            await page.mouse.move(0, 0);
            await accessible(page, `waste streams ${tag}`);
            await card.screenshot({ path: join(TEST_RESULTS, `waste-streams-${tag}.png`) });
          });
        }
        const streams = await t.db.$queryRawUnsafe<{ ler_code: string; manager_name: string; manager_nima: string }[]>(
          'SELECT ler_code, manager_name, manager_nima FROM waste_streams WHERE establishment_id = $1::uuid',
          tenant.establishmentId,
        );
        const last = COMBOS.at(-1);
        expect(streams).toEqual([
          { ler_code: '20 01 08', manager_name: `Compostajes ${last?.lang}${last?.width}`, manager_nima: '4100098765' },
        ]);
        const audit = await t.db.auditEvent.count({ where: { organization_id: tenant.organizationId, action: 'waste_stream.updated' } });
        expect(audit).toBe(COMBOS.length);
      },
      deadline(180_000),
    );

    it(
      'answers "does the law oblige you?" on the plan page, from the company and premises an owner gives',
      async () => {
        const me = await owner();
        const facts = async () =>
          (
            await t.db.$queryRawUnsafe<{ headcount: number | null; nace_code: string | null; floor_area_m2: number | null }[]>(
              `SELECT o.headcount, e.nace_code, e.floor_area_m2::float8 AS floor_area_m2 FROM establishments e
               JOIN organizations o ON o.id = e.organization_id WHERE e.id = $1::uuid`,
              tenant.establishmentId,
            )
          )[0];
        for (const combo of COMBOS) {
          const w = WORDS[combo.lang];
          const tag = `${combo.lang}${combo.width}`;
          // Each round starts from nothing given.
          await t.db.$executeRawUnsafe(
            'UPDATE organizations SET headcount = NULL, annual_turnover_eur = NULL, balance_sheet_eur = NULL WHERE id = $1::uuid',
            tenant.organizationId,
          );
          await t.db.$executeRawUnsafe(
            'UPDATE establishments SET nace_code = NULL, floor_area_m2 = NULL WHERE id = $1::uuid',
            tenant.establishmentId,
          );
          await onPage(me, combo, async (page) => {
            await page.goto(`${base}/dashboard/plan`);
            const card = page.getByTestId('obligations');
            await card.getByRole('heading', { name: w.obligations }).waitFor();
            await card.getByTestId('obligations-missing').waitFor();
            await card.getByRole('button', { name: w.companyAndPremises }).click();
            const dialog = page.getByRole('dialog');
            await dialog.getByLabel(w.headcount, { exact: true }).fill('45');
            await dialog.getByLabel(w.turnover, { exact: true }).fill(combo.lang === 'es' ? '3.200.000' : '3,200,000');
            await dialog.getByRole('combobox', { name: w.activity }).fill('5629');
            await page.getByRole('option', { name: w.canteen }).click();
            // A pasted area in the reader's decimal mark.
            await dialog.getByLabel(w.area, { exact: true }).fill(combo.lang === 'es' ? '1.450,5' : '1,450.5');
            await accessible(page, `obligations form ${tag}`);
            await dialog.getByRole('button', { name: w.saveFacts, exact: true }).click();
            await dialog.waitFor({ state: 'detached' });
            await card.getByTestId('obligation-prevention_plan').getByText(w.obliged, { exact: true }).waitFor();
            expect(await facts()).toEqual({ headcount: 45, nace_code: '56.29', floor_area_m2: 1450.5 });
            await expect.poll(() => card.getByTestId('obligations-missing').count()).toBe(0);
            await page.mouse.move(0, 0);
            await accessible(page, `obligations ${tag}`);
            await page.screenshot({ path: join(TEST_RESULTS, `obligations-${tag}.png`), fullPage: true });

            // The inspection dossier, downloaded as the browser saves it: a ZIP whose README is in the page's language.
            const year = Number((await page.getByTestId('dossier').getByRole('combobox').inputValue()) || 0);
            const [dossier] = await Promise.all([
              page.waitForEvent('download'),
              page
                .getByTestId('dossier')
                .getByRole('link', { name: w.dossier(year) })
                .click(),
            ]);
            expect(dossier.suggestedFilename()).toMatch(new RegExp(`^merma-dossier-${year}-[0-9a-f]{8}-test\\.zip$`));
            const readme = execFileSync('unzip', ['-p', await dossier.path(), 'README.txt'], { encoding: 'utf8' });
            expect(readme.split('\n')[0]).toBe(w.dossierReadme);
          });
        }
        const audit = await t.db.auditEvent.count({
          where: { organization_id: tenant.organizationId, action: { in: ['organization.size_updated', 'establishment.updated'] } },
        });
        expect(audit).toBe(2 * COMBOS.length);
      },
      deadline(240_000),
    );

    it(
      'adds a product (refusing a cost above its price), imports a CSV after its preview (refusing a bad line) and deactivates one',
      async () => {
        const me = await owner();
        const products = () => t.db.product.findMany({ where: { organization_id: tenant.organizationId }, orderBy: { ean: 'asc' } });
        for (const combo of COMBOS) {
          const w = WORDS[combo.lang];
          const tag = `${combo.lang}${combo.width}`;
          await t.db.$executeRawUnsafe('DELETE FROM products WHERE organization_id = $1::uuid', tenant.organizationId);

          await onPage(me, combo, async (page) => {
            await page.goto(`${base}/dashboard/products`);
            await heading(page, w.products).waitFor();

            // A product with a cost above its price: said under the field, nothing sent.
            await page.getByRole('button', { name: w.addProduct }).click();
            const dialog = page.getByRole('dialog');
            await dialog.getByLabel(w.productName, { exact: true }).fill(`Croissant ${tag}`);
            await dialog.getByLabel(w.category, { exact: true }).click();
            await page.getByRole('option', { name: w.bakery }).click();
            await dialog.getByLabel(w.ean, { exact: true }).fill('8410000000023');
            await dialog.getByLabel(w.price, { exact: true }).fill('1.2');
            await dialog.getByLabel(w.cost, { exact: true }).fill('2');
            await dialog.getByRole('button', { name: w.createProduct, exact: true }).click();
            await dialog.getByText(w.costAbove, { exact: true }).waitFor();
            expect(await products()).toEqual([]);
            await dialog.getByLabel(w.cost, { exact: true }).fill('0.4');
            await dialog.getByRole('button', { name: w.createProduct, exact: true }).click();
            await dialog.waitFor({ state: 'detached' });
            await page.getByRole('cell', { name: `Croissant ${tag}`, exact: true }).waitFor();
            expect((await products()).map((p) => [p.name, Number(p.price), Number(p.unit_cost)])).toEqual([[`Croissant ${tag}`, 1.2, 0.4]]);

            // A CSV with a bad line: each problem listed, nothing written; fixed, previewed, then imported.
            const text = page.getByLabel(w.csvText, { exact: true });
            await text.fill('name;food_category;ean;price\nBarra;bakery;8410000000030;0,9\nLeche;dairy;123;1\n');
            await page.getByRole('button', { name: w.check, exact: true }).click();
            await page.getByTestId('import-problems').getByText(w.badEan, { exact: true }).waitFor();
            expect(await products()).toHaveLength(1);
            await text.fill('name;food_category;ean;price\nBarra;bakery;8410000000030;0,9\nCroissant grande;bakery;8410000000023;1,5\n');
            await page.getByRole('button', { name: w.check, exact: true }).click();
            await page.getByTestId('import-preview').getByRole('cell', { name: 'Barra', exact: true }).waitFor();
            expect(await products()).toHaveLength(1);
            await page.mouse.move(0, 0);
            await accessible(page, `products ${tag}`);
            await page.screenshot({ path: join(TEST_RESULTS, `products-${tag}.png`), fullPage: true });
            await page.getByRole('button', { name: w.importN(2) }).click();
            await page.getByRole('cell', { name: 'Barra', exact: true }).first().waitFor();
            await expect
              .poll(async () => (await products()).map((p) => [p.name, Number(p.price)]))
              .toEqual([
                ['Croissant grande', 1.5],
                ['Barra', 0.9],
              ]);

            // Deactivated: marked in the list, and in the database.
            await page.getByRole('button', { name: w.deactivate('Barra'), exact: true }).click();
            await page.getByRole('row').filter({ hasText: 'Barra' }).getByText(w.inactive, { exact: true }).first().waitFor();
            expect((await products()).find((p) => p.name === 'Barra')?.deactivated_at).not.toBeNull();
          });
        }
      },
      deadline(240_000),
    );

    it(
      'opens a registration session to its records',
      async () => {
        const me = await owner();
        const client = api(t.app, tenant.key);
        const session = (await client.post('/api/v1/sessions', { name: 'Inventario de cámara' })).json().data;
        const records = [1.5, 2.25, 3].map((kg) => validRecord({ session_id: session.id, weight_kg: kg, product_name: `Producto ${kg}` }));
        expect((await client.post('/api/v1/records/batch', { records })).statusCode).toBe(200);
        expect((await client.post('/api/v1/records', validRecord({ product_name: 'Fuera de la sesión' }))).statusCode).toBe(201);

        for (const combo of COMBOS) {
          const w = WORDS[combo.lang];
          await onPage(me, combo, async (page) => {
            await page.goto(`${base}/dashboard/shifts`);
            await heading(page, w.shifts).waitFor();
            await page.getByRole('link', { name: session.name, exact: true }).click();
            await page.waitForURL(new RegExp(`/dashboard/sessions/${session.id}`));
            await heading(page, session.name).waitFor();
            await page
              .getByTestId('session-records-count')
              .filter({ hasText: w.range(3) })
              .waitFor();
            const table = page.getByRole('table');
            for (const kg of [1.5, 2.25, 3]) await table.getByRole('cell', { name: `Producto ${kg}`, exact: true }).waitFor();
            expect(await table.getByText('Fuera de la sesión').count()).toBe(0);
            await accessible(page, `session ${combo.lang} ${combo.width}`);
            await page.screenshot({ path: join(TEST_RESULTS, `session-${combo.lang}${combo.width}.png`), fullPage: true });
            // The session's records as the Spanish CSV: those three, under their Spanish headers.
            await page.getByRole('button', { name: w.exportCsv }).click();
            const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: w.exportEs }).click()]);
            const rows = parse(readFileSync(await download.path()), { bom: true, delimiter: ';', columns: true }) as Record<
              string,
              string
            >[];
            expect(rows.map((r) => r.Producto).sort()).toEqual(['Producto 1.5', 'Producto 2.25', 'Producto 3']);
            expect(new Set(rows.map((r) => r['ID sesión de registro']))).toEqual(new Set([session.id]));
            // Back to the list, in the same scope.
            await page.getByRole('main').getByRole('link', { name: w.shifts, exact: true }).click();
            await heading(page, w.shifts).waitFor();
          });
        }
      },
      deadline(180_000),
    );

    it(
      'filters the audit log from the URL and from its form',
      async () => {
        const me = await owner();
        const other = await createMember(t.db, tenant.organizationId, 'admin');
        const otherHttp = new DashboardBrowser(t.app);
        await otherHttp.signIn(other.email, PASSWORD);
        const scope = { establishment_id: tenant.establishmentId, livemode: false };
        // A shift added by each of them: entries of this action by more than one person, whatever the other tests added.
        await me.http.mutate('shifts.create', { ...scope, shift: { name: 'De la dueña', start_time: '04:00', end_time: '05:00' } });
        await otherHttp.mutate('shifts.create', { ...scope, shift: { name: 'Del admin', start_time: '05:00', end_time: '06:00' } });

        for (const combo of COMBOS) {
          const w = WORDS[combo.lang];
          await onPage(me, combo, async (page) => {
            await page.goto(`${base}/dashboard/audit?action=shift.created`);
            await heading(page, w.audit).waitFor();
            const rows = page.getByRole('table').getByRole('row');
            await rows.filter({ hasText: 'Del admin' }).waitFor();
            // Only shift creations: every body row says so.
            const actions = await page.getByRole('table').locator('tbody tr td:nth-child(3)').allTextContents();
            expect(actions.length).toBeGreaterThan(1);
            expect(new Set(actions)).toEqual(new Set([w.shiftCreated]));
            await accessible(page, `audit ${combo.lang} ${combo.width}`);

            // The actor typed in the form goes to the URL, and only their entries remain.
            const form = page.getByRole('search', { name: w.filters });
            await form.getByLabel(w.actor).fill(other.email);
            await form.getByRole('button', { name: w.filter, exact: true }).click();
            await expect.poll(() => new URL(page.url()).searchParams.get('actor')).toBe(other.email);
            expect(new URL(page.url()).searchParams.get('action')).toBe('shift.created');
            await expect.poll(() => page.getByRole('table').locator('tbody tr').count()).toBe(1);
            expect(await page.getByRole('table').locator('tbody tr td:nth-child(2)').textContent()).toBe(other.email);

            // A reload keeps the filter; clearing it empties the URL.
            await page.reload();
            expect(await form.getByLabel(w.actor).inputValue()).toBe(other.email);
            await expect.poll(() => page.getByRole('table').locator('tbody tr').count()).toBe(1);
            await form.getByRole('button', { name: w.clear }).click();
            await expect.poll(() => new URL(page.url()).searchParams.get('actor')).toBeNull();
            expect(new URL(page.url()).searchParams.get('action')).toBeNull();
            await expect.poll(async () => (await page.getByRole('table').locator('tbody tr').count()) > 1).toBe(true);
          });
        }
      },
      deadline(180_000),
    );
  },
);
