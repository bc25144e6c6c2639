import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deadline } from '@merma/testing';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, signedInPage, startBrowserSuite, TEST_RESULTS } from './browser.js';
import { createMember, DashboardBrowser, PASSWORD } from './dashboard-client.js';
import { createTenant, DESTINO_LANDFILL, recordAt, type Tenant, type TestContext } from './helpers.js';

/**
 * The whole organisation's year on the plan page (modules/compliance/organization.ts), in a real
 * browser, in Spanish and English at 1280 and 390 px, axe-core on each: a canteen and a bakery
 * workshop of one company, each with its stage, its year's food waste and its baseline; the card
 * says each stage's figures as the API does, and the organisation's in all.
 */
let t: TestContext;
let tenant: Tenant;
let browser: Browser;
let base: string;
startBrowserSuite((suite) => ({ t, tenant, browser, base } = suite));

const WORDS = {
  es: {
    title: 'Toda la organización, por etapa',
    canteen: /Restauración y servicios de comidas.*1.*60 kg.*90 kg.*-33,3\s?%/,
    workshop: /Transformación y fabricación.*1.*150 kg.*200 kg.*-25\s?%.*-10\s?%: 180 kg/,
    total: /Organización.*2.*210 kg.*290 kg.*-27,6\s?%/,
  },
  en: {
    title: 'The whole organisation, by stage',
    canteen: /Restaurants and food services.*1.*60 kg.*90 kg.*-33\.3%/,
    workshop: /Processing and manufacturing.*1.*150 kg.*200 kg.*-25%.*-10%: 180 kg/,
    total: /Organisation.*2.*210 kg.*290 kg.*-27\.6%/,
  },
} as const;

describe.skipIf(!hasChromium)('the organisation’s figures in a browser (reason when skipped: no chromium on this machine)', () => {
  it(
    'shows each stage against its baseline and the organisation in all, in Spanish and English, at 1280 and 390 px',
    async () => {
      // A canteen (56.29) and a bakery workshop (10.71): 90 kg and 200 kg of baseline, 60 and 150 kg this year.
      const workshop = await createTenant(t.db, { organizationId: tenant.organizationId });
      await t.db.$executeRawUnsafe(
        "UPDATE establishments SET name = 'A Comedor', nace_code = '56.29' WHERE id = $1::uuid",
        tenant.establishmentId,
      );
      await t.db.$executeRawUnsafe(
        "UPDATE establishments SET name = 'B Obrador', nace_code = '10.71' WHERE id = $1::uuid",
        workshop.establishmentId,
      );
      // A minute ago by the machine's clock, which the server runs on here: this year's, on any day but the year's first minute.
      const thisYear = new Date(Date.now() - 60_000).toISOString();
      await recordAt(t.db, tenant, '2022-03-01T12:00:00.000Z', {
        food_category: 'prepared_meals',
        weight_kg: 90,
        destino_id: DESTINO_LANDFILL,
      });
      await recordAt(t.db, tenant, thisYear, { food_category: 'prepared_meals', weight_kg: 60, destino_id: DESTINO_LANDFILL });
      await recordAt(t.db, workshop, '2021-06-01T12:00:00.000Z', { food_category: 'bakery', weight_kg: 200, destino_id: DESTINO_LANDFILL });
      await recordAt(t.db, workshop, thisYear, { food_category: 'bakery', weight_kg: 150, destino_id: DESTINO_LANDFILL });
      const member = await createMember(t.db, tenant.organizationId, 'viewer');
      const http = new DashboardBrowser(t.app);
      await http.signIn(member.email, PASSWORD);
      mkdirSync(TEST_RESULTS, { recursive: true });
      for (const [lang, locale, width] of [
        ['es', 'es-ES', 1280],
        ['en', 'en-GB', 390],
        ['es', 'es-ES', 390],
        ['en', 'en-GB', 1280],
      ] as const) {
        const w = WORDS[lang];
        const { context, page } = await signedInPage({ browser, base }, { http }, locale, width);
        try {
          await page.goto(`${base}/dashboard/plan`);
          const card = page.getByTestId('organization-figures');
          await card.getByRole('heading', { name: w.title }).waitFor();
          const rows = card.getByRole('row');
          await expect.poll(() => rows.count()).toBe(4);
          expect(await rows.nth(1).textContent()).toMatch(w.workshop);
          expect(await rows.nth(2).textContent()).toMatch(w.canteen);
          expect(await rows.nth(3).textContent()).toMatch(w.total);
          await expectAccessible(page, `organisation ${lang} ${width}`);
          await card.screenshot({ path: join(TEST_RESULTS, `organization-figures-${lang}${width}.png`) });
        } finally {
          await context.close();
        }
      }
    },
    deadline(120_000),
  );
});
